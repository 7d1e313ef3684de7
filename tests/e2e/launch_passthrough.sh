#!/usr/bin/env bash
# Commands phc-launch does not split go to the compiler unchanged (exec): same
# exit status, output and signals. Also PHC_COMPILER and the -E fix-ups.
set -euo pipefail
: "${PHC:?}" "${PHC_TMP:?}"
L=$(dirname "$PHC")/phc-launch
W=$PHC_TMP/launch_passthrough
rm -rf "$W" && mkdir -p "$W" && cd "$W"
fail() { echo "launch_passthrough: FAIL: $*" >&2; exit 1; }
expect_rc() { # expect_rc WANT CMD...
  local want=$1 rc=0
  shift
  "$@" >out.txt 2>err.txt || rc=$?
  [ "$rc" = "$want" ] || fail "'$*' exited $rc, want $want"
}

echo "-- exit status and output unchanged"
expect_rc 7 "$L" sh -c 'echo x; echo y >&2; exit 7'
[ "$(cat out.txt)" = x ] && [ "$(cat err.txt)" = y ] || fail "output changed"
expect_rc 1 "$L" false
expect_rc 0 "$PHC" launch -- sh -c 'exit 0'
expect_rc 3 "$PHC" launch sh -c 'exit 3'
expect_rc 127 "$L" /nonexistent/compiler -c x.c
grep -q "cannot run '/nonexistent/compiler'" err.txt || fail "no message for a missing compiler"
expect_rc 2 "$L"
[ "$(cat err.txt)" = "phc-launch: error: no compiler command given (see --help)" ] ||
  fail "no command: $(cat err.txt)"

echo "-- the launcher's own command line: the shared parser's help and errors"
expect_rc 0 "$L" --help
head -n 1 out.txt | grep -qx 'usage: phc-launch \[--\] COMPILER ARGS\.\.\.' || fail "help: $(cat out.txt)"
grep -q '^  PHC_JOBS  *the size of the CPU pool' out.txt || fail "help names no environment: $(cat out.txt)"
expect_rc 0 "$PHC" launch -h
head -n 1 out.txt | grep -q '^usage: phc-launch ' || fail "launch -h: $(cat out.txt)"
for l in "$L" "$PHC launch"; do
  # shellcheck disable=SC2086 # "$PHC launch" is two words
  expect_rc 2 $l --bogus cc -c x.c
  [ "$(cat err.txt)" = "phc-launch: error: unknown option '--bogus' (see --help)" ] ||
    fail "$l --bogus: $(cat err.txt)"
done
# After the compiler's name (or --) every argument is the compiler's, ours or not.
expect_rc 0 "$L" printf '%s,' --help -h --bogus --
[ "$(cat out.txt)" = "--help,-h,--bogus,--," ] || fail "arguments changed: $(cat out.txt)"
expect_rc 0 "$PHC" launch -- printf '%s,' -- --help
[ "$(cat out.txt)" = "--,--help," ] || fail "arguments after -- changed: $(cat out.txt)"

echo "-- signals: the compiler is exec'd, so it is the process that dies"
rc=0; "$L" sh -c 'kill -TERM $$' || rc=$?
[ "$rc" = 143 ] || fail "SIGTERM death became status $rc"

echo "-- exec, not a child: the pid stays the same"
# shellcheck disable=SC2016
"$L" sh -c 'echo $$' >pid.txt &
p=$!
wait $p
[ "$(cat pid.txt)" = "$p" ] || fail "pass-through ran a child process ($(cat pid.txt) != $p)"

echo "-- a single-architecture compile is the driver's own"
printf '#include <hip/hip_runtime.h>\n__global__ void k(int* x) { x[0] = 1; }\n' > k.hip
F=(-x hip --rocm-path=/usr --hip-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode)
"$L" clang++-15 "${F[@]}" --offload-arch=gfx906 -cuid=abc -c k.hip -o a.o
clang++-15 "${F[@]}" --offload-arch=gfx906 -cuid=abc -c k.hip -o b.o
cmp a.o b.o || fail "single-arch object differs"

echo "-- PHC_COMPILER is put in front"
PHC_COMPILER="sh" expect_rc 5 "$L" -c 'echo pc; exit 5'
[ "$(cat out.txt)" = pc ] || fail "PHC_COMPILER not used"
# Then the arguments are all the compiler's, its options too.
PHC_COMPILER="printf" expect_rc 0 "$L" '%s,' --help --bogus
[ "$(cat out.txt)" = "--help,--bogus," ] || fail "PHC_COMPILER arguments changed: $(cat out.txt)"

echo "-- -E of a HIP compile: sccache's fix-ups"
printf '#!/bin/sh\nprintf "%%s\\n" "$@"\n' > show-args && chmod +x show-args
"$L" ./show-args -x hip --offload-new-driver --offload-compress --offload-arch=gfx906 -E k.hip > args.txt
[ "$(tr '\n' ' ' < args.txt)" = "-x hip --offload-arch=gfx906 -E k.hip --no-offload-new-driver " ] \
  || fail "-E fix-ups wrong: $(tr '\n' ' ' < args.txt)"
"$L" ./show-args -E x.c > args.txt
[ "$(tr '\n' ' ' < args.txt)" = "-E x.c " ] || fail "-E of a non-HIP command was edited"
"$L" clang++-15 "${F[@]}" --offload-arch=gfx906 --offload-arch=gfx90a -E k.hip -o k.ii \
  || fail "real -E run failed"
grep -q '__global__\|__attribute__((global))' k.ii || fail "-E output has no kernel"

echo "-- a compile the probe rejects: one warning (not 'warning: error:'), then the compiler's own run"
if "$L" clang++-15 "${F[@]}" --offload-arch=gfx906 --offload-arch=gfx90a:bogus+ -c k.hip -o k.o 2>warn.txt; then
  fail "a compile with a bad target ID succeeded"
fi
grep -q "^phc-launch: warning: .*compiling without splitting" warn.txt || fail "no warning: $(cat warn.txt)"
if grep -q "^phc-launch: warning: error: " warn.txt; then
  fail "the warning says error: $(grep '^phc-launch' warn.txt)"
fi

echo "launch_passthrough: all passed"
rm -rf "$W"
