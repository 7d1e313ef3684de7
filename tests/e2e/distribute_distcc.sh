#!/usr/bin/env bash
# Device compiles on a distcc farm of one: distccd on 127.0.0.1 on a free
# port, its state, temporary files and log in this suite's folder, started
# and stopped by its PID. A hand-written manifest (clang-15, two
# architectures; a plain object, one with a static __device__ variable in an
# anonymous namespace, an -fgpu-rdc one, a link) through `regen --distribute
# distcc`: the daemon's log shows every device compile ran there; every
# object, bundle and the linked program is identical (cmp) to the local
# split's, also with clang 19 and clang 22's old driver; the launcher's own
# distcc (no option) distributes too; gen too; the
# kernel-less trap fails the build both ways (an unbundled preprocessed file
# is refused, also one put in place after a build); the daemon stopped
# midway, and down, still gives identical outputs (distcc compiles locally).
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
command -v distccd >/dev/null 2>&1 || { echo "SKIP: distccd is not installed (scripts/setup)"; exit 0; }
dir=$(suite_dir distribute_distcc)
cd "$dir" || exit 1
mkdir -p tmp daemon client
chmod 777 daemon
export TMPDIR=$dir/tmp PHC_PROBE_CACHE=$dir/probes.json

# --- the daemon ---------------------------------------------------------------
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
daemon_pid=
start_daemon() {
  : >daemon/log
  chmod 666 daemon/log
  local user=()
  [ "$(id -u)" -eq 0 ] && user=(--user distccd) # distccd refuses to run as root
  TMPDIR=$dir/daemon distccd --daemon --no-detach --listen 127.0.0.1 --port "$port" \
    --allow 127.0.0.1 --jobs 2 "${user[@]}" --log-file "$dir/daemon/log" --log-level info \
    </dev/null >/dev/null 2>&1 &
  daemon_pid=$!
  for _ in $(seq 50); do
    grep -q "listening on 127.0.0.1:$port" daemon/log 2>/dev/null && return 0
    sleep 0.1
  done
  fail "distccd did not start: $(cat daemon/log)"
}
stop_daemon() {
  [ -n "$daemon_pid" ] || return 0
  kill "$daemon_pid" 2>/dev/null || true
  wait "$daemon_pid" 2>/dev/null || true
  daemon_pid=
}
trap stop_daemon EXIT
start_daemon
export DISTCC_HOSTS="127.0.0.1:$port/2" DISTCC_DIR=$dir/client DISTCC_LOG=$dir/client/log

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
# Hostile: clang -E leaves a pragma's macros as written, so compiled from the
# preprocessed file #pragma pack(PK) would be ignored (another layout, another
# object that links). device-ii's screen must send these compiles to the local
# compile of the source: one macro of the source, one of the command line.
cat >src/p.hip <<'K'
#include <hip/hip_runtime.h>
#define PK 1
#pragma pack(PK)
struct S { char c; int i; };
#pragma pack()
#pragma pack(TWO)
struct T { char c; double d; };
#pragma pack()
__global__ void packed(int* p) { p[0] = sizeof(S); p[1] = sizeof(T); }
K
two="--offload-arch=gfx906 --offload-arch=gfx90a"
# project CC: a manifest whose compiles run CC (with its launcher, if any)
project() {
  cat <<R
rule hip
  command = $1 -x hip $HIP_FLAGS_DEFAULT -O2 -Wall -Werror -I../inc -DTWO=2 \$flags -MD -MT \$out -MF \$out.d -c \$in -o \$out
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
build p.o: hip ../src/p.hip
  flags = $two
build app: link k.o m.o
R
}
outputs="p.o p.o.phc/gfx906.o p.o.phc/gfx90a.o k.o m.o r.o app k.o.phc/bundle.hipfb m.o.phc/bundle.hipfb k.o.phc/gfx906.o k.o.phc/gfx90a.o r.o.phc/gfx906.o r.o.phc/gfx90a.o"
# same A B: every output of the build in A is byte-identical to B's
same() {
  local o
  for o in $outputs; do
    cmp "$1/$o" "$2/$o" || fail "$1/$o differs from $2/$o"
  done
}
remote_runs() { grep -c 'COMPILE_OK.*cpp\.phc/' daemon/log || true; }

