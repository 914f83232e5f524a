# Shared by the scripts in scripts/: finds the project, its env file and its dependencies.
# Source it; it defines BW_ROOT and the bw_* functions and changes into the project folder.
BW_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$BW_ROOT" || exit 1

bw_say() { printf '%s\n' "$*" >&2; }
bw_die() { bw_say "error: $*"; exit "${BW_EXIT:-2}"; }

# The env file: $ENV_FILE, else .env-dev. Settings already in the environment win over the file.
bw_env_file() { printf '%s' "${ENV_FILE:-.env-dev}"; }

# Installs the locked dependencies when node_modules is missing or older than the lock file.
bw_ensure_deps() {
  command -v node >/dev/null 2>&1 || bw_die "Node.js 20 is required: https://nodejs.org or 'apt-get install nodejs'"
  if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    bw_say "installing dependencies (npm ci)"
    # `npm ci` installs exactly the lock file, optional per-platform builds included, and refuses
    # a lock file out of sync with package.json (.ci/run checks that with `npm ci --dry-run`).
    npm ci --no-audit --no-fund --loglevel=error >&2 ||
      bw_die "npm ci failed (is package-lock.json in sync with package.json? npm install --package-lock-only fixes that)"
  fi
}

# Runs a TypeScript entry point with the env file loaded (when it exists).
bw_node() {
  local env_file
  env_file="$(bw_env_file)"
  if [ -f "$env_file" ]; then
    exec node --env-file="$env_file" --import tsx "$@"
  fi
  exec node --import tsx "$@"
}

# bw_setup SERVICE...: what every script that needs Redis or Postgres does first, as run.sh does:
# the dependencies installed, the env file complete (.env-dev created from the template, its empty
# secrets filled), then each named service (redis, postgres) reachable, started or installed
# when it is on this machine, and the database created. A failure is one line and exit 3 (2 for a
# bad setting); see scripts/lib/ensure-services.sh. Done once per run: scripts started by a
# script that did it (run.sh starts upgrade-db.sh) skip it.
bw_setup() {
  bw_ensure_deps
  [ -z "${BW_SETUP_DONE:-}" ] || return 0
  local rc=0
  bash scripts/lib/ensure-services.sh --env-optional --only "$*" "$(bw_env_file)" || rc=$?
  [ "$rc" -eq 0 ] || exit "$rc"
  export BW_SETUP_DONE=1
}

# bw_stale STAMP WHAT DEST SOURCE...: whether DEST must be built: its STAMP file is missing or
# older than a SOURCE (file or folder); says which in one line ("building WHAT: ...").
bw_stale() {
  local stamp=$1 what=$2 dest=$3 newer
  shift 3
  if [ -f "$stamp" ]; then
    newer=$(find "$@" -newer "$stamp" -print -quit 2>/dev/null || true)
    [ -n "$newer" ] || return 1
    bw_say "building $what: $newer is newer than $dest"
  else
    bw_say "building $what: $dest is missing"
  fi
}

# Compiles the components to dist/ (scripts/lib/build.sh) when it is missing or older than what it
# is built from (src, migrations, knexfile.ts, the stream-layout, migrate and language-model scripts, the
# TypeScript configuration, package-lock.json), saying so in one line: production processes run
# compiled JavaScript. A failed build is one line naming the compiler's first error and exit 3.
# Two builds at once run one after the other (the build's lock).
bw_ensure_build() {
  local log first
  bw_stale dist/.built "the components (npm run build)" dist src migrations knexfile.ts \
    scripts/lib/stream-layout.ts scripts/lib/migrate.ts scripts/lib/language-model.mjs tsconfig.json \
    tsconfig.build.json package-lock.json || return 0
  log=$(mktemp "${TMPDIR:-/tmp}/botwire-build-XXXXXX")
  if ! bash scripts/lib/build.sh >"$log" 2>&1; then
    first=$(grep -m1 -E 'error TS[0-9]+|[Ee]rror' "$log" | cut -c1-300)
    rm -f "$log"
    BW_EXIT=3 bw_die "the build failed (${first:-no output}); npm run build shows all of it"
  fi
  rm -f "$log"
}

# Builds the console (console/dist) when it is missing or older than its sources (console/src,
# console/index.html, its vite and TypeScript configuration, package-lock.json), saying so in one
# line. A failed build is one line naming the build's first error and exit 3 (the set-up failed).
# BW_CONSOLE_DIST names another build folder (tests build into a temporary one).
bw_ensure_console() {
  local dist=${BW_CONSOLE_DIST:-console/dist} log first
  bw_stale "$dist/index.html" "the console (npm run console:build)" "$dist" console/src \
    console/index.html console/vite.config.ts console/tsconfig.json package-lock.json || return 0
  log=$(mktemp "${TMPDIR:-/tmp}/botwire-console-build-XXXXXX")
  if ! node_modules/.bin/vite build --config console/vite.config.ts --outDir "$(realpath -m "$dist")" \
    --emptyOutDir --logLevel error >"$log" 2>&1; then
    # The first line that says what is wrong: colours stripped, Vite's banners skipped.
    first=$(sed 's/\x1b\[[0-9;]*m//g' "$log" |
      grep -v -e '^[[:space:]]*$' -e 'Build failed' -e '^error during build' | head -n 1 | cut -c1-300)
    rm -f "$log"
    BW_EXIT=3 bw_die "the console build failed (${first:-no output}); npm run console:build shows all of it"
  fi
  rm -f "$log"
}
