#!/usr/bin/env bash
# Hardening, round 4 (issue 38): the step runner, its history, `why`,
# `icecc-env` and what a farm returns, each against a hostile setup in this
# suite's folder only (links to private folders, fifos, a file size limit, a
# generated manifest, a stand-in engine that lies; no daemon). One small
# kernel, one architecture: the only compiles are those of item 4.
#   1. a link in the budget folder's place is refused (warned), and the files
#      of the folder it points to, and non-reservations of a real one, stay;
#   2. a file size limit makes no step die mid-append: deps.ninja and the
#      history stay whole (a cut append is undone) and the step's status is
#      its command's;
#   3. a fifo as .phc-ninja/history, or as a depfile `why` reads, is refused
#      with a warning naming it, never waited on;
#   4. an object the engine returns empty, without the kernels or for another
#      architecture is replaced by the local compile, with a warning;
#   5. `icecc-env --tmpdir` with '..' is refused before anything is made;
#   6. `why` through a chain of 50,000 phony edges;
#   7. two builds sharing a history that compacts lose no record.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
dir=$(suite_dir hardening_steps)
cd "$dir" || exit 1

# --- 1. the budget folder -------------------------------------------------------
mkdir -p b1/.phc-ninja b1/outside b2/.phc-ninja/budget
echo keep >b1/outside/notes.txt
: >b1/outside/123.abcdef # named as a reservation is, its lock free
ln -s ../outside b1/.phc-ninja/budget
(cd b1 && "$PHC" step --memory 1G -- true) 2>b1/err || fail "step beside a linked budget folder: $(cat b1/err)"
[ -f b1/outside/notes.txt ] && [ -f b1/outside/123.abcdef ] ||
  fail "files of the folder the budget link points to were removed: $(ls b1/outside)"
grep -q 'budget: not a folder' b1/err || fail "no warning naming the linked budget folder: $(cat b1/err)"
echo keep >b2/.phc-ninja/budget/notes.txt
(cd b2 && "$PHC" step --memory 1G -- true) || fail "step in a plain budget folder"
[ -f b2/.phc-ninja/budget/notes.txt ] || fail "a file that is no reservation was removed from the budget folder"
pass "a linked budget folder is refused; only reservations are ever removed"

# --- 2. a file size limit -----------------------------------------------------------
limit_kb=36
# pad FILE LINE BYTES: FILE made of LINE repeated until it is just under BYTES.
pad() { python3 -c 'import sys; l = sys.argv[2] + "\n"; n = (int(sys.argv[3]) - 1) // len(l); open(sys.argv[1], "w").write(l * n)' "$@"; }
mkdir -p s2/.phc-ninja
pad s2/.phc-ninja/deps.ninja '# padding' $((limit_kb * 1024 - 200))
: >s2/.phc-ninja/deps.ninja.outputs
headers=$(for i in $(seq 40); do printf ' /usr/include/phc-hardening/h%02d.h' "$i"; done)
printf 'int x;\n' >s2/x.c
before=$(stat -c %s s2/.phc-ninja/deps.ninja)
rc=0
(cd s2 && ulimit -f "$limit_kb" && "$PHC" step --sets .phc-ninja/deps.ninja --depfile x.d --input x.c x.o \
  -- sh -c "printf 'x.o: x.c$headers\n' >x.d && : >x.o") 2>s2/err || rc=$?
expect_eq "the status of a step whose header set does not fit under the limit" 0 "$rc"
expect_eq "deps.ninja's size after an append the limit cut" "$before" "$(stat -c %s s2/.phc-ninja/deps.ninja)"
grep -q 'deps.ninja: cannot append' s2/err || fail "no warning naming deps.ninja: $(cat s2/err)"
# The step history over the limit: the compile succeeded, so does the step.
mkdir -p s3/.phc-ninja
line=$(printf 'v1\t1700000000000\t1200\t1100\t7\t1073741824\t1000\t0\tdevice\tpad.o')
pad s3/hist.steps "$line" $((limit_kb * 1024 - 20))
echo "$dir/s3/hist.steps" >s3/.phc-ninja/history
before=$(stat -c %s s3/hist.steps)
rc=0
(cd s3 && ulimit -f "$limit_kb" && "$PHC" step --memory 1G --output some/long/output/name.o -- true) 2>s3/err || rc=$?
expect_eq "the status of a step whose history record does not fit" 0 "$rc"
expect_eq "the history's size after an append the limit cut" "$before" "$(stat -c %s s3/hist.steps)"
grep -q 'hist.steps: cannot append: cut short' s3/err || fail "no warning naming the history: $(cat s3/err)"
pass "a file size limit fails appends whole (undone, warned), never the step"