mkdir -p local dist inc auto
project clang++-15 >local/build.ninja
project clang++-15 >dist/build.ninja
project "distcc clang++-15" >auto/build.ninja
(cd local && "$PHC" regen -q && ninja >/dev/null) || fail "local split build failed"
pass "local split built"

# --- distributed: the log shows each device compile ran on the daemon --------
(cd dist && "$PHC" regen --distribute distcc --remote-jobs 4 --explain) >dist.out ||
  fail "regen --distribute distcc failed: $(cat dist.out)"
grep -q "split       k.o  \[gfx906 gfx90a\]  device compiles: distcc" dist.out ||
  fail "--explain does not say the device compiles go to distcc: $(cat dist.out)"
grep -q "8 device compiles sent to distcc" dist.out || fail "summary: $(tail -1 dist.out)"
grep -q "^pool phc_hip_remote$" dist/build.ninja || fail "no remote pool"
grep -q "clang-offload-bundler" dist/build.ninja || fail "no bundler"
# What runs for the bundle: the words after the step runner's "--", if any.
if grep "clang-offload-bundler" dist/build.ninja | sed -E 's/.* -- //; s/^ *(command|PHC_COMMAND) = //' |
  grep -Eq '^([^ ]*/)?distcc '; then fail "the bundler is wrapped"; fi
(cd dist && ninja >../dist.build 2>&1) || fail "distributed build failed: $(cat dist.build)"
expect_eq "device compiles run by distccd" 6 "$(remote_runs)"
# Every object the farm returned was used (r.o's RDC bitcode too).
! grep -q "compiling it here instead" dist.build ||
  fail "what the farm returned was refused: $(grep "here instead" dist.build)"
expect_eq "device compiles of p.hip told to run locally" 2 \
  "$(grep -c "p\.o\.phc/gfx9.*the pragma '#pragma pack(PK)' names the macro PK.*runs locally" dist.build || true)"
same dist local
"$PHC" check -C local p.o >check.out 2>&1 || fail "the local split of p.o is not the driver's: $(cat check.out)"
pass "6 device compiles ran on distccd, p.hip's 2 locally (its pragmas name macros); every object, bundle and the program identical to the local split's (p.o checked against the driver's)"
(cd dist && ninja -n | grep -q "no work to do") || fail "distributed build is not a no-op"

# A header only device code reads rebuilds through its preprocess edges.
cat >inc/dev.h <<'K'
#pragma once
K
sed -i '1i #include "dev.h"' src/r.hip
(cd dist && ninja >/dev/null && ninja -n | grep -q "no work to do") || fail "rebuild after a header"
touch inc/dev.h
work=$(cd dist && ninja -n | grep -c 'HIP preprocess' || true)
expect_eq "preprocess edges a header touch reruns" 2 "$work"
(cd dist && ninja >/dev/null) || fail "rebuild after touching a header"
(cd local && ninja >/dev/null) || fail "local rebuild"
same dist local
pass "a header touch reruns the preprocess edges that read it; outputs identical"

# --- the launcher already is distcc: no option needed -------------------------
(cd auto && "$PHC" regen --explain) >auto.out || fail "regen of a distcc build failed"
grep -q "device compiles: distcc" auto.out || fail "a distcc launcher's compiles stay local: $(cat auto.out)"
before=$(remote_runs)
(cd auto && ninja >/dev/null 2>&1) || fail "auto-distributed build failed"
expect_eq "device compiles sent by the launcher's distcc" $((before + 6)) "$(remote_runs)"
same auto local
pass "with distcc as the compile's launcher the device compiles go to distccd, identical"

# --- gen: the same through a compilation database -------------------------------
mkdir -p gen
python3 - "$dir/gen" "$HIP_FLAGS_DEFAULT" <<'PY'
import json, sys
d, flags = sys.argv[1], sys.argv[2]
two = "--offload-arch=gfx906 --offload-arch=gfx90a"
entries = [dict(directory=d, file=f"../src/{n}.hip", output=f"{n}.o",
                command=f"clang++-15 -x hip {flags} -O2 -Wall -Werror -I../inc -DTWO=2 {extra} {two} "
                        f"-MD -MT {n}.o -MF {n}.o.d -c ../src/{n}.hip -o {n}.o")
           for n, extra in (("k", ""), ("m", ""), ("r", "-fgpu-rdc"))]
json.dump(entries, open(f"{d}/compile_commands.json", "w"))
PY
(cd gen && "$PHC" gen -p compile_commands.json -o phc.ninja --distribute distcc) >gen.out ||
  fail "gen --distribute distcc failed: $(cat gen.out)"
