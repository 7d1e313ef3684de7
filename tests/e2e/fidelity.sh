#!/usr/bin/env bash
# Fidelity: the split's objects and links are the driver's own, on sources
# written to break that (tests/e2e/fidelity/: string literals of every kind,
# device, constant and managed variables, anonymous namespaces, templates,
# lambdas, extern "C", weak and used symbols, device printf, a source without
# device code, -g), through every mode (regen plain, --overlap-host, RDC with
# its links, the new driver, response files, ccache, gen, the launcher) and
# every compiler here (clang 15, hipcc, clang 19 old and new driver, clang 22
# old and new driver). `phc-ninja check --all` is the oracle where it can be
# (it compiles each object with the driver and the split's CUID); it and
# PHC_CHECK=1 are shown to fail on an object that differs. An object another
# mode builds with the same command in a folder of the same shape (so with the
# same CUID) is compared (cmp) with the plain split's, which the driver's own
# matched, instead of being compiled by the driver again. Then the embed
# step's guard: an object whose code points into .hip_fatbin fails the step.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
dir=$(suite_dir fidelity)
cd "$dir" || exit 1
mkdir -p tmp
export TMPDIR=$dir/tmp PHC_PROBE_CACHE=$dir/probes.json
corpus=$PHC_SRC/tests/e2e/fidelity
C19=/usr/lib/llvm-19/bin/clang++
C22=/usr/lib/llvm-22/bin/clang++
SHIM="-mcode-object-version=5 -D__AMDGCN_WAVEFRONT_SIZE=64" # ROCm 5.2 headers under clang 22
ARCHS="--offload-arch=gfx906 --offload-arch=gfx90a"
FLAGS="-x hip $HIP_FLAGS_DEFAULT -std=c++17 -O2 -I$corpus"
sources=(strings symbols hostinst nokernel devvar)
# name|compiler|flags of each compiler and driver mode
all=("c15|clang++-15|" "cc|hipcc|" "c19|$C19|--offload-compress" "c19n|$C19|--offload-new-driver"
  "c22|$C22|$SHIM" "c22n|$C22|--offload-new-driver $SHIM")

# manifest DIR EXTRA COMPILER...: DIR/build.ninja compiling every source with
# each compiler (flags plus EXTRA), and strings.hip with -g for the first.
manifest() {
  local d=$1 extra=$2 c n cc fl s
  shift 2
  mkdir -p "$d"
  {
    printf 'rule hip\n  command = $cc %s $flags -MD -MF $out.d -c $in -o $out\n' "$FLAGS"
    printf '  depfile = $out.d\n  deps = gcc\n  description = CC $out\n'
    printf 'rule link\n  command = $cc --rocm-path=/usr $flags --hip-link $in -o $out\n'
    for c in "$@"; do
      IFS='|' read -r n cc fl <<<"$c"
      for s in "${sources[@]}"; do
        printf 'build %s/%s.o: hip %s/%s.hip\n  cc = %s\n  flags = %s %s %s\n' \
          "$n" "$s" "$corpus" "$s" "$cc" "$fl" "$extra" "$ARCHS"
      done
    done
    IFS='|' read -r n cc fl <<<"$1"
    printf 'build %s/strings-g.o: hip %s/strings.hip\n  cc = %s\n  flags = -g %s %s %s\n' \
      "$n" "$corpus" "$cc" "$fl" "$extra" "$ARCHS"
  } >"$d/build.ninja"
}

# checked DIR N [CHECK ARGS...]: `phc-ninja check --all` in DIR finds N split
# outputs, every one identical to the driver's own.
checked() {
  local d=$1 n=$2
  shift 2
  "$PHC" check -C "$d" --all "$@" >"$d/check.out" 2>&1 || fail "check in $d: $(cat "$d/check.out")"
  grep -q "^phc-ninja check: $n of $n split outputs checked: $n identical$" "$d/check.out" ||
    fail "check in $d did not find $n identical split outputs: $(cat "$d/check.out")"
}

# built DIR REGEN-ARGS...: regen and ninja in DIR.
built() {
  local d=$1
  shift
  (cd "$d" && "$PHC" regen "$@" >regen.out 2>&1) || fail "regen $* in $d: $(cat "$d/regen.out")"
  ninja -C "$d" >"$d/ninja.out" 2>&1 || fail "build in $d failed: $(tail -20 "$d/ninja.out")"
}

