#!/usr/bin/env bash
# `phc-ninja manifest` command line: help, argument errors (one line, exit 2),
# manifest errors (file:line:col + context, exit 1), commands through includes,
# and roundtrip writing atomically to -o.
set -euo pipefail
: "${PHC:?}" "${PHC_TMP:?}"
work="$PHC_TMP/ninja_cli"
rm -rf "$work"
mkdir -p "$work/sub"
cd "$work"

fail() {
  echo "ninja_cli: FAIL: $*" >&2
  exit 1
}

# expect CODE STDERR_TEXT -- ARGS...: runs phc-ninja manifest ARGS, checks exit code and stderr.
expect() {
  local code=$1 text=$2
  shift 3
  local rc=0
  "$PHC" manifest "$@" >"$work/out" 2>"$work/err" || rc=$?
  [ "$rc" = "$code" ] || fail "manifest $*: exit $rc, expected $code (stderr: $(cat "$work/err"))"
  [ "$(cat "$work/err")" = "$text" ] || fail "manifest $*: stderr was '$(cat "$work/err")', expected '$text'"
}

grep -q '^usage: phc-ninja manifest commands' <<<"$("$PHC" manifest --help)" || fail "--help prints no usage"
expect 2 "phc-ninja manifest: error: unknown option '--bogus' (see --help)" -- commands --bogus
expect 2 "phc-ninja manifest: error: missing subcommand (commands or roundtrip) (see --help)" --
expect 2 "phc-ninja manifest: error: unknown subcommand 'list' (see --help)" -- list
expect 2 "phc-ninja manifest: error: option '-f' needs a value (FILE) (see --help)" -- commands -f
expect 1 "nope.ninja: error: loading 'nope.ninja': No such file or directory" -- commands -f nope.ninja

cat >sub/rules.ninja <<'NINJA'
rule cc
  command = cc $FLAGS -c $in -o $out
NINJA
cat >build.ninja <<'NINJA'
# top
include sub/rules.ninja

build a.o: cc a$ b.c
  FLAGS = -O2
build all: phony a.o
NINJA
expect 0 "" -- commands
[ "$(cat "$work/out")" = "cc -O2 -c 'a b.c' -o a.o" ] || fail "commands printed '$(cat "$work/out")'"

expect 0 "" -- roundtrip -f build.ninja -o copy.ninja
cmp build.ninja copy.ninja || fail "roundtrip -o did not reproduce build.ninja"
grep -q 'phc-tmp' <<<"$(ls "$work")" && fail "roundtrip left a temporary file"
expect 0 "" -- roundtrip
cmp build.ninja "$work/out" || fail "roundtrip to stdout did not reproduce build.ninja"

printf 'include sub/rules.ninja\nbuild x: cc\nbuild x: cc\n' >dup.ninja
expect 1 "dup.ninja:4:1: error: multiple rules generate x" -- commands -f dup.ninja
printf 'include sub/missing.ninja\n' >missing.ninja
expect 1 "missing.ninja:1:26: error: loading 'sub/missing.ninja': No such file or directory
include sub/missing.ninja
                         ^ near here" -- roundtrip -f missing.ninja -o never.ninja
[ ! -e never.ninja ] || fail "a failed roundtrip wrote its output"

# The environment table of docs/commands.md lists every variable the code's
# one table has (phc-ninja version --verbose prints them), and no other.
code=$("$PHC" version --verbose | grep -oE '^(PHC|CCACHE)_[A-Z_]+' | sort)
doc=$(grep -oE '^\| `(PHC|CCACHE)_[A-Z_]+`' "$PHC_SRC/docs/commands.md" | tr -d '|` ' | sort)
[ "$code" = "$doc" ] || fail "docs/commands.md's variables differ from the code's: $(diff <(echo "$code") <(echo "$doc") | tr '\n' ' ')"

cd /
rm -rf "$work"
echo "ninja_cli: all passed"
