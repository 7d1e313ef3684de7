#!/usr/bin/env bash
# phc-launch under GNU make (4.3: pipe jobserver, --jobserver-auth=R,W) on
# samples/make-hip: -j2 and no -j build, and every HIP object is
# byte-identical to the driver's own compile with the same -cuid. Advertised
# jobservers that cannot be used (closed descriptors, a missing fifo) give one
# warning and the compile still works. (A -j4 build was dropped for CI time,
# issue 42: it ran the -j2 build's code path again; -j3 of one object below
# takes tokens from make's pipe as well.)
set -euo pipefail
: "${PHC:?}" "${PHC_SRC:?}" "${PHC_TMP:?}"
L=$(dirname "$PHC")/phc-launch
W=$PHC_TMP/launch_make
rm -rf "$W" && mkdir -p "$W/tmp" && cd "$W"
export TMPDIR=$W/tmp PHC_PROBE_CACHE=$W/probes.json
fail() { echo "launch_make: FAIL: $*" >&2; exit 1; }
grep -q "^  explain " <<<"$("$PHC" --help)" \
  || fail "this phc-ninja has no split planner ('phc-ninja explain'); the launcher cannot split"
[ -f "$PHC_SRC/samples/make-hip/Makefile" ] || fail "samples/make-hip is missing"
ARCHS="gfx906 gfx90a"

# The compile command of one object, as the Makefile's pattern rule writes it.
hip_cmd() { echo hipcc -O2 --offload-arch=gfx906 --offload-arch=gfx90a -MD -MP -c "$1.hip" -o "obj/$1.o"; }

# Checks each HIP object of the project in $1 against the driver's own compile.
check_identical() {
  local dir=$1 name cuid
  for name in saxpy scale reduce; do
    # shellcheck disable=SC2046
    cuid=$(cd "$dir" && "$PHC" explain -- $(hip_cmd "$name") | sed -n 's/^# cuid: //p')
    [ -n "$cuid" ] || fail "phc-ninja explain gave no cuid for $name"
    if [ ! -f "$W/ref/$name.$cuid.o" ]; then
      mkdir -p "$W/ref"
      (cd "$dir" && hipcc -O2 --offload-arch=gfx906 --offload-arch=gfx90a -cuid="$cuid" \
        -c "$name.hip" -o "$W/ref/$name.$cuid.o")
    fi
    cmp "$dir/obj/$name.o" "$W/ref/$name.$cuid.o" \
      || fail "$dir/obj/$name.o differs from the driver's compile (cuid $cuid)"
  done
}

# Every build is in one directory, p: a CUID depends on the directory an
# object is compiled in, and the reference objects are made once.
build() { # build LOG MAKEARGS...
  local log=$1 dir=p
  shift
  rm -rf "$dir" && cp -r "$PHC_SRC/samples/make-hip" "$dir"
  make -C "$dir" "$@" LAUNCHER="$L" ARCHS="$ARCHS" >"$log.log" 2>&1 \
    || { cat "$log.log"; fail "make $* failed"; }
  [ -x "$dir/demo" ] || fail "make $* did not link demo"
  ! grep -q "phc-launch: warning" "$log.log" || { cat "$log.log"; fail "unexpected warning in make $*"; }
}

echo "-- make -j2"
build j2 -j2
check_identical p
echo "-- make (no -j)"
find tmp -mindepth 1 -delete # what the reference compiles left
build j1
# The drivers' own temporary files went to the private folders, gone with them
# (before check_identical: its reference compiles leave clang's behind).
[ -z "$(find tmp -mindepth 1 -maxdepth 1)" ] || fail "temporary files left in TMPDIR: $(ls tmp)"
check_identical p
[ -z "$(find tmp -maxdepth 1 -name 'phc-launch-*')" ] || fail "private folders left in TMPDIR"

echo "-- make -j3 of one object: a token from make's pipe runs the 2nd architecture at once"
rm -rf one && cp -r "$PHC_SRC/samples/make-hip" one
PHC_NINJA_TRACE=$W/one.trace make -C one -j3 obj/saxpy.o LAUNCHER="$L" ARCHS="$ARCHS" >one.log 2>&1 \
  || { cat one.log; fail "make -j3 obj/saxpy.o failed"; }
python3 - "$W/one.trace" <<'PY' || fail "the device compiles did not overlap under make -j3"
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if not l.startswith("#")]
dev = sorted((int(r[0]), int(r[1])) for r in rows if "::gfx" in r[3])
assert len(dev) == 2, dev
sys.exit(0 if dev[1][0] < dev[0][1] else 1)
PY

one_compile() { # MAKEFLAGS value; compiles saxpy in a copy, expects one warning
  rm -rf p && cp -r "$PHC_SRC/samples/make-hip" p && mkdir -p p/obj
  # shellcheck disable=SC2046
  (cd p && MAKEFLAGS="$1" "$L" $(hip_cmd saxpy) 3<&- 4<&-) 2>one.err || { cat one.err; fail "compile failed with MAKEFLAGS='$1'"; }
  [ "$(grep -c '^phc-launch: warning: jobserver .* is unusable' one.err)" = 1 ] \
    || { cat one.err; fail "expected one warning line with MAKEFLAGS='$1'"; }
  [ "$(grep -c . one.err)" = 1 ] || { cat one.err; fail "more than the warning on stderr"; }
  local cuid
  # shellcheck disable=SC2046
  cuid=$(cd p && "$PHC" explain -- $(hip_cmd saxpy) | sed -n 's/^# cuid: //p')
  cmp p/obj/saxpy.o "$W/ref/saxpy.$cuid.o" || fail "object differs with MAKEFLAGS='$1'"
}
echo "-- MAKEFLAGS naming closed descriptors (make 4.3 without '+')"
one_compile " -j2 --jobserver-auth=97,98"
# 3,4 are what make 4.3 advertises, and the first numbers the launcher's own
# descriptors would get: they must be checked before it opens anything.
one_compile "sw -j2 --jobserver-auth=3,4"
echo "-- MAKEFLAGS naming descriptors that are not the jobserver's pipe"
exec 7</dev/null 8>/dev/null
one_compile " -j2 --jobserver-auth=7,8"
exec 7<&- 8>&-
echo "-- MAKEFLAGS naming a missing fifo"
one_compile " -j2 --jobserver-auth=fifo:$W/no-such-fifo"

echo "-- a warning in a kernel: shown once, naming every compile that printed it"
mkdir -p warn && cat >warn/k.hip <<'K'
#include <hip/hip_runtime.h>
__global__ void k(float* x) { int unused = 3; x[threadIdx.x] *= 2.0f; }
K
(cd warn && "$L" hipcc -Wall --offload-arch=gfx906 --offload-arch=gfx90a -c k.hip -o k.o) 2>warn.err \
  || { cat warn.err; fail "the kernel with a warning did not compile"; }
[ "$(grep -c "warning: unused variable 'unused'" warn.err)" = 1 ] \
  || { cat warn.err; fail "the warning is not shown exactly once"; }
grep -qx "1 warning generated when compiling for gfx906, gfx90a, host." warn.err \
  || { cat warn.err; fail "the warning does not name the architectures and the host"; }
[ "$(grep -c . warn.err)" = 4 ] || { cat warn.err; fail "more than the warning on stderr"; }

echo "launch_make: all passed"
rm -rf "$W"
