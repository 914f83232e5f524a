#!/usr/bin/env bash
# ./scripts/rotate-credentials-key.sh: re-seals every stored channel credential with the current
# CREDENTIALS_KEY, opening each with it or a key of CREDENTIALS_KEY_PREVIOUS (settings from the
# environment, then the env file $ENV_FILE or .env-dev). One statement per channel: safe to
# interrupt and to run again. Prints how many were re-encrypted, already current and failed.
# The procedure: docs/operations.md, "Rotating CREDENTIALS_KEY". See scripts/lib/rotate-credentials-key.ts.
# Exit codes: 0 all current, 1 some channels open with no configured key, 2 bad usage or settings,
# 3 Postgres unreachable (the set-up, bw_setup in scripts/lib/common.sh, says so in one line).
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
bw_setup postgres
bw_node scripts/lib/rotate-credentials-key.ts "$@"
