#!/usr/bin/env bash
# phc-launch as a client of a fifo jobserver (jobserver_pool.py, which fails if a
# token does not come back): clean runs, a compile error in one architecture,
# SIGINT/SIGTERM in the middle of a compile. Real clang-15 compiles.
set -euo pipefail
: "${PHC:?}" "${PHC_SRC:?}" "${PHC_TMP:?}"
L=$(dirname "$PHC")/phc-launch
POOL="python3 $PHC_SRC/tests/e2e/jobserver_pool.py"
W=$PHC_TMP/launch_jobserver
rm -rf "$W" && mkdir -p "$W/tmp" && cd "$W"
export TMPDIR=$W/tmp PHC_PROBE_CACHE=$W/probes.json
fail() { echo "launch_jobserver: FAIL: $*" >&2; exit 1; }
grep -q "^  explain " <<<"$("$PHC" --help)" \
  || fail "this phc-ninja has no split planner ('phc-ninja explain'); the launcher cannot split"
# clang-15 itself leaves k-XXXXXX temporaries in TMPDIR; ours are phc-launch-*.
ours() { find "$W/tmp" -maxdepth 1 -name 'phc-launch-*' -printf '%f\n'; }
FLAGS=(-x hip --rocm-path=/usr --hip-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode
       --offload-arch=gfx906 --offload-arch=gfx90a --offload-arch=gfx1030 -O1)

cat > k.hip <<'SRC'
#include <hip/hip_runtime.h>
__global__ void scale(float* x, float a) { x[threadIdx.x] *= a; }
#if defined(__gfx90a__) && defined(PHC_FAIL_90A)
#error this only fails for gfx90a
#endif
SRC

echo "-- clean run under -j3: same bytes as the driver, all tokens back"
cuid=$("$PHC" explain -- clang++-15 "${FLAGS[@]}" -c k.hip -o k.o | sed -n 's/^# cuid: //p')
[ -n "$cuid" ] || fail "no cuid from phc-ninja explain"
PHC_NINJA_TRACE=$W/trace3.log $POOL -j3 -- "$L" clang++-15 "${FLAGS[@]}" -c k.hip -o k.o 2>pool.err \
  || { cat pool.err; fail "split compile under -j3 failed"; }
grep -q "all 2 tokens back" pool.err || fail "pool did not confirm its tokens"
clang++-15 "${FLAGS[@]}" -cuid="$cuid" -c k.hip -o ref.o
cmp k.o ref.o || fail "k.o differs from the driver's own object (cuid $cuid)"
[ -z "$(ours)" ] || fail "private folder left in TMPDIR: $(ours)"

echo "-- trace log: ninja log v5 header once, one line per step"
PHC_NINJA_TRACE=$W/trace3.log $POOL -j3 -- "$L" clang++-15 "${FLAGS[@]}" -c k.hip -o k.o 2>/dev/null
[ "$(head -n1 trace3.log)" = "# ninja log v5" ] || fail "trace header: $(head -n1 trace3.log)"
[ "$(grep -c '^# ninja log' trace3.log)" = 1 ] || fail "trace header written twice"
awk -F'\t' 'NR>1 && (NF!=5 || $1>$2) {bad=1} END {exit bad}' trace3.log || fail "bad trace line"
for step in k.o::gfx906 k.o::gfx90a k.o::gfx1030 k.o::bundle k.o; do
  [ "$(awk -F'\t' -v s="$step" '$4==s' trace3.log | wc -l)" = 2 ] || fail "trace lacks $step"
done

echo "-- -j1 (no tokens): device compiles run one at a time"
PHC_NINJA_TRACE=$W/trace1.log $POOL -j1 -- "$L" clang++-15 "${FLAGS[@]}" -c k.hip -o k1.o 2>/dev/null \
  || fail "-j1 run failed"
cuid1=$("$PHC" explain -- clang++-15 "${FLAGS[@]}" -c k.hip -o k1.o | sed -n 's/^# cuid: //p')
clang++-15 "${FLAGS[@]}" -cuid="$cuid1" -c k.hip -o ref1.o
cmp k1.o ref1.o || fail "k1.o (-j1) differs from the driver's own object (cuid $cuid1)"
python3 - "$W/trace1.log" "$W/trace3.log" <<'PY' || fail "device compile overlap is wrong"
import sys
def spans(path):
    rows = [l.rstrip("\n").split("\t") for l in open(path) if not l.startswith("#")]
    return sorted((int(r[0]), int(r[1])) for r in rows if "::gfx" in r[3])[-3:]
