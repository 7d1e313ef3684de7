#!/usr/bin/env bash
# Under ccache the host step must never be served stale after the bundle
# changed: ccache does not hash the -fcuda-include-gpubinary file, so the plan
# sets CCACHE_EXTRAFILES=<bundle> on the host step. This suite changes only the
# bundle and checks that the host object follows it (and shows the hazard
# without the setting).
set -euo pipefail
: "${PHC:?path to phc-ninja}" "${PHC_TMP:?scratch directory}"
command -v ccache >/dev/null || { echo "FAIL: ccache is not installed" >&2; exit 1; }
work="$PHC_TMP/split_ccache"
rm -rf "$work"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
export CCACHE_DIR="$work/cache" CCACHE_NOHASHDIR=1
unset CCACHE_DISABLE CCACHE_EXTRAFILES
fail() { echo "FAIL: $*" >&2; exit 1; }

cat > "$work/k.hip" <<'K'
#include <hip/hip_runtime.h>
#ifndef SCALE
#define SCALE 2
#endif
__global__ void scale(float* p) { p[threadIdx.x] *= SCALE; }
K
ROCM="--rocm-path=/usr --hip-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode"
cmd="ccache clang++-15 -x hip $ROCM -O2 --offload-arch=gfx906 --offload-arch=gfx90a -c k.hip -o k.o"
"$PHC" explain -C "$work" -- "$cmd" > "$work/plan.sh" || fail "explain failed"
grep -q '^# decision: split$' "$work/plan.sh" || fail "not split: $(cat "$work/plan.sh")"
grep -v '^#' "$work/plan.sh" > "$work/steps.sh"
host=$(tail -n 1 "$work/steps.sh")
case "$host" in
  CCACHE_EXTRAFILES=*' ccache '*) ;;
  *) fail "the host step does not run ccache with CCACHE_EXTRAFILES: $host" ;;
esac
[ "$(grep -c -- '^ccache .*--offload-device-only' "$work/steps.sh")" = 2 ] ||
  fail "device steps lost the ccache launcher"

cd "$work"
sh -e steps.sh || fail "the planned steps failed"
cp k.o k.first.o
# Change only the device code: rebuild the device objects with another SCALE
# and re-bundle; the host step's command line and source stay the same.
grep -- '--offload-device-only' steps.sh | sed 's/ -c / -DSCALE=7 -c /' > device2.sh
grep -- 'clang-offload-bundler' steps.sh > bundle.sh
sh -e device2.sh && sh -e bundle.sh || fail "rebuilding the bundle failed"
sh -e -c "$host" || fail "host step failed"
cmp -s k.o k.first.o && fail "ccache served the old host object after the bundle changed"
cp k.o k.second.o
CCACHE_DISABLE=1 sh -e -c "$host" || fail "uncached host step failed"
cmp k.o k.second.o || fail "the cached host object differs from an uncached compile"
echo "ok: with CCACHE_EXTRAFILES a changed bundle gives a new host object (= uncached)"

# The hazard this guards against: the same host command without the setting.
bare=${host#CCACHE_EXTRAFILES=* }
rm -rf "$CCACHE_DIR"
sed '$d' steps.sh > no_host.sh
sh -e no_host.sh && sh -e -c "$bare"   # bundle 1 (SCALE=2); the host object is cached
sh -e device2.sh && sh -e bundle.sh    # bundle 2 (SCALE=7)
sh -e -c "$bare"
if cmp -s k.o k.first.o; then
  echo "ok: without CCACHE_EXTRAFILES ccache returned the stale host object (the hazard)"
else
  echo "note: this ccache hashes the bundle by itself; CCACHE_EXTRAFILES is still harmless"
fi
