#!/usr/bin/env bash
# ./scripts/create-migration.sh "<description>": adds migrations/<timestamp>_<description>.ts
# from the stub (scripts/lib/migration-stub.ts).
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
[ $# -eq 1 ] && [ -n "$1" ] || bw_die 'usage: ./scripts/create-migration.sh "<description>"'
name=$(printf '%s' "$1" | tr '[:upper:]' '[:lower:]' | sed -E 's/[^a-z0-9]+/_/g; s/^_+|_+$//g')
[ -n "$name" ] || bw_die "the description needs at least one letter or digit"
bw_ensure_deps
bw_node node_modules/knex/bin/cli.js --knexfile knexfile.ts migrate:make "$name" -x ts