# 1. Plain split and --overlap-host, every compiler: 6 x 5 objects and one -g.
manifest split "" "${all[@]}"
built split
checked split 31
pass "plain split: 31 objects of 6 compilers and driver modes identical to the driver's"
# --overlap-host in the same build folder (the plain split's objects kept in
# ref/ first): regen works from the original, and ninja runs again only the
# edges whose commands changed: the host compiles and the new embed steps,
# not the device compiles (their commands name the build folder, so in a copy
# of it they would all run again). Each object is then compared with the
# plain split's, which the driver's own made above (the same CUID); the -g
# object, whose debug information names the build directory, is checked
# against the driver. ref/ is the plain split's objects for the sections below.
mkdir -p ref && (cd split && cp --parents ./*/*.o ../ref/) || fail "no split objects to keep"
built split --overlap-host
expect_eq "embed edges under --overlap-host" 31 "$(grep -c 'PHC_DESC = HIP embed ' split/build.ninja)"
expect_eq "device compiles run again for --overlap-host" 0 \
  "$(grep -Ec '^\[[0-9/]+\] HIP (gfx[0-9a-z]+|codegen gfx[0-9a-z]+) ' split/ninja.out || true)"
expect_eq "embed steps run for --overlap-host" 31 "$(grep -Ec '^\[[0-9/]+\] HIP embed ' split/ninja.out || true)"
for o in ref/*/*.o; do
  o=${o#ref/}
  [ "${o##*/}" = strings-g.o ] && continue
  cmp -s "ref/$o" "split/$o" || fail "split/$o under --overlap-host differs from the plain split's (and so the driver's) object"
done
"$PHC" check -C split c15/strings-g.o >split/check-g.out 2>&1 ||
  fail "check of c15/strings-g.o under --overlap-host: $(cat split/check-g.out)"
grep -Eq "^phc-ninja check: 1 of 31 split outputs checked: 1 identical$" split/check-g.out ||
  fail "c15/strings-g.o under --overlap-host: $(cat split/check-g.out)"
for o in split/*/nokernel.o; do
  ! llvm-objdump -h "$o" | grep -q hip_fatbin || fail "$o has a .hip_fatbin (the driver's has none)"
done
pass "--overlap-host: 31 objects identical, those without device code too (no .hip_fatbin)"

# 2. Relocatable device code: the compiles and a program per compiler; the
# links phc-ninja splits (clang 15, clang 19 old driver, clang 22 new driver) identical. clang 15
# is called from its own folder: invoked as /usr/bin/clang++-15 it would link
# device code with /usr/bin/lld, which is Debian's generic lld 14 where that
# package is installed, and fail in the driver itself. hipcc calls
# /usr/bin/clang++-15 whatever its environment says: its objects, no program.
L15=/usr/lib/llvm-15/bin/clang++
rdc=("c15|$L15|" "cc|hipcc|" "c19|$C19|" "c22n|$C22|--offload-new-driver $SHIM")
manifest rdc -fgpu-rdc "${rdc[@]}"
for c in "${rdc[@]}"; do
  IFS='|' read -r n cc fl <<<"$c"
  printf 'build %s/main.o: hip %s/main.hip\n  cc = %s\n  flags = %s -fgpu-rdc %s\n' \
    "$n" "$corpus" "$cc" "$fl" "$ARCHS" >>rdc/build.ninja
  [ "$n" = cc ] && continue
  printf 'build %s/app: link %s/strings.o %s/symbols.o %s/hostinst.o %s/nokernel.o %s/devvar.o %s/main.o\n' \
    "$n" "$n" "$n" "$n" "$n" "$n" "$n" >>rdc/build.ninja
  printf '  cc = %s\n  flags = %s -fgpu-rdc %s\n' "$cc" "$fl" "$ARCHS" >>rdc/build.ninja
done
built rdc --explain
grep -q "c19/app" rdc/regen.out || fail "no decision for clang 19's old-driver RDC link: $(cat rdc/regen.out)"
"$PHC" check -C rdc --all >rdc/check.out 2>&1 || fail "check of the RDC build: $(cat rdc/check.out)"
grep -q "^phc-ninja check: 28 of 28 split outputs checked" rdc/check.out || fail "not 28 outputs: $(cat rdc/check.out)"
# Only hostinst.o of clang 15, hipcc and clang 19 may be UNSTABLE (the driver differs from itself).
if grep -v '^identical  ' rdc/check.out | grep -v '^phc-ninja check: ' |
  grep -Ev '^UNSTABLE   (c15|cc|c19)/hostinst.o: two runs of the driver'"'"'s own compile differ'; then
  fail "RDC outputs that are neither identical nor known to be unstable: $(cat rdc/check.out)"
fi
for n in c15 c19 c22n; do
  grep -q "^identical  $n/app$" rdc/check.out || fail "$n/app was not checked: $(cat rdc/check.out)"
done
grep -q "^identical  c22n/hostinst.o$" rdc/check.out || fail "clang 22's hostinst.o: $(cat rdc/check.out)"
pass "-fgpu-rdc: 25 objects (4 compilers) and the programs of clang 15, clang 19 and clang 22's new driver identical, or the driver not deterministic ($(grep -c '^UNSTABLE' rdc/check.out || true) of 3 hostinst.o)"

# 3. Response files (what CMake's rules write) and ccache, plain and overlapped.
mkdir -p rsp
{
  printf 'rule hip_rsp\n  command = $cc -x hip @$out.rsp $flags -MD -MF $out.d -c $in -o $out\n'
  printf '  rspfile = $out.rsp\n  rspfile_content = %s\n' "${FLAGS#-x hip }"
  printf '  depfile = $out.d\n  deps = gcc\n'
  for c in "c15|clang++-15|" "cc|hipcc|" "c22n|$C22|--offload-new-driver $SHIM"; do
    IFS='|' read -r n cc fl <<<"$c"
    for s in strings symbols; do
      printf 'build %s/%s.o: hip_rsp %s/%s.hip\n  cc = %s\n  flags = %s %s\n' \
        "$n" "$s" "$corpus" "$s" "$cc" "$fl" "$ARCHS"
      printf 'build cache/%s-%s.o: hip_rsp %s/%s.hip\n  cc = ccache %s\n  flags = %s %s\n' \
        "$n" "$s" "$corpus" "$s" "$cc" "$fl" "$ARCHS"
    done
  done
} >rsp/build.ninja
export CCACHE_DIR=$dir/ccache CCACHE_NOHASHDIR=1
unset CCACHE_DISABLE CCACHE_EXTRAFILES
built rsp --overlap-host --explain
# hipcc does not read response files: the steps' own would change what it sees.
for o in cc/strings.o cache/cc-symbols.o; do
  grep -q "$o.*hipcc does not read response files itself" rsp/regen.out ||
    fail "$o (hipcc with a response file) is not left alone: $(grep "$o" rsp/regen.out)"
done
# The objects compiled without ccache have the plain split's names and, the
# response file read, its command: its CUID, and so the bytes it checked
# against the driver's above. Those through ccache are checked here.
split_rsp=(c15/strings.o c15/symbols.o c22n/strings.o c22n/symbols.o)
cache_rsp=(cache/c15-strings.o cache/c15-symbols.o cache/c22n-strings.o cache/c22n-symbols.o)
for o in "${split_rsp[@]}"; do
  cmp -s "ref/$o" "rsp/$o" || fail "rsp/$o (a response file) differs from the plain split's (the driver's)"
done
"$PHC" check -C rsp "${cache_rsp[@]}" >rsp/check.out 2>&1 || fail "check in rsp: $(cat rsp/check.out)"
grep -q "^phc-ninja check: 4 of 8 split outputs checked: 4 identical$" rsp/check.out ||
  fail "check in rsp did not find the 4 ccache objects identical: $(cat rsp/check.out)"
mkdir -p rsp-first && (cd rsp && cp --parents "${cache_rsp[@]}" ../rsp-first/) || fail "no split objects to keep"
# Only what ccache compiled (and the split steps of it) is built again.
ninja -C rsp -t clean "${cache_rsp[@]}" cache/cc-strings.o cache/cc-symbols.o >/dev/null
[ ! -e rsp/cache/c15-strings.o.phc/gfx906.o ] || fail "ninja -t clean left the split steps' outputs"
ninja -C rsp >rsp/ninja2.out 2>&1 || fail "rebuild from the cache failed: $(tail rsp/ninja2.out)"
ccache -s -v >ccache.out 2>&1 || true
grep -Eq "Hits: +[1-9]" ccache.out || fail "no ccache hits on the rebuild: $(cat ccache.out)"
# The objects from the cache are those the driver's own matched above.
n=0
for o in "${cache_rsp[@]}"; do
  cmp -s "rsp-first/$o" "rsp/$o" || fail "rsp/$o, from the cache, differs from the first build's (the driver's)"
  n=$((n + 1))
done
expect_eq "split objects compared after the rebuild from the cache" 4 "$n"
pass "response files and ccache (built, then from the cache), overlapped: 8 objects identical (4 to the plain split's, 4 checked), hipcc's left alone"

# 4. gen from the database ninja writes for the plain manifest, overlapped.
manifest gen "" "c15|clang++-15|" "c22n|$C22|--offload-new-driver $SHIM"
(cd gen && ninja -t compdb hip >compile_commands.json) || fail "ninja -t compdb failed"
(cd gen && "$PHC" gen --overlap-host -p compile_commands.json -o phc.ninja >gen.out 2>&1) ||
  fail "gen failed: $(cat gen/gen.out)"
ninja -C gen -f phc.ninja >gen/ninja.out 2>&1 || fail "gen build failed: $(tail gen/ninja.out)"
# The plain split's commands and names, so its CUIDs: its objects, which the
# driver's matched; the -g object (it names its build folder) against the driver.
n=0
for o in gen/*/*.o; do
  o=${o#gen/}
  [ "${o##*/}" = strings-g.o ] && continue
  cmp -s "ref/$o" "gen/$o" || fail "gen/$o differs from the plain split's (the driver's)"
  n=$((n + 1))
done
expect_eq "gen's objects compared with the plain split's" 10 "$n"
"$PHC" check -C gen -f phc.ninja c15/strings-g.o >gen/check.out 2>&1 ||
  fail "check of gen/c15/strings-g.o: $(cat gen/check.out)"
grep -q "^phc-ninja check: 1 of 11 split outputs checked: 1 identical$" gen/check.out ||
  fail "gen/c15/strings-g.o: $(cat gen/check.out)"
pass "gen --overlap-host: 11 objects identical (10 to the plain split's, the -g one checked)"

# 5. The launcher: the plain split's commands, in a folder of the split's shape
# with CCACHE_BASEDIR there (the CUID's root, as regen's is its build folder):
# its CUIDs, so its objects, which the driver's matched. PHC_CHECK=1 compares
# the first with the driver's own compile as well.
# (Not hipcc: the launcher's objects through hipcc are the driver's in
# launch_make, and cutting its five compiles here was part of issue 42's CI time.)
mkdir -p launch/c15 launch/c22n
for c in "c15|clang++-15||0" "c22n|$C22|--offload-new-driver $SHIM|1"; do
  IFS='|' read -r n cc fl overlap <<<"$c"
  for s in "${sources[@]}"; do
    check=0
    [ "$n/$s" = c15/strings ] && check=1
    # shellcheck disable=SC2086
    (cd launch && CCACHE_BASEDIR=$dir/launch PHC_CHECK=$check PHC_OVERLAP_HOST=$overlap \
      PHC_NINJA_TRACE=$dir/launch/trace.log "$(dirname "$PHC")/phc-launch" $cc $FLAGS $fl $ARCHS \
      -MD -MF "$n/$s.o.d" -c "$corpus/$s.hip" -o "$n/$s.o") 2>launch/err.out ||
      fail "PHC_CHECK=$check phc-launch $n $s: $(cat launch/err.out)"
    cmp -s "ref/$n/$s.o" "launch/$n/$s.o" || fail "launch/$n/$s.o differs from the plain split's (the driver's)"
  done
done
expect_eq "objects the launcher split" 10 "$(grep -c '::gfx906' launch/trace.log)"
pass "the launcher: 10 objects (2 compilers, 5 sources, overlapped or not) identical, one under PHC_CHECK=1"

# 6. The checks can fail: a compiler whose host-only compiles differ from its
# whole compiles (a shim) gives objects that are not the driver's. The
# plan-time guard sees that in the jobs the driver says it runs (-###) and
# leaves the compile alone; a shim that lies only when it really compiles
# passes the guard, and the checks after the build catch it.
mkdir -p shim/bin shim/honest
cat >shim/honest/clang++ <<'S'
#!/bin/sh
case " $* " in *" --offload-host-only "*) exec clang++-15 -DPHC_SHIM_HOST "$@" ;; esac
exec clang++-15 "$@"
S
cat >shim/bin/clang++ <<'S'
#!/bin/sh
case " $* " in *" -### "*) exec clang++-15 "$@" ;; esac
case " $* " in *" --offload-host-only "*) exec clang++-15 -DPHC_SHIM_HOST "$@" ;; esac
exec clang++-15 "$@"
S
chmod +x shim/bin/clang++ shim/honest/clang++
cat >shim/s.hip <<'S'
#include <hip/hip_runtime.h>
__global__ void k(int* p) { p[0] = 1; }
#ifdef PHC_SHIM_HOST
int shim_host_only = 1;
#endif
S
# shellcheck disable=SC2086
(cd shim && "$PHC" explain --probe-cache guard-probes.json -- "$dir/shim/honest/clang++" -x hip \
  $HIP_FLAGS_DEFAULT $ARCHS -c s.hip -o s.o) >shim/explain.out 2>&1 ||
  fail "explain of the honest shim failed: $(cat shim/explain.out)"
