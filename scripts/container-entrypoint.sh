#!/bin/sh
# The container image's entry point (Dockerfile): the first argument names what runs.
#   api | channel | language | flow | retriver | indexer   that component, as the container's
#                       main process (SIGTERM drains it; a second signal forces)
#   migrate             knex migrate:latest on DATABASE_URL (run it before starting a new version)
#   healthcheck [--live]  node scripts/healthcheck.mjs (HEALTHCHECK, Kubernetes probes)
# Settings come from the environment (docs/deployment.md); there is no env file in the image.
# Exit codes: the command's own; 2 an unknown command.
set -eu
cd "$(dirname "$0")/.."
command=${1:-}
[ "$#" -eq 0 ] || shift
case "$command" in
  api | channel | language | flow | retriver | indexer)
    # exec: node is the process the runtime signals, with no shell in between.
    exec node --import tsx "src/$command/main.ts" "$@"
    ;;
  migrate)
    exec node --import tsx node_modules/knex/bin/cli.js --knexfile knexfile.ts migrate:latest "$@"
    ;;
  healthcheck)
    exec node scripts/healthcheck.mjs "$@"
    ;;
  *)
    echo "usage: <image> api|channel|language|flow|retriver|indexer|migrate|healthcheck [--live]" >&2
    exit 2
    ;;
esac