def overlap(s):
    return any(b[0] < a[1] for a, b in zip(s, s[1:]))
if overlap(spans(sys.argv[1])): sys.exit("-j1 ran device compiles at once")
if not overlap(spans(sys.argv[2])): sys.exit("-j3 ran no device compiles at once")
PY

echo "-- pipe jobservers (blocking and non-blocking read end) and CARGO_MAKEFLAGS"
for mode in "--pipe" "--pipe --nonblock" "--var CARGO_MAKEFLAGS" "--pipe --nonblock --var CARGO_MAKEFLAGS"; do
  rm -f tp.log kp.o
  # shellcheck disable=SC2086
  PHC_NINJA_TRACE=$W/tp.log $POOL -j3 $mode -- "$L" clang++-15 "${FLAGS[@]}" -c k.hip -o kp.o \
    2>pool.err || { cat pool.err; fail "compile under pool $mode failed"; }
  grep -q "all 2 tokens back" pool.err || { cat pool.err; fail "tokens lost under pool $mode"; }
  ! grep -q "phc-launch: warning" pool.err || { cat pool.err; fail "warning under pool $mode"; }
  python3 - "$W/tp.log" <<'PY' || fail "no device compiles ran at once under pool $mode"
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if not l.startswith("#")]
s = sorted((int(r[0]), int(r[1])) for r in rows if "::gfx" in r[3])
sys.exit(0 if any(b[0] < a[1] for a, b in zip(s, s[1:])) else 1)
PY
done

echo "-- an error in gfx90a only: named, status kept, no object, tokens back"
set +e
$POOL -j3 -- "$L" clang++-15 "${FLAGS[@]}" -DPHC_FAIL_90A -c k.hip -o bad.o >bad.out 2>bad.err
rc=$?
set -e
[ "$rc" = 1 ] || { cat bad.err; fail "expected exit status 1 from the failing compile, got $rc"; }
grep -q "all 2 tokens back" bad.err || { cat bad.err; fail "tokens lost after a compile error"; }
grep -q '^\[gfx90a\] .*error: this only fails for gfx90a' bad.err \
  || { cat bad.err; fail "error not shown with its architecture"; }
! grep -q '^\[gfx906\].*error' bad.err || fail "gfx906 reported an error it did not have"
[ ! -e bad.o ] || fail "output file left after a failed compile"
[ -z "$(ours)" ] || fail "private folder left after a failed compile"

echo "-- SIGINT and SIGTERM in the middle of a compile"
cat > slow.hip <<'SRC'
#include <hip/hip_runtime.h>
#include <rocprim/rocprim.hpp>
__global__ void k(int* x) { x[threadIdx.x] = rocprim::max(x[0], 1); }
SRC
for sig in INT TERM; do
  rm -f launcher.pid
  set +e
  $POOL -j3 --pidfile launcher.pid -- "$L" clang++-15 "${FLAGS[@]}" -c "$W/slow.hip" -o slow.o \
    >sig.out 2>sig.err &
  pool=$!
  set -e
  # Wait until the device compiles are running (each has its own process group).
  for _ in $(seq 300); do
    [ "$(pgrep -f "cc1.*$W/slow.hip" | wc -l)" -ge 2 ] && break
    sleep 0.1
  done
  [ "$(pgrep -f "cc1.*$W/slow.hip" | wc -l)" -ge 2 ] || fail "device compiles did not start"
  kill -"$sig" "$(cat launcher.pid)"
  set +e
  wait "$pool"
  rc=$?
  set -e
  signum=$(kill -l "$sig")
  grep -q "command died of signal $signum" sig.err || { cat sig.err; fail "launcher did not die of SIG$sig (rc $rc)"; }
  grep -q "all 2 tokens back" sig.err || { cat sig.err; fail "tokens lost after SIG$sig"; }
  sleep 0.2
  if pgrep -f "$W/slow.hip" >/dev/null; then
    pgrep -af "$W/slow.hip" >&2
    fail "compiler processes left running after SIG$sig"
  fi
  [ ! -e slow.o ] || fail "partial slow.o left after SIG$sig"
  [ -z "$(ours)" ] || fail "private folder left after SIG$sig: $(ours)"
done

echo "launch_jobserver: all passed"
rm -rf "$W"
