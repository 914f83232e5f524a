#!/bin/sh
# The container image's entry point (Dockerfile): the first argument names what runs.
#   api | channel | language | flow | retriver | indexer   that component, as the container's
#                       main process (SIGTERM drains it; a second signal forces)
#   migrate             the migrations on DATABASE_URL (run it before starting a new version;
#                       several pods at once run them one after another: dist/scripts/lib/migrate.js)
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
    NODE_OPTIONS=$(bw_component_node_options "$command")
    export NODE_OPTIONS
    exec node "dist/src/$command/main.js" "$@"
    ;;
  migrate)
    # Every pod's init container migrates (deploy/k8s), one at a time (its header says how).
    exec node dist/scripts/lib/migrate.js
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
