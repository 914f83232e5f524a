#!/bin/sh
# sh scripts/healthcheck.sh [--live] [health file]
# The Kubernetes probes of the workers: scripts/healthcheck.mjs without starting Node, which a
# probe every 10 to 15 s per pod would pay for (about a tenth of a second of CPU and a second
# Node in the pod's memory each time). Reads the same health file (HEALTH_FILE,
# src/shared/health-file.ts), the same way:
#   default  ready: the file is fresh, its process alive, every check ok and not stopping
#   --live   alive: the file is fresh and its process alive
# A file that names a URL (the api's /healthz) is left to healthcheck.mjs, which asks it too.
# test/deploy/health.test.ts runs both checks through the same cases.
# Exit codes: 0 healthy (one line on stdout); 1 unhealthy (one line on stderr saying why);
# 2 bad usage.
set -u
live=0
file=''
for arg in "$@"; do
  case "$arg" in
    --live) live=1 ;;
    -*) echo 'usage: sh scripts/healthcheck.sh [--live] [health file]' >&2; exit 2 ;;
    *)
      if [ -n "$file" ]; then
        echo 'usage: sh scripts/healthcheck.sh [--live] [health file]' >&2
        exit 2
      fi
      file=$arg
      ;;
  esac
done
[ -n "$file" ] || file=${HEALTH_FILE:-}
if [ -z "$file" ]; then
  echo 'healthcheck: no health file: pass its path or set HEALTH_FILE' >&2
  exit 2
fi
fail() {
  echo "healthcheck: $1" >&2
  exit 1
}
if ! record=$(cat "$file" 2>/dev/null); then
  if [ -e "$file" ]; then fail "$file is unreadable"; fi
  fail "$file is missing (not started yet, or stopped)"
fi
case "$record" in
  *'"url":'*) exec node "$(dirname "$0")/healthcheck.mjs" "$@" ;;
esac
# One value of the one-line JSON the process writes (JSON.stringify: no spaces).
value() { printf '%s' "$record" | sed -n "s/.*\"$1\":\"\{0,1\}\([^,}\"]*\).*/\1/p"; }
component=$(value component)
pid=$(value pid)
at=$(value at)
stale_after=$(value staleAfterMs)
checks=$(printf '%s' "$record" | sed -n 's/.*"checks":{\([^}]*\)}.*/\1/p' | sed 's/"//g; s/:/ /g; s/,/, /g')
case "$pid$at$stale_after" in
  '' | *[!0-9]*) fail "$file is unreadable" ;;
esac
now=$(date +%s%3N)
age=$((now - at))
if [ "$age" -gt "$stale_after" ]; then
  fail "$component stopped turning: $file was written $((age / 1000)).$((age % 1000 / 100)) s ago"
fi
kill -0 "$pid" 2>/dev/null || fail "$component (pid $pid) is gone"
if [ "$live" -eq 0 ] && [ "$(value ready)" != 'true' ]; then
  fail "$component is not ready: ${checks:-stopping}"
fi
if [ "$live" -eq 1 ]; then state=alive; else state=ready; fi
echo "healthcheck: $component (pid $pid) $state: $checks"
