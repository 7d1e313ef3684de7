#!/usr/bin/env bash
# phc-ninja regen on samples/rdc-hip (relocatable device code, -fgpu-rdc, three
# architectures, device functions shared between an OBJECT library and an
# executable): compiles and the link split per architecture; every object
# byte-identical to the driver's own compile with the same CUID, the executable
# identical to the driver's link of those objects, no-op after a build, exact
# rebuilds, adding an architecture compiles and links only its device code.
# (gen's split of RDC compiles is checked in distribute_distcc, against the
# local split's and so the driver's: its section here, 7 more compiles and 7
# reference compiles, went for issue 42's CI time. So did its build through
# hipcc: hipcc's RDC objects are the driver's in fidelity.sh, its RDC program
# split in rdc_archives.sh.)
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
dir=$(suite_dir rdc_cmake)
src=$dir/src
b=$dir/build
cp -r "$PHC_SRC/samples/rdc-hip" "$src"

configure() { # configure ARCHS
  cmake -S "$src" -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_HIP_COMPILER=clang++-15 \
    -DCMAKE_HIP_FLAGS="$HIP_FLAGS_DEFAULT" -DCMAKE_HIP_ARCHITECTURES="$1" >/dev/null
}
# The objects and what ninja would do, in the build directory $b (see lib/common.sh).
objs() { hip_objects "$b"; }
work() { ninja_work "$b"; }
no_work() { expect_no_work "$b" "$1"; }

