#!/usr/bin/env bash
# `phc-ninja explain` through the real compilers: left-alone reasons (some only
# the driver's -### can tell), errors with non-zero exits, the probe cache file
# and response files.
set -euo pipefail
: "${PHC:?path to phc-ninja}" "${PHC_TMP:?scratch directory}"
work="$PHC_TMP/split_reasons"
rm -rf "$work"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$work"
printf '#include <hip/hip_runtime.h>\n__global__ void k(int* p) { p[0] = 1; }\n' > k.hip
printf 'int f(void) { return 1; }\n' > c.c
ROCM="--rocm-path=/usr --hip-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode"
TWO="--offload-arch=gfx906 --offload-arch=gfx90a"
n=0

# reason CODE COMMAND: explain exits 0 and prints that reason code.
reason() {
    local want=$1 cmd=$2 out
    out=$("$PHC" explain --probe-cache "$work/probes.json" -- "$cmd") ||
        fail "explain exited non-zero for: $cmd"
    grep -q "^# reason: $want: " <<<"$out" || fail "want '$want' for: $cmd; got: $(grep '^# reason' <<<"$out")"
    if [ "$want" = split ]; then grep -q '^# decision: split$' <<<"$out" || fail "no split decision"
    else grep -q '^# decision: leave$' <<<"$out" || fail "no leave decision for $want"; fi
    n=$((n + 1))
    echo "ok $want: $cmd"
}

reason split          "clang++-15 -x hip $ROCM $TWO -c k.hip -o k.o"
reason split          "hipcc $ROCM $TWO -c k.hip -o k.o"
reason single-arch    "clang++-15 -x hip $ROCM --offload-arch=gfx906 -c k.hip -o k.o"
# clang 19's new driver without -fgpu-rdc runs the old driver's jobs; with
# -fgpu-rdc it packs the device bitcode and the host compile embeds it: both split
# (split_identity.sh).
reason split          "/usr/lib/llvm-19/bin/clang++ -x hip $ROCM $TWO --offload-new-driver -fgpu-rdc -c k.hip -o k.o"
# RDC links: clang 15's is split; clang 19's fat binary object depends on the
# host objects' symbols (asked of the driver when the link runs); the new driver's device inputs
# are chosen when the link runs (a plan step asks its wrapper then; rdc_archives.sh).
reason split           "clang++-15 --rocm-path=/usr -fgpu-rdc --hip-link $TWO -B/usr/lib/llvm-15/bin a.o b.o -o app"
reason split           "/usr/lib/llvm-19/bin/clang++ $ROCM -fgpu-rdc --hip-link $TWO a.o b.o -o app"
reason split           "/usr/lib/llvm-22/bin/clang++ $ROCM -fgpu-rdc --hip-link --offload-new-driver $TWO a.o -o app"
reason new-driver      "/usr/lib/llvm-22/bin/clang++ $ROCM -fgpu-rdc --hip-link -foffload-via-llvm $TWO a.o -o app"
reason split          "/usr/lib/llvm-22/bin/clang++ -x hip $ROCM -mcode-object-version=5 -D__AMDGCN_WAVEFRONT_SIZE=64 --offload-arch=gfx906 --offload-arch=gfx90a --offload-new-driver -c k.hip -o k.o"
reason split          "/usr/lib/llvm-22/bin/clang++ -x hip $ROCM -mcode-object-version=5 -D__AMDGCN_WAVEFRONT_SIZE=64 --offload-arch=gfx906 --offload-arch=gfx90a --offload-new-driver -fgpu-rdc -c k.hip -o k.o"
reason save-temps     "clang++-15 -x hip $ROCM $TWO -save-temps -c k.hip -o k.o"
reason device-only    "clang++-15 -x hip $ROCM $TWO --offload-device-only -c k.hip -o k.o"
reason no-compile     "clang++-15 -x hip $ROCM $TWO k.hip -o k"
reason not-simple     "clang++-15 -x hip $ROCM $TWO -c k.hip -o k.o 2> log"
reason unknown-compiler "g++ -c c.c -o c.o"
# A source that does not exist yet (generated during the build) can still be planned.
mkdir tmp
out=$(TMPDIR="$work/tmp" "$PHC" explain -- "clang++-15 -x hip $ROCM $TWO -c gen/later.hip -o later.o") ||
    fail "explain failed for a source that does not exist yet"
grep -q '^# decision: split$' <<<"$out" || fail "missing source not split: $out"
[ -z "$(ls -A tmp)" ] || fail "the probe left files in TMPDIR: $(ls -A tmp)"
echo "ok a generated (missing) source is probed through a stand-in"
# Words instead of one string (as a launcher passes argv).
out=$("$PHC" explain -- clang++-15 -x hip $ROCM $TWO -c k.hip -o 'my k.o') || fail "explain (words) failed"
grep -q "^# decision: split$" <<<"$out" || fail "words form not split: $out"
grep -q -- "-o 'my k.o' --offload-host-only" <<<"$out" || fail "words form lost quoting: $out"
# hipcc compiles a .c file as C: only the driver's job list shows there is no device code.
reason not-hip        "hipcc $ROCM $TWO -c c.c -o c.o"

