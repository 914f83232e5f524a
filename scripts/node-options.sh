# shellcheck shell=sh
# Sourced by ./scripts/run.sh and the image's entry point (scripts/container-entrypoint.sh): the
# V8 flags each component runs with. They go in front of the operator's own NODE_OPTIONS, so an
# operator's flag of the same name wins (V8 takes the last).
#   --max-semi-space-size=2  the workers' young generation at 2 MiB a semi-space instead of V8's
#                            16: Node grows it while a component starts and never gives it back,
#                            about 30 MiB of every process's resident memory at rest and under
#                            traffic, for CPU within the noise at the rates measured.
#   --max-semi-space-size=8  the api's: it holds every callback in flight (tens at once under
#                            load); at 2 MiB its garbage collector took a third of its time at
#                            saturation, and at 8 its CPU per callback there is 0.57-0.63 of that,
#                            the same as at 16 (docs/deployment.md, "Sizing").
# The tests and benches ask bw_component_node_options too (productionNodeOptions in
# test/support/components.ts).
BW_NODE_OPTIONS='--max-semi-space-size=2'
BW_API_NODE_OPTIONS='--max-semi-space-size=8'

# NODE_OPTIONS for component $1: ours, then the operator's.
bw_component_node_options() {
  case "${1:?bw_component_node_options: name the component}" in
    api) set -- "$BW_API_NODE_OPTIONS" ;;
    *) set -- "$BW_NODE_OPTIONS" ;;
  esac
  printf '%s' "$1${NODE_OPTIONS:+ $NODE_OPTIONS}"
}
