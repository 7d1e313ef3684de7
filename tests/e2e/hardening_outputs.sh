#!/usr/bin/env bash
# Outputs that are not regular files, or that are inputs (issue 16, items 1, 3
# and 4). Only regular files are ever replaced or removed: `-o` naming a device
# node, a fifo or a link to a pipe is written through; a dangling link is
# refused; `-o -` writes to stdout with the summary on stderr; gen's private
# folder never goes next to a non-regular output; a failed split compile through
# the launcher leaves device nodes named by -o/-MF alone. regen and gen refuse
# to overwrite what they read. Stale temporaries are removed on the next write.
# Device nodes are private ones made with mknod in the scratch folder, never /dev.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
W=$(suite_dir hardening_outputs)
L=$(dirname "$PHC")/phc-launch
export TMPDIR=$W/tmp PHC_PROBE_CACHE=$W/probes.json
mkdir -p "$W/tmp" "$W/dev"
if ! mknod "$W/dev/null" c 1 3 2>/dev/null; then
  echo "skip: making a private device node (mknod) needs root"
  exit 0
fi
ln -s /proc/self/fd/1 "$W/dev/stdout" # what /dev/stdout is
ln -s null "$W/dev/null-link"
ln -s "$W/dev/missing" "$W/dev/dangling"
mkfifo "$W/dev/fifo"

# is_kind TEST PATH: `test TEST PATH`, i.e. -c char device, -p fifo, -L link.
is_kind() { test "$1" "$2" || fail "$2 is no longer what it was (test $1): $(ls -l "$2" 2>&1)"; }
nodes_intact() {
  is_kind -c "$W/dev/null"
  is_kind -L "$W/dev/stdout"
  is_kind -L "$W/dev/null-link"
  is_kind -L "$W/dev/dangling"
  is_kind -p "$W/dev/fifo"
  [ ! -e "$W/dev/missing" ] || fail "a dangling link's target was created"
  local f
  for f in "$W"/dev/* "$W"/dev/.[!.]*; do
    case ${f##*/} in null | stdout | null-link | dangling | fifo | '.[!.]*') ;;
    *) fail "files appeared next to the device nodes: $(ls -A "$W/dev")" ;;
    esac
  done
}
# one_line_error FILE WORD...: FILE is one line, an error naming every WORD.
one_line_error() {
  local f=$1 w
  shift
  [ "$(wc -l <"$f")" = 1 ] || fail "not a one-line error: $(cat "$f")"
  grep -q "error: " "$f" || fail "no error: $(cat "$f")"
  for w in "$@"; do grep -qF -- "$w" "$f" || fail "error does not name '$w': $(cat "$f")"; done
}

echo "== regen"
mkdir -p "$W/r"
cd "$W/r" || exit 1
cat >k.hip <<'K'
__global__ void k(float* x) { x[threadIdx.x] *= 2.0f; }
K
cat >rules.ninja <<'R'
rule hipcc
  command = clang++-15 $flags -x hip -c $in -o $out -MD -MF $out.d
  depfile = $out.d
  deps = gcc
R
objs="build out/k.o: hipcc k.hip
  flags = $HIP_FLAGS_DEFAULT --offload-arch=gfx906 --offload-arch=gfx90a"
printf 'include rules.ninja\n%s\n' "$objs" >top.ninja      # the HIP edge in the top file
printf '%s\n' "$objs" >objs.ninja
printf 'include rules.ninja\ninclude objs.ninja\n' >build.ninja # ... in an included file
cp top.ninja top.orig && cp build.ninja build.orig && cp objs.ninja objs.orig && cp rules.ninja rules.orig

"$PHC" regen -f top.ninja -o - >out 2>err || fail "regen -o -: $(cat err)"
head -c 19 out | grep -qx "# phc-ninja regen: " || fail "regen -o - stdout is not the manifest"
grep -q "^build out/k.o: PHC_HIP_HOST" out || fail "regen -o - did not split: $(cat out)"
! grep -q "phc-ninja regen: split" out || fail "regen -o -: the summary is mixed into the manifest"
grep -q "^phc-ninja regen: split 1 objects" err || fail "regen -o -: no summary on stderr: $(cat err)"
[ ! -e ./- ] && [ ! -e top.ninja.cmake ] || fail "regen -o - wrote a file"
cmp -s top.ninja top.orig || fail "regen -o - changed top.ninja"
"$PHC" regen -f top.ninja -o - --explain --dry-run >out2 2>err2 || fail "regen -o - --explain: $(cat err2)"
[ ! -s out2 ] || fail "regen -o - --explain --dry-run printed to stdout: $(cat out2)"
grep -q "^split       out/k.o" err2 || fail "regen -o - --explain: no decisions on stderr"
pass "regen -o - writes the manifest to stdout and reports on stderr"

