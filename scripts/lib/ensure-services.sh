#!/usr/bin/env bash
# Makes the Redis and Postgres named by the env file reachable, starting or installing them on this
# machine when their host is local, or says exactly what to install and exits non-zero.
#
#   bash scripts/lib/ensure-services.sh [--tests] [--only 'redis postgres'] [--env-optional] [env-file]
#   (or source it with the same arguments)
#
# Exit codes: 0 ready; 2 a bad setting or argument (env file not found, a URL that does not
# parse); 3 Redis or Postgres could not be made usable. A failure is one line on stderr,
# "error: ...", naming the URL (password masked), what was tried and the command that fixes it;
# DEBUG=1 adds the checks' own output.
# --only limits the services checked; --env-optional accepts a missing env file (settings then
# come from the environment and the defaults).
#
# --tests also makes sure of the programs the test suite runs itself: redis-server, Postgres's
# initdb and pg_ctl (found where Debian keeps them, /usr/lib/postgresql/<version>/bin, off PATH)
# ps and chromium (the browser tests); they are installed with apt-get when missing and this runs
# as root, else named.
#
# Env file: argument 1, else $ENV_FILE, else <repo>/.env-dev. A file named .env-dev is created from
# .env-dev.template when missing, and its empty ADMIN_API_KEY and CREDENTIALS_KEY get fresh values.
# REDIS_URL / DATABASE_URL already in the environment win over the file.
# Reachability is checked with scripts/lib/ping-services.ts, so no redis-cli or psql is needed.

ES_REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
ES_DEFAULT_REDIS_URL='redis://127.0.0.1:6379'
ES_DEFAULT_DATABASE_URL='postgres://postgres:postgres@localhost:5432/botwire'

es_log() { printf 'ensure-services: %s\n' "$*" >&2; }
# es_die MESSAGE [CODE]: one line, "error: MESSAGE", and exit CODE (default 3: a service could not
# be made usable; 2 is a bad setting or argument).
es_die() {
  printf 'error: %s\n' "$1" >&2
  exit "${2:-3}"
}
# Where a setting is fixed, for the messages.
ES_ENV_NAME=.env-dev

