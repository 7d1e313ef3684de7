#!/usr/bin/env bash
# phc-ninja gen on samples/make-hip: capture the database with Bear
# (tools/bear-compdb), build the objects with `ninja -f phc.ninja`, then make
# only links. Checks: split/plain counts, objects byte-identical to the
# driver's own compile with the same CUID, second gen writes identical bytes,
# second ninja has no work, header deps, and bad input leaves the file alone.
set -euo pipefail
: "${PHC:?}" "${PHC_SRC:?}" "${PHC_TMP:?}"
fail() { echo "gen_make: FAIL: $*" >&2; exit 1; }
step() { echo "-- $*"; }

work="$PHC_TMP/gen_make"
rm -rf "$work"
mkdir -p "$work"
cp -r "$PHC_SRC/samples/make-hip" "$work/proj"
cd "$work/proj"
rm -rf obj demo compile_commands.json phc.ninja .phc-ninja
archs="gfx906 gfx90a"

step "capture the database with Bear"
tools/bear-compdb -- make -B -j2 ARCHS="$archs" >bear.log 2>&1 || { cat bear.log; fail "bear-compdb failed"; }
# db EXPR: evaluates a Python expression over the database `d` (python3 is in
# scripts/setup; jq is not).
db() { python3 -c "import json; d = json.load(open('compile_commands.json')); print($1)"; }
n=$(db 'len(d)')
[ "$n" = 4 ] || fail "expected 4 database entries, got $n"
[ "$(db 'sum(e["arguments"][0] == "hipcc" for e in d)')" = 3 ] ||
  fail "expected the 3 hipcc compiles in the database"
make clean >/dev/null

step "generate"
"$PHC" gen -o phc.ninja --device-jobs 2 >gen.out
cat gen.out
grep -qx 'phc-ninja gen: phc.ninja: 4 entries (3 split, 1 plain), [0-9]* edges' gen.out ||
  fail "unexpected summary: $(cat gen.out)"
edges=$(sed -n 's/.*), \([0-9]*\) edges$/\1/p' gen.out)
# 3 split objects x (2 device + bundle + host) + 1 plain compile
[ "$edges" = 13 ] || fail "expected 13 edges, got $edges"
grep -q '^pool phc_hip_device$' phc.ninja || fail "no device pool for --device-jobs"
cp phc.ninja phc.ninja.first
before=$(stat -c %Y.%s phc.ninja)

step "second gen writes identical bytes and does not touch the file"
sleep 1
"$PHC" gen -o phc.ninja --device-jobs 2 >gen2.out
grep -q '(unchanged)$' gen2.out || fail "second gen did not report unchanged: $(cat gen2.out)"
cmp -s phc.ninja phc.ninja.first || fail "second gen wrote different bytes"
[ "$(stat -c %Y.%s phc.ninja)" = "$before" ] || fail "second gen rewrote phc.ninja"

step "ninja builds the objects where make expects them"
ninja -f phc.ninja -j2 >ninja.log 2>&1 || { cat ninja.log; fail "ninja -f phc.ninja failed"; }
for o in saxpy scale reduce main; do
  [ -f "obj/$o.o" ] || fail "obj/$o.o was not built"
done
grep -q 'common.h' obj/saxpy.d || fail "obj/saxpy.d (make's depfile) is gone or lacks common.h"
grep -q 'kernels.h' obj/main.d || fail "obj/main.d (make's depfile) is gone or lacks kernels.h"
ninja -f phc.ninja -n >ninja2.log 2>&1
grep -qx 'ninja: no work to do.' ninja2.log || { cat ninja2.log; fail "second ninja run has work"; }

