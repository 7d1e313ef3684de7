#!/usr/bin/env bash
# phc-launch under GNU make -j4 (pipe jobserver) on samples/rdc-hip's sources
# with -fgpu-rdc and three architectures: RDC compiles split (device compiles
# and the host compile in one wave, then the bundle) and the RDC link split (one
# device link per architecture); every object identical to the driver's own
# compile with the same CUID, the executable identical to the driver's link of
# the same objects; the same with clang 22's new offload driver; a device link
# failing for one architecture fails the build with lld's message.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
L=$(dirname "$PHC")/phc-launch
W=$(suite_dir launch_rdc)
mkdir -p "$W/tmp" "$W/obj"
cp "$PHC_SRC"/samples/rdc-hip/src/* "$W/"
export TMPDIR=$W/tmp PHC_PROBE_CACHE=$W/probes.json
cd "$W" || exit 1
ARCHS="--offload-arch=gfx906 --offload-arch=gfx90a --offload-arch=gfx1030"
CFLAGS="-x hip $HIP_FLAGS_DEFAULT -O2 -fgpu-rdc $ARCHS"
LFLAGS="--rocm-path=/usr -fgpu-rdc --hip-link $ARCHS -B/usr/lib/llvm-15/bin"
cat >Makefile <<M
OBJS := obj/math.o obj/table.o obj/kernels.o obj/main.o
app: \$(OBJS)
	+\$(LAUNCH) clang++-15 $LFLAGS \$(OBJS) -o \$@
obj/%.o: %.hip rdc.h
	+\$(LAUNCH) clang++-15 $CFLAGS -MD -c \$< -o \$@
M
make -j4 LAUNCH="$L" >"$W/make.out" 2>&1 || fail "make -j4 through phc-launch failed: $(cat "$W/make.out")"
left=$(find "$W/tmp" -maxdepth 1 -name 'phc-launch-*')
[ -z "$left" ] || fail "private folders left in TMPDIR: $left"

for name in math table kernels main; do
  # shellcheck disable=SC2086
  cuid=$("$PHC" explain -- clang++-15 $CFLAGS -MD -c "$name.hip" -o "obj/$name.o" | sed -n 's/^# cuid: //p')
  [ -n "$cuid" ] || fail "explain gave no cuid for $name"
  # shellcheck disable=SC2086
  clang++-15 $CFLAGS -cuid="$cuid" -c "$name.hip" -o "$W/ref.o" || fail "reference compile of $name failed"
  cmp -s "$W/ref.o" "obj/$name.o" || fail "obj/$name.o differs from the driver's compile (cuid $cuid)"
  grep -q "^obj/$name.o:" "obj/$name.d" || fail "obj/$name.d does not name the object: $(head -1 "obj/$name.d")"
done
# shellcheck disable=SC2086
clang++-15 $LFLAGS obj/math.o obj/table.o obj/kernels.o obj/main.o -o "$W/ref_app" 2>/dev/null ||
  fail "the driver's link failed"
cmp -s "$W/ref_app" app || fail "app differs from the driver's link of the same objects"
pass "make -j4 through phc-launch: RDC objects and the link split, identical to the driver's"

# The link is split: one device link per architecture, seen in the trace log.
rm -f app
PHC_NINJA_TRACE=$W/trace.log make -j4 LAUNCH="$L" app >/dev/null 2>&1 || fail "relink failed"
for a in gfx906 gfx90a gfx1030; do
  grep -q "app::link $a" "$W/trace.log" || fail "no device link step for $a in the trace: $(cat "$W/trace.log")"
done
cmp -s "$W/ref_app" app || fail "the relinked app differs from the driver's link"
pass "the link runs one device link per architecture (trace log)"

# A static device library (-l): the driver unbundles the archive per
# architecture (-type=a); the split replays that, identically.
ar rcs libdev.a obj/math.o obj/table.o
# shellcheck disable=SC2086
"$L" clang++-15 $LFLAGS obj/kernels.o obj/main.o -L. -ldev -o app_ar 2>/dev/null || fail "phc-launch link with -ldev failed"
# shellcheck disable=SC2086
clang++-15 $LFLAGS obj/kernels.o obj/main.o -L. -ldev -o "$W/ref_app_ar" 2>/dev/null || fail "the driver's -ldev link failed"
cmp -s "$W/ref_app_ar" app_ar || fail "app_ar (-ldev) differs from the driver's link"
# shellcheck disable=SC2086
"$PHC" explain -- clang++-15 $LFLAGS obj/kernels.o obj/main.o -L. -ldev -o app_ar | grep -q -- "-type=a" ||
  fail "the plan does not unbundle the static device library"
# shellcheck disable=SC2086
"$PHC" explain -- clang++-15 $LFLAGS obj/kernels.o -L. -lnotyet -o x | grep -q "link-unmodelled: -lnotyet is not there yet" ||
  fail "a -l library that does not exist yet does not leave the link alone"
pass "a link with a static device library (-ldev) splits identically; one not built yet is left alone"

# The new offload driver (clang 22): compiles split into device bitcode, the
# packer and the host compile; the link into one device link per architecture
# (the objects' device code extracted as the wrapper extracts it) and the
# wrapper given their images.
C22=/usr/lib/llvm-22/bin/clang++
NCFLAGS="-x hip $HIP_FLAGS_DEFAULT -O2 --offload-new-driver -fgpu-rdc -mcode-object-version=5 -D__AMDGCN_WAVEFRONT_SIZE=64 --offload-arch=gfx906 --offload-arch=gfx90a"
NLFLAGS="--rocm-path=/usr --offload-new-driver -fgpu-rdc --hip-link --offload-arch=gfx906 --offload-arch=gfx90a"
mkdir -p nd
cat >Makefile.nd <<M
OBJS := nd/math.o nd/table.o nd/kernels.o nd/main.o
nd/app: \$(OBJS)
	+\$(LAUNCH) $C22 $NLFLAGS \$(OBJS) -o \$@
nd/%.o: %.hip rdc.h
	+\$(LAUNCH) $C22 $NCFLAGS -c \$< -o \$@
M
PHC_NINJA_TRACE=$W/trace_nd.log make -f Makefile.nd -j4 LAUNCH="$L" >"$W/make_nd.out" 2>&1 ||
  fail "make -j4 of the new-driver build failed: $(cat "$W/make_nd.out")"
for a in gfx906 gfx90a; do
  grep -q "nd/app::link $a" "$W/trace_nd.log" || fail "no new-driver device link step for $a: $(cat "$W/trace_nd.log")"
done
for name in math table kernels main; do
  # shellcheck disable=SC2086
  cuid=$("$PHC" explain -- $C22 $NCFLAGS -c "$name.hip" -o "nd/$name.o" | sed -n 's/^# cuid: //p')
  # shellcheck disable=SC2086
  $C22 $NCFLAGS -cuid="$cuid" -c "$name.hip" -o "$W/ref.o" 2>/dev/null || fail "reference compile of $name failed"
  cmp -s "$W/ref.o" "nd/$name.o" || fail "nd/$name.o differs from the driver's compile (cuid $cuid)"
done
# shellcheck disable=SC2086
$C22 $NLFLAGS nd/math.o nd/table.o nd/kernels.o nd/main.o -o "$W/ref_nd" 2>/dev/null || fail "the driver's new-driver link failed"
cmp -s "$W/ref_nd" nd/app || fail "nd/app differs from the driver's link of the same objects"
pass "the new offload driver through phc-launch: objects and the link split, identical"

# A device link failing for gfx90a only fails the link with lld's message.
cat >>kernels.hip <<'K'
#if defined(__gfx90a__)
__device__ int phc_e2e_missing_for_gfx90a(int);
__global__ void broken_kernel(int* p) { p[0] = phc_e2e_missing_for_gfx90a(p[0]); }
#endif
K
if make -j4 LAUNCH="$L" >"$W/fail.out" 2>&1; then fail "a link with a gfx90a-only undefined symbol succeeded"; fi
grep -q "undefined .*phc_e2e_missing_for_gfx90a" "$W/fail.out" || fail "lld's message is missing: $(cat "$W/fail.out")"
[ ! -e app ] || fail "the failed link left app behind"
pass "a gfx90a-only undefined device symbol fails the link with lld's message, no app left"
