#!/usr/bin/env bash
# --overlap-host with an objcopy that cannot keep the object's bytes
# (issue 37): llvm-objcopy 15 clears .llvm_addrsig's sh_link, GNU objcopy moves
# sections. The embed step compares every header field and every byte outside
# .hip_fatbin with the host object's and fails, writing nothing; regen, gen and
# the launcher find out which objcopy keeps the bytes (a probe, no version
# list) and, when none does, do not overlap, saying why once. Never an object
# that is not the driver's. PHC_OBJCOPY names the only objcopy to consider
# (/usr/lib/llvm-*/bin is searched otherwise, which holds llvm-objcopy 22).
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
dir=$(suite_dir overlap_objcopy)
cd "$dir" || exit 1
mkdir -p tmp
export TMPDIR=$dir/tmp PHC_PROBE_CACHE=$dir/probes.json
unset PHC_OBJCOPY
C22=/usr/lib/llvm-22/bin/clang++
SHIM="-mcode-object-version=5 -D__AMDGCN_WAVEFRONT_SIZE=64"
ARCHS="--offload-arch=gfx906 --offload-arch=gfx90a"
cat >k.hip <<'K'
#include <hip/hip_runtime.h>
__global__ void scale(float* p) { p[threadIdx.x] *= 2.0f; }
void run_scale(float* p) { scale<<<1, 64>>>(p); }
K
OC15=$(command -v llvm-objcopy-15) || fail "no llvm-objcopy-15 here"

# 1. The embed step alone, on real host objects of clang 15 and clang 22: with
# llvm-objcopy 15 it fails, naming the field, and writes nothing; with the
# newest llvm-objcopy it writes the driver's own object.
for c in "c15|clang++-15|" "c22|$C22|$SHIM"; do
  IFS='|' read -r n cc fl <<<"$c"
  # shellcheck disable=SC2086
  $cc -x hip $HIP_FLAGS_DEFAULT $fl -O2 $ARCHS -cuid=k -c k.hip -o "$n-driver.o" || fail "$n compile"
  # shellcheck disable=SC2086
  $cc -x hip $HIP_FLAGS_DEFAULT $fl -O2 $ARCHS -cuid=k --offload-host-only \
    -Xclang -fcuda-include-gpubinary -Xclang k.hip -c k.hip -o "$n-host.o" || fail "$n host compile"
  llvm-objcopy-22 --dump-section .hip_fatbin="$n.fatbin" "$n-driver.o" /dev/null
  # The driver's section is the bundle and the compiler's tail (clang 15: a NUL).
  if [ "$n" = c15 ]; then head -c -1 "$n.fatbin" >"$n.bundle"; else cp "$n.fatbin" "$n.bundle"; fi
  if "$PHC" embed --objcopy "$OC15" --placeholder k.hip --bundle "$n.bundle" --host "$n-host.o" \
    -o "$n-15.o" 2>"$n-15.err"; then
    cmp -s "$n-15.o" "$n-driver.o" && fail "llvm-objcopy 15 kept $n's bytes (the test is stale)"
    fail "the embed step with llvm-objcopy 15 wrote $n-15.o, which is not the driver's object"
  fi
  grep -q "changed more than .hip_fatbin (section .llvm_addrsig's sh_link is 0x0, the original's 0x" \
    "$n-15.err" || fail "the embed step's error does not name .llvm_addrsig's link: $(cat "$n-15.err")"
  [ ! -e "$n-15.o" ] || fail "the failed embed step wrote $n-15.o"
  "$PHC" embed --objcopy llvm-objcopy-22 --placeholder k.hip --bundle "$n.bundle" \
    --host "$n-host.o" -o "$n-22.o" || fail "the embed step with llvm-objcopy 22 failed for $n"
  cmp "$n-22.o" "$n-driver.o" || fail "$n: llvm-objcopy 22's object is not the driver's"
done
pass "embed: llvm-objcopy 15 fails the step naming .llvm_addrsig's sh_link; 22 writes the driver's objects (clang 15, clang 22)"

