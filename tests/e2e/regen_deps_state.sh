#!/usr/bin/env bash
# The state header sets keep in .phc-ninja/ (src/depsets/depsets.h) against what
# can go wrong between builds, with real ninja and no compiler (issue 24): a
# header an edge used to generate, deleted once CMake dropped that edge, is a
# rebuild, not "missing and no known rule"; an append that a full disk cuts
# short (a file size limit here) is undone, so the next ninja still reads the
# sets; a depfile that is a fifo does not hang deps-set.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
b=$(suite_dir regen_deps_state)
mkdir -p "$b/inc" "$b/big"
echo 'int a;' >"$b/src.c"
echo '#define A 1' >"$b/inc/a.h"
big=""
for i in $(seq 1 2000); do
  : >"$b/big/header_$i.h"
  big="$big big/header_$i.h"
done

# manifest FILE [generated]: what CMake would write, with or without the edge
# that generates gen/gen.h. Each compile writes a depfile and runs deps-set
# (under a file size limit of LIMIT blocks when the edge sets one).
manifest() {
  {
    cat <<N
rule gen
  command = mkdir -p gen && echo '#define G 1' > \$out
rule cc
  command = cat \$in > \$out && printf '%s: %s\\n' \$out "\$DEPS" > \$out.d && (ulimit -f \$LIMIT; exec "$PHC" deps-set .phc-ninja/deps.ninja \$out.d \$in)
  depfile = \$out.d
  deps = gcc
rule cc_fifo
  command = touch \$out && rm -f \$out.d && mkfifo \$out.d && timeout 20 "$PHC" deps-set .phc-ninja/deps.ninja \$out.d \$in && rm \$out.d
N
    if [ "${2:-}" = generated ]; then
      echo "build gen/gen.h: gen"
      printf 'build obj.o: cc src.c || gen/gen.h\n  DEPS = src.c gen/gen.h inc/a.h\n  LIMIT = unlimited\n'
    else
      printf 'build obj.o: cc src.c\n  DEPS = src.c inc/a.h\n  LIMIT = unlimited\n'
    fi
  } >"$1"
}
# regen reads cmake.ninja (it prepares the sets from its outputs); ninja builds
# build.ninja, the same edges with the sets included, as regen's output has them.
regen() {
  "$PHC" regen -C "$b" -f cmake.ninja -o regen.out.ninja --quiet || fail "regen failed"
  { cat "$b/cmake.ninja"; echo "include .phc-ninja/deps.ninja"; } >"$b/build.ninja"
}

manifest "$b/cmake.ninja" generated
regen
ninja -C "$b" >"$b/first.out" 2>&1 || fail "first build failed: $(cat "$b/first.out")"
deps_of() { ninja -C "$b" -t deps "$1" | grep -v '^ninja: Entering'; }
grep -Eq "^    phc_s_[0-9a-f]{16}$" <<<"$(deps_of obj.o)" || fail "deps-set did not make a set: $(deps_of obj.o)"
grep -q "^build gen/gen.h: phony" "$b/.phc-ninja/deps.ninja" && fail "a generated header is declared phony"
expect_no_work "$b" "after the first build"
pass "a generated header is in the set, not declared"

# CMake re-ran without the generator edge; the header is gone.
manifest "$b/cmake.ninja"
rm -r "$b/gen"
regen
ninja -C "$b" >"$b/gone.out" 2>&1 || fail "build after the generated header went failed: $(cat "$b/gone.out")"
grep -q "phc_s_" <<<"$(deps_of obj.o)" || fail "no set after the rebuild: $(deps_of obj.o)"
expect_no_work "$b" "after the generated header went"
pass "a header no edge generates any more is a rebuild, not an error"

# A full disk: the append of a large new set stops past the file size limit.
size=$(stat -c %s "$b/.phc-ninja/deps.ninja")
printf 'build full.o: cc src.c\n  DEPS = src.c%s\n  LIMIT = %s\n' "$big" $((size / 1024 + 1)) >>"$b/cmake.ninja"
regen
ninja -C "$b" >"$b/full.out" 2>&1 || fail "the build with a full disk failed: $(cat "$b/full.out")"
grep -q "cannot append" "$b/full.out" || fail "deps-set did not warn of the failed append: $(cat "$b/full.out")"
[ "$(tail -c 1 "$b/.phc-ninja/deps.ninja" | od -An -c | tr -d ' ')" = '\n' ] ||
  fail "the sets file ends in a cut line: $(tail -c 200 "$b/.phc-ninja/deps.ninja")"
expect_no_work "$b" "after the append that failed"
grep -q "big/header_1.h" <<<"$(deps_of full.o)" || fail "the edge whose set failed lost its list: $(deps_of full.o)"
touch "$b/big/header_2000.h"
grep -q "full.o" <<<"$(ninja -C "$b" -n)" || fail "a header of the edge whose set failed does not rebuild it"
pass "an append cut short by a full disk is undone; the next ninja reads the sets"

# A depfile that is a fifo: deps-set returns at once (timeout 20 would fail the edge).
printf 'build fifo.o: cc_fifo src.c\n' >>"$b/cmake.ninja"
regen
start=$(date +%s)
ninja -C "$b" fifo.o >"$b/fifo.out" 2>&1 || fail "the fifo depfile edge failed: $(cat "$b/fifo.out")"
[ $(($(date +%s) - start)) -lt 10 ] || fail "deps-set waited on a fifo"
grep -q "not a regular file" "$b/fifo.out" || fail "no warning for a fifo depfile: $(cat "$b/fifo.out")"
pass "a fifo as depfile does not hang deps-set"
