#!/usr/bin/env bash
# --overlap-host: each host compile runs beside its device compiles (it embeds
# an empty placeholder) and a small embed step puts the bundle into its object
# with objcopy. Through regen on a hand-written manifest (clang 15, hipcc,
# clang 19 with --offload-compress, clang 22's new driver): the host edge does
# not wait for the device code; every object is byte-identical to the driver's
# own compile with the same CUID, so the executable and the shared library
# linked from them are the driver-built ones; __hip_fatbin stays local; an
# -fgpu-rdc object gets no embed step; a touched source rebuilds its object's
# edges only; no-op after the build. Then the same objects through gen and the
# launcher (PHC_OVERLAP_HOST=1).
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
export PHC_REGEN_VERIFY=1
dir=$(suite_dir overlap_host)
cd "$dir" || exit 1
mkdir -p tmp
export TMPDIR=$dir/tmp PHC_PROBE_CACHE=$dir/probes.json
C19=/usr/lib/llvm-19/bin/clang++
C22=/usr/lib/llvm-22/bin/clang++
SHIM="-mcode-object-version=5 -D__AMDGCN_WAVEFRONT_SIZE=64"
cat >k.hip <<'K'
#include <hip/hip_runtime.h>
static __device__ int calls;
__global__ void scale(float* p) { atomicAdd(&calls, 1); p[threadIdx.x] *= 2.0f; }
void run_scale(float* p) { scale<<<1, 64>>>(p); }
K
cat >m.hip <<'K'
#include <hip/hip_runtime.h>
__global__ void fill(float* p) { p[threadIdx.x] = 1.0f; }
void run_scale(float* p);
int main() { float* p = nullptr; fill<<<1, 64>>>(p); run_scale(p); return 0; }
K
cat >r.hip <<'K'
#include <hip/hip_runtime.h>
__device__ int twice(int x) { return 2 * x; }
K
two="--offload-arch=gfx906 --offload-arch=gfx90a"
cat >build.ninja <<R
rule hip
  command = \$cc -x hip $HIP_FLAGS_DEFAULT -O2 \$flags -MD -MF \$out.d -c \$in -o \$out
  depfile = \$out.d
  deps = gcc
  description = CC \$out
rule link
  command = \$cc --rocm-path=/usr \$flags \$in -o \$out
build k15.o: hip k.hip
  cc = clang++-15
  flags = -fPIC $two
build m15.o: hip m.hip
  cc = clang++-15
  flags = $two
build app15: link k15.o m15.o
  cc = clang++-15
  flags = --hip-link
build libk15.so: link k15.o
  cc = clang++-15
  flags = --hip-link -shared
rule ar
  command = rm -f \$out && ar qcD \$out \$in
build libkm15.a: ar k15.o m15.o
rule link_archive
  command = clang++-15 --rocm-path=/usr --hip-link -Wl,--whole-archive \$in -Wl,--no-whole-archive -o \$out
build appa15: link_archive libkm15.a
build kcc.o: hip k.hip
  cc = hipcc
  flags = $two
build k19.o: hip k.hip
  cc = $C19
  flags = --offload-compress $two
build k22.o: hip k.hip
  cc = $C22
  flags = --offload-new-driver $SHIM $two
build r15.o: hip r.hip
  cc = clang++-15
  flags = -fgpu-rdc $two
R
"$PHC" regen --overlap-host >regen.out || fail "regen --overlap-host failed: $(cat regen.out)"
for o in k15.o m15.o kcc.o k19.o k22.o; do
  grep -q "HIP embed $o\$" build.ninja || fail "no embed edge for $o"
  # The host edge reads the source, not the bundle: it starts beside the device edges.
  host=$(grep -A1 "^build $o.phc/host.o: " build.ninja | head -1)
  [ -n "$host" ] || fail "no host edge writing $o.phc/host.o"
  ! grep -q "bundle" <<<"$host" || fail "the host edge of $o waits for the bundle: $host"
done
! grep -q "HIP embed r15.o" build.ninja || fail "the -fgpu-rdc object got an embed step"
ninja >ninja.out 2>&1 || fail "build failed: $(cat ninja.out)"

# identical OBJ SRC CC FLAGS...: the object equals the driver's compile with its split's CUID.
identical() {
  local obj=$1 src=$2 cc=$3 cuid
  shift 3
  cuid=$(grep -A3 "^build $obj.phc/host.o: " build.ninja | grep -o -- "-cuid=[0-9a-f]*" | head -1 || true)
  [ -n "$cuid" ] || fail "no CUID for $obj"
  # shellcheck disable=SC2086
  "$cc" -x hip $HIP_FLAGS_DEFAULT -O2 "$@" $cuid -c "$src" -o ref.o 2>/dev/null || fail "driver compile of $obj failed"
  cmp -s ref.o "$obj" || fail "$obj differs from the driver's own compile with $cuid"
  cp ref.o "ref-$obj"
}
# shellcheck disable=SC2086
identical k15.o k.hip clang++-15 -fPIC $two
# shellcheck disable=SC2086
identical m15.o m.hip clang++-15 $two
# shellcheck disable=SC2086
identical kcc.o k.hip hipcc $two
# shellcheck disable=SC2086
identical k19.o k.hip "$C19" --offload-compress $two
# shellcheck disable=SC2086
identical k22.o k.hip "$C22" --offload-new-driver $SHIM $two
for o in k15.o k19.o k22.o; do
  nm "$o" | grep -q " [rd] __hip_fatbin" || ! nm "$o" | grep -q "__hip_fatbin$" ||
    fail "__hip_fatbin is not local in $o: $(nm "$o" | grep __hip_fatbin)"
  ! nm "$o" | grep -q " [A-TV-Z] __hip_gpubin_handle" || fail "$o has a global __hip_gpubin_handle"
