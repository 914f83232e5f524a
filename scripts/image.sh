#!/usr/bin/env bash
# ./scripts/image.sh build|test|run-args
#   build  builds the Dockerfile into botwire:<version> with podman (Debian's, installed with
#          apt-get when missing and run as root, like the other prerequisites). The base image is
#          BASE_IMAGE (default node:20-bookworm-slim); when it is not here and its registry cannot
#          be reached, a local one is made once: Debian 12 by debootstrap with this machine's
#          Node 20 and a `node` user of uid 1000, as the official image has
#          (localhost/botwire-base:node20-bookworm). Prints the image's name last.
#   test   builds, then runs the image for real (test/deploy/image.test.ts, also part of the
#          suite): migrate, every component as its own container on the host's network with a
#          read-only root, a Telegram round trip through a stand-in, uid 1000, the HEALTHCHECK,
#          SIGTERM draining.
#   run-args  prints, one a line, the arguments `podman run` needs on this machine (the runtime,
#          limits it grants), installing podman first like build.
# IMAGE names the image (default botwire:<package.json version>).
# Exit codes: 0 done; 1 the build or the test failed; 2 bad usage; 3 no container engine could be
# had (not root, or apt-get failed), or the base image could not be made.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

usage() { bw_say "usage: ./scripts/image.sh build|test|run-args"; }
[ $# -eq 1 ] || { usage; exit 2; }
command=$1
case "$command" in build | test | run-args) ;; *) usage; exit 2 ;; esac

version=$(node -p 'require("./package.json").version')
IMAGE=${IMAGE:-botwire:$version}
BASE_IMAGE=${BASE_IMAGE:-node:20-bookworm-slim}
LOCAL_BASE=localhost/botwire-base:node20-bookworm
BASE_ROOT=${TMPDIR:-/tmp}/botwire-image-base

# podman, with runc: crun refuses hybrid cgroups (v1 controllers beside v2) and, where no cgroup
# file system was mounted, a memlock limit it cannot set without CAP_SYS_RESOURCE; runc runs on all
# of these.
ensure_engine() {
  local missing=()
  command -v podman >/dev/null 2>&1 || missing+=(podman)
  command -v runc >/dev/null 2>&1 || missing+=(runc)
  if [ "${#missing[@]}" -gt 0 ]; then
    [ "$(id -u)" = 0 ] || BW_EXIT=3 bw_die "${missing[*]} missing; fix: sudo apt-get install ${missing[*]}"
    bw_say "image.sh: installing ${missing[*]} (apt-get)"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"; } \
      >/dev/null 2>&1 || BW_EXIT=3 bw_die "apt-get install ${missing[*]} failed"
  fi
  # A machine without an init (a chroot, a bare container) may have no cgroup file system, and
  # no runtime starts a container without one: mount the unified hierarchy, as systemd would.
  case "$(stat -f -c %T /sys/fs/cgroup 2>/dev/null)" in
    cgroup2fs | tmpfs) ;;
    *)
      [ "$(id -u)" = 0 ] || BW_EXIT=3 bw_die "no cgroup file system at /sys/fs/cgroup; fix: sudo mount -t cgroup2 none /sys/fs/cgroup"
      bw_say "image.sh: mounting the cgroup file system at /sys/fs/cgroup (none was)"
      mount -t cgroup2 none /sys/fs/cgroup || BW_EXIT=3 bw_die "mount -t cgroup2 failed"
      ;;
  esac
  # Every podman call here, the build's RUN steps included: runc, no pids limit (a cgroup without
  # the pids controller cannot take one), and open-file and process limits no higher than this
  # machine grants (podman asks for more by default, which a host without CAP_SYS_RESOURCE refuses).
  local nofile
  nofile=$(ulimit -Hn)
  { [ "$nofile" = unlimited ] || [ "$nofile" -gt 65536 ]; } && nofile=65536
  CONTAINERS_CONF=${TMPDIR:-/tmp}/botwire-containers.conf
  cat >"$CONTAINERS_CONF" <<CONF
