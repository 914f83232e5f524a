# shellcheck shell=sh
# Sourced by ./scripts/run.sh and the image's entry point (scripts/container-entrypoint.sh): the
# V8 flags every component runs with. They go in front of the operator's own NODE_OPTIONS, so an
# operator's flag of the same name wins (V8 takes the last).
#   --max-semi-space-size=2  the young generation's semi-spaces at 2 MiB instead of V8's 16: Node
#                            grows them while a component starts and never gives them back, about
#                            30 MiB of every process's resident memory at rest and under traffic,
#                            for 0-8 % more CPU a turn (docs/deployment.md, "Sizing").
# The tests and benches read the line below too (productionNodeOptions in test/support/
# components.ts): keep it one quoted line.
BW_NODE_OPTIONS='--max-semi-space-size=2'

# NODE_OPTIONS for a component: ours, then the operator's.
bw_component_node_options() {
  printf '%s' "$BW_NODE_OPTIONS${NODE_OPTIONS:+ $NODE_OPTIONS}"
}
