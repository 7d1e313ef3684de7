#!/usr/bin/env bash
# The CPU pool (issue 39): phc-launch under plain ninja (no jobserver) takes
# the extra slots of its device compiles from one pool shared by every
# launcher of the user, so `ninja -jN` never runs more than max(N, pool)
# compilers at once.
#   - ninja -j4 over eight two-architecture sources, pool of 4: a sampler of
#     the run's compiler processes (clang -cc1, lld, the bundler) never sees
#     more than 4; every object is the driver's own (PHC_CHECK=1).
#     Without the pool each launcher would run its two device compiles at
#     once: up to 8.
#   - two builds at once, ninja -j2 each, sharing the pool of 4: never more
#     than 4 (a pool per build would allow 2 x 4).
#   - a launcher killed with SIGKILL while it holds two slots: both come back
#     at once, and the next compile gets them without waiting.
# Tolerance: one process. The sampler reads /proc one process after the
# other, so a job that ends while the next one starts in its slot can both be
# seen in one look; nothing else is allowed.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
L=$(dirname "$PHC")/phc-launch
W=$(suite_dir launch_pool)
export TMPDIR=$W/tmp PHC_PROBE_CACHE=$W/probes.json PHC_POOL_DIR=$W/pool PHC_JOBS=4
unset MAKEFLAGS CARGO_MAKEFLAGS
mkdir -p "$TMPDIR"
cd "$W" || exit 1
TAG=launch-pool-$$-$RANDOM
POOL=4
LIMIT=$((POOL + 1)) # the tolerance above

# shellcheck disable=SC2206 # HIP_FLAGS_DEFAULT is two words
FLAGS=(-x hip $HIP_FLAGS_DEFAULT -O1 --offload-arch=gfx906 --offload-arch=gfx90a)
# project DIR N: N tiny kernels and a build.ninja compiling each through the launcher.
project() {
  mkdir -p "$1"
  {
    echo "rule hip"
    echo "  command = $L clang++-15 ${FLAGS[*]} -c \$in -o \$out"
    echo "  description = HIP \$out"
  } >"$1/build.ninja"
  for i in $(seq 1 "$2"); do
    printf '#include <hip/hip_runtime.h>\n__global__ void k%s(float* x, float a) { x[threadIdx.x] = x[threadIdx.x] * a + %s.0f; }\n' \
      "$i" "$i" >"$1/k$i.hip"
    echo "build k$i.o: hip k$i.hip" >>"$1/build.ninja"
  done
}

trap sample_cleanup EXIT

echo "-- ninja -j4, eight sources, pool of $POOL: at most $POOL compilers (+$((LIMIT - POOL)) tolerance), objects identical"
project one 8
sample_start "$TAG-one" one.most
PHC_E2E_RUN=$TAG-one PHC_CHECK=1 ninja -C one -j4 >one.log 2>&1 || { cat one.log; fail "ninja -j4 failed"; }
sample_stop one.most
grep -q 'phc-launch' one.log && { cat one.log; fail "the launchers printed something"; }
[ "$LOOKS" -gt 20 ] || fail "the sampler looked only $LOOKS times"
[ "$MOST" -ge 2 ] || fail "never more than $MOST compiler at once: the build did not run in parallel"
[ "$MOST" -le "$LIMIT" ] || fail "$MOST compilers at once under ninja -j4 with a pool of $POOL (limit $LIMIT)"
[ -z "$(find "$TMPDIR" -maxdepth 1 -name 'phc-launch-*')" ] || fail "private folders left in TMPDIR"
pass "ninja -j4: at most $MOST compilers at once in $LOOKS looks; PHC_CHECK=1 found every object identical"

echo "-- two builds at once, ninja -j2 each, one pool of $POOL"
project two-a 4
project two-b 4
sample_start "$TAG-two" two.most
PHC_E2E_RUN=$TAG-two ninja -C two-a -j2 >two-a.log 2>&1 & A=$!
PHC_E2E_RUN=$TAG-two ninja -C two-b -j2 >two-b.log 2>&1 & B=$!
wait "$A" || { cat two-a.log; fail "the first of two builds failed"; }
wait "$B" || { cat two-b.log; fail "the second of two builds failed"; }
sample_stop two.most
[ "$MOST" -le "$LIMIT" ] || fail "$MOST compilers at once in two builds sharing a pool of $POOL (limit $LIMIT)"
pass "two builds sharing the pool: at most $MOST compilers at once in $LOOKS looks"