# identical OBJ: the object equals the driver's own -fgpu-rdc compile with the CUID of its split.
identical() {
  local obj=$1 rel cmd cuid
  rel=${obj#"$b"/}
  cuid=$(awk -v o="$rel.phc/host.o" '$1=="build" && $2==o":" {f=1; next} f && /PHC_COMMAND/ {match($0, /-cuid=[0-9a-f]+/); print substr($0, RSTART, RLENGTH); exit}' "$b/build.ninja")
  [ -n "$cuid" ] || fail "no RDC host edge with a CUID for $rel"
  cmd=$(ninja -C "$b" -f build.ninja.cmake -t commands "$rel" | tail -n 1)
  grep -q -- "-fgpu-rdc" <<<"$cmd" || fail "$rel is not compiled with -fgpu-rdc: $cmd"
  (cd "$b" && eval "${cmd/-o $rel/-o $dir/ref.o} $cuid") || fail "driver compile of $rel failed"
  cmp -s "$dir/ref.o" "$obj" || fail "$rel differs from the driver's own compile with $cuid"
}

# linked_identically: the executable and the shared library equal the driver's
# own links of the same objects.
linked_identically() {
  local cmd out
  for out in phc_rdc libphc_rdc_shared.so; do
    cmd=$(ninja -C "$b" -f build.ninja.cmake -t commands "$out" | tail -n 1)
    (cd "$b" && eval "${cmd/-o $out/-o $dir/ref_$out}") >/dev/null 2>&1 || fail "driver link failed: $cmd"
    cmp -s "$dir/ref_$out" "$b/$out" || fail "$out differs from the driver's link of the same objects"
  done
}

configure "gfx906;gfx90a;gfx1030"
"$PHC" regen -C "$b" | tee "$dir/regen.out"
grep -q "split 7 objects into 21 device edges; split 2 RDC links into 6 device links" "$dir/regen.out" ||
  fail "unexpected summary: $(cat "$dir/regen.out")"
for arch in gfx906 gfx90a gfx1030; do
  grep -q "^build phc_rdc.phc/$arch.out: PHC_HIP_STEP .*math.hip.o.phc/$arch.o" "$b/build.ninja" ||
    fail "no $arch device link reading the split compile's bitcode"
done
ninja -C "$b" >/dev/null 2>&1 || fail "first build failed"
for o in $(objs); do identical "$o"; done
linked_identically
pass "7 RDC objects, an executable's and a shared library's link split; all byte-identical to the driver's"

no_work "after a full build"
pass "no work after a full build"

# A header only math.hip reads: its device and host edges, its bundle and the link.
touch "$src/src/tuning.h"
w=$(work)
for step in "HIP gfx906 " "HIP gfx90a " "HIP gfx1030 " "HIP host " "HIP bundle "; do
  n=$(grep -c "$step.*math.hip.o" <<<"$w" || true)
  expect_eq "'$step' edges for the two math.hip objects after touching tuning.h" 2 "$n"
done
grep -Eq "(table|kernels|main)\.hip" <<<"$w" && fail "touching tuning.h rebuilds other objects: $w"
for step in "HIP link gfx906 phc_rdc" "HIP link gfx90a phc_rdc" "HIP link gfx1030 phc_rdc" \
  "HIP fatbin phc_rdc" "HIP host link phc_rdc" "HIP host link libphc_rdc_shared.so"; do
  grep -q "$step" <<<"$w" || fail "touching tuning.h does not run '$step': $w"
done
sed -i 's/PHC_RDC_SCALE 2.0f/PHC_RDC_SCALE 3.0f/' "$src/src/tuning.h"
ninja -C "$b" >/dev/null 2>&1 || fail "rebuild failed"
no_work "after the rebuild"
identical "$b/CMakeFiles/phc_rdc_device.dir/src/math.hip.o"
linked_identically
pass "a header change rebuilds exactly its object's edges and the link, identically"

# Adding an architecture by hand (cmake -D... in the build directory, then
# regen) compiles only that architecture's device code: regen puts back the
# header records of the split edges that CMake's recompaction of .ninja_deps
# dropped (src/depsets/records.h).
(cd "$b" && cmake -DCMAKE_HIP_ARCHITECTURES="gfx906;gfx90a;gfx1030;gfx908" . >/dev/null)
"$PHC" regen -C "$b" >"$dir/regen-arch.out" || fail "regen after adding gfx908 failed"
grep -q "put back [0-9]* header records a direct cmake run dropped" "$dir/regen-arch.out" ||
  fail "regen did not put back the split edges' records: $(cat "$dir/regen-arch.out")"
w=$(work)
grep -Eq "HIP (gfx906|gfx90a|gfx1030|host) .*\.hip\.o" <<<"$w" && fail "adding gfx908 recompiles other steps: $w"
grep -Eq "HIP link (gfx906|gfx90a|gfx1030) " <<<"$w" && fail "adding gfx908 relinks other architectures: $w"
expect_eq "new gfx908 device edges" 7 "$(grep -c "HIP gfx908 " <<<"$w" || true)"
expect_eq "new gfx908 device links" 2 "$(grep -c "HIP link gfx908 " <<<"$w" || true)"
ninja -C "$b" >/dev/null 2>&1 || fail "build with gfx908 failed"
for o in $(objs); do identical "$o"; done
linked_identically
# Kept to compare with after the failing link below (the same sources again).
cp "$b/phc_rdc" "$b/libphc_rdc_shared.so" "$dir/" || fail "no links to keep"
pass "adding gfx908 compiles and links only its device code; objects and executable still identical"

# A device link that fails for one architecture fails the build with lld's message.
cp "$src/src/kernels.hip" "$dir/kernels.good"
cat >>"$src/src/kernels.hip" <<'K'
#if defined(__gfx90a__)
__device__ int phc_e2e_missing_for_gfx90a(int);
__global__ void broken_kernel(int* p) { p[0] = phc_e2e_missing_for_gfx90a(p[0]); }
#endif
K
if ninja -C "$b" >"$dir/fail.out" 2>&1; then fail "a link with a gfx90a-only undefined symbol succeeded"; fi
grep -q "undefined .*phc_e2e_missing_for_gfx90a" "$dir/fail.out" || fail "lld's message is missing: $(cat "$dir/fail.out")"
# Both links hold the kernel: whichever ninja starts first fails, for gfx90a alone.
grep -Eq "FAILED: (phc_rdc|libphc_rdc_shared\.so)\.phc/gfx90a\.out" "$dir/fail.out" ||
  fail "the failing edge is not a gfx90a device link: $(grep FAILED "$dir/fail.out")"
! grep -Eq "FAILED: .*gfx90[68]\.out" "$dir/fail.out" || fail "another architecture's link failed: $(grep FAILED "$dir/fail.out")"
cp "$dir/kernels.good" "$src/src/kernels.hip"
ninja -C "$b" >/dev/null 2>&1 || fail "build after the fix failed"
# The sources are again those of the links linked_identically matched above.
for out in phc_rdc libphc_rdc_shared.so; do
  cmp -s "$dir/$out" "$b/$out" || fail "$out after the fix differs from the driver's link before the failure"
done
pass "an undefined device symbol for gfx90a fails its device link with lld's message; the fix links"

