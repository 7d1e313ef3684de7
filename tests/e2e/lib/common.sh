# Shared helpers for the end-to-end suites (sourced, not a suite itself).
# shellcheck shell=bash
set -euo pipefail
: "${PHC:?PHC must name the phc-ninja binary}"
: "${PHC_SRC:?PHC_SRC must name the source tree}"
: "${PHC_TMP:=${TMPDIR:-/tmp}/phc-e2e}"
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
