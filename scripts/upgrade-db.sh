#!/usr/bin/env bash
# ./scripts/upgrade-db.sh: `knex migrate:latest` on the database of DATABASE_URL (environment,
# then the env file $ENV_FILE or .env-dev). Extra arguments go to knex.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
bw_ensure_deps
bw_node node_modules/knex/bin/cli.js --knexfile knexfile.ts migrate:latest "$@"
