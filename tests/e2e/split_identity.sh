#!/usr/bin/env bash
# The oracle is the compiler itself: for each real multi-architecture HIP
# compile, run the steps `phc-ninja explain` plans and check that the object is
# byte-identical to the driver's own compile with the same -cuid.
set -euo pipefail
: "${PHC:?path to phc-ninja}" "${PHC_TMP:?scratch directory}"
work="$PHC_TMP/split_identity"
rm -rf "$work"
mkdir -p "$work/src dir" "$work/inc dir" "$work/b 1"
trap 'rm -rf "$work"' EXIT

cat > "$work/inc dir/scale.h" <<'H'
#pragma once
#ifndef SCALE
#define SCALE 1
#endif
H
cat > "$work/src dir/k.hip" <<'K'
#include <hip/hip_runtime.h>
#include "scale.h"
static __device__ int calls;
__global__ void scale(float* p, int n) {
    atomicAdd(&calls, 1);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] *= SCALE;
}
// Host code naming a static device variable (its registration involves the CUID).
void* calls_address() {
    void* p = nullptr;
    (void)hipGetSymbolAddress(&p, HIP_SYMBOL(calls));
    return p;
}
K

ROCM="--rocm-path=/usr --hip-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode"
CLANG19=/usr/lib/llvm-19/bin/clang++
fail() { echo "FAIL: $*" >&2; exit 1; }
cases=0

# check [--no-cuid] NAME COMPILER FLAGS...: plans, runs the plan, compiles for
# reference, compares. --no-cuid: the driver passes its jobs no CUID (clang 19's
# new driver), so neither does the plan.
check() {
    local no_cuid=0
    if [ "$1" = --no-cuid ]; then no_cuid=1; shift; fi
    local name=$1 cc=$2; shift 2
    local flags="$*"
    local obj="obj dir/$name.o"
    local cmd="cd 'b 1' && $cc -x hip $ROCM $flags -I'../inc dir' -MD -MT '$obj' -MF '$obj.d' -c '../src dir/k.hip' -o '$obj'"
    local plan="$work/$name.plan.sh"
    "$PHC" explain -C "$work" -- "$cmd" > "$plan" || fail "$name: explain failed"
    grep -q '^# decision: split$' "$plan" || { cat "$plan" >&2; fail "$name: not split"; }
    local cuid ref_cuid=""
    cuid=$(sed -n 's/^# cuid: //p' "$plan")
    case "$no_cuid$flags" in
      1*) [ -z "$cuid" ] || fail "$name: the driver uses no CUID but the plan has one" ;;
      *-fuse-cuid=none*) [ -z "$cuid" ] || fail "$name: -fuse-cuid=none but the plan has a cuid" ;;
      *-cuid=*) ;; # the command's own -cuid is the reference's too
      *) [ -n "$cuid" ] || fail "$name: no cuid in the plan"; ref_cuid=" -cuid=$cuid" ;;
    esac
    (cd "$work" && sh -e "$plan") || { cat "$plan" >&2; fail "$name: the planned steps failed"; }
    local b="$work/b 1"
    [ -f "$b/$obj" ] || fail "$name: the plan wrote no object"
    [ -f "$b/$obj.d" ] || fail "$name: the host step wrote no depfile"
    head -1 "$b/$obj.d" | grep -qF "obj dir/$name.o: " ||
        fail "$name: the depfile does not name the object: $(head -1 "$b/$obj.d")"
    for d in "$b/$obj.phc/"*.d; do
        grep -q 'scale.h' "$d" || fail "$name: device depfile $d does not list scale.h"
    done
    mv "$b/$obj" "$b/$obj.split"
    (cd "$work" && sh -e -c "$cmd$ref_cuid") || fail "$name: the reference compile failed"
    cmp "$b/$obj" "$b/$obj.split" || fail "$name: split object differs from the driver's"
    cases=$((cases + 1))
    echo "ok $name: $(grep -c -- '--offload-device-only' "$plan") device steps, identical"
}