if "$PHC" regen -o - >out 2>err; then fail "regen -o - with an included file to rewrite succeeded"; fi
one_line_error err "objs.ninja" "-o -"
[ ! -s out ] && [ ! -e objs.ninja.phc ] || fail "a refused regen -o - wrote something"
pass "regen -o - refuses a manifest whose included files need rewriting"

for o in "$W/dev/null" "$W/dev/null-link"; do
  "$PHC" regen -f top.ninja -o "$o" >out 2>err || fail "regen -o $o: $(cat err)"
done
timeout 120 "$PHC" regen -f top.ninja -o "$W/dev/stdout" 2>err | cat >out \
  || fail "regen -o <link to the stdout pipe>: $(cat err)"
head -c 19 out | grep -qx "# phc-ninja regen: " || fail "regen through the stdout link: $(head -3 out)"
! grep -q "^phc-ninja regen: " out || fail "regen through the stdout link: the summary is in the manifest"
timeout 120 cat "$W/dev/fifo" >fifo.out &
timeout 120 "$PHC" regen -f top.ninja -o "$W/dev/fifo" --quiet || fail "regen -o fifo"
wait
grep -q "^build out/k.o: PHC_HIP_HOST" fifo.out || fail "regen -o fifo: nothing came through"
if "$PHC" regen -f top.ninja -o "$W/dev/dangling" 2>err; then fail "regen -o dangling link succeeded"; fi
one_line_error err "$W/dev/dangling"
nodes_intact
pass "regen -o a device node, a link to one, the stdout pipe, a fifo: written through; a dangling link: refused"

# Outputs that are inputs: CMake's original (saved or to be saved), loaded included files.
if "$PHC" regen -o build.ninja.cmake 2>err; then fail "regen -o build.ninja.cmake (not yet saved) succeeded"; fi
one_line_error err "build.ninja.cmake"
[ ! -e build.ninja.cmake ] || fail "regen -o build.ninja.cmake wrote it"
"$PHC" regen --quiet || fail "regen in place"
cp build.ninja.cmake cmake.saved && cp build.ninja build.split && cp objs.ninja.phc objs.phc.saved
ln -s rules.ninja rules-link.ninja
for o in build.ninja.cmake "$W/r/./nodir/../build.ninja.cmake" rules.ninja objs.ninja rules-link.ninja \
  objs.ninja.phc; do
  if "$PHC" regen -o "$o" >out 2>err; then fail "regen -o $o (an input) succeeded"; fi
  one_line_error err "$o"
done
cmp -s build.ninja.cmake cmake.saved && cmp -s build.ninja build.split && cmp -s rules.ninja rules.orig \
  && cmp -s objs.ninja objs.orig && cmp -s objs.ninja.phc objs.phc.saved || fail "a refused regen wrote"
is_kind -L rules-link.ninja
pass "regen -o refuses CMake's original and every file it loads or writes"

# A temporary left by a killed regen (SIGKILL) is removed by the next write.
touch -d '2 minutes ago' top.ninja.phc-tmp-Ab12Cd
touch top.ninja.phc-tmp-New123 # young: perhaps another regen's, kept
"$PHC" regen -f top.ninja --quiet || fail "regen -f top.ninja"
[ ! -e top.ninja.phc-tmp-Ab12Cd ] || fail "a stale temporary was left"
[ -e top.ninja.phc-tmp-New123 ] || fail "a young temporary was removed"
pass "stale temporaries are removed on the next write"

echo "== gen"
mkdir -p "$W/g/sub"
cd "$W/g" || exit 1
cp "$W/r/k.hip" k.hip
echo 'int a;' >a.c
cat >compile_commands.json <<J
[
  {"directory": "$W/g", "file": "a.c", "command": "cc -c a.c -o a.o"},
  {"directory": "$W/g", "file": "later.c", "command": "cc -c later.c -o later.o"},
  {"directory": "$W/g", "file": "k.hip",
   "command": "clang++-15 $HIP_FLAGS_DEFAULT -x hip --offload-arch=gfx906 --offload-arch=gfx90a -c k.hip -o k.o"}
]
J
cp compile_commands.json db.orig
"$PHC" gen -o - >out 2>err || fail "gen -o -: $(cat err)"
head -1 out | grep -q "^# Generated by phc-ninja gen" || fail "gen -o - stdout: $(head -3 out)"
grep -q "^builddir = .phc-ninja$" out || fail "gen -o -: builddir not in the current directory"
! grep -q "^phc-ninja gen: " out || fail "gen -o -: the summary is mixed into the ninja file"
grep -q "^phc-ninja gen: -: 3 entries (1 split, 2 plain)" err || fail "gen -o -: summary: $(cat err)"
[ ! -e ./- ] || fail "gen -o - wrote a file named -"
(cd sub && "$PHC" gen -p ../compile_commands.json -o - >out 2>err) || fail "gen -o - in sub"
grep -q "^builddir = .phc-ninja$" sub/out && [ -d sub/.phc-ninja ] \
  || fail "gen -o - from sub: private folder not in sub"