[containers]
pids_limit = 0
default_ulimits = ["nofile=$nofile:$nofile", "nproc=4096:4096"]
[engine]
runtime = "runc"
CONF
  export CONTAINERS_CONF
  BUILD_ARGS=(--runtime runc --ulimit "nofile=$nofile:$nofile" --ulimit nproc=4096:4096)
  ENGINE_ARGS=("${BUILD_ARGS[@]}" --pids-limit=-1)
}

# The local base: Debian 12 (debootstrap, minimal) + this machine's Node 20 and npm + user node.
make_local_base() {
  [ "$(id -u)" = 0 ] || BW_EXIT=3 bw_die "$BASE_IMAGE cannot be pulled and making a local base needs root (debootstrap)"
  case "$(node -v)" in v20.*) ;; *) BW_EXIT=3 bw_die "the local base takes this machine's Node, which must be 20 (it is $(node -v))" ;; esac
  if ! command -v debootstrap >/dev/null 2>&1; then
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap; } \
      >/dev/null 2>&1 || BW_EXIT=3 bw_die "apt-get install debootstrap failed"
  fi
  bw_say "image.sh: $BASE_IMAGE cannot be pulled; making $LOCAL_BASE (debootstrap bookworm, Node $(node -v))"
  rm -rf "$BASE_ROOT"
  debootstrap --variant=minbase bookworm "$BASE_ROOT" http://deb.debian.org/debian \
    >"$BASE_ROOT.log" 2>&1 || BW_EXIT=3 bw_die "debootstrap failed: $(tail -n 1 "$BASE_ROOT.log")"
  local npm_dir
  npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
  install -m 755 "$(command -v node)" "$BASE_ROOT/usr/bin/node"
  mkdir -p "$BASE_ROOT/usr/lib/node_modules"
  cp -a "$npm_dir" "$BASE_ROOT/usr/lib/node_modules/npm"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$BASE_ROOT/usr/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$BASE_ROOT/usr/bin/npx"
  chroot "$BASE_ROOT" /usr/sbin/groupadd --gid 1000 node
  chroot "$BASE_ROOT" /usr/sbin/useradd --uid 1000 --gid node --shell /bin/bash --create-home node
  rm -rf "$BASE_ROOT"/var/cache/apt/archives/*.deb "$BASE_ROOT"/var/lib/apt/lists/*
  tar -C "$BASE_ROOT" -c . | podman import --change 'CMD ["node"]' - "$LOCAL_BASE" >/dev/null
  rm -rf "$BASE_ROOT" "$BASE_ROOT.log"
}

build() {
  ensure_engine
  local base=$BASE_IMAGE
  if ! podman image exists "$base" && ! timeout 60 podman pull -q "$base" >/dev/null 2>&1; then
    base=$LOCAL_BASE
    podman image exists "$base" || make_local_base
  fi
  local ca=() ca_file
  # npm in the build trusts what this machine's npm trusts (a TLS-inspecting proxy's CA): Node's
  # NODE_EXTRA_CA_CERTS, else npm's own cafile setting.
  ca_file=${NODE_EXTRA_CA_CERTS:-$(npm config get cafile 2>/dev/null || true)}
  if [ -n "$ca_file" ] && [ -f "$ca_file" ]; then
    ca=(-v "$ca_file:/run/botwire-build-ca.crt:ro" --build-arg NODE_EXTRA_CA_CERTS=/run/botwire-build-ca.crt)
  fi
  bw_say "image.sh: building $IMAGE from $base"
  # docker format: the OCI format has no HEALTHCHECK.
  podman build --format docker --network host "${BUILD_ARGS[@]}" "${ca[@]}" --build-arg "BASE_IMAGE=$base" \
    -t "$IMAGE" . >&2 || { BW_EXIT=1 bw_die "the image build failed (its output above)"; }
  printf '%s\n' "$IMAGE"
}

case "$command" in
  build) build ;;
  test) IMAGE=$IMAGE exec bash scripts/test.sh test/deploy/image.test.ts ;;
  run-args)
    ensure_engine
    printf '%s\n' "${ENGINE_ARGS[@]}"
    ;;
esac
