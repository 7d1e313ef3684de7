#!/usr/bin/env bash
# Every split edge regen writes runs under `phc-ninja step` (src/sched/, issue
# 26), on a real CMake build of samples/cmake-hip (light variant, clang-15, two
# architectures): `regen --memory` keeps the budget out of the commands
# (changing it rebuilds nothing); each split edge leaves one record per output
# with a plausible peak (within 2x of what /usr/bin/time -v reports for the
# same device compile); PHC_MEMORY at build time overrides --memory, and a
# budget smaller than every step runs them one at a time, the build finishing.
# (That the objects stay byte-identical under the runner is what regen_cmake,
# split_identity and the other suites check: they all build under it.)
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
dir=$(suite_dir regen_memory)
src=$dir/src
b=$dir/build
light_sample "$src" "$b"
steps=$b/.phc-ninja/steps

# Bad budgets are refused before anything is written.
cp "$b/build.ninja" "$dir/cmake.ninja"
if "$PHC" regen -C "$b" --memory 12Q 2>"$dir/bad.err"; then fail "--memory 12Q accepted"; fi
grep -q "^phc-ninja regen: error: --memory: " "$dir/bad.err" || fail "bad --memory: $(cat "$dir/bad.err")"
cmp -s "$b/build.ninja" "$dir/cmake.ninja" || fail "a refused --memory changed build.ninja"
pass "a bad --memory is refused, nothing written"

# --explain says how the budget is chosen.
"$PHC" regen -C "$b" --memory 40% --explain --dry-run >"$dir/explain.out"
grep -q "^memory budget: 40% = [0-9.]* GiB (--memory" "$dir/explain.out" ||
  fail "--explain does not say the budget: $(cat "$dir/explain.out")"
PHC_MEMORY=2G "$PHC" regen -C "$b" --explain --dry-run >"$dir/explain.out"
grep -q "^memory budget: .* less 10%.*PHC_MEMORY when ninja runs overrides it (set here: 2G)" \
  "$dir/explain.out" || fail "--explain without --memory: $(cat "$dir/explain.out")"
"$PHC" regen -C "$b" --memory 6G >"$dir/regen.out"
grep -q "split 2 objects into 4 device edges" "$dir/regen.out" || fail "summary: $(cat "$dir/regen.out")"
expect_eq "kept budget" "6G" "$(cat "$b/.phc-ninja/memory")"
grep -q -- "--kind device" "$b/build.ninja" || fail "device edges do not run under phc-ninja step"
grep -v -- "--memory 6G" "$b/build.ninja" | grep -q "6G" && fail "the budget is baked into a command"
grep -q "memory 6G" "$b/build.ninja" || fail "the re-run hook does not keep --memory"
ninja -C "$b" >"$dir/build.out" || fail "build failed: $(tail -5 "$dir/build.out")"
# One record per output of each split edge: 4 device objects, 2 bundles, 2 hosts.
for kind_count in device:4 bundle:2 host:2; do
  kind=${kind_count%:*}
  n=$(awk -F'\t' -v k="$kind" '$9==k && $8==0' "$steps" | wc -l)
  expect_eq "$kind records" "${kind_count#*:}" "$n"
done
pass "every split edge ran under the step runner and left its record"

# The recorded peak of a device compile against /usr/bin/time -v of its command.
out=$(awk -F'\t' '$9=="device" {print $10; exit}' "$steps")
peak=$(awk -F'\t' -v o="$out" '$10==o {p=$7} END {print p}' "$steps")
cmd=$(ninja -C "$b" -t commands "$out" | tail -n 1)
compile=${cmd#* -- }
[ "$compile" != "$cmd" ] || fail "no runner in the device command: $cmd"
ref_kb=$(cd "$b" && eval "/usr/bin/time -v ${compile/-o $out/-o $dir/ref.o}" 2>&1 >/dev/null |
  awk -F': ' '/Maximum resident set size/ {print $2}')
[ -n "$ref_kb" ] || fail "/usr/bin/time gave no peak"
ref=$((ref_kb * 1024))
echo "recorded peak $((peak >> 20)) MiB, /usr/bin/time -v $((ref >> 20)) MiB"
[ "$peak" -le $((2 * ref)) ] && [ "$ref" -le $((2 * peak)) ] ||
  fail "recorded peak $peak is not within 2x of $ref"
pass "the recorded peak is within 2x of /usr/bin/time -v"

# Another budget is no change to any command.
"$PHC" regen -C "$b" --memory 50% --quiet
expect_eq "kept budget" "50%" "$(cat "$b/.phc-ninja/memory")"
expect_no_work "$b" "after regen --memory 50%"
"$PHC" regen -C "$b" --quiet
[ -e "$b/.phc-ninja/memory" ] && fail "regen without --memory kept the old budget"
expect_no_work "$b" "after regen without --memory"
pass "changing the budget rebuilds nothing"

# A budget smaller than every step: they run one at a time, and the build ends.
"$PHC" regen -C "$b" --memory 6G --quiet
ninja -C "$b" -t clean >/dev/null
mark=$(wc -l <"$steps")
PHC_MEMORY=1M ninja -C "$b" -j4 >"$dir/serial.out" || fail "build under 1M failed"
tail -n +$((mark + 1)) "$steps" | awk -F'\t' '{printf "%.0f %.0f %.0f %s\n", $2, $2 + $3, $5, $10}' | sort -n >"$dir/serial.txt"
expect_eq "steps under 1M" 8 "$(wc -l <"$dir/serial.txt")"
awk 'NR > 1 && $1 < end {print "overlap: " prev " and " $4; bad = 1} {end = $2; prev = $4}
     END {exit bad}' "$dir/serial.txt" || fail "steps overlapped under a 1M budget: $(cat "$dir/serial.txt")"
waited=$(awk '{w += $3} END {printf "%.0f\n", w}' "$dir/serial.txt")
[ "$waited" -gt 0 ] || fail "no step waited for memory under -j4 and a 1M budget"
expect_no_work "$b" "after the serial build"
pass "PHC_MEMORY=1M overrides --memory: the 8 steps ran one at a time (waited ${waited} ms in all)"
