#!/usr/bin/env bash
# phc-ninja report on a real build of samples/cmake-hip (light variant,
# clang-15, two architectures, regen'd, ninja's default -j): --json (a bound
# the build does not beat, whatever ninja's -j), the trace (one event per step
# of the last build, the log's durations, lanes that never overlap), the HTML
# page rendered by headless Chromium (one timeline element per step, with its
# label; kinds by size with percentages, a legend of the kinds present, the
# zoom; a screenshot is kept as report.png in the suite's directory), step
# records written by hand (CPU times and peak memory used, the memory chart),
# a plain build's estimate of the split, the last of several builds, and
# one-line errors for a missing or foreign log.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
dir=$(suite_dir report)
src=$dir/src
b=$dir/build
light_sample "$src" "$b"
"$PHC" regen -C "$b" --quiet
ninja -C "$b" >/dev/null || fail "the build failed"

# check_trace TRACE: one X event per entry of the log's last build (the sample has
# no multi-output edges), with the log's duration; lanes never overlap. Prints the count.
check_trace() {
  python3 - "$1" "$b/.ninja_log" <<'PY'
import json, sys
trace = json.load(open(sys.argv[1]))
events = [e for e in trace["traceEvents"] if e["ph"] == "X"]
run, prev = {}, -1
for line in open(sys.argv[2]).read().splitlines()[1:]:
    f = line.split("\t")
    if len(f) < 4: continue
    start, end = int(f[0]), int(f[1])
    if end < prev: run = {}
    run[f[3]] = end - start
    prev = end
outs = [e["args"]["output"] for e in events]
assert len(events) == len(run), f"{len(events)} events for {len(run)} log entries"
assert sorted(outs) == sorted(run), "events and log entries name different outputs"
for e in events:
    assert e["dur"] == run[e["args"]["output"]] * 1000, f"duration of {e['name']}"
    for k in ("arch", "object", "kind"): assert k in e["args"], f"{e['name']}: no {k}"
lanes = {}
for e in events: lanes.setdefault(e["tid"], []).append((e["ts"], e["ts"] + e["dur"]))
for spans in lanes.values():
    spans.sort()
    for (s0, e0), (s1, e1) in zip(spans, spans[1:]):
        assert e0 <= s1, "two events overlap in one lane"
print(len(events))
PY
}

# A full build: the summary, --json, the trace and the page.
"$PHC" report -C "$b" --cores 2 --trace "$dir/trace.json" --html "$dir/report.html" >"$dir/summary.txt" ||
  fail "report failed: $(cat "$dir/summary.txt")"
for want in "HIP device gfx906" "HIP device gfx90a" "HIP bundle" "HIP host compile" \
  "best any schedule could reach on 2 cores" "critical path:" "slowest objects" \
  "concurrency: up to" "the split build took" "one object after another as the driver runs them"; do
  grep -q "$want" "$dir/summary.txt" || fail "summary lacks '$want': $(cat "$dir/summary.txt")"
done
"$PHC" report -C "$b" --cores 2 --json >"$dir/summary.json"
python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
keys = ["wall_ms", "work_ms", "critical_path_ms", "bound_ms", "list_schedule_ms", "cores",
        "wall_work_ms", "max_running", "mean_running", "cpu_steps", "bound_beaten", "unsplit_ms",
        "split_estimate_ms", "by_kind_ms", "memory", "farm"]
assert list(r) == keys, list(r)
assert r["farm"] is None, r  # no step ran on a farm
m = r["memory"]
# The budget as the steps choose it, what they reserved (the 1 GiB default per
# compile, at least one at once) and measured.
assert m["budget_bytes"] > 0 and m["budget_from"], m
assert m["most_reserved_bytes"] >= 1 << 30 and m["most_measured_bytes"] > 0, m
assert m["waited_ms"] >= 0, m
assert r["critical_path_ms"] <= r["bound_ms"] <= r["list_schedule_ms"], r
assert r["work_ms"] == sum(r["by_kind_ms"].values()), r
assert r["cores"] == 2
# Never a bound the build beat; the shares never exceed the cores (1 ms of rounding per step).
assert r["bound_ms"] <= r["wall_ms"] and not r["bound_beaten"], r
assert r["work_ms"] <= 2 * r["wall_ms"] + len(r["by_kind_ms"]) * 1000, r
# Every split step ran under `phc-ninja step`: its CPU time is known (4 device, 2 bundle, 2 host).
assert r["work_ms"] <= r["wall_work_ms"] and r["cpu_steps"] == 8, r
assert r["max_running"] >= 1 and r["unsplit_ms"] is not None and r["split_estimate_ms"] is None, r
' "$dir/summary.json" || fail "--json: $(cat "$dir/summary.json")"
steps=$(check_trace "$dir/trace.json") || fail "trace check failed"
pass "summary, --json and the trace of a full build ($steps steps)"

