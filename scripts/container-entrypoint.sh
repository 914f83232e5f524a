#!/bin/sh
# The container image's entry point (Dockerfile): the first argument names what runs.
#   api | channel | language | flow | retriver | indexer   that component, as the container's
#                       main process (SIGTERM drains it; a second signal forces)
#   migrate             knex migrate:latest on DATABASE_URL (run it before starting a new version;
#                       safe to run from several pods at once)
#   stream-layout status|drain [--timeout S]|switch
#                       the stream key layout migration (scripts/lib/stream-layout.ts;
#                       docs/operations.md, "Stream key layout"); exit codes as its header says
#   healthcheck [--live]  sh scripts/healthcheck.sh (HEALTHCHECK, Kubernetes probes; the api's file
#                       names its URL, which it hands to scripts/healthcheck.mjs)
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
    # Every pod's init container migrates (deploy/k8s): knex runs them one at a time on its lock
    # row, but first runs on an empty database race to create knex's own tables and the losers
    # fail ("already exists"); run once more, and the tables are there. A migration that fails
    # fails the same way twice (each run is one transaction).
    node --import tsx node_modules/knex/bin/cli.js --knexfile knexfile.ts migrate:latest "$@" ||
      exec node --import tsx node_modules/knex/bin/cli.js --knexfile knexfile.ts migrate:latest "$@"
    ;;
  stream-layout)
    exec node --import tsx scripts/lib/stream-layout.ts "$@"
    ;;
  healthcheck)
    exec sh scripts/healthcheck.sh "$@"
    ;;
  *)
    echo "usage: <image> api|channel|language|flow|retriver|indexer|migrate|stream-layout <step>|healthcheck [--live]" >&2
    exit 2
    ;;
esac
