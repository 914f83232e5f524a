#!/usr/bin/env bash
# ./scripts/test.sh [mocha args]: the whole test suite against real Redis and Postgres.
# Sets itself up: dependencies, Redis and Postgres (started or installed when missing), the test
# database. Tests isolate themselves (own stream prefix, own schema or database).
# TEST_REDIS_URL and TEST_DATABASE_URL pick other servers.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
export TEST_REDIS_URL="${TEST_REDIS_URL:-redis://127.0.0.1:6379}"
export TEST_DATABASE_URL="${TEST_DATABASE_URL:-postgres://postgres:postgres@localhost:5432/botwire_test}"
bw_ensure_deps
REDIS_URL="$TEST_REDIS_URL" DATABASE_URL="$TEST_DATABASE_URL" bash scripts/lib/ensure-services.sh
exec node_modules/.bin/mocha "$@"