# es_env_get FILE KEY: prints the last KEY=VALUE value in FILE; fails when KEY is absent.
# A parser rather than `source`, so the file can never run commands.
es_env_get() {
  local file=$1 key=$2 line name value quote found=1
  while IFS= read -r line || [[ -n $line ]]; do
    line=${line%$'\r'}
    line=${line#"${line%%[![:space:]]*}"}
    [[ -z $line || $line == '#'* ]] && continue
    if [[ $line == export[[:space:]]* ]]; then
      line=${line#export}
      line=${line#"${line%%[![:space:]]*}"}
    fi
    [[ $line == *=* ]] || continue
    name=${line%%=*}
    name=${name%"${name##*[![:space:]]}"}
    [[ $name == "$key" ]] || continue
    value=${line#*=}
    value=${value#"${value%%[![:space:]]*}"}
    quote=${value:0:1}
    if [[ ($quote == \" || $quote == \') && ${value:1} == *"$quote"* ]]; then
      value=${value:1}
      value=${value%%"$quote"*} # a quoted value ends at its closing quote
    else
      value=${value%%[[:space:]]#*} # an unquoted value ends at " # comment"
      value=${value%"${value##*[![:space:]]}"}
    fi
    found=0
  done <"$file"
  [[ $found -eq 0 ]] && printf '%s' "$value"
  return "$found"
}

# es_complete_env_dev FILE: creates FILE from the template when missing, and fills its empty
# ADMIN_API_KEY= / CREDENTIALS_KEY= with fresh random values (as `cp .env-dev.template .env-dev`
# leaves them), saying which. Keys with a value are never touched.
es_complete_env_dev() {
  local file=$1 template="$ES_REPO/.env-dev.template" filled
  if [[ ! -f $file && ! -f $template ]]; then
    es_log "no $file and no .env-dev.template yet; using defaults"
    return 0
  fi
  # shellcheck disable=SC2016 # JavaScript template literals, not shell expansions
  filled=$(node -e '
    const fs = require("node:fs");
    const { randomBytes } = require("node:crypto");
    const [template, out] = process.argv.slice(1);
    const exists = fs.existsSync(out);
    let text = fs.readFileSync(exists ? out : template, "utf8");
    const filled = [];
    const fill = (key, value) => {
      const empty = new RegExp(`^${key}=[ \\t]*(?:""|\x27\x27)?[ \\t]*$`, "m");
      if (empty.test(text)) {
        text = text.replace(empty, () => `${key}=${value}`);
        filled.push(key);
      }
    };
    fill("ADMIN_API_KEY", randomBytes(32).toString("hex"));
    fill("CREDENTIALS_KEY", randomBytes(32).toString("base64"));
    if (!exists) {
      fs.writeFileSync(out, text, { mode: 0o600, flag: "wx" });
    } else if (filled.length > 0) {
      const mode = fs.statSync(out).mode & 0o777;
      fs.writeFileSync(`${out}.tmp`, text, { mode: mode & 0o600 });
      fs.renameSync(`${out}.tmp`, out);
    }
    process.stdout.write(`${exists ? "filled" : "created"} ${filled.join(" ")}`);
  ' "$template" "$file") || es_die "could not write $file (from .env-dev.template)" 2
  case $filled in
    created*) es_log "created $file from .env-dev.template with fresh ADMIN_API_KEY and CREDENTIALS_KEY" ;;
    "filled ") ;;
    filled*) es_log "$file had no value for ${filled#filled }: filled with fresh random values" ;;
  esac
}

# es_url URL FIELD: prints one decoded part of URL (hostname, port, username, password, masked).
# The URL goes to node in the environment: an argument would show its password in `ps`.
es_url() {
  # shellcheck disable=SC2016 # JavaScript template literals, not shell expansions
  ES_URL_RAW="$1" node -e '
    const raw = process.env.ES_URL_RAW;
    const field = process.argv[1];
    const url = new URL(raw);
    const values = {
      hostname: url.hostname.replace(/^\[(.*)\]$/, "$1"),
      port: url.port,
      username: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
      masked: (url.password && (url.password = "***"), url.toString()),
    };
    process.stdout.write(values[field]);
  ' "$2" 2>/dev/null
}

es_is_local() {
  case $1 in
    '' | localhost | 127.0.0.1 | ::1) return 0 ;;
    *) return 1 ;;
  esac
}

# es_ping KIND URL: 0 up, 2 unreachable, 3 database missing, 4 auth failed, 5 a cluster not ok,
# 1 other. The ping's one-line reason goes to ES_PING_WHY (for the caller's message) rather than
# to the terminal.
# The URL goes in the environment (BW_PING_URL), never on a command line.
ES_PING_WHY=''
# The CA trusted for a rediss URL (REDIS_TLS_CA, environment then env file), as the components do.
ES_REDIS_TLS_CA=''
es_ping() {
  local rc=0 out
  out=$(cd "$ES_REPO" && BW_PING_URL="$2" REDIS_TLS_CA="$ES_REDIS_TLS_CA" node --import tsx scripts/lib/ping-services.ts "$1" 2>&1 >/dev/null) || rc=$?
  [[ ${DEBUG:-} != 1 || -z $out ]] || printf '%s\n' "$out" >&2
  out=${out%%$'\n'*}
  ES_PING_WHY=${out#ping-services: }
  return "$rc"
}
# es_reason: the code or text in the last ping's parentheses, e.g. ECONNREFUSED.
es_reason() {
  local why=$ES_PING_WHY
  if [[ $why =~ \(([^\)]*)\)$ ]]; then printf '%s' "${BASH_REMATCH[1]}"; else printf '%s' "${why:-no answer}"; fi
}

# es_ping_quiet: the same, without the ping's own stderr line (for polling).
es_ping_quiet() {
  local rc=0
  es_ping "$@" 2>/dev/null || rc=$?
  return "$rc"
}

# es_wait KIND URL SECONDS: polls until the service answers (any rc but 2).
es_wait() {
  local kind=$1 url=$2 deadline=$((SECONDS + $3)) rc
  while :; do
    rc=0
    es_ping_quiet "$kind" "$url" || rc=$?
    [[ $rc -ne 2 ]] && return 0
    [[ $SECONDS -ge $deadline ]] && return 1
    sleep 1
  done
}

ES_COMPOSE_STARTED=0
es_docker_works() { command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; }
es_compose_up() {
  [[ $ES_COMPOSE_STARTED -eq 1 ]] && return 0
  [[ -f "$ES_REPO/docker-compose.yml" ]] || return 1
  es_log "starting redis and postgres with docker compose"
  (cd "$ES_REPO" && docker compose up -d redis postgres) >&2 || return 1
  ES_COMPOSE_STARTED=1
}

es_can_apt() { [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; }
ES_APT_UPDATED=0
es_apt_install() {
  es_log "installing $1 with apt-get"
  if [[ $ES_APT_UPDATED -eq 0 ]]; then
    apt-get update >&2 || es_die "apt-get update failed"
    ES_APT_UPDATED=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y "$1" >&2 || es_die "apt-get install $1 failed"
}

es_start_redis_server() {
  local port=$1 dir="$ES_REPO/.data/redis"
  mkdir -p "$dir"
  es_log "starting redis-server on 127.0.0.1:$port (data in .data/redis)"
  redis-server --daemonize yes --bind 127.0.0.1 --port "$port" --appendonly yes \
    --dir "$dir" --logfile "$dir/redis.log" --pidfile "$dir/redis-$port.pid" >&2 ||
    es_die "redis-server did not start; see $dir/redis.log"
}

# es_ensure_cluster URL: a Redis Cluster (redis[s]+cluster://) is only checked (its seed nodes
# answer PING, every node says cluster_state:ok), never started: no local redis-server is tried.
es_ensure_cluster() {
  local url=$1 masked rc=0
  masked=$(ES_URL_RAW="$url" node -e '
    const m = /^(rediss?\+cluster:\/\/)(?:([^:@\/]*)(:[^@\/]*)?@)?(.*)$/.exec(process.env.ES_URL_RAW);
    if (!m) process.exit(1);
    process.stdout.write(m[1] + (m[2] || m[3] ? (m[2] || "") + (m[3] ? ":***" : "") + "@" : "") + m[4]);
  ' 2>/dev/null) || es_die "REDIS_URL is not a valid URL; fix it in $ES_ENV_NAME" 2
  es_ping redis "$url" || rc=$?
  case $rc in
    0) es_log "Redis Cluster $masked is up" ;;
    2) es_die "Redis Cluster $masked is unreachable ($(es_reason)); tried: connect to its seed nodes (a cluster is never started here); fix: start the cluster, or list nodes that answer in REDIS_URL in $ES_ENV_NAME" ;;
    5) es_die "Redis Cluster $masked answers but is not ok: node ${ES_PING_WHY#*: node }; tried: CLUSTER INFO on every node it names (a cluster is never repaired here); fix: cover every slot and bring its masters back (CLUSTER INFO, CLUSTER NODES on a node), or list the right cluster in REDIS_URL in $ES_ENV_NAME" ;;
    4) es_die "Redis Cluster $masked refused the credentials ($(es_reason)); tried: AUTH with the URL's user and password on its nodes; fix: the password in REDIS_URL in $ES_ENV_NAME" ;;
    *) es_die "Redis Cluster $masked could not be used ($ES_PING_WHY); tried: connect to its seed nodes and PING; fix: check that they are cluster nodes, or REDIS_URL in $ES_ENV_NAME" ;;
  esac
}

es_ensure_redis() {
  local url=$1 masked host port rc=0
  if [[ $url =~ ^rediss?\+cluster:// ]]; then
    es_ensure_cluster "$url"
    return
  fi
  masked=$(es_url "$url" masked) || es_die "REDIS_URL is not a valid URL; fix it in $ES_ENV_NAME" 2
  es_ping redis "$url" || rc=$?
  case $rc in
    0)
      es_log "Redis $masked is up"
      return 0
      ;;
    2) ;;
    4) es_die "Redis $masked refused the credentials ($(es_reason)); tried: AUTH with the URL's user and password; fix: the password in REDIS_URL in $ES_ENV_NAME" ;;
    *) es_die "Redis $masked did not answer PING ($ES_PING_WHY); tried: connect and PING; fix: check that $masked is a Redis server, or REDIS_URL in $ES_ENV_NAME" ;;
  esac
  host=$(es_url "$url" hostname)
  port=$(es_url "$url" port)
  port=${port:-6379}
  es_is_local "$host" || es_die "Redis $masked is unreachable ($(es_reason)); tried: connect (host $host is not this machine, so nothing is started here); fix: start Redis on $host, or set REDIS_URL in $ES_ENV_NAME (default $ES_DEFAULT_REDIS_URL)"

  if command -v redis-server >/dev/null 2>&1; then
    es_start_redis_server "$port"
  elif es_docker_works && es_compose_up; then
    :
  elif es_can_apt; then
    es_apt_install redis-server
    # Debian's package may have started its own server already.
    es_ping_quiet redis "$url" || es_start_redis_server "$port"
  else
    es_die "Redis $masked is unreachable ($(es_reason)); tried: redis-server (not installed), docker compose (no Docker), apt-get (not root); fix: sudo apt-get install redis-server, or docker compose up -d redis"
  fi
  es_wait redis "$url" 20 || es_die "Redis $masked did not answer within 20 s of being started ($(es_reason)); fix: read .data/redis/redis.log (or docker compose logs redis), then run this again"
  es_log "Redis $masked is up"
}