# --- 3. fifos where outside text comes in -----------------------------------------
mkdir -p f1/.phc-ninja
mkfifo f1/.phc-ninja/history
rc=0
(cd f1 && timeout 20 "$PHC" step --memory 1G --output o -- true) 2>f1/err || rc=$?
expect_eq "the status of a step beside a fifo history" 0 "$rc"
grep -q '.phc-ninja/history: not a regular file' f1/err || fail "no warning naming the fifo: $(cat f1/err)"
mkdir -p w1
printf 'rule cc\n  command = touch $out\n  depfile = $out.d\nbuild out: cc in\n' >w1/build.ninja
touch w1/in w1/out
mkfifo w1/out.d
rc=0
timeout 20 "$PHC" why -C w1 out >w1/why.out 2>&1 || rc=$?
expect_eq "why's status with a fifo depfile" 0 "$rc"
grep -q 'out.d is not read (not a regular file)' w1/why.out || fail "why does not name the fifo depfile: $(cat w1/why.out)"
pass "fifos as the history and as a depfile are refused with a warning, never waited on"

# --- 6. why through 50,000 phony edges ------------------------------------------------
mkdir -p w6
python3 - w6/build.ninja <<'PY'
import sys
n = 50000
with open(sys.argv[1], "w") as f:
    f.write("rule cc\n  command = touch $out\nbuild out: cc p0\n")
    for i in range(n - 1):
        f.write(f"build p{i}: phony p{i + 1}\n")
    f.write(f"build p{n - 1}: phony src\n")
PY
touch w6/out
# out's log line (as ninja writes it, its mtime in ns), then a newer source.
python3 -c 'import os; print("# ninja log v5\n0\t1\t%d\tout\t0" % os.stat("w6/out").st_mtime_ns)' >w6/.ninja_log
sleep 0.01
touch w6/src
ninja -C w6 -n >/dev/null || fail "ninja -n does not walk the chain"
rc=0
"$PHC" why -C w6 out >w6/why.out 2>&1 || rc=$?
expect_eq "why's status through 50,000 phony edges" 0 "$rc"
grep -q 'newer: src (in p0)' w6/why.out || fail "why does not name the newer source: $(head -5 w6/why.out)"
rc=0
"$PHC" why -C w6 p0 >/dev/null 2>&1 || rc=$?
expect_eq "why's status for the chain's phony head" 0 "$rc"
pass "why walks a chain of 50,000 phony edges"

# --- 7. two builds sharing a history near its compaction ----------------------------
mkdir -p c1/.phc-ninja c2/.phc-ninja
pad shared.steps "$line" $(((4 << 20) - 100))
echo "$dir/shared.steps" >c1/.phc-ninja/history
echo "$dir/shared.steps" >c2/.phc-ninja/history
pids=()
for b in c1 c2; do
  (cd "$b" && for i in $(seq 400); do "$PHC" step --memory 64G --output "$b/o$i" -- true || exit 1; done) &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || fail "a step of the concurrent builds failed"; done
kept=$(awk -F'\t' '$10 != "pad.o" {print $10}' shared.steps | sort -u | wc -l)
expect_eq "records of two concurrent builds kept across a compaction" 800 "$kept"
[ "$(stat -c %s shared.steps)" -lt $((4 << 20)) ] || fail "the shared history was not compacted"
pass "concurrent appends beside a compaction are all kept"