grep -qF "build $W/g/k.o: " sub/out || fail "gen -o - from sub: paths not spelled from sub"
pass "gen -o - writes to stdout, reports on stderr, keeps its folder in the current directory"

rm -rf .phc-ninja
for o in "$W/dev/null" "$W/dev/null-link"; do
  "$PHC" gen -o "$o" >out 2>err || fail "gen -o $o: $(cat err)"
done
[ -d .phc-ninja ] || fail "gen -o <device>: private folder not in the current directory"
timeout 120 "$PHC" gen -o "$W/dev/stdout" 2>err | cat >out || fail "gen -o <stdout link>: $(cat err)"
head -1 out | grep -q "^# Generated by phc-ninja gen" || fail "gen through the stdout link: $(head -3 out)"
! grep -q "^phc-ninja gen: " out || fail "gen through the stdout link: the summary is in the ninja file"
grep -q "^builddir = .phc-ninja$" out || fail "gen through the stdout link: builddir"
timeout 120 "$PHC" gen -o "$W/dev/stdout" 2>/dev/null | head -1 >out || true
head -1 out | grep -q "^# Generated by phc-ninja gen" || fail "gen -o <stdout link> | head -1: $(cat out)"
timeout 120 cat "$W/dev/fifo" >fifo.out &
timeout 120 "$PHC" gen -o "$W/dev/fifo" >/dev/null 2>err || fail "gen -o fifo: $(cat err)"
wait
grep -q "^builddir = .phc-ninja$" fifo.out || fail "gen -o fifo: nothing came through"
if "$PHC" gen -o "$W/dev/dangling" 2>err; then fail "gen -o dangling link succeeded"; fi
one_line_error err "$W/dev/dangling"
nodes_intact
pass "gen -o a device node, a link to one, the stdout pipe, a fifo: written through; a dangling link: refused"

# Outputs that are inputs, or not gen's own.
ln -s compile_commands.json db-link.json
cp a.c a.orig
printf '# CMAKE generated file: DO NOT EDIT!\n' >build.ninja && cp build.ninja build.orig
touch CMakeCache.txt
echo notes >notes.txt
for o in compile_commands.json "$W/g/sub/../compile_commands.json" db-link.json a.c later.c k.o \
  build.ninja notes.txt; do
  if "$PHC" gen -o "$o" >out 2>err; then fail "gen -o $o succeeded"; fi
  one_line_error err "$o"
done
cmp -s compile_commands.json db.orig && cmp -s a.c a.orig && cmp -s build.ninja build.orig \
  && [ ! -e later.c ] && [ ! -e k.o ] && [ "$(cat notes.txt)" = notes ] || fail "a refused gen wrote"
is_kind -L db-link.json
"$PHC" gen -o phc.ninja >out || fail "gen -o phc.ninja"
"$PHC" gen -o phc.ninja >out || fail "gen -o phc.ninja again"
grep -q "(unchanged)" out || fail "gen again: $(cat out)"
echo "# edited" >>phc.ninja
"$PHC" gen -o phc.ninja >out || fail "gen over its own edited output"
! grep -q "(unchanged)" out && ! grep -q "# edited" phc.ninja || fail "gen did not rewrite its own file"
pass "gen refuses to overwrite what it reads and any file it did not write"

echo "== launcher"
mkdir -p "$W/l"
cd "$W/l" || exit 1
printf '__global__ void k(float* x) { x[threadIdx.x] = ; }\n' >bad.hip
mknod obj c 1 3
mknod dep c 1 3
# shellcheck disable=SC2086
if "$L" clang++-15 $HIP_FLAGS_DEFAULT -x hip --offload-arch=gfx906 --offload-arch=gfx90a \
  -c bad.hip -o "$W/l/obj" -MD -MF "$W/l/dep" >out 2>err; then
  fail "a compile with a syntax error succeeded"
fi
# Either architecture may fail first (the first failure stops the others).
grep -Eq "^\[gfx(906|90a)\] .*error: " err || fail "the compile was not split: $(cat err)"
is_kind -c obj
is_kind -c dep
# Regular outputs of a failed split compile are still removed.
echo stale >old.o && echo stale >old.d
# shellcheck disable=SC2086
if "$L" clang++-15 $HIP_FLAGS_DEFAULT -x hip --offload-arch=gfx906 --offload-arch=gfx90a \
  -c bad.hip -o old.o -MD -MF old.d >out 2>err; then
  fail "a compile with a syntax error succeeded"
fi
[ ! -e old.o ] && [ ! -e old.d ] || fail "a failed split compile left its regular outputs"
for d in "$W"/tmp/phc-launch-*; do [ ! -e "$d" ] || fail "private folder left in TMPDIR: $d"; done
pass "a failed split compile removes regular outputs only"