grep -q "6 device compiles sent to distcc" gen.out || fail "gen's summary: $(cat gen.out)"
before=$(remote_runs)
(cd gen && ninja -f phc.ninja >../gen.build 2>&1) || fail "gen's distributed build failed: $(cat gen.build)"
expect_eq "device compiles of gen's build run by distccd" $((before + 6)) "$(remote_runs)"
for o in k.o m.o r.o; do cmp "gen/$o" "local/$o" || fail "gen/$o differs from the local split's"; done
pass "gen --distribute distcc: 6 remote device compiles, objects identical"

# --- clang 19 (old driver) and clang 22's new driver: the same shape ---
# (clang 22's old driver on the farm, the same preprocessed route as clang 19's,
# went for issue 42's CI time; fidelity.sh has its split objects the driver's.)
SHIM="-mcode-object-version=5 -D__AMDGCN_WAVEFRONT_SIZE=64"
# (By name: distccd runs only the compilers of its allow-list, /usr/lib/distcc.)
# The new driver's device compiles go to the farm as bitcode (the old driver
# compiles the preprocessed file, with the new driver's cc1 argument), with a
# target ID that carries a feature; its code generation and bundle run here.
for variant in clang++-19 clang++-22-new; do
  cc=${variant%-new}
  command -v "$cc" >/dev/null || continue
  v=$variant
  shim="" archs=$two devices="k.o.phc/gfx906.o r.o.phc/gfx90a.o"
  [ "$cc" = clang++-22 ] && shim=$SHIM
  if [ "$v" = clang++-22-new ]; then
    shim="$SHIM --offload-new-driver"
    archs="--offload-arch=gfx906 --offload-arch=gfx90a:xnack+"
    devices="k.o.phc/gfx906.o k.o.phc/gfx90a-xnack+.img r.o.phc/gfx90a-xnack+.o r.o.phc/device.pkg"
  fi
  mkdir -p "$v-local" "$v-dist"
  for d in "$v-local" "$v-dist"; do
    cat >"$d/build.ninja" <<R
rule hip
  command = $cc -x hip $HIP_FLAGS_DEFAULT $shim -O2 \$flags -MD -MF \$out.d -c \$in -o \$out
  depfile = \$out.d
  deps = gcc
build k.o: hip ../src/k.hip
  flags = $archs
build r.o: hip ../src/r.hip
  flags = -I../inc -fgpu-rdc $archs
R
  done
  (cd "$v-local" && "$PHC" regen -q && ninja >/dev/null) || fail "$v: local split build failed"
  before=$(remote_runs)
  (cd "$v-dist" && "$PHC" regen --distribute distcc >../"$v".regen && ninja >../"$v".build 2>&1) ||
    fail "$v: distributed build failed: $(cat "$v".regen "$v".build)"
  grep -q "4 device compiles sent to distcc" "$v".regen || fail "$v: regen says: $(cat "$v".regen)"
  expect_eq "$v device compiles run by distccd" $((before + 4)) "$(remote_runs)"
  ! grep -q "compiling it here instead" "$v".build ||
    fail "$v: what the farm returned was refused: $(grep "here instead" "$v".build)"
  for o in k.o r.o $devices; do
    [ -f "$v-local/$o" ] || fail "$v: the local split wrote no $o"
    cmp "$v-dist/$o" "$v-local/$o" || fail "$v: $o differs from the local split's"
  done
  pass "$v: 4 remote device compiles, their objects used, outputs identical to the local split's"
done
if command -v clang++-22 >/dev/null; then
  "$PHC" check -C clang++-22-new-local k.o r.o >check22.out 2>&1 ||
    fail "clang 22's new-driver local split is not the driver's: $(cat check22.out)"
  pass "clang 22 new driver: the local split's objects (and so the farm's) are the driver's own"
  # The guard of the distributed shape can fail: a compiler that compiles a
  # preprocessed file otherwise (-O1 after the command's -O2), and says so in
  # its -### too, keeps its device compiles local, naming the argument.
  mkdir -p farmshim
  cat >farmshim/clang++ <<'S'