done
clang++-15 --rocm-path=/usr --hip-link ref-k15.o ref-m15.o -o ref-app 2>/dev/null || fail "driver link failed"
cmp -s ref-app app15 || fail "app15 differs from the program linked from the driver's objects"
clang++-15 --rocm-path=/usr --hip-link -shared ref-k15.o -o ref-lib.so 2>/dev/null || fail "driver -shared link failed"
cmp -s ref-lib.so libk15.so || fail "libk15.so differs from the library linked from the driver's objects"
mkdir -p ref && cp ref-k15.o ref/k15.o && cp ref-m15.o ref/m15.o # the same member names
(cd ref && ar qcD ../ref-libkm15.a k15.o m15.o) || fail "ar of the driver's objects failed"
cmp -s ref-libkm15.a libkm15.a || fail "libkm15.a differs from the archive of the driver's objects"
clang++-15 --rocm-path=/usr --hip-link -Wl,--whole-archive ref-libkm15.a -Wl,--no-whole-archive \
  -o ref-appa 2>/dev/null || fail "driver link of the archive failed"
cmp -s ref-appa appa15 || fail "appa15 differs from the program linked from the driver's archive"
expect_no_work "$dir" "after the build"
pass "regen --overlap-host: objects (clang 15, hipcc, clang 19, clang 22) identical, so are the programs, the shared library and the static library"

# Touching k.hip: each k object's device, host and embed edges, nothing of m15.o.
touch k.hip
w=$(ninja_work "$dir")
for step in "HIP host k15.o" "HIP gfx906 k22.o" "HIP embed k19.o"; do
  grep -q "$step" <<<"$w" || fail "after touching k.hip, no '$step': $w"
done
! grep -q "HIP .*m15.o" <<<"$w" || fail "touching k.hip rebuilds m15.o: $w"
ninja >/dev/null 2>&1 || fail "rebuild failed"
cmp -s ref-k15.o k15.o || fail "k15.o differs after the rebuild"
expect_no_work "$dir" "after the rebuild"
pass "a touched source rebuilds its objects' device, host and embed edges only"

# A recompaction against the original manifest (what a cmake run by hand
# does) drops the split edges' records; regen puts them back, those of the
# overlapped and RDC host compiles (host.o, named by deps-set --output=) too.
ninja -f build.ninja.cmake -t recompact >/dev/null || fail "ninja -t recompact failed"
w=$(ninja_work "$dir")
grep -q "HIP host k15.o" <<<"$w" || fail "the recompaction did not drop the host.o records: $w"
"$PHC" regen --overlap-host >regen2.out || fail "regen after the recompaction failed: $(cat regen2.out)"
grep -q "put back [0-9]* header records" regen2.out || fail "no records put back: $(cat regen2.out)"
expect_no_work "$dir" "after the recompaction and regen"
pass "records a recompaction drops are put back by regen, host.o's included"

# gen from a compilation database, and the launcher, with the same overlap.
python3 - "$dir" <<'PY'
import json, sys
d = sys.argv[1]
flags = "-x hip --rocm-path=/usr --hip-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode -O2"
cmd = f"clang++-15 {flags} -fPIC --offload-arch=gfx906 --offload-arch=gfx90a -c k.hip -o gen/k15.o"
json.dump([{"directory": d, "command": cmd, "file": "k.hip", "output": "gen/k15.o"}],
          open(f"{d}/compile_commands.json", "w"))
PY
mkdir -p gen
"$PHC" gen --overlap-host -p compile_commands.json -o phc.ninja >gen.out || fail "gen failed: $(cat gen.out)"
grep -q "HIP embed gen/k15.o" phc.ninja || fail "gen --overlap-host wrote no embed edge"
ninja -f phc.ninja >gen-ninja.out 2>&1 || fail "gen build failed: $(cat gen-ninja.out)"
cmp -s ref-k15.o gen/k15.o || fail "gen's gen/k15.o differs from the driver's"
mkdir -p launch
PHC_NINJA_TRACE=$dir/trace.log PHC_OVERLAP_HOST=1 "$(dirname "$PHC")/phc-launch" clang++-15 -x hip \
  $HIP_FLAGS_DEFAULT -O2 -fPIC $two -c k.hip -o launch/k15.o || fail "phc-launch failed"
grep -q "launch/k15.o::embed" trace.log || fail "the launcher ran no embed step: $(cat trace.log)"
cmp -s ref-k15.o launch/k15.o || fail "the launcher's launch/k15.o differs from the driver's"
pass "gen --overlap-host and the launcher (PHC_OVERLAP_HOST=1) write the driver's object"