grep -Eiq '(src|href)=|@import|url\(' "$dir/report.html" && fail "the page loads something from elsewhere"
if command -v chromium >/dev/null; then
  chrome() {
    chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
      --disable-component-update --disable-sync --no-first-run --user-data-dir="$dir/chromium" "$@" \
      2>>"$dir/chromium.log"
  }
  chrome --dump-dom "file://$dir/report.html" >"$dir/dom.html" || fail "chromium could not load the page"
  python3 - "$dir/dom.html" "$dir/trace.json" <<'PY' || fail "the rendered page does not match the trace"
import html, json, re, sys
dom = open(sys.argv[1]).read()
names = sorted(e["name"] for e in json.load(open(sys.argv[2]))["traceEvents"] if e["ph"] == "X")
drawn = sorted(html.unescape(t) for t in re.findall(r'<div class="step [^"]*"[^>]*>([^<]*)</div>', dom))
assert drawn == names, f"drawn {drawn} != events {names}"
assert 'class="step k-device' in dom and ' crit"' in dom, "no device step or no critical path"
assert re.search(r'<tr class="object"><td>CMakeFiles/[^<]*\.hip\.o</td>', dom), "no split object row"
# Kinds largest first, with percentages that add up to 100.
rows = re.findall(r'<tr><td>([^<]*)</td><td class="n">([0-9.]+) s</td><td class="n pct">([0-9.]+)%</td></tr>', dom)
assert rows, "no kinds with percentages"
secs = [float(t) for _, t, _ in rows]
assert secs == sorted(secs, reverse=True), f"kinds not by size: {rows}"
assert abs(sum(float(p) for _, _, p in rows) - 100) < 0.1 * len(rows), rows
# The legend names only what the build has.
legend = re.search(r'<div class="legend" id="legend">(.*?)</div>', dom).group(1)
entries = [html.unescape(e) for e in re.findall(r'<span[^>]*>([^<]*)</span>', legend)]
kinds = {html.unescape(k) for k, _, _ in rows}
archs = {e["args"]["arch"] for e in json.load(open(sys.argv[2]))["traceEvents"] if e["ph"] == "X" and e["args"]["arch"]}
for e in entries:
    assert e in archs or e == "critical path" or any(k.startswith(e) for k in kinds), f"legend: {e} not in the build"
assert "HIP fatbin" not in entries and "HIP host link" not in entries, entries
PY
  chrome --dump-dom "file://$dir/report.html#zoom=8" >"$dir/dom-zoom.html" || fail "chromium could not load the page zoomed"
  grep -q 'id="zoomed" style="width: 800%;"' "$dir/dom-zoom.html" || fail "#zoom=8 did not widen the timeline"
  grep -q 'id="zoomval">8×' "$dir/dom-zoom.html" || fail "the zoom does not say 8×"
  chrome --screenshot="$dir/report.png" --window-size=1400,900 "file://$dir/report.html" >/dev/null ||
    fail "chromium could not take a screenshot"
  [ -s "$dir/report.png" ] || fail "no screenshot"
  pass "Chromium renders one timeline element per step with its label (screenshot: $dir/report.png)"
else
  echo "SKIP: chromium is not installed (scripts/setup installs it): the page was not rendered"
fi

# Step records as phc-ninja step writes them, by hand, in place of those the
# split edges' runners wrote: each step's CPU time a third of its wall time,
# 100 MiB plus 1 MiB per step at its peak; its start on the Unix clock, from
# the log's mtime.
# Without any records, each step costs its wall time (shared beyond the cores).
rm "$b/.phc-ninja/steps"
"$PHC" report -C "$b" --cores 2 --json >"$dir/norecords.json"
python3 - "$b/.ninja_log" "$b/.phc-ninja/steps" <<'PY'
import os, sys
lines = open(sys.argv[1]).read().splitlines()[1:]
entries = [l.split("\t") for l in lines if len(l.split("\t")) >= 4]
t0 = int(os.stat(sys.argv[1]).st_mtime * 1000) - max(int(f[1]) for f in entries)
with open(sys.argv[2], "w") as out:
    for i, f in enumerate(entries):
        start, end = int(f[0]), int(f[1])
        out.write(f"v1\t{t0 + start}\t{end - start}\t{(end - start) // 3}\t{i}\t{(200 + i) << 20}\t{(100 + i) << 20}\t0\tother\t{f[3]}\n")
