#!/usr/bin/env bash
# The step history outside the build directory (sched/history.h, issue 26), on
# real CMake builds of samples/cmake-hip (light variant, clang-15, two
# architectures) in two checkouts: the first build leaves each split step's
# record in the project's history (PHC_HISTORY, this suite's scratch); a fresh
# build directory of the other checkout finds it: regen orders its edges by
# the history's wall times (a doctored time reorders two device edges) and
# seeds its step records, whose estimates then are the steps' own peaks, not
# the defaults; the history changes no command and no object; a garbage
# history is no history; PHC_HISTORY=off keeps none.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
dir=$(suite_dir regen_history)
light_sample "$dir/src1" "$dir/a"
light_sample "$dir/src2" "$dir/b"

"$PHC" regen -C "$dir/a" >"$dir/a.out" || fail "regen a: $(cat "$dir/a.out")"
hist=$(cat "$dir/a/.phc-ninja/history")
case "$hist" in "$PHC_HISTORY"/cmake-*.steps) ;; *) fail "the history file is not the project's in PHC_HISTORY: $hist" ;; esac
grep -q "ordered by the project's history" "$dir/a.out" && fail "an empty history ordered the edges"
ninja -C "$dir/a" >"$dir/a.build" || fail "build a failed: $(tail -5 "$dir/a.build")"
for kind_count in device:4 bundle:2 host:2; do
  kind=${kind_count%:*}
  n=$(awk -F'\t' -v k="$kind" '$9==k && $8==0' "$hist" | wc -l)
  expect_eq "$kind records in the history" "${kind_count#*:}" "$n"
done
pass "the first build's 8 split steps are in the project's history ($hist)"

# Doctor one time: the second architecture's device compile of one object took
# very long. CMake's order (and the first build's) lists gfx906 first.
obj=$(awk -F'\t' '$9=="device" && $10 ~ /gfx90a\.o$/ {print $10; exit}' "$hist")
[ -n "$obj" ] || fail "no gfx90a record"
awk -F'\t' -v OFS='\t' -v o="$obj" '$10==o {$3=999999} {print}' "$hist" >"$dir/h" && cat "$dir/h" >"$hist"
"$PHC" regen -C "$dir/b" >"$dir/b.out" || fail "regen b: $(cat "$dir/b.out")"
grep -q "ordered by the project's history $hist" "$dir/b.out" || fail "b: the history was not used: $(cat "$dir/b.out")"
first=$(grep -o "^build [^ :]*\.phc/gfx90[6a]\.o" "$dir/b/build.ninja" | grep -F "${obj%/*}/" | head -1)
expect_eq "the first device edge of ${obj%/*}" "build $obj" "$first"
first_a=$(grep -o "^build [^ :]*\.phc/gfx90[6a]\.o" "$dir/a/build.ninja" | grep -F "${obj%/*}/" | head -1)
expect_eq "the first device edge in the first build directory" "build ${obj%gfx90a.o}gfx906.o" "$first_a"
expect_eq "records seeded into the fresh build directory" 8 "$(wc -l <"$dir/b/.phc-ninja/steps")"
pass "a fresh build directory of another checkout is ordered by the history (the doctored edge first) and its records seeded"

# The history changes no command: the same statements as without one.
cp "$dir/b/build.ninja" "$dir/b-history.ninja"
PHC_HISTORY=off "$PHC" regen -C "$dir/b" -q || fail "regen b without history"
[ ! -e "$dir/b/.phc-ninja/history" ] || fail "PHC_HISTORY=off kept a history"
diff <(sort "$dir/b-history.ninja") <(sort "$dir/b/build.ninja") >"$dir/b.diff" ||
  fail "the history changed statements: $(head -20 "$dir/b.diff")"
cmp -s "$dir/b-history.ninja" "$dir/b/build.ninja" && fail "the history changed no order"
ninja -C "$dir/b" >"$dir/b.build" || fail "build b failed: $(tail -5 "$dir/b.build")"
for o in $(hip_objects "$dir/a"); do
  cmp "$o" "$dir/b/${o#"$dir/a/"}" || fail "${o#"$dir/a/"} differs between the checkouts"
done
# The estimates were the steps' own peaks (+10%), not the 1 GiB default.
big=$(awk -F'\t' '$9=="device" && $1=="v1" {n++} $9=="device" && $6>=1073741824 {d++} END {print d+0}' \
  <(tail -n +9 "$dir/b/.phc-ninja/steps"))
expect_eq "device steps of b that reserved the default" 0 "$big"
pass "same statements as without history, identical objects, estimates from the history's peaks"

# A garbage history is no history, and no error.
printf 'v1\tgarbage\nnot a record' >"$hist"
light_sample "$dir/src4" "$dir/d"
"$PHC" regen -C "$dir/d" >"$dir/d.out" || fail "regen with a garbage history failed: $(cat "$dir/d.out")"
grep -q "ordered by" "$dir/d.out" && fail "a garbage history ordered the edges"
ninja -C "$dir/d" >/dev/null || fail "build with a garbage history failed"
pass "a garbage history orders nothing and breaks nothing"
