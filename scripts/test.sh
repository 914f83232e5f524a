#!/usr/bin/env bash
# ./scripts/test.sh [mocha args] [test file ...]: the test suite against real Redis and Postgres.
# With no test file, the whole suite (.mocharc.json's spec), closing with "N passed, N failed".
# With test files (or folders, or globs), those only: the configured spec is left out.
# Sets itself up: dependencies (npm ci), Redis and Postgres (started or installed when missing),
# the test database, the programs the tests start themselves (redis-server, initdb, pg_ctl, ps,
# chromium) and the console's build (when missing or stale). Tests isolate themselves (own stream prefix, own schema or database).
# TEST_REDIS_URL and TEST_DATABASE_URL pick other servers. TEST_JOBS (default 2) runs that many
# test files at a time (mocha --parallel: worker processes, each running one file after another,
# its output shown as each file ends); 1 runs them one after another in one process.
# Exit codes: mocha's (0 all passed, else the number of failures); 2 a bad setting; 3 the set-up
# failed.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
export TEST_REDIS_URL="${TEST_REDIS_URL:-redis://127.0.0.1:6379}"
export TEST_DATABASE_URL="${TEST_DATABASE_URL:-postgres://postgres:postgres@localhost:5432/botwire_test}"
jobs=${TEST_JOBS:-2}
[[ $jobs =~ ^[1-9][0-9]*$ ]] || bw_die "TEST_JOBS must be a whole number from 1, not '$jobs'"
parallel=()
[[ $jobs -eq 1 ]] || parallel=(--parallel --jobs "$jobs")
bw_ensure_deps
REDIS_URL="$TEST_REDIS_URL" DATABASE_URL="$TEST_DATABASE_URL" bash scripts/lib/ensure-services.sh --tests
# The browser tests (test/browser) drive the built console.
bw_ensure_console
bw_ensure_build

# mocha adds the spec of .mocharc.json to the files named on the command line; when a file is
# named, run with a copy of the configuration that has no spec. An argument counts as a file when
# it is an existing path or a glob (an option's value, such as --grep's, is neither).
named=0 skip=0
for arg in "$@"; do
  if [[ $skip -eq 1 ]]; then skip=0; continue; fi
  case $arg in
    --grep | -g | --fgrep | -f | --reporter | -R | --reporter-option | -O | --timeout | -t | --slow | -s | --require | -r | --ui | -u | --config | --file)
      skip=1
      continue
      ;;
  esac
  if [[ $arg != -* ]] && { [[ -e $arg ]] || [[ $arg == *[*?]* ]]; }; then named=1; fi
done
if [[ $named -eq 1 ]]; then
  config=$(mktemp --suffix=.json "${TMPDIR:-/tmp}/botwire-mocharc-XXXXXX")
  trap 'rm -f "$config"' EXIT
  node -e '
    const fs = require("node:fs");
    const config = JSON.parse(fs.readFileSync(".mocharc.json", "utf8"));
    delete config.spec;
    fs.writeFileSync(process.argv[1], JSON.stringify(config));
  ' "$config"
  node_modules/.bin/mocha --config "$config" "${parallel[@]}" "$@"
else
  exec node_modules/.bin/mocha "${parallel[@]}" "$@"
fi
