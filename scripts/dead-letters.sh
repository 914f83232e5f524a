#!/usr/bin/env bash
# ./scripts/dead-letters.sh: see scripts/lib/topic-cli.ts and the README's "Topics" section.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
bw_setup redis
bw_node scripts/lib/topic-cli.ts dead "$@"