# es_start_pg_clusters PORT: starts every stopped Debian cluster. Returns 0 when a cluster uses
# PORT, 2 when clusters exist but none on PORT, 1 when there are none (or no postgresql-common).
es_start_pg_clusters() {
  command -v pg_lsclusters >/dev/null 2>&1 || return 1
  local want=$1 ver name port status found=1
  while read -r ver name port status _; do
    [[ $ver =~ ^[0-9.]+$ ]] || continue
    if [[ $port == "$want" ]]; then found=0; elif [[ $found -eq 1 ]]; then found=2; fi
    [[ $status == down* ]] || continue
    es_log "starting Postgres cluster $ver/$name (port $port)"
    pg_ctlcluster --skip-systemctl-redirect "$ver" "$name" start >&2 ||
      es_log "could not start cluster $ver/$name; see /var/log/postgresql/postgresql-$ver-$name.log"
  done < <(pg_lsclusters --no-header 2>/dev/null)
  return "$found"
}

es_start_postgres() {
  local masked=$1 port=$2 rc=0
  local no_cluster="Postgres $masked is unreachable ($(es_reason)); tried: starting the local clusters, but none uses port $port; fix: pg_createcluster <version> main --port $port --start, or the port in DATABASE_URL in $ES_ENV_NAME (see pg_lsclusters)"
  es_start_pg_clusters "$port" || rc=$?
  if [[ $rc -eq 0 ]]; then
    return 0
  elif [[ $rc -eq 2 ]]; then
    es_die "$no_cluster"
  elif es_docker_works && es_compose_up; then
    return 0
  elif es_can_apt; then
    es_apt_install postgresql
    rc=0
    es_start_pg_clusters "$port" || rc=$?
    [[ $rc -eq 0 ]] || es_die "$no_cluster"
  else
    es_die "Postgres $masked is unreachable ($(es_reason)); tried: local clusters (none; no postgresql-common), docker compose (no Docker), apt-get (not root); fix: sudo apt-get install postgresql, or docker compose up -d postgres"
  fi
}

