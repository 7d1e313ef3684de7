#!/usr/bin/env bash
# phc-ninja why on a regen'd CMake build of samples/cmake-hip (light variant,
# clang-15, two architectures): after touching a header only device code
# reads, `ninja -d explain` names a header set (phc_s_...); why names the
# header, for the device edges and, through the bundle, the host object.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
dir=$(suite_dir why)
cd "$dir" || exit 1 # why.out, host.out and err are written here
src=$dir/src
b=$dir/build
light_sample "$src" "$b"
"$PHC" regen -C "$b" --quiet || fail "regen failed"
ninja -C "$b" >/dev/null || fail "build failed"
saxpy=CMakeFiles/phc_kernels.dir/src/saxpy.hip.o
reduce=CMakeFiles/phc_kernels.dir/src/reduce.hip.o

expect_eq "why after the build" "$saxpy.phc/gfx906.o is up to date" "$("$PHC" why -C "$b" "$saxpy.phc/gfx906.o")"
expect_eq "why of the host object" "$saxpy is up to date" "$("$PHC" why -C "$b" "$saxpy")"
pass "after a build every output is up to date"

# A header only device code reads (sed keeps the mtime moving forward).
sleep 1
sed -i 's/PHC_DEVICE_SCALE 1.0f/PHC_DEVICE_SCALE 2.0f/' "$src/include/device_tuning.hpp"
explain=$(ninja -C "$b" -n -d explain 2>&1 | grep "$saxpy.phc/gfx906.o" || true)
grep -q "phc_s_" <<<"$explain" || fail "ninja -d explain no longer names a header set: $explain"
"$PHC" why -C "$b" "$saxpy.phc/gfx906.o" >why.out || fail "why failed: $(cat why.out)"
grep -qx "$saxpy.phc/gfx906.o will be rebuilt:" why.out || fail "why: $(cat why.out)"
grep -qE "^  newer: $src/include/device_tuning.hpp \(in phc_s_[0-9a-f]+\)$" why.out ||
  fail "why does not name the header: $(cat why.out)"
[ "$(grep -c "newer:" why.out)" = 1 ] || fail "why names more than the header: $(cat why.out)"
pass "why names the device-only header, not the set, for a device edge"

"$PHC" why -C "$b" "$saxpy" >host.out || fail "why of the host object failed"
grep -q "^  $saxpy.phc/bundle.hipfb will be rebuilt:$" host.out || fail "why (host): $(cat host.out)"
grep -q "^      newer: $src/include/device_tuning.hpp" host.out || fail "why (host): $(cat host.out)"
expect_eq "an untouched object" "$reduce is up to date" "$("$PHC" why -C "$b" "$reduce")"
pass "the host object: its bundle will be rebuilt, because of the header; reduce.hip.o is up to date"

# What why says matches what ninja does: the edges it names are the ones that run.
would=$(ninja -C "$b" -n)
grep -q "HIP gfx906 $saxpy$" <<<"$would" || fail "ninja would not rebuild what why names: $would"
grep -q "$reduce" <<<"$would" && fail "ninja would rebuild reduce.hip.o, which why calls up to date"
ninja -C "$b" "$saxpy" >/dev/null || fail "rebuild failed"
expect_eq "why after the rebuild" "$saxpy is up to date" "$("$PHC" why -C "$b" "$saxpy")"
pass "after the rebuild the host object is up to date again"

status=0
"$PHC" why -C "$b" no/such.o 2>err || status=$?
expect_eq "unknown output status" 1 "$status"
expect_eq "unknown output" "phc-ninja why: error: unknown target 'no/such.o'" "$(cat err)"
pass "an unknown output is a one-line error"

# A manifest with a builddir (as gen writes one): the logs are read from there.
mkdir -p "$dir/bd" && cd "$dir/bd" || exit 1
cat >w.ninja <<'N'
builddir = .b
rule cp
  command = cmp -s $in $out || cp $in $out
  restat = 1
build out.txt: cp in.txt | extra.h
N
echo a >in.txt && echo h >extra.h
ninja -f w.ninja >/dev/null || fail "the builddir manifest did not build"
[ -f .b/.ninja_log ] || fail "ninja kept no log in the builddir"
expect_eq "why after the build" "out.txt is up to date" "$("$PHC" why -f w.ninja out.txt)"
sleep 1 && touch extra.h
expect_eq "why after touching extra.h" "out.txt will be rebuilt:
  newer: extra.h" "$("$PHC" why -f w.ninja out.txt)"
ninja -f w.ninja >/dev/null
# restat: the command left the output as it was (older than extra.h), but its
# log line records a later time: up to date, for ninja and for why.
expect_eq "why after a restat build" "out.txt is up to date" "$("$PHC" why -f w.ninja out.txt)"
expect_eq "ninja agrees" "ninja: no work to do." "$(ninja -f w.ninja -n)"
pass "a builddir: the log read there; a restat edge's log time counts"