# The probe cache: two distinct compilers/flag sets were probed above; the
# same flag set with another source, output and defines is not probed again.
[ -s probes.json ] || fail "no probe cache file written"
cp k.hip k2.hip
out=$("$PHC" explain --probe-cache probes.json -- "clang++-15 -x hip $ROCM $TWO -DX=1 -I. -c k2.hip -o k2.o")
grep -q '^# probes run: 0$' <<<"$out" || fail "probe not reused from the cache file: $out"
out=$("$PHC" explain --probe-cache probes.json -- "clang++-15 -x hip $ROCM $TWO -fno-exceptions -c k2.hip -o k2.o")
grep -q '^# probes run: 1$' <<<"$out" || fail "a driver-relevant flag did not cause a new probe"
echo "ok probe cache: reused across sources/defines, re-probed for a new flag"

# Response files: expanded; the plan works on every argument, architectures
# inside the file included; one naming another is left alone.
out=$("$PHC" explain --rspfile k.rsp --rspfile-content "$ROCM -O2" -- "clang++-15 -x hip @k.rsp $TWO -c k.hip -o k.o")
grep -q '^# decision: split$' <<<"$out" || fail "rspfile with plain flags not split: $out"
grep -q -- "-O2" <<<"$(grep -- '--offload-device-only' <<<"$out")" || fail "device step lost the response file's flags"
out=$("$PHC" explain --rspfile k.rsp --rspfile-content "$ROCM $TWO" -- "clang++-15 -x hip @k.rsp -c k.hip -o k.o")
grep -q '^# decision: split$' <<<"$out" || fail "archs inside a response file: $out"
[ "$(grep -c -- '--offload-device-only' <<<"$out")" = 2 ] || fail "archs inside a response file: not one step each: $out"
out=$("$PHC" explain --rspfile k.rsp --rspfile-content "@more.rsp" -- "clang++-15 -x hip @k.rsp $TWO -c k.hip -o k.o")
grep -q '^# reason: response-file: a response file names another' <<<"$out" || fail "nested response files: $out"
echo "ok response files"

# Response files that are no regular files (made here, never in /dev): a fifo
# nobody writes must not hang explain, a /dev/zero-like node must not fill its
# memory; the compile, and an RDC link whose driver would read one, are left alone.
mkfifo fifo.rsp
nodes="fifo.rsp"
if mknod zero.rsp c 1 5 2>/dev/null; then nodes="$nodes zero.rsp"; else echo "note: mknod not permitted, character device case skipped"; fi
for node in $nodes; do
    out=$(timeout 20 "$PHC" explain -- "clang++-15 -x hip $ROCM $TWO @$node -c k.hip -o k.o") ||
        fail "explain with @$node failed or hung (exit $?)"
    grep -qx "# reason: response-file: cannot read a response file: $node: not a regular file" <<<"$out" ||
        fail "@$node: $out"
    mkdir -p "regen-$node"
    printf 'rule link\n  command = clang++-15 -fgpu-rdc --hip-link %s @../%s $in -o $out\nbuild app: link k.o\n' \
        "$TWO" "$node" >"regen-$node/build.ninja"
    out=$(timeout 20 "$PHC" regen -C "regen-$node" --dry-run --explain) ||
        fail "regen of a link with @$node failed or hung (exit $?)"
    grep -qx "left alone  app  link-unmodelled: the driver cannot be asked for the link's jobs: ../$node: not a regular file" <<<"$out" ||
        fail "link @$node: $out"
done
echo "ok response files that are no regular files: $nodes"

# Errors: non-zero exit and a one-line message naming the problem.
set +e
err=$("$PHC" explain -- "clang++-15 -x hip $ROCM --offload-arch=gfx90a --offload-arch=gfx90a:xnack+ -c k.hip -o k.o" 2>&1 >/dev/null)
rc=$?
set -e
[ $rc = 1 ] || fail "a compile the driver rejects should exit 1, got $rc"
grep -q "error: compiler probe .* failed" <<<"$err" || fail "unclear probe error: $err"
set +e
err=$("$PHC" explain -- "/nonexistent/clang++-15 -x hip $TWO -c k.hip -o k.o" 2>&1 >/dev/null); rc=$?
set -e
[ $rc = 1 ] || fail "a missing compiler should exit 1, got $rc"
grep -q "compiler '/nonexistent/clang++-15' not found" <<<"$err" || fail "unclear error: $err"
set +e
"$PHC" explain --bogus >/dev/null 2>&1; rc=$?
set -e
[ $rc = 2 ] || fail "a usage error should exit 2, got $rc"
echo "ok errors"
echo "split_reasons: $n reasons checked"