echo "-- a launcher killed with SIGKILL gives its slots back"
# A device compile as slow as SPIN makes it (constant evaluation, about 1 s
# per million steps here), so both are surely running when it is killed.
project kill 1
cat >kill/slow.hip <<'HIP'
#include <hip/hip_runtime.h>
constexpr unsigned long spin(unsigned long n) {
  unsigned long s = 0;
  for (unsigned long i = 0; i < n; ++i) s = s * 31 + i;
  return s;
}
__global__ void k(unsigned long* x) {
  constexpr unsigned long v = spin(20000000);
  x[threadIdx.x] = v;
}
HIP
PHC_JOBS=2 PHC_E2E_RUN=$TAG-kill setsid "$L" clang++-15 "${FLAGS[@]}" -std=c++17 -fconstexpr-steps=2000000000 \
  -c kill/slow.hip -o kill/slow.o >kill.log 2>&1 &
KILLED=$!
# runs PID: the process lives and is not a zombie (kill -0 answers for one).
runs() { [ -e "/proc/$1" ] && [ "$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)" != Z ]; }
device_compiles() { python3 - "$TAG-kill" <<'PY'
import os, sys
tag = ("PHC_E2E_RUN=" + sys.argv[1]).encode()
n = 0
for p in filter(str.isdigit, os.listdir("/proc")):
    try:
        env = open(f"/proc/{p}/environ", "rb").read().split(b"\0")
        argv = open(f"/proc/{p}/cmdline", "rb").read().split(b"\0")
    except OSError:
        continue
    n += tag in env and b"-cc1" in argv[1:2] and b"-fcuda-is-device" in argv
print(n)
PY
}
end=$((SECONDS + 120))
until [ "$(device_compiles)" -ge 2 ] || [ $SECONDS -ge $end ]; do
  runs "$KILLED" || { cat kill.log; fail "the launcher ended before both device compiles ran"; }
  sleep 0.05
done
[ "$(device_compiles)" -ge 2 ] || { cat kill.log; fail "the launcher's two device compiles did not run at once within 120 s"; }
# Both slots are held now (the launcher's own and one extra).
flock -n "$PHC_POOL_DIR/slot.0" true && flock -n "$PHC_POOL_DIR/slot.1" true &&
  fail "the launcher runs two device compiles but holds no two slots"
kill -KILL -- "-$KILLED"
wait "$KILLED" 2>/dev/null || true
end=$((SECONDS + 10))
until { flock -n "$PHC_POOL_DIR/slot.0" true && flock -n "$PHC_POOL_DIR/slot.1" true; } || [ $SECONDS -ge $end ]; do
  sleep 0.05
done
flock -n "$PHC_POOL_DIR/slot.0" true && flock -n "$PHC_POOL_DIR/slot.1" true ||
  fail "the killed launcher's slots did not come back within 10 s"
# The next compile takes both slots at once: its device compiles overlap.
rm -f kill.trace
start=$SECONDS
PHC_JOBS=2 PHC_NINJA_TRACE=$W/kill.trace "$L" clang++-15 "${FLAGS[@]}" -c kill/k1.hip -o kill/k1.o \
  || fail "the compile after the kill failed"
python3 - "$W/kill.trace" <<'PY' || fail "the compile after the kill did not run its device compiles at once"
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if not l.startswith("#")]
s = sorted((int(r[0]), int(r[1])) for r in rows if "::gfx" in r[3])
sys.exit(0 if len(s) == 2 and s[1][0] < s[0][1] else 1)
PY
[ $((SECONDS - start)) -lt 60 ] || fail "the compile after the kill waited for the dead launcher's slots"
pass "a SIGKILLed launcher's slots come back; the next compile runs two device compiles at once"

echo "-- bad settings: one line naming the variable or the path"
ln -s "$W/pool" "$W/pool-link"
set +e
PHC_POOL_DIR=$W/pool-link "$L" clang++-15 "${FLAGS[@]}" -c kill/k1.hip -o kill/k2.o 2>bad-dir.err
rc_dir=$?
PHC_JOBS=abc "$L" clang++-15 "${FLAGS[@]}" -c kill/k1.hip -o kill/k3.o 2>bad-jobs.err
rc_jobs=$?
set -e
[ "$rc_dir" != 0 ] && [ "$rc_jobs" != 0 ] || fail "a bad pool folder or PHC_JOBS was not an error ($rc_dir, $rc_jobs)"
expect_eq "error for a linked pool folder" \
  "phc-launch: error: $W/pool-link: is a symbolic link, not a folder (the CPU pool's folder, PHC_POOL_DIR)" \
  "$(cat bad-dir.err)"
expect_eq "error for PHC_JOBS=abc" "phc-launch: error: PHC_JOBS='abc' is not a positive number" \
  "$(cat bad-jobs.err)"
pass "a linked pool folder and PHC_JOBS=abc are one-line errors"