PY
PHC_MEMORY=3G "$PHC" report -C "$b" --cores 2 --json >"$dir/records.json"
PHC_MEMORY=3G "$PHC" report -C "$b" --cores 2 --html "$dir/records.html" --trace "$dir/records-trace.json" >"$dir/records.txt"
python3 -c '
import json, sys
r, before = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert r["cpu_steps"] > 0 and r["cpu_steps"] == sum(1 for _ in open(sys.argv[3])), r
assert before["cpu_steps"] == 0, before
assert r["work_ms"] < before["work_ms"], (r, before)
m, n = r["memory"], sum(1 for _ in open(sys.argv[3]))
assert m["budget_bytes"] == 3 << 30 and m["budget_from"] == "PHC_MEMORY", m
# Each step reserved 100 MiB more than it measured: so did every moment.
assert m["most_reserved_bytes"] >= m["most_measured_bytes"] + (100 << 20) > 100 << 20, m
assert m["waited_ms"] == sum(range(n)), m
assert before["memory"] is None, before
' "$dir/records.json" "$dir/norecords.json" "$b/.phc-ninja/steps" || fail "records not used: $(cat "$dir/records.json")"
python3 -c '
import json, sys
ev = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e["ph"] == "X"]
assert ev and all(e["args"]["cpu_ms"] == e["args"]["time_ms"] == e["dur"] // 3000 for e in ev), ev[0]
assert all(e["args"]["peak_bytes"] >= 100 << 20 for e in ev)
' "$dir/records-trace.json" || fail "the trace lacks the recorded CPU times"
grep -q "CPU time (recorded by phc-ninja step) for" "$dir/records.txt" || fail "no CPU times in: $(cat "$dir/records.txt")"
grep -q '<svg id="memory"' "$dir/records.html" || fail "no memory chart"
grep -q '<polyline id="reserved"' "$dir/records.html" || fail "no reserved memory in the chart"
grep -q '<line id="budget"' "$dir/records.html" || fail "no budget in the chart"
grep -q "against a budget of 3 GiB (PHC_MEMORY)" "$dir/records.txt" ||
  fail "the summary does not say the memory: $(cat "$dir/records.txt")"
grep -q '<table id="peaks">' "$dir/records.html" || fail "no peak memory per step"
if command -v chromium >/dev/null; then
  chrome --screenshot="$dir/records.png" --window-size=1400,1200 "file://$dir/records.html" >/dev/null ||
    fail "chromium could not render the page with records"
fi
pass "step records: CPU times used, peak memory per step and over time"

# A plain build of the same sample: its whole HIP compiles, and what splitting would save.
p=$dir/plain
cmake -S "$src" -B "$p" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPHC_SAMPLE_HEAVY=OFF \
  -DCMAKE_HIP_COMPILER=clang++-15 -DCMAKE_HIP_FLAGS="$HIP_FLAGS_DEFAULT" \
  -DCMAKE_HIP_ARCHITECTURES="gfx906;gfx90a" >/dev/null
ninja -C "$p" >/dev/null || fail "the plain build failed"
"$PHC" report -C "$p" --cores 2 --html "$dir/plain.html" >"$dir/plain.txt" || fail "report of the plain build failed"
grep -Eq "splitting its 2 whole HIP compiles (would save about|would not make it faster)" "$dir/plain.txt" ||
  fail "no estimate: $(cat "$dir/plain.txt")"
# With a core for each step the device compiles run side by side: the estimate must save time.
"$PHC" report -C "$p" --cores 8 >"$dir/plain8.txt"
grep -q "splitting its 2 whole HIP compiles would save about [0-9.]* s of the" "$dir/plain8.txt" ||
  fail "no saving on 8 cores: $(cat "$dir/plain8.txt")"
grep -q "the split build took" "$dir/plain.txt" && fail "a plain build called split"
grep -q '<tr class="whole"><td>[^<]*\.hip\.o</td><td class="n">[0-9.]* s</td><td class="n">2</td><td class="n">[0-9.]* s</td>' "$dir/plain.html" ||
  fail "no whole compile with its estimate on the page"
grep -q 'id="split-total"' "$dir/plain.html" || fail "no total estimate on the page"
pass "a plain build: its whole HIP compiles with what splitting would save"

# An incremental build: the log now holds two builds; the report shows the last.
touch "$src/src/saxpy.hip"
ninja -C "$b" >/dev/null || fail "the rebuild failed"
"$PHC" report -C "$b" --cores 2 --trace "$dir/trace2.json" >"$dir/summary2.txt"
grep -q "the last of 2 in its log" "$dir/summary2.txt" || fail "not the last of two builds: $(head -n 1 "$dir/summary2.txt")"
steps2=$(check_trace "$dir/trace2.json") || fail "trace check of the rebuild failed"
[ "$steps2" -lt "$steps" ] || fail "the rebuild's report has $steps2 steps, the full build had $steps"
python3 -c '
import json, sys
ev = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e["ph"] == "X"]
assert all("reduce" not in e["args"]["object"] for e in ev), "a step of reduce.hip in the rebuild"
assert sorted(e["args"]["arch"] for e in ev if e["args"]["kind"].startswith("HIP device g")) == ["gfx906", "gfx90a"]
' "$dir/trace2.json" || fail "the rebuild's trace has other steps"
pass "several builds in the log: the last one is reported ($steps2 steps)"

