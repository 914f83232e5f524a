#!/usr/bin/env bash
# ./scripts/read-message.sh: see scripts/lib/topic-cli.ts and the README's "Topics" section.
# First the set-up (bw_setup in scripts/lib/common.sh): Redis reachable, the env file completed.
# Exit codes: 0 done, 2 bad usage, refused input or a bad setting, 3 Redis unreachable (one line).
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
bw_setup redis
bw_node scripts/lib/topic-cli.ts read "$@"
