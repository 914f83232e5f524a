#!/usr/bin/env bash
# ./scripts/set-webhook.sh <app_id> [channel_id]: registers the Telegram webhook of a bot's
# telegram channel (its first one when channel_id is omitted), as the admin API's
# POST /v2/bots/<app_id>/channels/<channel_id>/webhook does. See scripts/lib/set-webhook.ts.
# Exit codes: 0 registered, 2 bad usage / unknown bot or channel / a bad setting, 3 Telegram refused
# or unreachable (its cause code in the message: ENOTFOUND, ECONNREFUSED, timeout, ...), or Postgres
# or Redis could not be made usable by the set-up (bw_setup: one line with the URL and the fix).
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
bw_setup postgres redis
bw_node scripts/lib/set-webhook.ts "$@"
