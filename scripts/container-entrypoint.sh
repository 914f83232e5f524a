#!/bin/sh
# The container image's entry point (Dockerfile): the first argument names what runs.
#   api | channel | language | flow | retriver | indexer   that component, as the container's
#                       main process (SIGTERM drains it; a second signal forces)
#   migrate             knex migrate:latest on DATABASE_URL (run it before starting a new version;
#                       safe to run from several pods at once)
#   stream-layout status|drain [--timeout S]|switch
#                       the stream key layout migration (dist/scripts/lib/stream-layout.js;
#                       docs/operations.md, "Stream key layout"); exit codes as its header says
#   healthcheck [--live]  sh scripts/healthcheck.sh (HEALTHCHECK, Kubernetes probes; the api's file
#                       names its URL, which it hands to scripts/healthcheck.mjs)
# Everything runs compiled (dist/, npm run build; a checkout builds it first with npm run build);
# the components with the V8 flags of scripts/node-options.sh in front of NODE_OPTIONS.
# Settings come from the environment (docs/deployment.md); there is no env file in the image.
# Exit codes: the command's own; 2 an unknown command.
set -eu
cd "$(dirname "$0")/.."
. scripts/node-options.sh
command=${1:-}
[ "$#" -eq 0 ] || shift
case "$command" in
  api | channel | language | flow | retriver | indexer)
    # exec: node is the process the runtime signals, with no shell in between.
    NODE_OPTIONS=$(bw_component_node_options)
    export NODE_OPTIONS
    exec node "dist/src/$command/main.js" "$@"
    ;;
  migrate)
    # Every pod's init container migrates (deploy/k8s): knex runs them one at a time on its lock
    # row. The others fail, either on an empty database racing to create knex's own tables (a
    # second CREATE TABLE of one name fails "already exists" or, when both are in flight at once,
    # on Postgres's own catalog index: "violates unique constraint "pg_type_typname_nsp_index"")
    # or on the lock held by the one that runs (MigrationLocked). So a failure that says one of
    # these is run again, up to 10 times, 2 s apart. Any other failure ends it at once: a failed
    # migration fails the same way again (each run is one transaction).
    tries=1
    while :; do
      out=$(node node_modules/knex/bin/cli.js --knexfile dist/knexfile.js migrate:latest "$@" 2>&1) &&
        { printf '%s\n' "$out"; exit 0; }
      printf '%s\n' "$out" >&2
      case "$out" in
        *MigrationLocked* | *"already exists"* | *'violates unique constraint "pg_'*)
          [ "$tries" -lt 10 ] || exit 1
          ;;
        *) exit 1 ;;
      esac
      tries=$((tries + 1))
      echo "migrate: another pod is migrating; running again in 2 s ($tries of 10)" >&2
      sleep 2
    done
    ;;
  stream-layout)
    exec node dist/scripts/lib/stream-layout.js "$@"
    ;;
  healthcheck)
    exec sh scripts/healthcheck.sh "$@"
    ;;
  *)
    echo "usage: <image> api|channel|language|flow|retriver|indexer|migrate|stream-layout <step>|healthcheck [--live]" >&2
    exit 2
    ;;
esac