# A farm build: steps whose work runs elsewhere (kind "remote", as regen
# --distribute writes them) use almost no local CPU; they count by their wall
# time, never against the cores, and the summary says how busy the
# workstation was. Six 1 s "compiles" (sleep) on 2 cores, then a link.
mkdir -p "$dir/farm"
{
  # shellcheck disable=SC2016 # ninja's $in and $out, literally
  printf 'rule remote\n  command = %s step --kind remote $out -- sh -c "sleep 1; echo $out >$out"\n' "$PHC"
  # shellcheck disable=SC2016
  printf 'rule link\n  command = %s step --kind link $out -- sh -c "cat $in >$out"\n' "$PHC"
  for i in 0 1 2 3 4 5; do printf 'build d%s.o: remote\n' "$i"; done
  printf 'build app: link d0.o d1.o d2.o d3.o d4.o d5.o\n'
} >"$dir/farm/build.ninja"
ninja -C "$dir/farm" -j6 >/dev/null || fail "the farm build failed"
"$PHC" report -C "$dir/farm" --cores 2 --json >"$dir/farm.json" || fail "report of the farm build failed"
"$PHC" report -C "$dir/farm" --cores 2 >"$dir/farm.txt"
python3 - "$dir/farm.json" <<'PY' || fail "the farm build's report: $(cat "$dir/farm.json")"
import json, sys
r = json.load(open(sys.argv[1]))
f = r["farm"]
assert f and f["steps"] == 6, r
assert f["wall_ms"] >= 6000, r                     # their wall times, not the client's CPU
assert r["bound_ms"] is not None and r["bound_ms"] >= 1000, r  # a compile's second is on every chain
assert r["bound_ms"] <= r["wall_ms"], r
assert f["local_work_ms"] < 1000 and 0 <= f["local_busy"] < 0.5, r
PY
grep -q "^farm: 6 of 7 steps ran on a farm, [0-9.]* s of their wall time" "$dir/farm.txt" ||
  fail "the summary does not say what ran on the farm: $(cat "$dir/farm.txt")"
pass "a farm build: remote steps count by their wall time (bound $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["bound_ms"])' "$dir/farm.json") ms)"

# Errors: one line naming the file.
mkdir -p "$dir/empty"
# shellcheck disable=SC2016 # ninja's $in and $out, literally
printf 'rule cc\n  command = cc -c $in -o $out\nbuild a.o: cc a.c\n' >"$dir/empty/build.ninja"
err=$("$PHC" report -C "$dir/empty" 2>&1) && fail "no error without a log"
expect_eq "missing log" "$dir/empty/.ninja_log: error: cannot read the ninja log: No such file or directory" "$err"
echo '{"traceEvents": []}' >"$dir/empty/.ninja_log"
err=$("$PHC" report -C "$dir/empty" 2>&1) && fail "no error for a foreign log"
if [ "$(wc -l <<<"$err")" != 1 ] || ! grep -q "^$dir/empty/.ninja_log: error: not a ninja log" <<<"$err"; then
  fail "foreign log: $err"
fi
err=$("$PHC" report -C "$dir" 2>&1) && fail "no error without a manifest"
grep -q "^$dir/build.ninja: error: no ninja manifest" <<<"$err" || fail "missing manifest: $err"
pass "a missing or foreign log, a missing manifest: one-line errors naming the file"
