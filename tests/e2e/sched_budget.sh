#!/usr/bin/env bash
# `phc-ninja step` under a shared memory budget (src/sched/, issue 26), with
# real ninja and a stand-in compiler (tests/tools/memhog.c: allocates and
# touches N MB, holds them, writes its output). A build of 12 edges of mixed
# sizes: under a budget a sampler of the build's resident memory never sees
# more than the budget (plus the step runners' own memory), while the same
# build without a budget does; every edge runs; a step larger than the budget
# runs alone; the peaks recorded are plausible; exit statuses pass through;
# after SIGKILL of ninja's process group the next build does not wait on the
# dead reservations.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
b=$(suite_dir sched_budget)
cc -O1 -o "$b/memhog" "$PHC_SRC/tests/tools/memhog.c"
MiB=$((1 << 20))
budget_mb=600
# The step runners (one per running or waiting edge, 12 at most) are not
# reserved: what they hold besides the steps is the tolerance.
runner_kb=$(cd "$b" && "$PHC" step -- sh -c 'grep VmRSS /proc/$PPID/status' | awk '{print $2}')
tolerance=$((12 * runner_kb * 1024 + 16 * MiB))
echo "runner RSS ${runner_kb} kB; tolerance $((tolerance / MiB)) MiB"

# manifest DIR [MB...]: one edge per size (default: 12 edges of mixed sizes).
manifest() {
  local dir=$1
  shift
  [ $# -gt 0 ] || set -- 200 200 200 200 100 100 100 100 50 50 300 300
  mkdir -p "$dir"
  {
    printf 'rule hog\n  command = "%s" step --kind device --output $out -- %s/memhog $mb $ms $out\n' "$PHC" "$b"
    local i=0
    for mb in "$@"; do
      i=$((i + 1))
      printf 'build out/s%02d: hog\n  mb = %s\n  ms = 300\n' "$i" "$mb"
    done
  } >"$dir/build.ninja"
}

# sampled DIR [ENV...]: a clean build of DIR under a sampler; prints the largest
# total resident memory of the build's processes.
sampled() {
  local dir=$1
  shift
  rm -rf "$dir/out" "$dir/stop"
  (cd / && exec python3 "$PHC_SRC/tests/tools/rss_sampler.py" "$dir" "$dir/stop" "$dir/max") &
  local sampler=$!
  sleep 0.1
  (cd "$dir" && env "$@" ninja -j12 >"$dir/ninja.out") || fail "ninja in $dir: $(cat "$dir/ninja.out")"
  touch "$dir/stop"
  wait "$sampler"
  rm -f "$dir/stop"
  [ "$(find "$dir/out" -type f | wc -l)" = "$(grep -c '^build ' "$dir/build.ninja")" ] ||
    fail "not every edge ran in $dir"
  cat "$dir/max"
}

manifest "$b/limited"
manifest "$b/unlimited"
# Held longer without a budget, so that the steps meet however slowly ninja
# starts them on a loaded machine (memhog touches its huge pages fast).
sed -i 's/ms = 300/ms = 1500/' "$b/unlimited/build.ninja"
budget=$((budget_mb * MiB))
# First build: no history (each step estimated at the device default, 1 GiB,
# more than the budget: they run one at a time); the second, learned.
for round in first learned; do
  peak=$(sampled "$b/limited" PHC_MEMORY=${budget_mb}M)
  echo "$round build under ${budget_mb} MiB: peak $((peak / MiB)) MiB"
  [ "$peak" -le $((budget + tolerance)) ] || fail "$round build: peak $peak > budget $budget + $tolerance"
done
pass "a budgeted build stays under its budget (first and learned)"
records=$(grep -c . "$b/limited/.phc-ninja/steps")
expect_eq "records after two builds" 24 "$records"
# The learned build ran steps beside each other (it waited less than the first).
waited() { awk -F'\t' -v from="$1" 'NR > from {w += $5} END {print w + 0}' "$b/limited/.phc-ninja/steps"; }
first_wait=$(awk -F'\t' 'NR <= 12 {w += $5} END {print w + 0}' "$b/limited/.phc-ninja/steps")
learned_wait=$(waited 12)
echo "waited: first ${first_wait} ms, learned ${learned_wait} ms"
[ "$learned_wait" -lt "$first_wait" ] || fail "the learned build waited no less than the first"
pass "the learned build packs steps (waits less)"

peak=$(sampled "$b/unlimited" PHC_MEMORY=64G)
echo "unlimited build: peak $((peak / MiB)) MiB"
[ "$peak" -gt $((budget + tolerance)) ] || fail "unlimited build stayed under the budget: the test cannot fail"
pass "without a budget the same build goes over it"

# A step larger than the budget (700 MB, s01) runs alone, in a build without
# and with history: no other step's run overlaps its run. Run intervals from
# the records: [start, start+wall].
manifest "$b/big" 700 100 100 100
for round in first learned; do
  sampled "$b/big" PHC_MEMORY=${budget_mb}M >/dev/null
done
awk -F'\t' '
  { s = $2; e = s + $3; k = int((NR - 1) / 4); start[NR] = s; end_[NR] = e; out[NR] = $10; build[NR] = k }
  $10 == "out/s01" { big[k] = NR }
  END {
    bad = 0
    for (i = 1; i <= NR; i++) {
      j = big[build[i]]
      if (i != j && start[i] + 15 < end_[j] && start[j] + 15 < end_[i]) { print "overlap: " out[i]; bad = 1 }
    }
    exit bad
  }' "$b/big/.phc-ninja/steps" || fail "a step ran beside the one larger than the budget"
expect_eq "records of the big builds" 8 "$(grep -c . "$b/big/.phc-ninja/steps")"
pass "a step larger than the budget runs alone, and the build finishes"

# Peaks recorded: memhog 200 MB measures between 200 and 260 MB.
awk -F'\t' '$10 ~ /^out\/s0[1-4]$/ { mb = $7 / 1048576; if (mb < 200 || mb > 260) { print $10, mb; bad = 1 } } END { exit bad }' \
  "$b/limited/.phc-ninja/steps" || fail "implausible peak for a 200 MB step"
pass "recorded peaks are plausible"

# Exit statuses as a shell gives them; output untouched.
cd "$b"
set +e
"$PHC" step -- sh -c 'echo to-out; echo to-err >&2; exit 7' >"$b/o.txt" 2>"$b/e.txt"
rc=$?
"$PHC" step -- sh -c 'kill -TERM $$'
sig=$?
"$PHC" step -- "$b/no-such-compiler" 2>"$b/e2.txt"
missing=$?
"$PHC" step --memory 12X -- true 2>"$b/e3.txt"
usage=$?
set -e
expect_eq "exit status" 7 "$rc"
expect_eq "stdout" to-out "$(cat "$b/o.txt")"
expect_eq "stderr" to-err "$(cat "$b/e.txt")"
expect_eq "killed by SIGTERM" 143 "$sig"
expect_eq "cannot run" 127 "$missing"
grep -q "cannot run '$b/no-such-compiler'" "$b/e2.txt" || fail "no error naming the command: $(cat "$b/e2.txt")"
expect_eq "bad --memory" 2 "$usage"
grep -q -- "--memory: '12X' is not a size" "$b/e3.txt" || fail "bad --memory message: $(cat "$b/e3.txt")"
pass "exit statuses and output pass through"

# SIGKILL of the build mid-way: the reservations it held stay as files, and
# the next build does not wait on them.
k="$b/killed"
manifest "$k"
sed -i 's/ms = 300/ms = 5000/' "$k/build.ninja"
(cd "$k" && PHC_MEMORY=${budget_mb}M exec setsid ninja -j12 >"$k/ninja.out" 2>&1) &
for _ in $(seq 1 100); do
  running=$(cat "$k"/.phc-ninja/budget/[0-9]* 2>/dev/null | grep -c '^R' || true)
  [ "$running" -ge 1 ] && break
  sleep 0.05
done
[ "${running:-0}" -ge 1 ] || fail "no reservation appeared before the kill"
sleep 0.3
# Every process of the build (ninja puts each command in a process group of
# its own): ninja, the step runners and their commands, as an OOM kill or a
# killed CI job would.
pids=$(for p in /proc/[0-9]*; do [ "$(readlink "$p/cwd" 2>/dev/null)" = "$k" ] && echo "${p#/proc/}"; done || true)
[ -n "$pids" ] || fail "the build's processes not found"
# shellcheck disable=SC2086 # a list of pids
kill -KILL $pids
wait || true
left=$(find "$k/.phc-ninja/budget" -name '[0-9]*' | wc -l)
echo "reservation files left by the killed build: $left"
[ "$left" -ge 1 ] || fail "the kill left no reservation: the test cannot fail"
sed -i 's/ms = 5000/ms = 50/' "$k/build.ninja"
start=$(date +%s%N)
(cd "$k" && PHC_MEMORY=${budget_mb}M timeout 60 ninja -j12 >"$k/ninja2.out") || fail "the build after the kill: $(cat "$k/ninja2.out")"
took=$((($(date +%s%N) - start) / 1000000))
first_wait=$(awk -F'\t' 'NR == 1 { print $5 }' "$k/.phc-ninja/steps")
echo "build after the kill: ${took} ms; its first step waited ${first_wait} ms"
[ "$first_wait" -lt 200 ] || fail "the first step after the kill waited ${first_wait} ms"
[ "$(find "$k/.phc-ninja/budget" -name '[0-9]*' | wc -l)" = 0 ] || fail "stale reservations left"
pass "after SIGKILL the next build does not wait on dead reservations"
