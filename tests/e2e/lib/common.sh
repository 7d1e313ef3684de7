# Shared helpers for the end-to-end suites (sourced, not a suite itself).
# shellcheck shell=bash
set -euo pipefail
: "${PHC:?PHC must name the phc-ninja binary}"
: "${PHC_SRC:?PHC_SRC must name the source tree}"
: "${PHC_TMP:=${TMPDIR:-/tmp}/phc-e2e}"
# shellcheck disable=SC2034 # used by the suites that source this file
HIP_FLAGS_DEFAULT="--rocm-path=/usr --hip-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode"

# The step history (PHC_HISTORY) of each suite is its own, fresh, in scratch:
# never the user's cache.
PHC_HISTORY="$PHC_TMP/history/$(basename "${BASH_SOURCE[1]:-$0}" .sh)"
rm -rf "$PHC_HISTORY"
export PHC_HISTORY

# phc-launch's CPU pool (PHC_POOL_DIR) is each suite's own, in scratch: never
# the user's, and a suite's stopped launchers never hold up another suite.
PHC_POOL_DIR="$PHC_TMP/pool/$(basename "${BASH_SOURCE[1]:-$0}" .sh)"
export PHC_POOL_DIR

# suite_dir NAME: a fresh scratch directory for one suite, printed.
suite_dir() {
  local d="$PHC_TMP/$1"
  rm -rf "$d"
  mkdir -p "$d"
  echo "$d"
}

fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok - $* (${SECONDS} s)"; }

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

# light_sample SRC BUILD [CMAKE ARGS...]: samples/cmake-hip copied to SRC and
# configured with CMake's Ninja generator in BUILD: the light variant (no
# rocPRIM file), clang-15, gfx906 and gfx90a (later arguments may override).
light_sample() {
  local src=$1 build=$2
  shift 2
  cp -r "$PHC_SRC/samples/cmake-hip" "$src"
  cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPHC_SAMPLE_HEAVY=OFF \
    -DCMAKE_HIP_COMPILER=clang++-15 -DCMAKE_HIP_FLAGS="$HIP_FLAGS_DEFAULT" \
    -DCMAKE_HIP_ARCHITECTURES="gfx906;gfx90a" "$@" >/dev/null || fail "cmake of the sample failed"
}

# sample_start TAG FILE: counts the compiler processes of the run whose
# environment holds PHC_E2E_RUN=TAG (lib/compilers_sampler.py) until
# sample_stop FILE, which sets MOST (the most at once) and LOOKS.
sample_start() {
  python3 "$PHC_SRC/tests/e2e/lib/compilers_sampler.py" "$1" >"$2" &
  SAMPLER=$!
}
sample_stop() {
  kill -TERM "$SAMPLER"
  wait "$SAMPLER" || true
  SAMPLER=
  # shellcheck disable=SC2034 # read by the suites
  read -r MOST LOOKS <"$1"
}
# sample_cleanup: stops a sampler a failed check left running (for trap EXIT).
sample_cleanup() { [ -z "${SAMPLER:-}" ] || kill "$SAMPLER" 2>/dev/null || true; }