# 2. regen --overlap-host with only llvm-objcopy 15 (or GNU objcopy): no embed
# edges, the reason in the summary, objects identical; with the default
# search (llvm-objcopy 22 here): overlapped.
manifest() {
  mkdir -p "$1"
  cat >"$1/build.ninja" <<R
rule hip
  command = \$cc -x hip $HIP_FLAGS_DEFAULT -O2 \$flags -c \$in -o \$out
build k15.o: hip $dir/k.hip
  cc = clang++-15
  flags = $ARCHS
build k22.o: hip $dir/k.hip
  cc = $C22
  flags = $SHIM --offload-new-driver $ARCHS
R
}
for oc in "$OC15" objcopy; do
  d=regen-$(basename "$oc")
  manifest "$d"
  (cd "$d" && PHC_OBJCOPY=$oc "$PHC" regen --overlap-host --explain >regen.out 2>&1) ||
    fail "regen with $oc: $(cat "$d/regen.out")"
  grep -q "; --overlap-host not used: no objcopy here keeps an object's bytes" "$d/regen.out" ||
    fail "regen with only $oc did not say why it does not overlap: $(cat "$d/regen.out")"
  expect_eq "embed edges with only $oc" 0 "$(grep -c 'PHC_DESC = HIP embed ' "$d/build.ninja" || true)"
  expect_eq "times regen said why" 1 "$(grep -c 'overlap-host not used' "$d/regen.out")"
  ninja -C "$d" >"$d/ninja.out" 2>&1 || fail "build with $oc: $(tail "$d/ninja.out")"
  "$PHC" check -C "$d" --all >"$d/check.out" 2>&1 || fail "check: $(cat "$d/check.out")"
  grep -q "^phc-ninja check: 2 of 2 split outputs checked: 2 identical$" "$d/check.out" ||
    fail "check with $oc: $(cat "$d/check.out")"
done
grep -q "llvm-objcopy-15: section .llvm_addrsig's sh_link is 0x0" "regen-llvm-objcopy-15/regen.out" ||
  fail "the reason does not say what llvm-objcopy 15 changed: $(cat regen-llvm-objcopy-15/regen.out)"
manifest regen-default
(cd regen-default && "$PHC" regen --overlap-host >regen.out 2>&1) || fail "regen: $(cat regen-default/regen.out)"
! grep -q "overlap-host not used" regen-default/regen.out || fail "regen refused llvm-objcopy 22: $(cat regen-default/regen.out)"
expect_eq "embed edges with the default objcopy" 2 "$(grep -c 'PHC_DESC = HIP embed ' regen-default/build.ninja)"
ninja -C regen-default >regen-default/ninja.out 2>&1 || fail "build: $(tail regen-default/ninja.out)"
"$PHC" check -C regen-default --all >regen-default/check.out 2>&1 || fail "check: $(cat regen-default/check.out)"
pass "regen --overlap-host: not overlapped (saying why, once) with only llvm-objcopy 15 or GNU objcopy, identical; overlapped with the newest"

# 3. gen and the launcher with only llvm-objcopy 15: not overlapped, identical.
mkdir -p gen
manifest gen
(cd gen && ninja -t compdb hip >compile_commands.json) || fail "ninja -t compdb"
(cd gen && PHC_OBJCOPY=$OC15 "$PHC" gen --overlap-host -p compile_commands.json -o phc.ninja >gen.out 2>&1) ||
  fail "gen: $(cat gen/gen.out)"
grep -q "; --overlap-host not used: " gen/gen.out || fail "gen did not say why: $(cat gen/gen.out)"
! grep -q 'HIP embed' gen/phc.ninja || fail "gen wrote embed edges with only llvm-objcopy 15"
PHC_OBJCOPY=$OC15 PHC_OVERLAP_HOST=1 PHC_CHECK=1 PHC_NINJA_TRACE=$dir/trace.log \
  "$(dirname "$PHC")/phc-launch" clang++-15 -x hip $HIP_FLAGS_DEFAULT -O2 $ARCHS -c k.hip -o l.o 2>launch.err ||
  fail "the launcher: $(cat launch.err)"
grep -q '::gfx906' trace.log || fail "the launcher did not split: $(cat trace.log)"
! grep -q 'embed' trace.log || fail "the launcher overlapped with only llvm-objcopy 15: $(cat trace.log)"
pass "gen and the launcher: not overlapped with only llvm-objcopy 15 (PHC_CHECK=1: the driver's bytes)"
