#!/usr/bin/env bash
# `cmake --install` puts phc-ninja and its phc-launch name under any prefix.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
: "${PHC_BUILD:?PHC_BUILD must name the build tree}"
dir=$(suite_dir install)
cmake --install "$PHC_BUILD" --prefix "$dir/prefix" >/dev/null
[ -x "$dir/prefix/bin/phc-ninja" ] || fail "phc-ninja not installed"
[ -L "$dir/prefix/bin/phc-launch" ] || fail "phc-launch not installed as a link"
out=$("$dir/prefix/bin/phc-launch" sh -c 'echo hi; exit 3') && fail "exit status lost" || rc=$?
expect_eq "phc-launch exit status" 3 "$rc"
expect_eq "phc-launch output" hi "$out"
grep -q "^phc-ninja " <<<"$("$dir/prefix/bin/phc-ninja" --version)" || fail "--version"
pass "installed phc-ninja and phc-launch work"
