#!/usr/bin/env bash
# phc-ninja gen on the compilation database CMake exports for samples/cmake-hip
# (command-string entries, no depfile flags): ninja -f phc.ninja builds the
# objects at CMake's paths; a split object is byte-identical to the driver's
# compile with the same CUID; second gen identical; second ninja no work; the
# device edges record one header set each (as regen's do), and a header only
# device code reads rebuilds exactly the device edges that read it.
set -euo pipefail
: "${PHC:?}" "${PHC_SRC:?}" "${PHC_TMP:?}"
fail() { echo "gen_cmake: FAIL: $*" >&2; exit 1; }
step() { echo "-- $*"; }

work="$PHC_TMP/gen_cmake"
rm -rf "$work"
mkdir -p "$work"
build="$work/build"
src="$work/src"
cp -r "$PHC_SRC/samples/cmake-hip" "$src"

step "configure samples/cmake-hip with an exported database"
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
  -DPHC_SAMPLE_HEAVY=OFF -DCMAKE_HIP_COMPILER=clang++-15 \
  -DCMAKE_HIP_FLAGS="--rocm-path=/usr --hip-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode" \
  -DCMAKE_HIP_ARCHITECTURES="gfx906;gfx90a" >"$work/cmake.log" 2>&1 ||
  { cat "$work/cmake.log"; fail "cmake configure failed"; }
db="$build/compile_commands.json"
# q EXPR: evaluates a Python expression over the database `d` (python3 is in
# scripts/setup; jq is not); out(e) is an entry's -o value.
q() {
  python3 -c "import json, shlex
d = json.load(open('$db'))
def out(e):
    w = shlex.split(e['command']); return w[w.index('-o') + 1]
print($1)"
}
nhip=$(q 'sum(e["file"].endswith(".hip") for e in d)')
ncpp=$(q 'sum(e["file"].endswith(".cpp") for e in d)')
[ "$nhip" -ge 2 ] && [ "$ncpp" -ge 1 ] || fail "expected HIP and C++ entries, got $nhip and $ncpp"
[ "$(q 'all("command" in e for e in d)')" = True ] || fail "expected command-string entries"

step "generate from the build directory"
cd "$work"
"$PHC" gen -p "$build" -o "$build/phc.ninja" >gen.out
cat gen.out
total=$((nhip + ncpp))
grep -qx "phc-ninja gen: $build/phc.ninja: $total entries ($nhip split, $ncpp plain), $((nhip * 4 + ncpp)) edges" gen.out ||
  fail "unexpected summary: $(cat gen.out)"
cp "$build/phc.ninja" phc.ninja.first
"$PHC" gen -p "$build" -o "$build/phc.ninja" >gen2.out
grep -q '(unchanged)$' gen2.out || fail "second gen did not report unchanged"
cmp -s "$build/phc.ninja" phc.ninja.first || fail "second gen wrote different bytes"

step "ninja -f phc.ninja builds CMake's objects"
cd "$build"
ninja -f phc.ninja -j2 >"$work/ninja.log" 2>&1 || { cat "$work/ninja.log"; fail "ninja failed"; }
mapfile -t outs < <(q '"\n".join(out(e) for e in d)')
[ "${#outs[@]}" = "$total" ] || fail "expected $total outputs in the database, read ${#outs[@]}"
for o in "${outs[@]}"; do
  [ -f "$o" ] || fail "$o was not built"
done
ninja -f phc.ninja -n >"$work/ninja2.log" 2>&1
grep -qx 'ninja: no work to do.' "$work/ninja2.log" || { cat "$work/ninja2.log"; fail "second ninja has work"; }

step "device edges record one header set each; a device-only header rebuilds them"
ninja -f phc.ninja -t deps >"$work/deps.txt"
python3 - "$work/deps.txt" <<'PY' || fail "device edges do not record one header set each"
import sys
blocks = open(sys.argv[1]).read().strip().split("\n\n")
device = [b for b in blocks if b.split(":")[0].endswith(("/gfx906.o", "/gfx90a.o"))]
assert len(device) >= 4, f"{len(device)} device records"
for b in device:
    lines = b.splitlines()
    assert "#deps 1," in lines[0] and lines[1].strip().startswith("phc_s_"), b
PY
touch "$src/include/device_tuning.hpp"
ninja -f phc.ninja -n >"$work/ninja3.log" 2>&1
grep -q 'HIP gfx906 .*saxpy' "$work/ninja3.log" && grep -q 'HIP gfx90a .*saxpy' "$work/ninja3.log" ||
  { cat "$work/ninja3.log"; fail "touching a device-only header does not rebuild saxpy's device edges"; }
! grep -E 'HIP gfx[0-9a-z]+ .*(reduce|sort)' "$work/ninja3.log" ||
  fail "touching saxpy's device-only header rebuilds other objects' device edges"
ninja -f phc.ninja -j2 >"$work/ninja4.log" 2>&1 || { cat "$work/ninja4.log"; fail "ninja failed"; }

step "a split object is byte-identical to the driver's"
obj=$(q 'next(out(e) for e in d if e["file"].endswith("saxpy.hip"))')
cmd=$(q 'next(e["command"] for e in d if e["file"].endswith("saxpy.hip"))')
cuid=$(grep -F -- "-o $obj" phc.ninja | grep -o -- '-cuid=[0-9a-zA-Z_]*' | sort -u)
[ -n "$cuid" ] && [ "$(printf '%s\n' "$cuid" | wc -l)" = 1 ] || fail "no single CUID for $obj: $cuid"
ref="$work/ref.o"
eval "${cmd/ -o $obj / -o $ref } $cuid" || fail "driver compile failed"
cmp "$obj" "$ref" || fail "$obj differs from the driver's object ($cuid)"

cd /
rm -rf "$work"
echo "gen_cmake: ok"
