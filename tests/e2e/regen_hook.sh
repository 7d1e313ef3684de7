#!/usr/bin/env bash
# The hook regen puts on CMake's generator edge cannot fail unnoticed: with the
# phc-ninja it names gone, touching CMakeLists.txt makes ninja re-run CMake and
# fail, and every later ninja run fails again (a stand-in manifest retries
# regen), never building unsplit; with phc-ninja back, ninja recovers by
# itself and builds split. Also: regen's messages spell paths from where the
# user is (-C's directory in front).
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
dir=$(suite_dir regen_hook)
src=$dir/src
b=$dir/build

# Messages: a path relative to the build directory gets -C's directory in front.
mkdir -p "$dir/m"
printf 'build x: nosuchrule y\n' >"$dir/m/build.ninja"
(cd "$dir" && "$PHC" regen -C m 2>"$dir/m.err") && fail "regen accepted an unknown rule"
expect_eq "error with -C" "m/build.ninja:1:10: error: unknown build rule 'nosuchrule'" "$(head -n 1 "$dir/m.err")"
# shellcheck disable=SC2016 # ninja's variables
printf 'rule cp\n  command = cp $in $out\nbuild x: cp y\n' >"$dir/m/build.ninja"
(cd "$dir" && "$PHC" regen -C m/ >"$dir/m.out") || fail "regen -C m/ failed"
grep -q "; wrote m/build.ninja.cmake, m/build.ninja$" "$dir/m.out" || fail "written paths without -C's directory: $(cat "$dir/m.out")"
pass "messages spell paths from the user's directory"

cp -r "$PHC_SRC/samples/cmake-hip" "$src"
cmake -S "$src" -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPHC_SAMPLE_HEAVY=OFF \
  -DCMAKE_HIP_COMPILER=clang++-15 -DCMAKE_HIP_FLAGS="$HIP_FLAGS_DEFAULT" \
  -DCMAKE_HIP_ARCHITECTURES="gfx906;gfx90a" >/dev/null
# regen run from a copy of phc-ninja: the hook names the copy.
phc=$dir/bin/phc-ninja
mkdir -p "$dir/bin"
cp "$PHC" "$phc"
"$phc" regen -C "$b" --quiet
grep -q "&& $phc regen -C $b --quiet$" "$b/build.ninja" || fail "the hook does not name the copy"
cp "$b/build.ninja" "$dir/split.ninja"
grep -q "PHC_HIP_DEVICE" "$dir/split.ninja" || fail "regen split nothing"

rm "$phc"
touch "$src/CMakeLists.txt"
for run in 1 2 3; do
  if ninja -C "$b" >"$dir/run$run.out" 2>&1; then fail "ninja run $run succeeded without phc-ninja: $(cat "$dir/run$run.out")"; fi
  grep -q "$phc: not found" "$dir/run$run.out" || fail "run $run does not say why: $(cat "$dir/run$run.out")"
  if [ "$run" = 1 ]; then
    grep -q "Re-running CMake" "$dir/run1.out" || fail "CMake did not re-run"
  else
    grep -q "Re-running phc-ninja regen, which failed after CMake re-ran" "$dir/run$run.out" ||
      fail "run $run did not retry regen: $(cat "$dir/run$run.out")"
  fi
  [ "$(head -c 19 "$b/build.ninja")" = "# phc-ninja regen: " ] || fail "run $run: build.ninja is CMake's, unsplit and unhooked"
  if find "$b/CMakeFiles" -name '*.o' | grep -q .; then fail "run $run built objects"; fi
done
# The stand-in kept CMake's fresh manifest as the original.
grep -q "^build build.ninja: RERUN_CMAKE" "$b/build.ninja.cmake" || fail "CMake's manifest is not kept as build.ninja.cmake"
[ "$(head -c 19 "$b/build.ninja.cmake")" != "# phc-ninja regen: " ] || fail "build.ninja.cmake is not CMake's"
pass "without phc-ninja, every ninja run fails naming it; nothing builds unsplit"

cp "$PHC" "$phc"
ninja -C "$b" >"$dir/back.out" 2>&1 || fail "ninja with phc-ninja back failed: $(cat "$dir/back.out")"
grep -q "Re-running phc-ninja regen" "$dir/back.out" || fail "ninja did not retry regen"
[ "$(head -n 1 "$b/build.ninja")" = "$(head -n 1 "$dir/split.ninja")" ] || fail "build.ninja is not regen's after recovering"
grep -q "&& $phc regen -C $b --quiet$" "$b/build.ninja" || fail "the recovered build.ninja has no hook"
for arch in gfx906 gfx90a; do
  [ -f "$b/CMakeFiles/phc_kernels.dir/src/saxpy.hip.o.phc/$arch.o" ] || fail "saxpy.hip was not built split ($arch)"
done
expect_no_work "$b" "after recovering"
pass "with phc-ninja back, ninja recovers by itself and builds split"
