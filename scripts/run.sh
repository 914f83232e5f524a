#!/usr/bin/env bash
# ./scripts/run.sh [-e <env file>] [component ...]
# Starts the named components (all built ones when none), each its own process, configured from
# the env file (default .env-dev, created from .env-dev.template when missing, its empty secrets
# filled). Installs the dependencies, makes Redis and Postgres reachable and migrates the database
# first (scripts/lib/common.sh bw_setup, then upgrade-db.sh), and builds the console when api is
# started and console/dist is missing or stale (bw_ensure_console), and runs the components compiled
# (dist/, built when missing or stale: bw_ensure_build), with no TypeScript loader and the V8 flags
# of scripts/node-options.sh.
# Logs are prefixed by component. SIGINT/SIGTERM are forwarded and the components drain; a second
# signal kills them. If one component exits by itself, the others are stopped too, and one line
# names it, how it ended and its last log line.
# Exit codes: 0 stopped by a signal, every component cleanly; 1 a component exited by itself or
# did not stop cleanly (named on stderr), or a migration failed; 2 bad usage, env file not found
# or a bad setting; 3 Redis or Postgres could not be made usable (one line names the URL, what
# was tried and the command that fixes it) or the console could not be built;
# 130 a second signal killed the components.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
source scripts/node-options.sh
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

bw_setup redis postgres
bash scripts/upgrade-db.sh >&2
# api serves the console at /console/ from its build.
if [[ " ${components[*]} " == *' api '* ]]; then bw_ensure_console; fi
bw_ensure_build

# Each component gets its own session (setsid) so a terminal's Ctrl-C reaches only run.sh, which
# forwards one SIGTERM; the log prefixer ignores the signals and ends when its component does,
# leaving the component's last log line in $state/<component>.last for the exit report.
state=$(mktemp -d "${TMPDIR:-/tmp}/botwire-run-XXXXXX")
trap 'rm -rf "$state"' EXIT
pids=()
stopping=0
signalled=0
status=0
stop_all() {
  local signal=$1
  local pid
  for pid in "${pids[@]}"; do kill "-$signal" "$pid" 2>/dev/null || true; done
}
on_signal() {
  if [ "$stopping" = 1 ] && [ "$signalled" = 1 ]; then
    bw_say "run.sh: second signal, killing"
    stop_all KILL
    exit 130
  fi
  stopping=1
  signalled=1
  bw_say "run.sh: stopping ${components[*]}"
  stop_all TERM
}
# Set before the first component starts: a signal (or the terminal closing) at any point stops
# every component already running instead of leaving it orphaned.
trap on_signal INT TERM HUP

# last_line COMPONENT: its last log line, once its prefixer has written it (at most ~5 s: on a
# loaded machine the prefixer may be scheduled late after its component ends).
last_line() {
  local file="$state/$1.last" tries=50
  while [ ! -f "$file" ] && [ "$tries" -gt 0 ]; do
    sleep 0.1
    tries=$((tries - 1))
  done
  if [ -s "$file" ]; then cut -c1-500 "$file"; else printf '(no log line)'; fi
}

# report COMPONENT RC: one line saying how a component ended and why, unless it was asked to stop
# and did (0, or 143 when SIGTERM came before its handler was set, while starting). Sets status.
report() {
  local c=$1 rc=$2
  if [ "$stopping" = 1 ] && [ "$rc" = 0 ]; then return 0; fi
  if [ "$stopping" = 1 ] && [ "$rc" = 143 ]; then
    bw_say "run.sh: $c stopped while still starting"
    return 0
  fi
  status=1
  local how="exited with $rc"
  [ "$rc" -gt 128 ] && how="was killed by signal $((rc - 128))"
  if [ "$stopping" = 1 ]; then
    how="$how while stopping"
  elif [ "$rc" = 78 ]; then
    how="$how (a bad setting)"
  fi
  bw_say "run.sh: $c $how; its last log line: $(last_line "$c")"
}

SETSID=(); command -v setsid >/dev/null 2>&1 && SETSID=(setsid)
# mawk (Debian's default awk) reads a pipe in blocks unless -W interactive: log lines would lag.
AWK=(awk)
if command -v gawk >/dev/null 2>&1; then AWK=(gawk); elif command -v mawk >/dev/null 2>&1; then AWK=(mawk -W interactive); fi
declare -A names=()
for c in "${components[@]}"; do
  [ "$stopping" = 0 ] || break
  NODE_OPTIONS=$(bw_component_node_options "$c") "${SETSID[@]}" node --env-file="$env_file" "dist/src/$c/main.js" \
    > >(trap '' INT TERM HUP; exec "${AWK[@]}" -v prefix="[$c] " -v last="$state/$c.last" \
      '{ print prefix $0; fflush(); line = $0 } END { print line > last }') 2>&1 &
  pids+=("$!")
  names[$!]=$c
done
bw_say "run.sh: started ${components[*]} (pids ${pids[*]}); Ctrl-C to stop"

# Waits for the components. `wait -n -p` names the one that exited; when bash no longer knows a
# pid ("no such job": it reaped it already), the exited ones are found with kill -0 instead, so
# the loop never spins.
alive=("${pids[@]}")
while [ "${#alive[@]}" -gt 0 ]; do
  exited=""
  rc=0
  wait -n -p exited "${alive[@]}" 2>/dev/null || rc=$?
  gone=()
  if [ -n "${exited:-}" ]; then
    gone=("$exited:$rc")
  elif [ "$rc" = 127 ]; then
    for pid in "${alive[@]}"; do
      kill -0 "$pid" 2>/dev/null && continue
      prc=0
      wait "$pid" 2>/dev/null || prc=$?
      [ "$prc" = 127 ] && prc=1 # its status is lost; it ended by itself all the same
      gone+=("$pid:$prc")
    done
    [ "${#gone[@]}" -gt 0 ] || sleep 0.2
  fi
  # Otherwise a signal interrupted wait (bash leaves -p unset); the trap has run.
  for entry in "${gone[@]}"; do
    pid=${entry%%:*}
    rc=${entry#*:}
    still=()
    for p in "${alive[@]}"; do [ "$p" = "$pid" ] || still+=("$p"); done
    alive=("${still[@]}")
    report "${names[$pid]}" "$rc"
    if [ "$stopping" = 0 ]; then
      [ "${#alive[@]}" -eq 0 ] || bw_say "run.sh: stopping the others"
      stopping=1
      stop_all TERM
    fi
  done
done
wait # the log prefixers
exit "$status"
