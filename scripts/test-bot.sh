#!/usr/bin/env bash
# ./scripts/test-bot.sh <app_id> [--version N|current|draft] [--junit FILE]: runs the bot's
# conversation tests through the running api (POST /v2/bots/<app_id>/tests/run) against its draft
# (the default; the current version when it has none) or a version, prints each test and its
# failures, and writes JUnit XML to FILE for CI systems (docs/flows.md, "Conversation tests").
# The api is BOTWIRE_API_URL, else http://127.0.0.1:<API_PORT>; the key is BOTWIRE_TOKEN (a
# personal token), else ADMIN_API_KEY (env file).
# Exit codes: 0 every test passed; 1 a test failed; 2 bad usage or a request refused; 3 the api
# could not be reached, or could not run the tests (no flow process).
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
bw_setup
bw_node scripts/lib/test-bot-cli.ts "$@"