step "make only links"
stamps=$(stat -c '%n %Y' obj/*.o)
make -j2 >make.log 2>&1 || { cat make.log; fail "make failed"; }
if grep -q -- ' -c ' make.log; then cat make.log; fail "make recompiled after ninja"; fi
grep -q -- '-o demo' make.log || { cat make.log; fail "make did not link demo"; }
[ "$(stat -c '%n %Y' obj/*.o)" = "$stamps" ] || fail "make touched the objects"
./demo >/dev/null || fail "demo does not run"
[ "$(make 2>&1)" = "make: Nothing to be done for 'all'." ] || fail "make is not up to date"

step "objects are byte-identical to the driver's own compile with the same CUID"
mkdir -p ref
for o in saxpy scale reduce; do
  cuid=$(grep -- "-o obj/$o.o" phc.ninja | grep -o -- '-cuid=[0-9a-zA-Z_]*' | sort -u)
  [ "$(printf '%s\n' "$cuid" | wc -l)" = 1 ] && [ -n "$cuid" ] || fail "no single CUID for obj/$o.o: $cuid"
  mapfile -t argv < <(db "'\\n'.join(next(e['arguments'] for e in d if e['file'] == '$o.hip'))")
  [ "${#argv[@]}" -gt 5 ] || fail "no arguments for $o.hip in the database"
  cp "obj/$o.o" "ref/$o.phc.o"
  "${argv[@]}" "$cuid" >/dev/null 2>&1 || fail "driver compile of $o.hip failed"
  cmp "obj/$o.o" "ref/$o.phc.o" || fail "obj/$o.o differs from the driver's object ($cuid)"
  cp "ref/$o.phc.o" "obj/$o.o"
done

step "a header change rebuilds the HIP objects only"
sleep 1
touch common.h
ninja -f phc.ninja -j2 >ninja3.log 2>&1 || { cat ninja3.log; fail "rebuild failed"; }
grep -q 'obj/main.o' ninja3.log && { cat ninja3.log; fail "main.o rebuilt after common.h changed"; }
for o in saxpy scale reduce; do
  grep -q "obj/$o.o" ninja3.log || { cat ninja3.log; fail "obj/$o.o not rebuilt after common.h changed"; }
done

step "bad input: an error with file:line:col, nothing written"
printf '[\n  {"directory": "/x",}\n]\n' >bad.json
if "$PHC" gen -p bad.json -o phc.ninja >bad.out 2>&1; then fail "gen accepted malformed JSON"; fi
grep -q '^bad.json:2:22: error: ' bad.out || fail "unexpected error text: $(cat bad.out)"
cmp -s phc.ninja phc.ninja.first || fail "phc.ninja changed after a failed gen"
printf '[{"directory": "%s", "arguments": ["hipcc", "-c", "a.hip"], "file": "a.hip"}]\n' "$PWD" >bad2.json
if "$PHC" gen -p bad2.json -o new.ninja >bad2.out 2>&1; then fail "gen accepted an entry without output"; fi
grep -qx 'bad2.json: error: entry 0: no "output" and no -o in the command' bad2.out ||
  fail "unexpected error text: $(cat bad2.out)"
[ ! -e new.ninja ] || fail "new.ninja written despite the error"

step "a depfile naming another spelling of the object stays make's, ninja reads a copy"
mkdir -p "$work/spell/obj"
cd "$work/spell"
printf '#define V 1\n' >v.h
printf '#include "v.h"\nint f() { return V; }\n' >m.cpp
printf '[{"directory": "%s", "arguments": ["g++", "-MD", "-MT", "%s/obj/m.o", "-c", "m.cpp", "-o", "obj/m.o"], "file": "m.cpp"}]\n' \
  "$PWD" "$PWD" >compile_commands.json
"$PHC" gen -o phc.ninja >gen.out || fail "gen failed: $(cat gen.out)"
ninja -f phc.ninja >ninja.log 2>&1 || { cat ninja.log; fail "ninja failed"; }
[ -f obj/m.d ] || fail "make's obj/m.d was deleted by ninja"
grep -q "^$PWD/obj/m.o:" obj/m.d || fail "obj/m.d lost make's target: $(head -1 obj/m.d)"
grep -q 'v.h' obj/m.d || fail "obj/m.d does not list v.h"
grep -q 'v.h' <<<"$(ninja -f phc.ninja -t deps obj/m.o)" || fail "ninja's deps log lacks v.h"
ninja -f phc.ninja -n >ninja2.log 2>&1
grep -qx 'ninja: no work to do.' ninja2.log || { cat ninja2.log; fail "second ninja run has work"; }
sleep 1
touch v.h
ninja -f phc.ninja >ninja3.log 2>&1 || { cat ninja3.log; fail "rebuild failed"; }
grep -q 'obj/m.o' ninja3.log || { cat ninja3.log; fail "obj/m.o not rebuilt after v.h changed"; }
[ -f obj/m.d ] && [ obj/m.d -nt v.h ] || fail "obj/m.d was not rewritten by the rebuild"

cd /
rm -rf "$work"
echo "gen_make: ok"