grep -q "^# reason: jobs-differ: clang -cc1 (host): .*PHC_SHIM_HOST.* added" shim/explain.out ||
  fail "the guard did not leave the shim's compile alone: $(cat shim/explain.out)"
pass "the plan-time guard leaves alone a compile whose host step's jobs differ, naming the argument"
if PHC_CHECK=1 "$(dirname "$PHC")/phc-launch" "$dir/shim/bin/clang++" -x hip $HIP_FLAGS_DEFAULT \
  $ARCHS -c shim/s.hip -o shim/s.o 2>shim/err.out; then
  fail "PHC_CHECK=1 accepted an object that is not the driver's"
fi
grep -q "shim/s.o is not the driver's own compile (PHC_CHECK=1): first difference in" shim/err.out ||
  fail "PHC_CHECK=1 did not say where the object differs: $(cat shim/err.out)"
[ ! -e shim/s.o ] || fail "PHC_CHECK=1 left the object that differs"
printf 'rule hip\n  command = %s -x hip %s %s -c $in -o $out\nbuild s.o: hip s.hip\n' \
  "$dir/shim/bin/clang++" "$HIP_FLAGS_DEFAULT" "$ARCHS" >shim/build.ninja
built shim
if "$PHC" check -C shim >shim/check.out 2>&1; then fail "check passed an object that differs: $(cat shim/check.out)"; fi
grep -q "^DIFFERS    s.o: first difference in section " shim/check.out ||
  fail "check did not name the section that differs: $(cat shim/check.out)"
