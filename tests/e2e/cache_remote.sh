#!/usr/bin/env bash
# A shared ccache across checkouts (issue 15): scripts/bench-cache --check runs
# a small CMake HIP project in checkouts at different absolute paths, each with
# its own local ccache and base_dir, with one redis remote storage
# (redis-server on a free localhost port in the scratch folder, stopped on
# exit), and fails unless: the second checkout hits on every device, host and
# plain compile and writes identical objects; a new architecture compiles only
# its own device code (and the hosts that embed new bundles); a header read by
# one architecture's device code misses exactly that device compile and the
# host embedding its bundle, hits from the remote elsewhere, and leaves no stale
# object (= an uncached build); the same through phc-launch in front of ccache.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
for tool in redis-server redis-cli ccache; do
  command -v "$tool" >/dev/null || fail "$tool is not installed (scripts/setup installs it)"
done
dir=$(suite_dir cache_remote)
trap 'rm -rf "$dir"' EXIT
bash "$PHC_SRC/scripts/bench-cache" --check --work "$dir" || fail "bench-cache --check failed"
pass "shared ccache: hits across checkouts, per architecture, through the launcher"
