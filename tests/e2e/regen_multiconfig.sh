#!/usr/bin/env bash
# phc-ninja regen on a Ninja Multi-Config build of samples/cmake-hip (light
# variant, clang-15, gfx906;gfx90a, Debug;Release): one regen rewrites
# build.ninja and every build-<Config>.ninja, whose included
# CMakeFiles/common.ninja gets one hook for all of them; both configurations
# build split and are no-ops afterwards; touching CMakeLists.txt re-runs CMake
# (from either configuration) and both stay split.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
dir=$(suite_dir regen_multiconfig)
src=$dir/src
b=$dir/build
cp -r "$PHC_SRC/samples/cmake-hip" "$src"
cmake -S "$src" -B "$b" -G "Ninja Multi-Config" -DCMAKE_CONFIGURATION_TYPES="Debug;Release" \
  -DPHC_SAMPLE_HEAVY=OFF -DCMAKE_HIP_COMPILER=clang++-15 -DCMAKE_HIP_FLAGS="$HIP_FLAGS_DEFAULT" \
  -DCMAKE_HIP_ARCHITECTURES="gfx906;gfx90a" >/dev/null

# The top manifest of each configuration (build.ninja is Debug's, the default).
tops="build.ninja:Debug build-Debug.ninja:Debug build-Release.ninja:Release"
work() { ninja -C "$b" -f "$1" -n | grep -v '^ninja: Entering' || true; }

# all_split WHEN: every top manifest is regen's, reads its configuration's
# rewritten file, and that file holds split edges.
all_split() {
  local t file config
  for t in $tops; do
    file=${t%%:*} config=${t##*:}
    [ "$(head -c 19 "$b/$file")" = "# phc-ninja regen: " ] || fail "$1: $file is not split"
    grep -q "^include CMakeFiles/impl-$config.ninja.phc$" "$b/$file" ||
      fail "$1: $file does not read the rewritten impl-$config.ninja"
    grep -q "^build CMakeFiles/phc_kernels.dir/$config/src/saxpy.hip.o.phc/gfx90a.o: " \
      "$b/CMakeFiles/impl-$config.ninja.phc" || fail "$1: no gfx90a device edge for $config"
  done
  # One hook for all, in the file they share: it names each top manifest.
  local hook
  hook=$(grep -c "regen -C $b --quiet" "$b/CMakeFiles/common.ninja.phc" || true)
  expect_eq "$1: hooks in common.ninja.phc" 1 "$hook"
  for t in $tops; do
    grep -q " $b/${t%%:*}" "$b/CMakeFiles/common.ninja.phc" || fail "$1: the hook leaves out ${t%%:*}"
  done
}
no_work() { # no_work WHEN
  local t w
  for t in $tops; do
    w=$(work "${t%%:*}")
    [ "$w" = "ninja: no work to do." ] || fail "$1: ninja -f ${t%%:*} -n has work: $w"
  done
}

"$PHC" regen -C "$b" >"$dir/regen.out"
grep -q "split 4 objects into 8 device edges" "$dir/regen.out" || fail "unexpected summary: $(cat "$dir/regen.out")"
grep -q "wrote .*$b/build-Release.ninja" "$dir/regen.out" || fail "build-Release.ninja not written: $(cat "$dir/regen.out")"
all_split "after regen"
w=$(work build-Release.ninja)
grep -q "HIP gfx906 CMakeFiles/phc_kernels.dir/Release/src/saxpy.hip.o" <<<"$w" || fail "Release would not build split: $w"
pass "one regen splits both configurations; one hook in the common file"

ninja -C "$b" >"$dir/debug.out" 2>&1 || fail "Debug build failed: $(cat "$dir/debug.out")"
ninja -C "$b" -f build-Release.ninja >"$dir/release.out" 2>&1 || fail "Release build failed: $(cat "$dir/release.out")"
for config in Debug Release; do
  for arch in gfx906 gfx90a; do
    [ -f "$b/CMakeFiles/phc_kernels.dir/$config/src/reduce.hip.o.phc/$arch.o" ] ||
      fail "$config: no $arch device object for reduce.hip"
  done
  [ -x "$b/$config/phc_sample" ] || fail "$config: phc_sample was not linked"
done
no_work "after building both"
pass "both configurations build split; no work afterwards"

# CMake re-runs itself from either configuration: both stay split.
touch "$src/CMakeLists.txt"
ninja -C "$b" -f build-Release.ninja >"$dir/rerun.out" 2>&1 || fail "Release after touching CMakeLists.txt failed: $(cat "$dir/rerun.out")"
grep -q "Re-running CMake" "$dir/rerun.out" || fail "CMake did not re-run: $(cat "$dir/rerun.out")"
all_split "after CMake re-ran from Release"
no_work "after CMake re-ran from Release"
touch "$src/CMakeLists.txt"
ninja -C "$b" >"$dir/rerun2.out" 2>&1 || fail "Debug after touching CMakeLists.txt failed: $(cat "$dir/rerun2.out")"
grep -q "Re-running CMake" "$dir/rerun2.out" || fail "CMake did not re-run from Debug"
all_split "after CMake re-ran from Debug"
no_work "after CMake re-ran from Debug"
pass "touching CMakeLists.txt: CMake re-runs, both configurations stay split, nothing else rebuilds"