grep -q "1 DIFFER from the driver's" shim/check.out || fail "no summary of the difference: $(cat shim/check.out)"
pass "PHC_CHECK=1 and phc-ninja check fail, naming where, on an object that is not the driver's"

# 7. The embed step's guard, on small C objects made with clang (the embed
# step refuses gcc's: llvm-objcopy renumbers their section names, so they
# would not keep their bytes): the wrapper may point into .hip_fatbin; code
# that does is refused (nothing written, and the split's own host object
# removed so the next build compiles it again).
mkdir -p guard && cd guard || exit 1
printf 'PLACEHOLDER' >ph.txt
printf 'device code' >bundle.bin
cat >wrapper.c <<'C'
__attribute__((section(".hip_fatbin"), used, aligned(8))) static const char fb[] = "PLACEHOLDER";
struct wrapper { int magic, version; const void* binary; void* unused; };
__attribute__((section(".hipFatBinSegment"), used)) const struct wrapper w = {0x48495046, 1, fb, 0};
C
{ cat wrapper.c; echo 'const char* leak(void) { return fb; }'; } >stray.c
clang-15 -O2 -c wrapper.c -o wrapper.o && clang-15 -O2 -c stray.c -o stray.o || fail "clang failed"
OC=$(ls /usr/bin/llvm-objcopy-* | sort -t- -k3 -n | tail -1)
"$PHC" embed --objcopy "$OC" --placeholder ph.txt --bundle bundle.bin --host wrapper.o -o ok.o ||
  fail "the embed step refused an object whose wrapper alone points into .hip_fatbin"
