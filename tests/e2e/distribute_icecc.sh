#!/usr/bin/env bash
# Device compiles on an icecream farm, in a private network namespace
# (`unshare --net`: only loopback; icecream's daemons broadcast on every
# interface) and mount namespace (/tmp is this suite's folder), the farm of
# lib/icecc_farm.sh (a scheduler, a local and a "remote" iceccd). The
# environment (chroot) is `phc-ninja icecc-env`'s: clang-15 with lld, the
# bundler where the driver looks, the device libraries, a writable /tmp and
# /dev/null. A hand-written manifest (clang-15, two
# architectures, an -fgpu-rdc object, a link) through `regen --distribute
# icecc`: the remote daemon's log shows every device compile; every output is
# identical (cmp) to the local split's; icecc as the compile's launcher
# distributes without the option, and phc-launch with PHC_DISTRIBUTE=icecc;
# the kernel-less trap fails the build; --overlap-host sends the host compiles
# too (and, when icecc compiles here, device-ii compiles the source); the
# remote daemon stopped midway still gives identical outputs (icecc compiles
# locally). And clang 22's new driver with an environment of its own.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
command -v iceccd >/dev/null 2>&1 || { echo "SKIP: icecream is not installed (scripts/setup)"; exit 0; }
if [ -z "${PHC_ICECC_NS:-}" ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "SKIP: needs root to make a network namespace and run iceccd as user icecc"
    exit 0
  fi
  if ! unshare --net --mount true 2>/dev/null; then
    echo "SKIP: cannot create network and mount namespaces here (unshare --net --mount)"
    exit 0
  fi
  PHC_ICECC_NS=1 exec unshare --net --mount --propagation private bash "$0" "$@"
fi
ip link set lo up
dir=$(suite_dir distribute_icecc)
farm_lib=$(cd "$(dirname "${BASH_SOURCE[0]}")/lib" && pwd)/icecc_farm.sh
mkdir -p "$dir/tmp" "$dir/ice"
chmod 1777 "$dir/tmp"
# /tmp becomes the suite's folder below; a checkout, build or suite folder
# that lies under /tmp stays reachable through the old /tmp, bound on a
# private tmpfs over /mnt (this mount namespace's own: nothing outside changes).
if [[ "$dir$PHC$PHC_SRC" == *"/tmp/"* ]]; then
  mount -t tmpfs phc-e2e /mnt
  mkdir /mnt/oldtmp
  mount --bind /tmp /mnt/oldtmp
  remap() { case "$1" in /tmp/*) echo "/mnt/oldtmp/${1#/tmp/}" ;; *) echo "$1" ;; esac; }
  dir=$(remap "$dir")
  PHC=$(remap "$PHC")
  PHC_SRC=$(remap "$PHC_SRC")
  farm_lib=$(remap "$farm_lib")
  export PHC PHC_SRC
fi
cd "$dir" || exit 1
mount --bind "$dir/tmp" /tmp
export TMPDIR=/tmp PHC_PROBE_CACHE=$dir/probes.json
ice=$dir/ice

# --- the environment the remote compiles run in, and the farm ---------------------
# shellcheck source=lib/icecc_farm.sh
source "$farm_lib"
trap icecc_farm_stop EXIT
icecc_farm_start "$ice" "$PHC" clang++-15 $HIP_FLAGS_DEFAULT || fail "the farm did not start"
expect_eq "icecc-env's advice" "export ICECC_VERSION=$ice/env.tar.gz" "$(cat ice/env.out)"
listing=$(tar -tzf ice/env.tar.gz)
for f in ./usr/bin/clang ./usr/bin/clang-offload-bundler ./usr/bin/lld ./dev/null ./tmp/ \
  ./usr/lib/x86_64-linux-gnu/amdgcn/bitcode/ocml.bc; do
  grep -qx -- "$f" <<<"$listing" || fail "the environment lacks $f"
done
pass "phc-ninja icecc-env: clang-15, lld, the bundler, the device libraries ($(du -m ice/env.tar.gz | cut -f1) MB)"
pass "scheduler, local and remote daemon up"

# --- the project ----------------------------------------------------------------
mkdir -p src
cat >src/k.hip <<'K'
#include <hip/hip_runtime.h>
namespace { __global__ void hidden(float* p) { p[threadIdx.x] += 1.0f; } }
static __device__ int calls;
__global__ void scale(float* p) { atomicAdd(&calls, 1); p[threadIdx.x] *= 2.0f; }
void run_scale(float* p) { scale<<<1, 64>>>(p); hidden<<<1, 64>>>(p); }
K
cat >src/m.hip <<'K'
#include <hip/hip_runtime.h>
__global__ void fill(float* p) { p[threadIdx.x] = 1.0f; }
void run_scale(float* p);
int main() { float* p = nullptr; fill<<<1, 64>>>(p); run_scale(p); return 0; }
K
cat >src/r.hip <<'K'
#include <hip/hip_runtime.h>
__device__ int twice(int x) { return 2 * x; }
__global__ void use(int* p) { p[0] = twice(p[0]); }
K
two="--offload-arch=gfx906 --offload-arch=gfx90a"
project() {
  cat <<R
rule hip
  command = $1 -x hip $HIP_FLAGS_DEFAULT -O2 -Wall -Werror \$flags -MD -MT \$out -MF \$out.d -c \$in -o \$out
  depfile = \$out.d
  deps = gcc
  description = CC \$out
rule link
  command = clang++-15 --rocm-path=/usr --hip-link \$in -o \$out
build k.o: hip ../src/k.hip
  flags = $two
build m.o: hip ../src/m.hip
  flags = $two
build r.o: hip ../src/r.hip
  flags = -fgpu-rdc $two
build app: link k.o m.o
R
}
outputs="k.o m.o r.o app k.o.phc/bundle.hipfb m.o.phc/bundle.hipfb k.o.phc/gfx906.o k.o.phc/gfx90a.o r.o.phc/gfx906.o r.o.phc/gfx90a.o"
same() {
  local o
  for o in $outputs; do
    cmp "$1/$o" "$2/$o" || fail "$1/$o differs from $2/$o"
  done
}
remote_runs() { icecc_remote_runs "$ice"; }

mkdir -p local dist auto trap
project clang++-15 >local/build.ninja
project clang++-15 >dist/build.ninja
project "icecc clang++-15" >auto/build.ninja
(cd local && "$PHC" regen -q && ninja >/dev/null) || fail "local split build failed"
pass "local split built"

(cd dist && "$PHC" regen --distribute icecc --remote-jobs 4 --explain) >dist.out ||
  fail "regen --distribute icecc failed: $(cat dist.out)"
grep -q "split       k.o  \[gfx906 gfx90a\]  device compiles: icecc" dist.out ||
  fail "--explain does not say the device compiles go to icecc: $(cat dist.out)"
grep -q "6 device compiles sent to icecc" dist.out || fail "summary: $(tail -1 dist.out)"
# What runs for the bundle: the words after the step runner's "--", if any.
if grep "clang-offload-bundler" dist/build.ninja | sed -E 's/.* -- //; s/^ *(command|PHC_COMMAND) = //' |
  grep -Eq '^([^ ]*/)?icecc '; then fail "the bundler is wrapped"; fi
(cd dist && ninja >../dist.build 2>&1) || fail "distributed build failed: $(cat dist.build)"
expect_eq "device compiles the remote daemon ran" 6 "$(remote_runs)"
same dist local
pass "6 device compiles ran on the remote iceccd; every object, bundle and the program identical to the local split's"

(cd auto && "$PHC" regen --explain) >auto.out || fail "regen of an icecc build failed"
grep -q "device compiles: icecc" auto.out || fail "an icecc launcher's compiles stay local: $(cat auto.out)"
before=$(remote_runs)
(cd auto && ninja >/dev/null 2>&1) || fail "auto-distributed build failed"
expect_eq "device compiles sent by the launcher's icecc" $((before + 6)) "$(remote_runs)"
same auto local
pass "with icecc as the compile's launcher the device compiles go to the farm, identical"

# The launcher: PHC_DISTRIBUTE=icecc sends its device compiles too.
L=$(dirname "$PHC")/phc-launch
mkdir -p launch
for mode in none icecc; do
  (cd launch && PHC_DISTRIBUTE=$mode "$L" clang++-15 -x hip $HIP_FLAGS_DEFAULT -O2 $two \
    -c ../src/k.hip -o "k-$mode.o") || fail "phc-launch with PHC_DISTRIBUTE=$mode failed"
done
expect_eq "device compiles sent by phc-launch" $((before + 8)) "$(remote_runs)"
cmp launch/k-none.o launch/k-icecc.o || fail "phc-launch's distributed object differs from its local one"
pass "phc-launch with PHC_DISTRIBUTE=icecc: 2 remote device compiles, the object identical"

# The trap: a compiler that writes unbundled device sources fails the build.
mkdir -p trapbin
cat >trapbin/clang++ <<'W'
#!/bin/sh
for a in "$@"; do
  shift
  if [ "$a" = --gpu-bundle-output ]; then set -- "$@" --no-gpu-bundle-output; else set -- "$@" "$a"; fi
done
exec clang++-15 "$@"
W
chmod +x trapbin/clang++
project "$dir/trapbin/clang++" >trap/build.ninja
(cd trap && "$PHC" regen -q --distribute icecc) || fail "regen of the trap build failed"
if (cd trap && ninja >../trap.out 2>&1); then fail "a build with unbundled preprocessed files succeeded"; fi
grep -q "holds no device section for gfx9" trap.out || fail "the refusal is not told: $(cat trap.out)"
[ ! -e trap/k.o.phc/gfx906.o ] || fail "a device object was written from an unbundled file"
pass "the kernel-less trap fails the build"

# --overlap-host: the host compiles go to the farm too (a local preprocess
# edge, the compile of its output through icecc), embedding a device library
# as the placeholder; the objects are the local split's (and so the driver's).
mkdir -p overlap
project clang++-15 >overlap/build.ninja
(cd overlap && "$PHC" regen --distribute icecc --overlap-host --explain) >overlap.out ||
  fail "regen --distribute icecc --overlap-host failed: $(cat overlap.out)"
grep -q "split       k.o  \[gfx906 gfx90a\]  device compiles: icecc, host compile icecc" overlap.out ||
  fail "--explain does not say the host compile goes to icecc: $(cat overlap.out)"
before=$(remote_runs)
(cd overlap && ninja >../overlap.build 2>&1) || fail "the overlapped distributed build failed: $(cat overlap.build)"
# 6 device compiles, and the host compiles of k.o and m.o (r.o is RDC: no overlap).
expect_eq "compiles the remote daemon ran (6 device, 2 host)" $((before + 8)) "$(remote_runs)"
same overlap local
if grep -q "icecc compiled it here" overlap.build; then fail "a host compile ran here: $(cat overlap.build)"; fi
pass "--overlap-host: 6 device and 2 host compiles ran on the remote iceccd; every output identical to the local split's"
# icecc compiling here (ICECC=disable) writes a host object that names the
# preprocessed file: device-ii sees it and compiles the source instead.
rm -f overlap/k.o.phc/host.o overlap/m.o.phc/host.o
(cd overlap && ICECC=disable ninja >../overlap-local.build 2>&1) || fail "the build with icecc disabled failed"
expect_eq "host compiles redone from the source" 2 "$(grep -c "names host.ii, not [km].hip (icecc compiled it here)" overlap-local.build || true)"
same overlap local
pass "--overlap-host with icecc compiling here: the host objects made from the source, identical"

# clang 22's new offload driver (issue 41): an environment of its own
# (icecc-env for clang 22, with the llvm-objcopy its bundler needs), given by
# ICECC_VERSION to these builds only; a plain and an -fgpu-rdc object with a
# target ID that carries a feature: 4 device compiles on the remote daemon,
# every output identical to the local split's, which is the driver's own.
C22=/usr/lib/llvm-22/bin/clang++
SHIM="-mcode-object-version=5 -D__AMDGCN_WAVEFRONT_SIZE=64" # ROCm 5.2 headers under clang 22
"$PHC" icecc-env -o "$ice/env22.tar.gz" --tmpdir "$ice/daemon-tmp" -- "$C22" $HIP_FLAGS_DEFAULT $SHIM \
  >ice/env22.out 2>&1 || fail "icecc-env for clang 22 failed: $(cat ice/env22.out)"
chown icecc "$ice/env22.tar.gz"
listing=$(tar -tzf ice/env22.tar.gz)
grep -qx ./usr/bin/llvm-objcopy <<<"$listing" || fail "clang 22's environment lacks llvm-objcopy"
mkdir -p local22 dist22
for d in local22 dist22; do
  cat >"$d/build.ninja" <<R
rule hip
  command = $C22 -x hip $HIP_FLAGS_DEFAULT $SHIM --offload-new-driver -O2 \$flags -MD -MF \$out.d -c \$in -o \$out
  depfile = \$out.d
  deps = gcc
build k.o: hip ../src/k.hip
  flags = --offload-arch=gfx906 --offload-arch=gfx90a:xnack+
build r.o: hip ../src/r.hip
  flags = -fgpu-rdc --offload-arch=gfx906 --offload-arch=gfx90a:xnack+
R
done
(cd local22 && "$PHC" regen -q && ninja >/dev/null 2>&1) || fail "clang 22 local split build failed"
"$PHC" check -C local22 k.o r.o >check22.out 2>&1 || fail "clang 22's local split is not the driver's: $(cat check22.out)"
(cd dist22 && "$PHC" regen --distribute icecc >../dist22.regen) || fail "clang 22 regen: $(cat dist22.regen)"
grep -q "4 device compiles sent to icecc" dist22.regen || fail "clang 22: regen says: $(cat dist22.regen)"
before=$(remote_runs)
(cd dist22 && ICECC_VERSION=$ice/env22.tar.gz ninja >../dist22.build 2>&1) ||
  fail "clang 22 distributed build failed: $(cat dist22.build)"
expect_eq "clang 22 device compiles the remote daemon ran" $((before + 4)) "$(remote_runs)"
for o in k.o r.o k.o.phc/gfx906.o r.o.phc/device.pkg; do
  cmp "dist22/$o" "local22/$o" || fail "clang 22: $o differs from the local split's"
done
pass "clang 22's new driver on icecc: 4 remote device compiles (RDC and not, gfx90a:xnack+), outputs identical to the local split's and the driver's"

# The remote daemon stopped midway: icecc compiles the rest locally.
(cd dist && ninja -t clean >/dev/null)
before=$(remote_runs)
(cd dist && ninja -j1 >../midway.out 2>&1) &
build_pid=$!
for _ in $(seq 600); do
  [ "$(remote_runs)" -gt "$before" ] && break
  sleep 0.05
done
icecc_stop_remote
wait "$build_pid" || fail "the build with the remote daemon stopped midway failed: $(cat midway.out)"
same dist local
pass "remote daemon stopped midway: the build finished locally, outputs identical"