# --- 5. icecc-env --tmpdir ------------------------------------------------------------
mkdir -p i5/t/w
rc=0
TMPDIR=$dir/i5/t/w "$PHC" icecc-env -o "$dir/i5/env.tar.gz" --tmpdir /../../../x -- clang++-15 >i5/out 2>&1 || rc=$?
[ "$rc" -ne 0 ] || fail "icecc-env accepted --tmpdir /../../../x"
[ ! -e i5/t/x ] || fail "icecc-env made a folder outside its work folder: $(stat -c %A i5/t/x)"
grep -q "'..' would leave the environment's root" i5/out || fail "no message on '..': $(cat i5/out)"
pass "icecc-env refuses a --tmpdir that leaves the environment's root"

# --- 4. what the engine returns ------------------------------------------------------
command -v clang++-15 >/dev/null 2>&1 || { echo "SKIP: item 4 needs clang++-15"; exit 0; }
mkdir -p d4
cat >d4/k.hip <<'K'
#include <hip/hip_runtime.h>
__global__ void scale(float* p) { p[threadIdx.x] *= 2.0f; }
extern "C" __global__ void plain(int* p) { p[0] = 1; }
template <typename T> __global__ void never(T* p) { p[0] = T(); }
K
printf '#include <hip/hip_runtime.h>\n__device__ int nothing;\n' >d4/none.hip
read -r -a hip <<<"$HIP_FLAGS_DEFAULT"
arch=gfx906
device=(-x hip "${hip[@]}" "--offload-arch=$arch" -O1 --offload-device-only --no-gpu-bundle-output)
(cd d4 && "$PHC" device-ii --arch $arch --output k.ii -- clang++-15 -x hip "${hip[@]}" --offload-arch=$arch \
  -O1 -E -dD --offload-device-only --gpu-bundle-output k.hip -o k.ii) || fail "the preprocess step"
local_cmd="clang++-15 ${device[*]} -c k.hip -o k.o"
# What the local compile writes (the same command: the same object).
(cd d4 && $local_cmd && mv k.o local.o) || fail "the local device compile"
clang++-15 "${device[@]}" -c d4/none.hip -o d4/kernelless.o || fail "the kernel-less compile"
clang++-15 "${device[@]/--offload-arch=$arch/--offload-arch=gfx90a}" -c d4/k.hip -o d4/other.o ||
  fail "the other architecture's compile"
# The stand-in engine: runs nothing, and writes what LIE says as the -o file.
cat >d4/engine <<'S'
#!/bin/sh
out=
prev=
for a in "$@"; do [ "$prev" = -o ] && out=$a; prev=$a; done
case $LIE in
  empty) : >"$out" ;;
  *) cp "$LIE" "$out" ;;
esac
S
chmod +x d4/engine
for lie in empty kernelless.o other.o; do
  rm -f d4/k.o
  rc=0
  (cd d4 && LIE=$lie "$PHC" device-ii --arch $arch --input k.ii --local "$local_cmd" \
    -- ./engine clang++-15 "${hip[@]}" --offload-arch=$arch -O1 -o k.o --offload-device-only \
    --no-gpu-bundle-output -c -xhip-cpp-output k.ii) 2>d4/err || rc=$?
  expect_eq "device-ii's status when the engine returns $lie" 0 "$rc"
  cmp -s d4/k.o d4/local.o || fail "the engine's $lie object was used: $(cat d4/err)"
  grep -q 'warning: k.o from the ./engine compile' d4/err || fail "no warning for $lie: $(cat d4/err)"
done
# The truth passes, with no warning and no local compile.
rm -f d4/k.o
(cd d4 && LIE=local.o "$PHC" device-ii --arch $arch --input k.ii --local "false" \
  -- ./engine clang++-15 "${hip[@]}" --offload-arch=$arch -O1 -o k.o --offload-device-only \
  --no-gpu-bundle-output -c -xhip-cpp-output k.ii) 2>d4/err || fail "a right object was refused: $(cat d4/err)"
[ ! -s d4/err ] || fail "a warning for a right object: $(cat d4/err)"
pass "an empty, kernel-less or other architecture's object from the engine is compiled here instead"
