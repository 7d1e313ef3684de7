#!/usr/bin/env bash
# phc-launch under `make -j4` with a memory budget (PHC_MEMORY): every step
# runs under `phc-ninja step`, sharing one budget folder (PHC_RECORDS) across
# the make jobs. First build, no history: each compile step is estimated at
# the 1 GiB default, so under a 1.5 GiB budget no two compile steps run at
# once while estimated so (steps later in the build take the largest peak
# measured for their kind). Second build: the steps' own recorded peaks let
# them run beside each other. What runs at once never reserves more than the
# budget, unless one step runs alone. The
# objects are byte-identical to the driver's; the recorded peaks are within 2x
# of what /usr/bin/time reports for the same device compile; without
# PHC_MEMORY nothing is recorded.
source "$(dirname "$0")/lib/common.sh"
dir=$(suite_dir launch_memory)
cd "$dir" || exit 1
L=$(dirname "$PHC")/phc-launch
export TMPDIR=$dir PHC_PROBE_CACHE=$dir/probes.json
ARCHS="--offload-arch=gfx906 --offload-arch=gfx90a"
for i in 1 2 3; do
  printf '#include <hip/hip_runtime.h>\n__global__ void k%s(float* x) { x[threadIdx.x] *= %s.0f; }\n' \
    "$i" "$i" >"k$i.hip"
done
cat >Makefile <<M
all: k1.o k2.o k3.o
%.o: %.hip
	+\$(LAUNCH) clang++-15 -x hip $HIP_FLAGS_DEFAULT -O2 $ARCHS -c \$< -o \$@
M
budget=$((1536 * 1024 * 1024))
build() { # build NAME: a clean build under the budget, records in rec/
  rm -f k?.o
  PHC_MEMORY=1536M PHC_RECORDS=$dir/rec make -j4 LAUNCH="$L" >"$1.log" 2>&1 ||
    fail "make -j4 under the budget failed: $(cat "$1.log")"
  cp rec/steps "$1.steps"
}
# overlaps STEPS, from the records: the most compile steps (device, host)
# running at once, the most steps estimated at the 1 GiB default running at
# once, the most bytes reserved at once by two or more steps, and the count.
overlaps() {
  python3 - "$1" <<'PY'
import sys
recs = []
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split("\t")
    if len(f) != 10 or f[0] != "v1":
        continue
    start, wall, reserved, kind = int(f[1]), int(f[2]), int(f[5]), f[8]
    recs.append((start, start + wall, reserved, kind))
most = most_default = most_bytes = 0
for s, _, _, _ in recs:
    now = [r for r in recs if r[0] <= s < r[1]]
    most = max(most, sum(1 for r in now if r[3] in ("device", "host")))
    most_default = max(most_default, sum(1 for r in now if r[2] >= 1 << 30))
    if len(now) >= 2:
        most_bytes = max(most_bytes, sum(r[2] for r in now))
print(most, most_default, most_bytes, len(recs))
PY
}

build first
read -r most defaults bytes n <<<"$(overlaps first.steps)"
expect_eq "records of the first build (6 device, 3 bundle, 3 host steps)" 12 "$n"
expect_eq "steps estimated at the 1 GiB default at once under 1.5 GiB" 1 "$defaults"
[ "$bytes" -le "$budget" ] || fail "steps running at once reserved $bytes bytes, over $budget"
pass "first build, no history: steps at the 1 GiB default ran one at a time, within the budget"

for i in 1 2 3; do
  cuid=$("$PHC" explain -- clang++-15 -x hip $HIP_FLAGS_DEFAULT -O2 $ARCHS -c "k$i.hip" -o "k$i.o" |
    sed -n 's/^# cuid: //p')
  # shellcheck disable=SC2086 # flag lists
  clang++-15 -x hip $HIP_FLAGS_DEFAULT -O2 $ARCHS -cuid="$cuid" -c "k$i.hip" -o "ref$i.o"
  cmp -s "k$i.o" "ref$i.o" || fail "k$i.o built under the budget differs from the driver's"
done
pass "objects built under the budget identical to the driver's"

rm -f rec/steps
build learned-seed # records every step's own peak
build second
read -r most defaults bytes n <<<"$(overlaps second.steps)"
[ "$most" -ge 2 ] || fail "with learned peaks, compile steps still ran one at a time ($most)"
[ "$bytes" -le "$budget" ] || fail "steps running at once reserved $bytes bytes, over $budget"
pass "learned peaks: $most compile steps at once, never more reserved than the budget"

# The recorded peak of a device compile against /usr/bin/time's for the same job.
peak=$(awk -F'\t' '$10 ~ /k1.o.gfx906.o$/ {p=$7} END {print p}' second.steps)
[ -n "$peak" ] || fail "no record of k1.o's gfx906 device step"
# shellcheck disable=SC2086 # flag lists
/usr/bin/time -f '%M' -o time.out clang++-15 -x hip $HIP_FLAGS_DEFAULT -O2 --offload-arch=gfx906 \
  --offload-device-only -c k1.hip -o dev.o
kib=$(tail -n 1 time.out)
python3 -c "import sys; p, t = $peak, $kib * 1024; sys.exit(0 if t / 2 <= p <= 2 * t else 1)" ||
  fail "recorded peak $peak bytes is not within 2x of /usr/bin/time's $kib KiB"
pass "recorded peak $((peak / 1048576)) MiB, /usr/bin/time $((kib / 1024)) MiB"

rm -rf rec k?.o
make -j4 LAUNCH="$L" >plain.log 2>&1 || fail "make -j4 without a budget failed: $(cat plain.log)"
[ ! -e rec ] || fail "without PHC_MEMORY the launcher recorded steps"
pass "without PHC_MEMORY the launcher runs its steps as before"