es_sql_literal() { printf "'%s'" "${1//\'/\'\'}"; }
es_sql_ident() { printf '"%s"' "${1//\"/\"\"}"; }

# es_psql_as_postgres PORT: runs stdin through psql as the postgres OS user (peer auth). The SQL
# goes through stdin so the password never shows up in a process list.
es_psql_as_postgres() {
  local port=$1 errors=/dev/null
  [[ ${DEBUG:-} != 1 ]] || errors=/dev/stderr
  if command -v runuser >/dev/null 2>&1; then
    (cd / && runuser -u postgres -- psql -X -q -t -A -v ON_ERROR_STOP=1 -p "$port" -d postgres) 2>"$errors"
  else
    (cd / && su -s /bin/sh postgres -c "psql -X -q -t -A -v ON_ERROR_STOP=1 -p $port -d postgres") 2>"$errors"
  fi
}

# es_fix_pg_auth URL: gives the default user postgres the URL's password when it has none (a fresh
# cluster); any other rejected login stops with the command to run. Never creates or grants roles.
es_fix_pg_auth() {
  local url=$1 masked=$2 host port user password role exists
  host=$(es_url "$url" hostname)
  port=$(es_url "$url" port)
  port=${port:-5432}
  user=$(es_url "$url" username)
  password=$(es_url "$url" password)
  local advice="fix: the password in DATABASE_URL in $ES_ENV_NAME, or give the user that password: sudo -u postgres psql -c \"ALTER USER ${user:-<user>} PASSWORD '<password>'\""
  if ! es_is_local "$host" || [[ $(id -u) -ne 0 || -z $user || -z $password ]] ||
    ! command -v psql >/dev/null 2>&1 || ! id postgres >/dev/null 2>&1 ||
    ! { command -v runuser >/dev/null 2>&1 || command -v su >/dev/null 2>&1; }; then
    es_die "Postgres $masked rejected the login ($(es_reason)); tried: the URL's user and password (not as root on this machine, so no repair was tried); $advice"
  fi
  role=$(es_sql_ident "$user")
  # 1: the role exists without a password (a fresh Debian install); 2: it has one already.
  exists=$(printf 'SELECT CASE WHEN rolpassword IS NULL THEN 1 ELSE 2 END FROM pg_authid WHERE rolname = %s;\n' "$(es_sql_literal "$user")" |
    es_psql_as_postgres "$port") || es_die "Postgres $masked rejected the login ($(es_reason)); tried: the URL's password, then psql as the postgres OS user, which failed too; $advice"
  if [[ $exists == 2 ]]; then
    # Never overwrite a password someone set: other software on this machine may use it.
    es_die "Postgres $masked rejected the login ($(es_reason)); tried: the URL's password; user $user already has another one, which is left alone; $advice"
  elif [[ $exists == 1 && $user == postgres ]]; then
    # Only the default user of a freshly installed cluster (peer auth on the socket, no password)
    # gets the URL's password; no role is ever created and no privilege is ever granted.
    es_log "setting the password of Postgres user postgres (it had none) from DATABASE_URL"
    printf 'ALTER ROLE %s WITH LOGIN PASSWORD %s;\n' "$role" "$(es_sql_literal "$password")" |
      es_psql_as_postgres "$port" >/dev/null || es_die "Postgres $masked rejected the login; tried: ALTER ROLE as the postgres OS user, which failed; $advice"
  elif [[ $exists == 1 ]]; then
    es_die "Postgres $masked rejected the login ($(es_reason)); tried: the URL's password; user $user has none and is left alone; fix: the user in DATABASE_URL in $ES_ENV_NAME, or sudo -u postgres psql -c \"ALTER ROLE $user PASSWORD '<password>'\""
  else
    es_die "Postgres $masked rejected the login ($(es_reason)); tried: the URL's user, which does not exist (no role is created); fix: the user in DATABASE_URL in $ES_ENV_NAME, or sudo -u postgres createuser --pwprompt $user"
  fi
}

