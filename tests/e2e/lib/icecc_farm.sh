# An icecream farm on loopback, for tests/e2e/distribute_icecc.sh and
# scripts/bench-distribute --engine icecc: one icecc-scheduler, a local iceccd
# that takes no jobs and a "remote" iceccd, talking through ICECC_TEST_SOCKET
# sockets as icecream's own test suite does, both daemons as user icecc with
# CAP_SYS_CHROOT only; the remote one sees an idle stand-in for /proc/stat (the
# scheduler never picks a busy host). Call it inside a private network and
# mount namespace (`unshare --net --mount`, loopback up): the daemons
# broadcast on every interface.
# shellcheck shell=bash

# icecc_farm_start DIR PHC COMPILER [FLAGS...]: the environment tarball
# (`PHC icecc-env` for COMPILER and FLAGS: DIR/env.tar.gz, its advice in
# DIR/env.out), the daemons (logs DIR/*.log), and the client's variables
# exported. Sets icecc_scheduler_pid, icecc_local_pid, icecc_remote_pid.
icecc_farm_start() {
  local ice=$1 phc=$2
  shift 2
  mkdir -p "$ice/daemon-tmp" "$ice/envs-local" "$ice/envs-remote"
  "$phc" icecc-env -o "$ice/env.tar.gz" --tmpdir "$ice/daemon-tmp" -- "$@" >"$ice/env.out" 2>&1 ||
    { echo "icecc_farm_start: phc-ninja icecc-env failed: $(cat "$ice/env.out")" >&2; return 1; }
  # An idle machine for the scheduler: it never sends work to a host at full load.
  printf 'cpu  100 0 100 100000000 0 0 0 0 0 0\ncpu0 100 0 100 100000000 0 0 0 0 0 0\n' >"$ice/stat"
  chown -R icecc "$ice"
  icecc_as=(setpriv --reuid icecc --regid icecc --clear-groups --inh-caps +sys_chroot
    --ambient-caps +sys_chroot)
  "${icecc_as[@]}" icecc-scheduler -p 8767 -l "$ice/scheduler.log" -v -v -v </dev/null >/dev/null 2>&1 &
  icecc_scheduler_pid=$!
  ICECC_TEST_SOCKET=$ice/socket-local TMPDIR=$ice/daemon-tmp "${icecc_as[@]}" iceccd --no-remote \
    -s localhost:8767 -b "$ice/envs-local" -l "$ice/local.log" -N localice -m 2 -v -v -v \
    </dev/null >/dev/null 2>&1 &
  icecc_local_pid=$!
  ICECC_TEST_SOCKET=$ice/socket-remote TMPDIR=$ice/daemon-tmp unshare --mount --propagation private \
    sh -c 'mount --bind "$1/stat" /proc/stat && shift && exec "$@"' sh "$ice" \
    "${icecc_as[@]}" iceccd -p 10246 -s localhost:8767 -b "$ice/envs-remote" -l "$ice/remote.log" \
    -N remote1 -m 2 -v -v -v </dev/null >/dev/null 2>&1 &
  icecc_remote_pid=$!
  local _
  for _ in $(seq 100); do
    grep -q "remote1" "$ice/scheduler.log" 2>/dev/null && grep -q "localice" "$ice/scheduler.log" 2>/dev/null &&
      break
    sleep 0.1
  done
  grep -q "remote1" "$ice/scheduler.log" ||
    { echo "icecc_farm_start: the remote daemon did not log in: $(tail -5 "$ice/remote.log")" >&2; return 1; }
  export ICECC_TEST_SOCKET=$ice/socket-local ICECC_TEST_REMOTEBUILD=1 ICECC_PREFERRED_HOST=remote1
  export ICECC_VERSION=$ice/env.tar.gz ICECC_LOGFILE=$ice/client.log
}

# icecc_stop_remote: stops the remote daemon (by PID).
icecc_stop_remote() {
  [ -n "${icecc_remote_pid:-}" ] || return 0
  kill "$icecc_remote_pid" 2>/dev/null || true
  wait "$icecc_remote_pid" 2>/dev/null || true
  icecc_remote_pid=
}

# icecc_farm_stop: stops every daemon icecc_farm_start started (by PID).
icecc_farm_stop() {
  local p
  for p in ${icecc_remote_pid:-} ${icecc_local_pid:-} ${icecc_scheduler_pid:-}; do
    kill "$p" 2>/dev/null || true
  done
  for p in ${icecc_remote_pid:-} ${icecc_local_pid:-} ${icecc_scheduler_pid:-}; do
    wait "$p" 2>/dev/null || true
  done
}

# icecc_remote_runs DIR: the compiles the remote daemon completed.
icecc_remote_runs() { grep -c "Remote compilation completed with exit code 0" "$1/remote.log" || true; }
