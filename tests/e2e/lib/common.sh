# Shared helpers for the end-to-end suites (sourced, not a suite itself).
# shellcheck shell=bash
set -euo pipefail
: "${PHC:?PHC must name the phc-ninja binary}"
: "${PHC_SRC:?PHC_SRC must name the source tree}"
: "${PHC_TMP:=${TMPDIR:-/tmp}/phc-e2e}"
# shellcheck disable=SC2034 # used by the suites that source this file
HIP_FLAGS_DEFAULT="--rocm-path=/usr --hip-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode"

# suite_dir NAME: a fresh scratch directory for one suite, printed.
suite_dir() {
  local d="$PHC_TMP/$1"
  rm -rf "$d"
  mkdir -p "$d"
  echo "$d"
}

fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok - $*"; }

# expect_eq WHAT EXPECTED ACTUAL
expect_eq() {
  [ "$2" = "$3" ] || fail "$1: expected [$2], got [$3]"
}

# hip_objects DIR: the HIP objects CMake builds below DIR/CMakeFiles, sorted.
hip_objects() { find "$1/CMakeFiles" -name '*.hip.o' | sort; }

# ninja_work DIR: what `ninja -n` would run in DIR ("ninja: no work to do." for nothing).
ninja_work() { ninja -C "$1" -n | grep -v '^ninja: Entering' || true; }

# expect_no_work DIR WHEN: fails, naming WHEN, unless ninja has nothing to do in DIR.
expect_no_work() {
  local w
  w=$(ninja_work "$1")
  [ "$w" = "ninja: no work to do." ] || fail "$2: ninja -n has work: $w"
}