es_ensure_postgres() {
  local url=$1 masked host port rc=0 fixed_auth=0 created_db=0
  masked=$(es_url "$url" masked) || es_die "DATABASE_URL is not a valid URL; fix it in $ES_ENV_NAME" 2
  host=$(es_url "$url" hostname)
  es_ping postgres "$url" || rc=$?
  if [[ $rc -eq 2 ]]; then
    es_is_local "$host" || es_die "Postgres $masked is unreachable ($(es_reason)); tried: connect (host $host is not this machine, so nothing is started here); fix: start Postgres on $host, or set DATABASE_URL in $ES_ENV_NAME (default $ES_DEFAULT_DATABASE_URL)"
    port=$(es_url "$url" port)
    es_start_postgres "$masked" "${port:-5432}"
    es_wait postgres "$url" 30 || es_die "Postgres $masked did not answer within 30 s of being started ($(es_reason)); fix: read /var/log/postgresql/ (or docker compose logs postgres), then run this again"
    rc=0
    es_ping postgres "$url" || rc=$?
  fi
  while :; do
    case $rc in
      0)
        es_log "Postgres $masked is up"
        return 0
        ;;
      4)
        [[ $fixed_auth -eq 0 ]] || es_die "Postgres $masked still rejects the login ($(es_reason)); tried: setting the user's password; fix: allow password logins for $host in pg_hba.conf (sudo -u postgres psql -c 'SHOW hba_file')"
        fixed_auth=1
        es_fix_pg_auth "$url" "$masked"
        ;;
      3)
        [[ $created_db -eq 0 ]] || es_die "Postgres $masked: the database is still missing after CREATE DATABASE; fix: createdb it by hand (sudo -u postgres createdb <name>)"
        created_db=1
        es_log "creating the database of $masked (it did not exist)"
        es_ping postgres-create-db "$url" || es_die "Postgres $masked: the database does not exist and CREATE DATABASE failed ($ES_PING_WHY); fix: give the user CREATEDB (sudo -u postgres psql -c 'ALTER USER <user> CREATEDB') or create it: sudo -u postgres createdb <name>"
        ;;
      *) es_die "Postgres $masked is not usable ($ES_PING_WHY); tried: connect and SELECT 1; fix: check DATABASE_URL in $ES_ENV_NAME" ;;
    esac
    rc=0
    es_ping postgres "$url" || rc=$?
  done
}

