#!/usr/bin/env bash
# ninja itself is the oracle for our manifest parser: for real CMake-generated
# manifests, every edge's command evaluated by `phc-ninja manifest commands`
# must equal what `ninja -t commands` prints (as sorted sets and as counts),
# before and after `phc-ninja manifest roundtrip`, which must reproduce the
# files byte for byte and give a manifest ninja accepts with the same commands.
set -euo pipefail
: "${PHC:?}" "${PHC_SRC:?}" "${PHC_TMP:?}"
work="$PHC_TMP/ninja_oracle"
rm -rf "$work"
mkdir -p "$work"

fail() {
  echo "ninja_oracle: FAIL: $*" >&2
  exit 1
}

# ninja_commands MANIFEST: every non-phony command reachable from the root nodes.
ninja_commands() {
  local roots=()
  mapfile -t roots < <(ninja -f "$1" -t targets | sed 's/: [^:]*$//')
  [ "${#roots[@]}" -gt 0 ] || fail "ninja lists no root targets for $1"
  ninja -f "$1" -t commands "${roots[@]}"
}

# compare DIR MANIFEST LABEL: phc-ninja's commands equal ninja's for DIR/MANIFEST.
compare() {
  local dir=$1 manifest=$2 label=$3
  (cd "$dir" && ninja_commands "$manifest") >"$work/ninja.txt" || fail "$label: ninja rejected $manifest"
  (cd "$dir" && "$PHC" manifest commands -f "$manifest") >"$work/phc.txt" ||
    fail "$label: phc-ninja rejected $manifest"
  local n p
  n=$(wc -l <"$work/ninja.txt")
  p=$(wc -l <"$work/phc.txt")
  [ "$n" -gt 0 ] || fail "$label: ninja printed no commands"
  [ "$n" = "$p" ] || fail "$label: ninja printed $n commands, phc-ninja $p"
  if ! diff <(sort -u "$work/ninja.txt") <(sort -u "$work/phc.txt") >"$work/diff.txt"; then
    head -20 "$work/diff.txt" >&2
    fail "$label: command sets differ (< ninja, > phc-ninja)"
  fi
  echo "ok: $label: $n commands identical"
}

# check DIR LABEL: the full oracle comparison for one configured build directory.
check() {
  local dir=$1 label=$2
  compare "$dir" build.ninja "$label"
  (cd "$dir" && "$PHC" manifest roundtrip -f build.ninja -o roundtrip.ninja) ||
    fail "$label: roundtrip failed"
  cmp "$dir/build.ninja" "$dir/roundtrip.ninja" || fail "$label: roundtrip of build.ninja is not byte-identical"
  (cd "$dir" && "$PHC" manifest roundtrip -f CMakeFiles/rules.ninja) | cmp - "$dir/CMakeFiles/rules.ninja" ||
    fail "$label: roundtrip of rules.ninja is not byte-identical"
  compare "$dir" roundtrip.ninja "$label (after roundtrip)"
}

# (a) a small C++ project: a library with a space and a '$' in source names,
# an executable, a custom command.
small="$work/small"
mkdir -p "$small/src"
printf 'int f() { return 1; }\n' >"$small/src/a b.cpp"
printf 'int g() { return 2; }\n' >"$small/src/d\$x.cpp"
printf 'int main() { return 0; }\n' >"$small/src/main.cpp"
cat >"$small/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(small CXX)
add_library(lib STATIC "src/a b.cpp" "src/d$x.cpp")
target_compile_definitions(lib PRIVATE "QUOTED=\"a b\"" DOLLAR=1)
add_executable(app src/main.cpp)
target_link_libraries(app lib)
add_custom_command(OUTPUT gen.txt COMMAND echo "hi there" > gen.txt)
add_custom_target(gen ALL DEPENDS gen.txt)
CMAKE
cmake -S "$small" -B "$small/build" -G Ninja >"$work/cmake-small.log" 2>&1 ||
  { cat "$work/cmake-small.log" >&2; fail "cmake (small) failed"; }
check "$small/build" "small C++ project"

# (b) a generated project with a few hundred targets (libraries, executables,
# custom commands), some file names with spaces and '$'.
big="$work/big"
mkdir -p "$big/src"
{
  echo 'cmake_minimum_required(VERSION 3.20)'
  echo 'project(big CXX)'
  for i in $(seq 1 150); do
    case $((i % 10)) in
      3) name="s p$i" ;;
      7) name="d\$$i" ;;
      *) name="f$i" ;;
    esac
    printf 'int f%s() { return %s; }\n' "$i" "$i" >"$big/src/$name.cpp"
    printf 'add_library(lib%s STATIC "src/%s.cpp")\n' "$i" "$name"
    printf 'target_compile_options(lib%s PRIVATE -O%s)\n' "$i" $((i % 3))
    if ((i % 2 == 0)); then
      printf 'int main() { return 0; }\n' >"$big/src/main$i.cpp"
      printf 'add_executable(app%s src/main%s.cpp)\n' "$i" "$i"
      printf 'target_link_libraries(app%s lib%s lib%s)\n' "$i" "$i" $((i - 1))
    fi
    if ((i % 15 == 0)); then
      printf 'add_custom_command(OUTPUT gen%s.txt COMMAND echo %s > gen%s.txt)\n' "$i" "$i" "$i"
      printf 'add_custom_target(gen%s ALL DEPENDS gen%s.txt)\n' "$i" "$i"
    fi
  done
} >"$big/CMakeLists.txt"
cmake -S "$big" -B "$big/build" -G Ninja >"$work/cmake-big.log" 2>&1 ||
  { cat "$work/cmake-big.log" >&2; fail "cmake (big) failed"; }
check "$big/build" "generated 235-target project"

# (c) the HIP sample, configured only.
if [ -d "$PHC_SRC/samples/cmake-hip" ]; then
  hip="$work/hip"
  cmake -S "$PHC_SRC/samples/cmake-hip" -B "$hip" -G Ninja -DCMAKE_HIP_COMPILER=clang++-15 \
    -DCMAKE_HIP_FLAGS="--rocm-path=/usr --hip-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode" \
    -DCMAKE_HIP_ARCHITECTURES="gfx906;gfx90a" >"$work/cmake-hip.log" 2>&1 ||
    { cat "$work/cmake-hip.log" >&2; fail "cmake (samples/cmake-hip) failed"; }
  check "$hip" "samples/cmake-hip"
fi

rm -rf "$work"
echo "ninja_oracle: all passed"
