#!/usr/bin/env bash
# ./scripts/run.sh [-e <env file>] [component ...]
# Starts the named components (all built ones when none), each its own process, configured from
# the env file (default .env-dev, created from .env-dev.template when missing). Installs the
# dependencies, makes Redis and Postgres reachable and migrates the database first.
# Logs are prefixed by component. SIGINT/SIGTERM are forwarded and the components drain; a second
# signal kills them. If one component exits by itself, the others are stopped too.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
# `wait -n -p` (bash 5.1) tells which component exited.
if [ "${BASH_VERSINFO[0]}" -lt 5 ] || { [ "${BASH_VERSINFO[0]}" -eq 5 ] && [ "${BASH_VERSINFO[1]}" -lt 1 ]; }; then
  bw_die "run.sh needs bash 5.1 or newer (this is $BASH_VERSION)"
fi

ALL_COMPONENTS=(api channel language flow retriver indexer)

usage() {
  cat >&2 <<USAGE
usage: ./scripts/run.sh [-e <env file>] [component ...]
components: ${ALL_COMPONENTS[*]} (built: $(built_components | tr '\n' ' '))
USAGE
}

built_components() {
  local c
  for c in "${ALL_COMPONENTS[@]}"; do
    [ -f "src/$c/main.ts" ] && printf '%s\n' "$c"
  done
  return 0
}

env_file=.env-dev
while getopts ":e:h" opt; do
  case "$opt" in
    e) env_file="$OPTARG" ;;
    h) usage; exit 0 ;;
    :) usage; bw_die "-$OPTARG needs a value" ;;
    *) usage; bw_die "unknown option -$OPTARG" ;;
  esac
done
shift $((OPTIND - 1))

mapfile -t built < <(built_components)
if [ $# -eq 0 ]; then
  components=("${built[@]}")
else
  components=("$@")
fi
for c in "${components[@]}"; do
  if [[ ! " ${ALL_COMPONENTS[*]} " =~ [[:space:]]${c}[[:space:]] ]]; then
    usage; bw_die "unknown component '$c'"
  fi
  if [ ! -f "src/$c/main.ts" ]; then
    usage; bw_die "component '$c' is not built yet"
  fi
done
[ ${#components[@]} -gt 0 ] || bw_die "no component is built yet"
if [ "$env_file" != .env-dev ] && [ ! -f "$env_file" ]; then
  bw_die "env file '$env_file' not found"
fi
export ENV_FILE="$env_file"

bw_ensure_deps
bash scripts/lib/ensure-services.sh "$env_file"
bash scripts/upgrade-db.sh >&2

# Each component gets its own session (setsid) so a terminal's Ctrl-C reaches only run.sh, which
# forwards one SIGTERM; the log prefixer ignores the signals and ends when its component does.
pids=()
stopping=0
status=0
stop_all() {
  local signal=$1
  local pid
  for pid in "${pids[@]}"; do kill "-$signal" "$pid" 2>/dev/null || true; done
}
on_signal() {
  if [ "$stopping" = 1 ]; then
    bw_say "run.sh: second signal, killing"
    stop_all KILL
    exit 130
  fi
  stopping=1
  bw_say "run.sh: stopping ${components[*]}"
  stop_all TERM
}
# Set before the first component starts: a signal (or the terminal closing) at any point stops
# every component already running instead of leaving it orphaned.
trap on_signal INT TERM HUP

SETSID=(); command -v setsid >/dev/null 2>&1 && SETSID=(setsid)
declare -A names=()
for c in "${components[@]}"; do
  [ "$stopping" = 0 ] || break
  "${SETSID[@]}" node --env-file="$env_file" --import tsx "src/$c/main.ts" \
    > >(trap '' INT TERM HUP; exec sed -u "s/^/[$c] /") 2>&1 &
  pids+=("$!")
  names[$!]=$c
done
bw_say "run.sh: started ${components[*]} (pids ${pids[*]}); Ctrl-C to stop"


alive=("${pids[@]}")
while [ "${#alive[@]}" -gt 0 ]; do
  exited=""
  rc=0
  wait -n -p exited "${alive[@]}" || rc=$?
  # Interrupted by a signal (the trap has run): bash leaves the -p variable unset, and set -u
  # would end run.sh there with status 1.
  [ -n "${exited:-}" ] || continue
  still=()
  for pid in "${alive[@]}"; do [ "$pid" = "$exited" ] || still+=("$pid"); done
  alive=("${still[@]}")
  if [ "$rc" -ne 0 ]; then status=1; fi
  if [ "$stopping" = 0 ]; then
    bw_say "run.sh: ${names[$exited]} exited with $rc; stopping the others"
    status=1
    stopping=1
    stop_all TERM
  fi
done
wait # the log prefixers
exit "$status"