check c15_two        clang++-15 -O3 -DSCALE=3 --offload-arch=gfx906 --offload-arch=gfx90a
check c15_dups       clang++-15 -O0 -g --offload-arch=gfx90a --offload-arch=gfx906 --offload-arch=gfx1030 --offload-arch=gfx906
check c15_targetid   clang++-15 -O2 --offload-arch=gfx90a:xnack+ --offload-arch=gfx906
check c19_comma      "$CLANG19" -O3 --offload-arch=gfx90a,gfx906
check c19_compress   "$CLANG19" -O2 --offload-compress --offload-arch=gfx906 --offload-arch=gfx1030 --offload-arch=gfx90a
check c19_owncuid     "$CLANG19" -O1 -cuid=0123abcd --offload-arch=gfx906 --offload-arch=gfx90a
check c19_nocuid      "$CLANG19" -O1 -fuse-cuid=none --offload-arch=gfx906 --offload-arch=gfx90a
check --no-cuid c19_newdriver "$CLANG19" -O2 --offload-new-driver --offload-arch=gfx906 --offload-arch=gfx90a
# Relocatable device code: device bitcode per architecture and the host object,
# bundled into the object (the host step writes the depfile, naming the object).
check c15_rdc        clang++-15 -O2 -fgpu-rdc --offload-arch=gfx90a --offload-arch=gfx906
check c19_rdc_compress "$CLANG19" -O2 -fgpu-rdc --offload-compress --offload-arch=gfx906 --offload-arch=gfx90a
# clang 22's new driver: device bitcode, then each architecture's code generation
# (what clang-linker-wrapper runs for all of them in one job) as a step of its own.
check c22_newdriver  /usr/lib/llvm-22/bin/clang++ -O2 --offload-new-driver -mcode-object-version=5 -D__AMDGCN_WAVEFRONT_SIZE=64 --offload-arch=gfx90a --offload-arch=gfx906 --offload-arch=gfx908
check c22_rdc        /usr/lib/llvm-22/bin/clang++ -O2 -fgpu-rdc -mcode-object-version=5 -D__AMDGCN_WAVEFRONT_SIZE=64 --offload-arch=gfx906 --offload-arch=gfx90a
# The new driver with -fgpu-rdc: device bitcode per architecture, packed
# (llvm-offload-binary, clang-offload-packager), embedded by the host compile.
# (hipcc, clang 22's old driver and its new driver with -fgpu-rdc, two
# architectures each, are the driver's in fidelity.sh, on sources written to
# break the split; their cases here went for issue 42's CI time.)
check --no-cuid c19_newdriver_rdc "$CLANG19" -O2 --offload-new-driver -fgpu-rdc --offload-arch=gfx90a --offload-arch=gfx906

# -Wp,-MD,FILE (kbuild's spelling): each device step writes its own depfile,
# the host step FILE, and the object is still the driver's.
wp_obj="obj dir/wp.o"
wp_cmd="cd 'b 1' && clang++-15 -x hip $ROCM -O2 -I'../inc dir' --offload-arch=gfx906 --offload-arch=gfx90a -Wp,-MD,'obj dir/.wp.o.d' -c '../src dir/k.hip' -o '$wp_obj'"
"$PHC" explain -C "$work" -- "$wp_cmd" > "$work/wp.plan.sh" || fail "wp: explain failed"
grep -q '^# decision: split$' "$work/wp.plan.sh" || { cat "$work/wp.plan.sh" >&2; fail "wp: not split"; }
wp_cuid=$(sed -n 's/^# cuid: //p' "$work/wp.plan.sh")
[ "$(grep -cF -- "'-Wp,-MD,obj dir/.wp.o.d'" "$work/wp.plan.sh")" = 1 ] ||
    { cat "$work/wp.plan.sh" >&2; fail "wp: the original -Wp depfile is not in the host step alone"; }
rm -f "$work/b 1/obj dir/.wp.o.d"
(cd "$work" && sh -e "$work/wp.plan.sh") || { cat "$work/wp.plan.sh" >&2; fail "wp: the planned steps failed"; }
for a in gfx906 gfx90a; do
    d="$work/b 1/$wp_obj.phc/$a.d"
    [ -f "$d" ] || fail "wp: device step $a wrote no depfile of its own ($d)"
    grep -q "^obj\\\\ dir/wp.o.phc/$a.o:" "$d" || fail "wp: $d does not name its device object: $(head -1 "$d")"
    grep -q 'scale.h' "$d" || fail "wp: $d does not list scale.h"
done
grep -q '^obj\\ dir/wp.o:' "$work/b 1/obj dir/.wp.o.d" ||
    fail "wp: the host depfile does not name the object: $(head -1 "$work/b 1/obj dir/.wp.o.d")"
grep -q 'scale.h' "$work/b 1/obj dir/.wp.o.d" || fail "wp: the host depfile does not list scale.h"
mv "$work/b 1/$wp_obj" "$work/b 1/$wp_obj.split"
(cd "$work" && sh -e -c "$wp_cmd -cuid=$wp_cuid") || fail "wp: the reference compile failed"
cmp "$work/b 1/$wp_obj" "$work/b 1/$wp_obj.split" || fail "wp: split object differs from the driver's"
cases=$((cases + 1))
echo "ok wp_depfile: per-step depfiles, identical"
echo "split_identity: $cases cases identical"