#!/bin/sh
case " $* " in *" -xhip-cpp-output "*) exec clang++-22 "$@" -O1 ;; esac
exec clang++-22 "$@"
S
  chmod +x farmshim/clang++
  sed "s#command = clang++-22 #command = $dir/farmshim/clang++ #" clang++-22-new-local/build.ninja.cmake \
    >farmshim/build.ninja
  grep -q farmshim/clang++ farmshim/build.ninja || fail "no shim in the manifest"
  (cd farmshim && "$PHC" regen --distribute distcc --explain) >farmshim.out 2>&1 ||
    fail "regen of the shim's build failed: $(cat farmshim.out)"
  grep -q "device compiles local: jobs-differ: clang -cc1 (gfx[0-9a-z:+]*): -O2 .*not carried; -O1 added" \
    farmshim.out || fail "the farm's different compile was not seen: $(cat farmshim.out)"
  grep -q "device compiles sent" farmshim.out && fail "a device compile of the shim went to the farm"
  pass "the guard keeps local the device compiles a farm would compile otherwise, naming the argument"
fi

# --- the trap: an unbundled preprocessed file never becomes a code object ----
mkdir -p trapbin trap
cat >trapbin/clang++ <<'W'
#!/bin/sh
# clang++-15 with the device source unbundled: the kernel-less trap.
for a in "$@"; do
  shift
  if [ "$a" = --gpu-bundle-output ]; then set -- "$@" --no-gpu-bundle-output; else set -- "$@" "$a"; fi
done
exec clang++-15 "$@"
W
chmod +x trapbin/clang++
project "$dir/trapbin/clang++" >trap/build.ninja
(cd trap && "$PHC" regen -q --distribute distcc) || fail "regen of the trap build failed"
if (cd trap && ninja >../trap.out 2>&1); then fail "a build with unbundled preprocessed files succeeded"; fi
grep -q "holds no device section for gfx9" trap.out || fail "the refusal is not told: $(cat trap.out)"
[ ! -e trap/k.o.phc/gfx906.o ] || fail "a device object was written from an unbundled file"
ls trap/cpp.phc/k.o.phc/*.ii >/dev/null 2>&1 && fail "an unbundled preprocessed file was left behind"
# One put in place after a build: ninja reruns its preprocess edge (the deps
# record is older than the file); the compile edge's command alone refuses it.
ii=dist/cpp.phc/k.o.phc/gfx906.ii
clang++-15 -x hip $HIP_FLAGS_DEFAULT -O2 --offload-arch=gfx906 -E --offload-device-only \
  --no-gpu-bundle-output src/k.hip -o "$ii"
compile=$(cd dist && ninja -t commands k.o.phc/gfx906.o | tail -1)
case "$compile" in *"device-ii --arch gfx906 --input cpp.phc/k.o.phc/gfx906.ii --local "*" -- distcc "*) ;;
  *) fail "unexpected compile command: $compile" ;; esac
rm -f dist/k.o.phc/gfx906.o
if (cd dist && sh -c "$compile" >../trap2.out 2>&1); then fail "an unbundled file put in place was compiled"; fi
grep -q "holds no device section for gfx906" trap2.out || fail "not told: $(cat trap2.out)"
[ ! -e dist/k.o.phc/gfx906.o ] || fail "a device object was written from an unbundled file"
(cd dist && ninja >/dev/null) || fail "the build after the trap failed"
same dist local
pass "the kernel-less trap fails the build (preprocess and compile steps refuse unbundled files)"
rm -f "$ii"

# --- the engine stopped midway, then down: distcc compiles locally ----------
(cd dist && ninja -t clean >/dev/null)
before=$(remote_runs)
(cd dist && ninja -j1 >../midway.out 2>&1) &
build_pid=$!
for _ in $(seq 600); do
  [ "$(remote_runs)" -gt "$before" ] && break
  sleep 0.05
done
stop_daemon
wait "$build_pid" || fail "the build with the daemon stopped midway failed: $(cat midway.out)"
same dist local
pass "daemon stopped midway: the build finished locally, outputs identical"
# A plain object and an RDC one again (m.o is k.o's kind; p.o's compiles never
# go to the farm), with everything they are built from.
(cd dist && ninja -t clean k.o r.o >/dev/null && ninja >../down.out 2>&1) || fail "build with the daemon down failed"
grep -q "HIP distcc gfx906 k\.o" down.out && grep -q "HIP distcc gfx906 r\.o" down.out || fail "k.o and r.o were not built again: $(cat down.out)"
same dist local
pass "daemon down: k.o's and r.o's compiles ran locally, outputs identical"
