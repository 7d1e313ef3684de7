#!/usr/bin/env bash
# phc-ninja regen on a real CMake Ninja build of samples/cmake-hip (light
# variant, clang-15, two architectures): byte-identical objects, no-op
# rebuilds, exact incremental rebuilds, surviving CMake re-runs, ccache,
# adding an architecture, and a device compile error.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
dir=$(suite_dir regen_cmake)
src=$dir/src
b=$dir/build
cp -r "$PHC_SRC/samples/cmake-hip" "$src"

configure() { # configure ARCHS [extra args]
  local archs=$1
  shift
  cmake -S "$src" -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPHC_SAMPLE_HEAVY=OFF \
    -DCMAKE_HIP_COMPILER=clang++-15 -DCMAKE_HIP_FLAGS="$HIP_FLAGS_DEFAULT" \
    -DCMAKE_HIP_ARCHITECTURES="$archs" "$@" >/dev/null
}
# The objects and what ninja would do, in the build directory $b (see lib/common.sh).
objs() { hip_objects "$b"; }
work() { ninja_work "$b"; }
no_work() { expect_no_work "$b" "$1"; }

# identical OBJ: the object equals the driver's own compile with the same CUID.
identical() {
  local obj=$1 rel cmd cuid ref
  rel=${obj#"$b"/}
  cuid=$(awk -v o="$rel" '$1=="build" && $2==o":" {f=1; next} f && /PHC_COMMAND/ {match($0, /-cuid=[0-9a-f]+/); print substr($0, RSTART, RLENGTH); exit}' "$b/build.ninja")
  [ -n "$cuid" ] || fail "no host edge with a CUID for $rel"
  cmd=$(ninja -C "$b" -f build.ninja.cmake -t commands "$rel" | tail -n 1)
  cmd=${cmd#ccache }
  ref="$dir/ref.o"
  # The original compile, writing elsewhere, with the CUID the split used.
  (cd "$b" && eval "${cmd/-o $rel/-o $ref} $cuid") || fail "driver compile of $rel failed"
  cmp -s "$ref" "$obj" || fail "$rel differs from the driver's own compile with $cuid"
}

configure "gfx906;gfx90a"
"$PHC" regen -C "$b" | tee "$dir/regen.out"
grep -q "split 2 objects into 4 device edges" "$dir/regen.out" || fail "unexpected summary: $(cat "$dir/regen.out")"
ninja -C "$b" >/dev/null || fail "first build failed"
for o in $(objs); do identical "$o"; done
pass "split objects are byte-identical to the driver's"

no_work "after a full build"
# After a build, regen lists each object's device edges longest first (from
# .ninja_log): the commands stay, so there is still nothing to do; with the
# same log, regen again gives the same bytes.
"$PHC" regen -C "$b" --quiet
no_work "after regen with the build's durations"
cp "$b/build.ninja" "$dir/first.ninja"
"$PHC" regen -C "$b" --quiet
cmp -s "$b/build.ninja" "$dir/first.ninja" || fail "regen twice gave different bytes"
no_work "after regen again"
pass "no work after build, regen again; regen is idempotent"

# A header only device code reads: device edges, bundle, host and links run.
saxpy=$b/CMakeFiles/phc_kernels.dir/src/saxpy.hip.o
before=$(md5sum <"$saxpy")
sed -i 's/PHC_DEVICE_SCALE 1.0f/PHC_DEVICE_SCALE 2.0f/' "$src/include/device_tuning.hpp"
w=$(work)
for arch in gfx906 gfx90a; do
  grep -q "HIP $arch CMakeFiles/phc_kernels.dir/src/saxpy.hip.o" <<<"$w" || fail "device header: no $arch edge in: $w"
done
grep -q "reduce.hip" <<<"$w" && fail "device header: reduce.hip rebuilt: $w"
ninja -C "$b" >/dev/null
[ "$(md5sum <"$saxpy")" != "$before" ] || fail "device header change did not change the object"
identical "$saxpy"
pass "a device-only header rebuilds exactly saxpy's device code, and the object changes correctly"

touch "$src/src/reduce.hip"
w=$(work)
n=$(grep -c "reduce.hip.o" <<<"$w" || true)
expect_eq "edges for touched reduce.hip" 4 "$n"
grep -q "saxpy" <<<"$w" && fail "touching reduce.hip rebuilds saxpy: $w"
ninja -C "$b" >/dev/null
no_work "after the incremental build"
pass "touching a .hip file rebuilds its own edges only"

# CMake re-running itself through ninja keeps the build split.
touch "$src/CMakeLists.txt"
ninja -C "$b" >"$dir/rerun.out" 2>&1 || fail "build after touching CMakeLists.txt failed: $(cat "$dir/rerun.out")"
grep -q "Re-running CMake" "$dir/rerun.out" || fail "CMake did not re-run"
grep -q "# phc-ninja regen: " <<<"$(head -c 19 "$b/build.ninja")" || fail "build.ninja is no longer split after CMake re-ran"
grep -q "PHC_HIP_DEVICE" "$b/build.ninja" || fail "no device edges after CMake re-ran"
no_work "after CMake re-ran"
pass "touching CMakeLists.txt: CMake re-runs, the build stays split, nothing else rebuilds"

# Adding an architecture by hand (cmake -D... in the build directory, then
# regen) compiles only the new architecture's device code. CMake run there by
# hand recompacts .ninja_deps against its own manifest, which drops the device
# edges' header records; regen puts them back (src/depsets/records.h).
(cd "$b" && cmake -DCMAKE_HIP_ARCHITECTURES="gfx906;gfx90a;gfx1030" . >/dev/null)
"$PHC" regen -C "$b" >"$dir/regen-arch.out"
grep -q "put back 4 header records a direct cmake run dropped" "$dir/regen-arch.out" ||
  fail "regen did not put back the device records: $(cat "$dir/regen-arch.out")"
w=$(work)
grep -q "HIP gfx906 \|HIP gfx90a " <<<"$w" && fail "adding gfx1030 recompiles old architectures: $w"
n=$(grep -c "HIP gfx1030 " <<<"$w" || true)
expect_eq "new gfx1030 device edges" 2 "$n"
ninja -C "$b" >/dev/null
for o in $(objs); do identical "$o"; done
cp "$saxpy" "$dir/saxpy-checked.o" # to compare with after the failing build below
# The records regen put back are the real ones: a device-only header change
# still rebuilds every architecture's device code of the object that reads it.
touch "$src/include/device_tuning.hpp"
w=$(work)
for arch in gfx906 gfx90a gfx1030; do
  grep -q "HIP $arch CMakeFiles/phc_kernels.dir/src/saxpy.hip.o" <<<"$w" ||
    fail "after the records were put back, a device header does not rebuild $arch: $w"
done
ninja -C "$b" >/dev/null
pass "adding an architecture by hand (cmake, regen) compiles only its device code; objects still identical; headers still rebuild"

# A device compile that fails for one architecture fails the build, with the message.
cp "$src/src/saxpy.hip" "$dir/saxpy.good"
printf '#if defined(__gfx90a__)\n#error phc-e2e-broken-for-gfx90a\n#endif\n' >>"$src/src/saxpy.hip"
if ninja -C "$b" >"$dir/fail.out" 2>&1; then fail "build with a gfx90a-only error succeeded"; fi
grep -q "phc-e2e-broken-for-gfx90a" "$dir/fail.out" || fail "compiler message missing: $(cat "$dir/fail.out")"
grep -q "FAILED: CMakeFiles/phc_kernels.dir/src/saxpy.hip.o.phc/gfx90a.o" "$dir/fail.out" ||
  fail "the failing edge is not gfx90a's device edge"
cp "$dir/saxpy.good" "$src/src/saxpy.hip"
ninja -C "$b" >/dev/null || fail "build after the fix failed"
# The source is again the one whose object the driver's matched above.
cmp -s "$dir/saxpy-checked.o" "$saxpy" || fail "saxpy's object after the fix differs from the driver's before"
pass "a gfx90a-only error fails the build with the compiler's message; the fix builds"

# ccache as the compiler launcher: a device-only header change gives a changed, correct object.
export CCACHE_DIR=$dir/ccache
rm -rf "$b"
configure "gfx906;gfx90a" -DCMAKE_HIP_COMPILER_LAUNCHER=ccache
"$PHC" regen -C "$b" --quiet
# The split steps' commands (after the step runner's "--", or the shared start) begin with ccache.
grep -Eq "(^  (command|PHC_COMMAND) = | -- |^PHC_ARGS_[0-9a-f]+ = )ccache " "$b/build.ninja" ||
  fail "ccache not kept on split steps"
ninja -C "$b" >/dev/null
sed -i 's/PHC_DEVICE_SCALE 2.0f/PHC_DEVICE_SCALE 3.0f/' "$src/include/device_tuning.hpp"
before=$(md5sum <"$saxpy")
ninja -C "$b" >/dev/null
[ "$(md5sum <"$saxpy")" != "$before" ] || fail "under ccache the object did not change"
identical "$saxpy"
sed -i 's/PHC_DEVICE_SCALE 3.0f/PHC_DEVICE_SCALE 2.0f/' "$src/include/device_tuning.hpp"
ninja -C "$b" >/dev/null
identical "$saxpy"
pass "under ccache a device-only header change (and back, from the cache) gives the right object"
