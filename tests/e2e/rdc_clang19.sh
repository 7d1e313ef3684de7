#!/usr/bin/env bash
# clang 19's new-driver RDC links (issue 41 item 3). Its clang-linker-wrapper
# links each architecture's device code in its own process (its LTO), one
# after another, so the link's device work cannot be read off its dry run as
# clang 22's can. It is split by giving the wrapper itself one architecture's
# device code at a time: the plan step (run when the inputs exist) cuts each
# input object's offload binary of that architecture into an object of its
# own, and the device link edge runs the wrapper on those (`phc-ninja
# wrapper-image`), keeping the image it links and linking nothing for the
# host; the host link is the wrapper given the images. A program of split
# objects (gfx906 and the target ID gfx90a:xnack+): identical to the driver's
# own link; a host-only edit relinks no architecture; a device edit relinks
# each; an archive with device code is left to the wrapper, saying why;
# phc-launch splits the same link.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
dir=$(suite_dir rdc_clang19)
cd "$dir" || exit 1
mkdir -p tmp
export TMPDIR=$dir/tmp PHC_PROBE_CACHE=$dir/probes.json
C19=/usr/lib/llvm-19/bin/clang++
ARCHS="--offload-arch=gfx906 --offload-arch=gfx90a:xnack+"
CFLAGS="-x hip $HIP_FLAGS_DEFAULT -std=c++17 -O2 --offload-new-driver -fgpu-rdc $ARCHS"
LFLAGS="--rocm-path=/usr --offload-new-driver -fgpu-rdc --hip-link $ARCHS"
cp "$PHC_SRC"/tests/e2e/fidelity/*.hip "$PHC_SRC"/tests/e2e/fidelity/*.h .
objs="main.o strings.o symbols.o hostinst.o nokernel.o devvar.o"
{
  printf 'rule rdc\n  command = %s %s $extra -MD -MF $out.d -c $in -o $out\n  depfile = $out.d\n  deps = gcc\n' "$C19" "$CFLAGS"
  printf 'rule ar\n  command = rm -f $out && ar qc $out $in && ar s $out\n'
  printf 'rule link\n  command = %s %s $in -o $out\n' "$C19" "$LFLAGS"
  for o in $objs; do printf 'build %s: rdc %s.hip\n' "$o" "${o%.o}"; done
  # Debug information in one object (with -g every edit changes its device
  # code: the source's checksum is in it): devvar.o, the last.
  printf '  extra = -g\nbuild libdev.a: ar devvar.o\n'
  printf 'build app: link %s\n' "$objs"
  printf 'build apparch: link %s libdev.a\n' "${objs% devvar.o}"
} >build.ninja
same_as_driver() {
  # shellcheck disable=SC2086
  $C19 $LFLAGS $objs -o ref 2>/dev/null || fail "the driver's link of app failed"
  cmp -s ref app || fail "app differs from the driver's own link of the same objects $1"
}
"$PHC" regen --device-jobs 1 --explain >regen.out 2>&1 || fail "regen failed: $(cat regen.out)"
grep -q "split 2 RDC links into 4 device links" regen.out || fail "the links are not split: $(cat regen.out)"
for a in gfx906 gfx90a:xnack+; do
  grep -q "HIP link $a app\$" build.ninja || fail "no device link edge for $a of app"
done
ninja >ninja.out 2>&1 || fail "build failed: $(tail -20 ninja.out)"
same_as_driver "(first build)"
grep -q '"wrapper-image","--arch","gfx90a:xnack+"' app.phc/gfx90a-xnack+.plan ||
  fail "app's gfx90a:xnack+ device link is not the wrapper given its device code: $(cat app.phc/gfx90a-xnack+.plan)"
[ -s app.phc/gfx906.img ] || fail "app's gfx906 device link wrote no image"
# The archive: the wrapper picks its members by their symbols, in its own
# process: left to it, saying so, and the program is the driver's.
grep -q "apparch: the wrapper links its device code itself: .*libdev.a(devvar.o)" ninja.out ||
  fail "apparch's device code is not left to the wrapper, saying why: $(cat ninja.out)"
# shellcheck disable=SC2086
$C19 $LFLAGS ${objs% devvar.o} libdev.a -o refarch 2>/dev/null || fail "the driver's link of apparch failed"
cmp -s refarch apparch || fail "apparch differs from the driver's own link"
expect_no_work "$dir" "after the build"
pass "clang 19 new-driver RDC link of the fidelity corpus (one object -g; gfx906, gfx90a:xnack+) split per architecture, identical to the driver's; an archive left to the wrapper"

# A host-only edit: the plan step finds every architecture's device code as it was.
echo 'int host_only() { return 7; }' >>main.hip # main.hip has no device code
ninja app >host.out 2>&1 || fail "rebuild after a host-only edit failed: $(cat host.out)"
grep -q "HIP link plan app" host.out || fail "the plan step did not run: $(cat host.out)"
! grep -q "HIP link gfx90[6a]" host.out || fail "a host-only edit relinked device code: $(cat host.out)"
same_as_driver "after a host-only edit"
# A device edit: each architecture relinks.
echo '__device__ int phc_device_edit(int x) { return x + 1; }' >>strings.hip
ninja app >dev.out 2>&1 || fail "rebuild after a device edit failed: $(cat dev.out)"
for a in gfx906 gfx90a:xnack+; do
  grep -q "HIP link $a app" dev.out || fail "a device edit did not relink $a: $(cat dev.out)"
done
same_as_driver "after a device edit"
pass "a host-only edit relinks no architecture, a device edit each; identical"

# The launcher: the same link with its inputs built, planned when it runs.
# shellcheck disable=SC2086
PHC_NINJA_TRACE=$dir/trace.log "$(dirname "$PHC")/phc-launch" "$C19" $LFLAGS $objs \
  -o applaunch >launch.out 2>&1 || fail "phc-launch failed: $(cat launch.out)"
for a in gfx906 gfx90a:xnack+; do
  grep -q "applaunch::link $a" trace.log || fail "no launcher device link step for $a: $(cat trace.log)"
done
cmp -s ref applaunch || fail "the launcher's link differs from the driver's"
pass "phc-launch splits clang 19's new-driver link; identical"
