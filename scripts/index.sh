#!/usr/bin/env bash
# ./scripts/index.sh [--bot <app_id>] [--shared] <collection> <file ...>: uploads the files to the collection through the
# running api (POST /v2/collections/<name>/files), re-indexes the collection (every document
# uploaded to it, these included: POST /v2/collections/<name>/index) and follows the job with a
# progress bar until it ends. --bot makes the collection that bot's, --shared lets every bot read it.
# The api is BOTWIRE_API_URL, else http://127.0.0.1:<API_PORT>; the key is ADMIN_API_KEY (env file).
# Exit codes: 0 every file indexed; 1 a file failed (each reason printed) or the job failed;
# 2 bad usage or a file refused by the upload; 3 the api could not be reached.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
bw_setup
bw_node scripts/lib/index-cli.ts "$@"
