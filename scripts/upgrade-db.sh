#!/usr/bin/env bash
# ./scripts/upgrade-db.sh: the migrations (knex migrate:latest) on the database of DATABASE_URL
# (environment, then the env file $ENV_FILE or .env-dev), one process at a time, as the image's
# `migrate` runs them (scripts/lib/migrate.ts).
# First the set-up run.sh does (scripts/lib/common.sh bw_setup): dependencies, the env file
# completed, Redis and Postgres reachable (started or installed when local), the database created.
# Exit codes: 0 migrated (or already up to date); 1 a migration failed (one line with knex's
# reason; DEBUG=1 prints knex's whole output); 2 a bad setting; 3 Postgres could not be made
# usable, or Redis (one line: the URL with its password masked, what was tried, the command that
# fixes it).
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
bw_setup redis postgres

log=$(mktemp "${TMPDIR:-/tmp}/botwire-migrate-XXXXXX")
trap 'rm -f "$log"' EXIT
rc=0
ENV_FILE="$(bw_env_file)" bash -c '
  source scripts/lib/common.sh
  bw_node scripts/lib/migrate.ts
' upgrade-db 2>"$log" || rc=$?
if [ "$rc" -eq 0 ]; then
  cat "$log" >&2
  exit 0
fi
if [ "${DEBUG:-}" = 1 ]; then cat "$log" >&2; fi
# knex prints the error, then its stack (lines starting "    at"), sometimes twice: keep the first
# line that says something.
reason=$(grep -v -e '^[[:space:]]*$' -e '^[[:space:]]*at ' -e '^Using environment' "$log" | head -n 1 | cut -c1-400)
bw_say "error: knex migrate:latest failed: ${reason:-exit $rc}; DEBUG=1 ./scripts/upgrade-db.sh shows knex's whole output"
exit 1
