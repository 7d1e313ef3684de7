#!/usr/bin/env bash
# scripts/check-layering on the source tree (no folder of src/ uses one above
# it in PHC_MODULES), and on copies it must refuse: an include of a higher
# folder, a link to a higher library, a folder missing from the order.
source "$(dirname "$0")/lib/common.sh"
dir=$(suite_dir layering)
check="$PHC_SRC/scripts/check-layering"

out=$("$check" "$PHC_SRC/src") || fail "the source tree breaks the layering: $out"
pass "the source tree: $out"

fresh() { rm -rf "$dir/src"; cp -a "$PHC_SRC/src" "$dir/src"; }

fresh
sed -i '1i #include "regen/regen.h"' "$dir/src/sched/cli.cpp"
rc=0; out=$("$check" "$dir/src") || rc=$?
expect_eq "exit status of an upward include" 1 "$rc"
grep -q '^.*/sched/cli.cpp:1: sched/ includes "regen/...", which comes after it' <<<"$out" ||
  fail "the upward include is not named: $out"
pass "an include of a higher folder is refused, naming file and line"

fresh
sed -i 's/phc_depsets /phc_depsets phc_report /' "$dir/src/sched/CMakeLists.txt"
grep -q "phc_depsets phc_report" "$dir/src/sched/CMakeLists.txt" || fail "could not add an upward link to the copy of sched/CMakeLists.txt"
rc=0; out=$("$check" "$dir/src") || rc=$?
expect_eq "exit status of an upward link" 1 "$rc"
grep -q 'sched/CMakeLists.txt:[0-9]*: sched/ links phc_report' <<<"$out" || fail "the upward link is not named: $out"
pass "a link to a higher library is refused"

fresh
mkdir "$dir/src/stray" && echo 'int x;' >"$dir/src/stray/x.cpp"
rc=0; out=$("$check" "$dir/src") || rc=$?
expect_eq "exit status of an unlisted folder" 1 "$rc"
grep -q 'stray/: folder not in PHC_MODULES' <<<"$out" || fail "the stray folder is not named: $out"
pass "a folder outside the order is refused"

rc=0; out=$("$check" "$dir/nowhere" 2>&1) || rc=$?
expect_eq "exit status without a CMakeLists.txt" 2 "$rc"
pass "a tree without the order: $out"