# es_pg_bindir TOOL: prints the folder holding a Postgres server program: `pg_config --bindir`,
# then /usr/lib/postgresql/<version>/bin newest version first, then PATH. Fails when none has it.
es_pg_bindir() {
  local tool=$1 dir
  local -a dirs=()
  if command -v pg_config >/dev/null 2>&1; then
    dir=$(pg_config --bindir 2>/dev/null) && dirs+=("$dir")
  fi
  while IFS= read -r dir; do dirs+=("$dir"); done < <(
    for dir in /usr/lib/postgresql/*/bin; do [[ -d $dir ]] && printf '%s\n' "$dir"; done |
      sort -t/ -k5,5 -V -r
  )
  for dir in "${dirs[@]}"; do
    [[ -x $dir/$tool ]] && { printf '%s' "$dir"; return 0; }
  done
  dir=$(command -v "$tool" 2>/dev/null) || return 1
  printf '%s' "${dir%/*}"
}

# es_ensure_tool CHECK PACKAGE WHAT: runs CHECK; when it fails, installs PACKAGE (root + apt-get)
# or exits naming it.
es_ensure_tool() {
  local check=$1 package=$2 what=$3
  "$check" && return 0
  es_can_apt || es_die "the tests need $what; tried: $check (not found), apt-get (not root); fix: sudo apt-get install $package"
  es_apt_install "$package"
  "$check" || es_die "$what is still missing after apt-get install $package"
}

es_has_redis_server() { command -v redis-server >/dev/null 2>&1; }
es_has_pg_server() { es_pg_bindir initdb >/dev/null && es_pg_bindir pg_ctl >/dev/null; }
es_has_ps() { command -v ps >/dev/null 2>&1; }
es_has_chromium() { command -v chromium >/dev/null 2>&1; }

# es_ensure_test_tools: what the test suite starts itself (private servers, process lists).
es_ensure_test_tools() {
  es_ensure_tool es_has_redis_server redis-server "redis-server (the fault tests start their own)"
  es_ensure_tool es_has_pg_server postgresql "Postgres's initdb and pg_ctl (the fault tests start their own cluster)"
  es_ensure_tool es_has_ps procps "ps"
  es_ensure_tool es_has_chromium chromium "Debian's chromium (the browser tests drive it)"
  es_log "test programs found: redis-server, initdb and pg_ctl in $(es_pg_bindir initdb), ps, chromium"
}

es_main() {
  local tests=0 optional=0 only='redis postgres'
  while [[ ${1:-} == --* ]]; do
    case $1 in
      --tests) tests=1 ;;
      --env-optional) optional=1 ;;
      --only)
        only=${2:-}
        shift
        ;;
      *) es_die "ensure-services: unknown option $1" 2 ;;
    esac
    shift
  done
  local env_file=${1:-${ENV_FILE:-$ES_REPO/.env-dev}} redis_url database_url
  ES_ENV_NAME=$env_file
  if [[ $(basename -- "$env_file") == .env-dev ]]; then
    es_complete_env_dev "$env_file"
  elif [[ ! -f $env_file && $optional -eq 0 ]]; then
    es_die "env file not found: $env_file" 2
  fi
  [[ -f $env_file ]] || ES_ENV_NAME='the environment'
  command -v node >/dev/null 2>&1 || es_die "node is not installed; fix: install Node.js 20 (https://nodejs.org)" 2
  [[ -d "$ES_REPO/node_modules/tsx" ]] || es_die "the project is not installed; fix: npm ci (in $ES_REPO)" 2

  redis_url=${REDIS_URL:-}
  database_url=${DATABASE_URL:-}
  if [[ -f $env_file ]]; then
    [[ -n $redis_url ]] || redis_url=$(es_env_get "$env_file" REDIS_URL) || true
    [[ -n $database_url ]] || database_url=$(es_env_get "$env_file" DATABASE_URL) || true
    [[ -n ${REDIS_TLS_CA:-} ]] || ES_REDIS_TLS_CA=$(es_env_get "$env_file" REDIS_TLS_CA) || true
  fi
  ES_REDIS_TLS_CA=${REDIS_TLS_CA:-$ES_REDIS_TLS_CA}
  [[ $tests -eq 0 ]] || es_ensure_test_tools
  [[ " $only " != *' redis '* ]] || es_ensure_redis "${redis_url:-$ES_DEFAULT_REDIS_URL}"
  [[ " $only " != *' postgres '* ]] || es_ensure_postgres "${database_url:-$ES_DEFAULT_DATABASE_URL}"
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  set -euo pipefail
  es_main "$@"
else
  # Sourced: a subshell keeps `set -e` and `exit` from reaching the caller's shell. Pass the env
  # file explicitly, or the caller's own arguments are taken as one.
  (
    set -euo pipefail
    es_main "$@"
  )
fi
