#!/usr/bin/env bash
# ./scripts/set-webhook.sh <app_id> [channel_id]: registers the Telegram webhook of a bot's
# telegram channel (its first one when channel_id is omitted), as the admin API's
# POST /v2/bots/<app_id>/channels/<channel_id>/webhook does. See scripts/lib/set-webhook.ts.
# Exit codes: 0 registered, 2 bad usage / unknown bot or channel, 3 Telegram refused or unreachable.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
bw_setup postgres redis
bw_node scripts/lib/set-webhook.ts "$@"
