#!/usr/bin/env bash
# SIGKILL of make's process group (issue 16, item 2: a CI cancel, `timeout -s
# KILL make`): `setsid make -j2` of two slow HIP compiles through phc-launch is
# killed with `kill -KILL -PGID` while the device compiles run; within a few
# seconds no process of that run is left (the launcher's children stay in
# make's process group). The private folders the killed launchers leave in
# TMPDIR are removed by the next split compile, and never the folder of a
# launcher that is still running.
# Every process of a run carries a unique variable in its environment, so the
# check reads /proc/*/environ and cannot confuse them with anything else.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
L=$(dirname "$PHC")/phc-launch
W=$(suite_dir launch_kill)
# A pool of 4: the live compile stopped below holds two slots, and the quick
# one beside it must find a free one (else it waits, up to a minute, for the
# stopped one's extra slot).
export TMPDIR=$W/tmp PHC_PROBE_CACHE=$W/probes.json PHC_JOBS=4
mkdir -p "$TMPDIR"
cd "$W" || exit 1
TAG=launch-kill-$$-$RANDOM

# A device compile as slow as SPIN makes it (constant evaluation: about 1 s
# per million steps here), so it is surely running when the group is killed.
for name in a b live; do
  cat >"$name.hip" <<'HIP'
#include <hip/hip_runtime.h>
constexpr unsigned long spin(unsigned long n) {
  unsigned long s = 0;
  for (unsigned long i = 0; i < n; ++i) s = s * 31 + i;
  return s;
}
__global__ void k(unsigned long* x) {
  constexpr unsigned long v = spin(SPIN);
  x[threadIdx.x] = v;
}
HIP
done
printf '#include <hip/hip_runtime.h>\n__global__ void k(float* x) { x[threadIdx.x] += 1; }\n' >quick.hip
# shellcheck disable=SC2206 # HIP_FLAGS_DEFAULT is two words
FLAGS=(-x hip $HIP_FLAGS_DEFAULT -std=c++17 -O2 -fconstexpr-steps=2000000000
  --offload-arch=gfx906 --offload-arch=gfx90a)
cat >Makefile <<M
all: a.o b.o
%.o: %.hip
	+\$(L) clang++-15 ${FLAGS[*]} -DSPIN=\$(SPIN) -c \$< -o \$@
M

# tagged [TAG]: "pid command" of each live (not zombie) process of the run tagged TAG.
tagged() {
  local f pid st
  for f in /proc/[0-9]*/environ; do
    grep -qzxF "PHC_E2E_RUN=${1:-$TAG}" "$f" 2>/dev/null || continue
    pid=${f#/proc/}
    pid=${pid%/environ}
    st=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f1) || continue
    [ -z "$st" ] || [ "$st" = Z ] || echo "$pid $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)"
  done
}
cleanup() { # whatever a failed check left running
  local t pid _
  for t in "$TAG" "$TAG-live"; do
    tagged "$t" | while read -r pid _; do kill -KILL "$pid" 2>/dev/null || true; done
  done
}
trap cleanup EXIT
folders() { find "$TMPDIR" -mindepth 1 -maxdepth 1 -name 'phc-launch-*' | sort; }

echo "-- kill -KILL of make's process group while device compiles run"
PHC_E2E_RUN=$TAG setsid make -j2 L="$L" SPIN=20000000 >make.log 2>&1 &
MAKE_PID=$!
end=$((SECONDS + 10)) # until setsid has run
until [ "$(ps -o pgid= -p "$MAKE_PID" | tr -d ' ')" = "$MAKE_PID" ] || [ $SECONDS -ge $end ]; do
  sleep 0.05
done
PGID=$(ps -o pgid= -p "$MAKE_PID" | tr -d ' ')
expect_eq "make's process group (setsid)" "$MAKE_PID" "$PGID"
# device_compiles: how many device compiles of the run are running.
device_compiles() { tagged | grep -c -- '--offload-device-only' || true; }
end=$((SECONDS + 60))
while [ "$(device_compiles)" -lt 2 ] && [ $SECONDS -lt $end ]; do
  kill -0 "$MAKE_PID" 2>/dev/null || { cat make.log; fail "make ended before its device compiles ran"; }
  sleep 0.1
done
[ "$(device_compiles)" -ge 2 ] || { tagged; cat make.log; fail "two device compiles did not start within 60 s"; }
kill -KILL -- "-$PGID"
wait "$MAKE_PID" 2>/dev/null || true
end=$((SECONDS + 5))
while [ -n "$(tagged)" ] && [ $SECONDS -lt $end ]; do sleep 0.1; done
left=$(tagged)
[ -z "$left" ] || fail "processes of the killed make are still running 5 s later:
$left"
pass "no process of the killed make is left"

leftover=$(folders)
[ -n "$leftover" ] || fail "the killed launchers left no private folder (is TMPDIR used?)"
# A killed process leaves /proc/PID/environ (so `tagged` no longer sees it)
# before it has closed its files, and with them its folder's lock: wait until
# each owner is gone or a zombie, as the next launcher would find it.
for folder in $leftover; do
  owner=${folder##*/phc-launch-}
  owner=${owner%%-*}
  end=$((SECONDS + 10))
  while [ -e "/proc/$owner" ] && [ "$(sed 's/.*) //' "/proc/$owner/stat" 2>/dev/null | cut -d' ' -f1)" != Z ] &&
    [ $SECONDS -lt $end ]; do
    sleep 0.05
  done
done

echo "-- the next split compile removes the killed launchers' folders, not a live one's"
PHC_E2E_RUN=$TAG-live "$L" clang++-15 "${FLAGS[@]}" -DSPIN=2000000 -c live.hip -o live.o >live.log 2>&1 &
LIVE=$!
end=$((SECONDS + 60))
until [ -n "$(find "$TMPDIR" -maxdepth 1 -name "phc-launch-$LIVE-*")" ] || [ $SECONDS -ge $end ]; do
  kill -0 "$LIVE" 2>/dev/null || { cat live.log; fail "the live compile ended before its folder was seen"; }
  sleep 0.05
done
# Something is in its folder (its device compiles' files): it is past making
# the folder and its own clean-up of stale ones, during which it holds their locks.
until [ -n "$(find "$TMPDIR" -mindepth 2 -maxdepth 2 -path "*/phc-launch-$LIVE-*/*" | head -n 1)" ] ||
  [ $SECONDS -ge $end ]; do
  kill -0 "$LIVE" 2>/dev/null || { cat live.log; fail "the live compile ended before its device compiles ran"; }
  sleep 0.02
done
# Stopped, it cannot finish (and remove its folder) before the check.
kill -STOP "$LIVE"
live_folder=$(find "$TMPDIR" -maxdepth 1 -name "phc-launch-$LIVE-*")
[ -n "$live_folder" ] || fail "the live compile's private folder is not in TMPDIR"
PHC_E2E_RUN=$TAG "$L" clang++-15 "${FLAGS[@]}" -c quick.hip -o quick.o \
  || { kill -CONT "$LIVE"; fail "a split compile beside stale folders failed"; }
[ -f quick.o ] || fail "quick.o was not written"
expect_eq "private folders while the live compile runs" "$live_folder" "$(folders)"
kill -CONT "$LIVE"
wait "$LIVE" || { cat live.log; fail "the live compile failed (its folder removed under it?)"; }
[ -f live.o ] || fail "live.o was not written"
expect_eq "private folders after every compile ended" "" "$(folders)"
pass "stale private folders are removed, a live one is kept"