llvm-objcopy-22 --dump-section .hip_fatbin=fb.bin ok.o /dev/null
printf 'device code\0' | cmp -s - fb.bin || fail "ok.o's .hip_fatbin is not the bundle and the NUL"
if "$PHC" embed --objcopy "$OC" --placeholder ph.txt --bundle bundle.bin --host stray.o -o bad.o 2>err.out; then
  fail "the embed step wrote an object whose code points into .hip_fatbin"
fi
grep -q "^bad.o: error: .text.* refers to .hip_fatbin" err.out || fail "the guard's error: $(cat err.out)"
[ ! -e bad.o ] || fail "the refused embed wrote bad.o"
[ -e stray.o ] || fail "the refused embed removed a host object it did not write"
mkdir -p bad.o.phc && cp stray.o bad.o.phc/host.o
if "$PHC" embed --objcopy "$OC" --placeholder ph.txt --bundle bundle.bin --host bad.o.phc/host.o -o bad.o 2>/dev/null; then
  fail "the embed step wrote an object whose code points into .hip_fatbin"
fi
[ ! -e bad.o ] && [ ! -e bad.o.phc/host.o ] || fail "the refused embed left bad.o or the split's host object"
cd "$dir" || exit 1
pass "the embed guard: a wrapper's reference is taken, code pointing into .hip_fatbin fails the step"
