#!/usr/bin/env bash
# ./scripts/migrate-stream-layout.sh (status | drain [--timeout S] | switch): moves a single-Redis
# install from the former stream key layout (one hash tag per topic) to keys tagged per partition;
# see scripts/lib/stream-layout.ts and docs/operations.md, "Stream key layout".
# First the set-up (bw_setup in scripts/lib/common.sh): Redis reachable, the env file completed.
# Exit codes: 0 done, 1 not drained (drain timed out, or switch refused), 2 bad usage or a bad
# setting, 3 Redis unreachable (one line).
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
bw_setup redis
bw_node scripts/lib/stream-layout.ts "$@"
