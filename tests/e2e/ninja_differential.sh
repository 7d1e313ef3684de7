#!/usr/bin/env bash
# Differential test against ninja on small hand-written manifests that hit the
# language's corners: for valid ones `phc-ninja manifest commands` must print
# what `ninja -t commands <all roots>` prints; for invalid ones both must fail
# with the same message, line and context (ninja's "ninja: error: f:L: msg"
# against our "f:L:C: error: msg").
set -euo pipefail
: "${PHC:?}" "${PHC_TMP:?}"
work="$PHC_TMP/ninja_differential"
rm -rf "$work"
mkdir -p "$work"
cd "$work"
fails=0
fail() {
  echo "ninja_differential: FAIL: $*" >&2
  fails=$((fails + 1))
}

# Shared include files for the cases below.
printf 'v = inc\nrule ri\n  command = ri $v $w $in\n' >inc.ninja
printf 'v = sub\nbuild s1: ri x\nbuild s2: ri y\n  w = edge\nrule ri2\n  command = sub-only $v\nbuild s3: ri2\n' >sub.ninja

valid=(
  # escapes and variable-name rules
  'a = A\na.b = AB\nv = $a.b ${a.b} $$ $  x$:y $\n   cont\nrule r\n  command = [$v] $in $out\nbuild o: r i\n'
  # evaluation time: top-level now, edge bindings now in file scope, rules late
  'x = 1\nrule r\n  command = $y [$z] $x $in\nbuild a: r b\n  y = $x$in\n  z = $y\nx = 2\n'
  # the no-binding quirk: file scope before rule bindings
  'description = top\nrule r\n  command = $description\n  description = rule\nbuild a: r\nbuild b: r\n  u = 1\nbuild c: r\n  description = edge\n'
  # shell quoting of $in/$out and canonical paths
  "rule r\n  command = c \$in > \$out\nbuild out\$ 1 ./x/../o2 | imp: r in\$:1 ./d/../in\$\$2 q'x a\"b | dep || ord |@ val\nbuild val: r\n"
  # implicit outputs only, order-only only
  'rule r\n  command = [$in] [$out]\nbuild | io: r || oo\nbuild oo: r\n'
  # include shares scope, subninja is a child scope
  'w = top\ninclude inc.ninja\nbuild a: ri q\nsubninja sub.ninja\nbuild b: ri r\n'
  # CRLF, comments, continuations in paths
  '# c\r\nrule r\r\n  command = x $in\r\n  # inside\r\nbuild $\r\n  o: r $\r\n  i1 i2\r\n'
  # rspfile_content and $in_newline are not in the command
  'rule r\n  command = link @$out.rsp\n  rspfile = $out.rsp\n  rspfile_content = $in_newline\nbuild o: r a b\n'
  # pools, console, defaults, dyndep
  'pool p\n  depth = 2\nrule r\n  command = x $out\n  pool = p\nbuild a: r\nbuild b: r\n  pool = console\nbuild c: r | c.dd\n  dyndep = c.dd\nbuild c.dd: r\ndefault a c\n'
  # keywords as parts of identifiers, ninja_required_version
  'ninja_required_version = 1.5\nbuilder = 1\nrule_x = 2\nrule r\n  command = $builder $rule_x\nbuild a: r\n'
  # empty command value through a variable
  'e =\nrule r\n  command = $e\nbuild a: r\n'
)
invalid=(
  'rule r\n  command = x\nfoo'
  'build a: nope b\n'
  'rule r\n  command = x\nrule r\n  command = y\n'
  'rule r\n  command = x\n  foo = y\n'
  'rule r\n  description = x\n'
  'rule r\n  command = x\n  rspfile = f\n'
  'pool p\n  depth = -1\n'
  'pool p\n'
  'pool console\n  depth = 2\n'
  'rule r\n  command = x\n  pool = nope\nbuild a: r\n'
  'rule r\n  command = x\nbuild a: r\nbuild a: r\n'
  'x = $!\n'
  'x = ${a\n'
  '\tx = 1\n'
  'x = 1'
  '  x = 1\n'
  'rule r\n  command = x\nbuild a b\n'
  'build: r\n'
  'rule r\n  command = x\nbuild $e: r\n'
  'rule r\n  command = x\nbuild a: r\ndefault b\n'
  'default\n'
  'rule r\n  command = x\n  dyndep = dd\nbuild a: r\n'
  'x = 1\ninclude nothere.ninja\n'
  'rule r\n  command = x\nbuild o: r\n  $x = 1\n'
  'x = a\rb\n'
  'rule r x\n'
  ': x\n'
  'build o: \n'
  'x = 1\n# unterminated comment'
  'subninja sub.ninja\nbuild q: ri2\n'
)

n=0
for text in "${valid[@]}"; do
  n=$((n + 1))
  printf "$text" >"v$n.ninja"
  mapfile -t roots < <(ninja -f "v$n.ninja" -t targets | sed 's/: [^:]*$//')
  ninja -f "v$n.ninja" -t commands "${roots[@]}" 2>&1 | sort >"v$n.ninja.txt" || true
  "$PHC" manifest commands -f "v$n.ninja" 2>&1 | sort >"v$n.phc.txt" || true
  if ! cmp -s "v$n.ninja.txt" "v$n.phc.txt"; then
    fail "valid case $n differs:"
    diff "v$n.ninja.txt" "v$n.phc.txt" >&2 || true
  fi
  "$PHC" manifest roundtrip -f "v$n.ninja" | cmp -s - "v$n.ninja" || fail "valid case $n: roundtrip not identical"
done
echo "checked ${#valid[@]} valid manifests"

n=0
for text in "${invalid[@]}"; do
  n=$((n + 1))
  printf "$text" >"e$n.ninja"
  if ninja -f "e$n.ninja" -t commands >/dev/null 2>"e$n.ninja.txt"; then
    fail "invalid case $n: ninja accepted it"
    continue
  fi
  if "$PHC" manifest commands -f "e$n.ninja" >/dev/null 2>"e$n.phc.txt"; then
    fail "invalid case $n: phc-ninja accepted it"
    continue
  fi
  # ninja: "ninja: error: F:L: msg" + context; ours "F:L:C: error: msg" + context.
  sed -e '1s/^ninja: error: \([^:]*:[0-9]*\): /\1: /' -e '/^$/d' "e$n.ninja.txt" >"e$n.want"
  sed -e '1s/^\([^:]*:[0-9]*\):[0-9]*: error: /\1: /' "e$n.phc.txt" >"e$n.got"
  if ! cmp -s "e$n.want" "e$n.got"; then
    fail "invalid case $n: error differs:"
    diff "e$n.want" "e$n.got" >&2 || true
  fi
done
echo "checked ${#invalid[@]} invalid manifests"

[ "$fails" = 0 ] || { echo "ninja_differential: $fails failure(s)" >&2; exit 1; }
cd /
rm -rf "$work"
echo "ninja_differential: all passed"
