#include "report/html.h"

#include "report/trace.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace phc::report {

namespace {

/// Builds above this many steps have their short steps grouped per lane.
constexpr size_t kGroupAbove = 2000;
/// Steps shorter than this fraction of the wall time are grouped.
constexpr double kSmallFraction = 0.01;
/// Split objects shown in the per-object view.
constexpr size_t kMaxObjects = 300;
/// Commands in titles are cut at this length.
constexpr size_t kMaxCommand = 4000;

constexpr const char* kStyle = R"(
body{font:13px/1.4 system-ui,sans-serif;margin:16px;color:#222;background:#fff}
h1{font-size:20px}h2{font-size:16px;margin-top:24px}
table{border-collapse:collapse}td,th{padding:2px 8px;text-align:left;border-bottom:1px solid #eee}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
.timeline{position:relative;border:1px solid #ccc;background:#fafafa}
.lane{position:relative;height:20px;border-bottom:1px solid #eee}
.step,.group{position:absolute;top:1px;height:17px;min-width:1px;box-sizing:border-box;
 overflow:hidden;white-space:nowrap;font-size:11px;line-height:17px;padding:0 2px;
 border-right:1px solid #fff;color:#000;cursor:default}
.group{background-color:#bbb;background-image:repeating-linear-gradient(45deg,rgba(255,255,255,.45) 0 2px,transparent 2px 5px)}
.crit{outline:2px solid #d00;outline-offset:-2px;z-index:1}
.k-bundle,.k-fatbin,.k-fatbin-object,.k-unbundle{background-color:#c8c8c8}
.k-host{background-color:#9ecae1}.k-host-link{background-color:#3182bd;color:#fff}
.k-compile{background-color:#c7e9c0}.k-other{background-color:#fdd0a2}
.k-hip-whole{background-color:#fc9272}
.k-device-link{background-color:#ddd;background-image:repeating-linear-gradient(90deg,transparent 0 6px,rgba(0,0,0,.18) 6px 8px)}
.axis{position:relative;height:18px;font-size:11px;color:#555}
.tick{position:absolute;top:0;border-left:1px solid #aaa;padding-left:2px}
.legend span{display:inline-block;padding:0 6px;margin:2px 4px 2px 0;border:1px solid #ccc}
.bars{position:relative;width:600px}.bar{position:relative;height:12px;margin:1px 0}
.bar div{position:absolute;top:0;height:12px;min-width:1px;box-sizing:border-box;border-right:1px solid #fff}
.scroll{overflow-x:auto}.zoom{margin:4px 0}.zoom input{vertical-align:middle;width:240px}
#memory{display:block;box-sizing:border-box;width:100%;height:80px;background:#fafafa;border:1px solid #ccc;border-top:0}
.pct{color:#555}
#detail{position:sticky;top:0;background:#fffbe6;border:1px solid #e6d9a6;padding:4px 8px;
 white-space:pre-wrap;font:12px monospace;min-height:1.4em;z-index:2}
)";

/// Shows a step's title in the detail box on hover (the title stays for tooltips).
/// Zoom: the timeline, its axis and the memory chart widen together (the
/// range input, or #zoom=N in the address); the axis gets ticks to match.
constexpr const char* kScript = R"(
document.addEventListener('mouseover',function(e){
 var t=e.target.closest('[title]');if(t)document.getElementById('detail').textContent=t.title;});
(function(){
 var z=document.getElementById('zoom'),box=document.getElementById('zoomed'),ax=document.getElementById('axis');
 if(!z||!box)return;
 function ticks(n){var wall=+ax.dataset.wall,step=1,f=[2,2.5,2],i=0;
  while(wall/step>n){step*=f[i%3];i++;}var h='';
  for(var t=0;t<=wall;t+=step)h+='<span class="tick" style="left:'+(100*t/wall).toFixed(4)+'%">'+(+(t/1000).toFixed(3))+' s</span>';
  ax.innerHTML=h;}
 function set(v){v=Math.max(1,Math.min(+z.max,Math.round(+v)||1));z.value=v;box.style.width=(100*v)+'%';
  document.getElementById('zoomval').textContent=v+'\u00d7';if(+ax.dataset.wall>0)ticks(10*v);}
 z.addEventListener('input',function(){set(z.value);});
 var m=/zoom=(\d+)/.exec(location.hash);if(m)set(m[1]);
})();
)";

/// The CSS class of a kind.
std::string_view kind_class(Kind k) {
    switch (k) {
    case Kind::Device:
        return "k-device";
    case Kind::Bundle:
        return "k-bundle";
    case Kind::Host:
        return "k-host";
    case Kind::DeviceLink:
        return "k-device-link";
    case Kind::Fatbin:
        return "k-fatbin";
    case Kind::FatbinObject:
        return "k-fatbin-object";
    case Kind::Unbundle:
        return "k-unbundle";
    case Kind::HostLink:
        return "k-host-link";
    case Kind::HipCompile:
        return "k-hip-whole";
    case Kind::Compile:
        return "k-compile";
    case Kind::Other:
        break;
    }
    return "k-other";
}

/// A stable colour per architecture (a hue from its name).
std::string arch_colour(std::string_view arch) {
    uint32_t h = 2166136261u;
    for (char c : arch)
        h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
    return fmt::format("hsl({},70%,62%)", h % 360);
}

/// A percentage of the wall time, for left/width.
double pct(int64_t ms, int64_t wall) {
    return wall > 0 ? 100.0 * static_cast<double>(ms) / static_cast<double>(wall) : 0.0;
}

/// `bytes` in MiB or GiB ("512 MiB", "1.5 GiB").
std::string size_words(uint64_t bytes) {
    double mib = static_cast<double>(bytes) / (1u << 20);
    return mib < 1024 ? fmt::format("{:.0f} MiB", mib) : fmt::format("{:.2f} GiB", mib / 1024);
}

/// What phc-ninja step recorded of a step, or how its time was counted.
std::string measured_words(const Step& s) {
    if (s.cpu_ms < 0)
        return fmt::format("its time: {:.3f} s (its share of the cores)",
                           static_cast<double>(s.cost) / 1000.0);
    std::string out = fmt::format("CPU {:.3f} s, peak {}", static_cast<double>(s.cpu_ms) / 1000.0,
                                  size_words(s.peak));
    if (s.wait_ms > 0)
        out += fmt::format(", waited {:.3f} s for memory", static_cast<double>(s.wait_ms) / 1000.0);
    return out;
}

/// The title (tooltip) of one step.
std::string step_title(const Analysis& a, uint32_t i, const std::string& command) {
    const Step& s = a.build.steps[i];
    std::string cmd =
        command.size() > kMaxCommand ? command.substr(0, kMaxCommand) + " ..." : command;
    return fmt::format("{}\n{}\noutput: {}\n{:.3f} s to {:.3f} s: {:.3f} s; {}{}\n{}",
                       step_label(s), kind_key(s.kind, s.arch), s.output,
                       static_cast<double>(s.start - a.build.first_start) / 1000.0,
                       static_cast<double>(s.end - a.build.first_start) / 1000.0,
                       static_cast<double>(s.time) / 1000.0, measured_words(s),
                       a.on_critical_path[i] ? "\non the critical path" : "", cmd);
}

/// One step's element in the timeline.
std::string step_div(const Analysis& a, uint32_t i, const std::string& command) {
    const Step& s = a.build.steps[i];
    int64_t wall = a.build.wall_ms;
    std::string style = fmt::format("left:{:.4f}%;width:{:.4f}%",
                                    pct(s.start - a.build.first_start, wall), pct(s.time, wall));
    if (!s.arch.empty()) style += ";background-color:" + arch_colour(s.arch);
    return fmt::format(
        "<div class=\"step {}{}\" data-step=\"{}\" data-kind=\"{}\" data-arch=\"{}\" "
        "style=\"{}\" title=\"{}\">{}</div>",
        kind_class(s.kind), a.on_critical_path[i] ? " crit" : "", i,
        html_escape(kind_key(s.kind, s.arch)), html_escape(s.arch), style,
        html_escape(step_title(a, i, command)), html_escape(step_label(s)));
}

/// The step of `run` whose kind and architecture took the most time in it.
const Step& dominant(const Build& b, const std::vector<uint32_t>& run) {
    std::vector<std::pair<std::string, int64_t>> sums;
    const Step* best = &b.steps[run.front()];
    int64_t best_ms = -1;
    for (uint32_t i : run) {
        std::string key = kind_key(b.steps[i].kind, b.steps[i].arch);
        auto it =
            std::find_if(sums.begin(), sums.end(), [&](const auto& p) { return p.first == key; });
        if (it == sums.end()) it = sums.insert(sums.end(), {key, 0});
        it->second += b.steps[i].time;
        if (it->second > best_ms) {
            best_ms = it->second;
            best = &b.steps[i];
        }
    }
    return *best;
}

/// One block standing for several short steps that follow each other in a
/// lane, coloured as the kind of step that took most of its time.
std::string group_div(const Analysis& a, const std::vector<uint32_t>& run) {
    const Build& b = a.build;
    int64_t first = b.steps[run.front()].start, last = b.steps[run.back()].end, work = 0;
    std::string names;
    for (size_t k = 0; k < run.size(); ++k) {
        work += b.steps[run[k]].time;
        if (k < 8) names += "\n" + step_label(b.steps[run[k]]);
    }
    const Step& major = dominant(b, run);
    std::string colour = major.arch.empty() ? "" : ";background-color:" + arch_colour(major.arch);
    if (run.size() > 8) names += fmt::format("\n... and {} more", run.size() - 8);
    return fmt::format(
        "<div class=\"group {}\" data-steps=\"{}\" style=\"left:{:.4f}%;width:{:.4f}%{}\" "
        "title=\"{}\"></div>",
        kind_class(major.kind), run.size(), pct(first - b.first_start, b.wall_ms),
        pct(last - first, b.wall_ms), colour,
        html_escape(fmt::format("{} short steps, {:.3f} s of work{}", run.size(),
                                static_cast<double>(work) / 1000.0, names)));
}

/// The steps of each lane, by start.
std::vector<std::vector<uint32_t>> lanes_of(const Build& b) {
    std::vector<uint32_t> lane = step_lanes(b);
    std::vector<std::vector<uint32_t>> lanes;
    for (uint32_t i = 0; i < lane.size(); ++i) {
        if (lane[i] >= lanes.size()) lanes.resize(lane[i] + 1);
        lanes[lane[i]].push_back(i);
    }
    for (auto& l : lanes)
        std::sort(l.begin(), l.end(),
                  [&](uint32_t x, uint32_t y) { return b.steps[x].start < b.steps[y].start; });
    return lanes;
}

/// One lane: its steps, short ones grouped when `group` (critical steps never are).
std::string lane_div(const Analysis& a, const std::vector<uint32_t>& steps, bool group,
                     const std::function<std::string(uint32_t)>& command) {
    const Build& b = a.build;
    auto small = [&](uint32_t i) {
        return group && !a.on_critical_path[i] &&
               static_cast<double>(b.steps[i].time) <
                   kSmallFraction * static_cast<double>(b.wall_ms);
    };
    std::string out = "<div class=\"lane\">";
    std::vector<uint32_t> run;
    auto flush = [&] {
        if (run.size() == 1) out += step_div(a, run[0], command(run[0]));
        if (run.size() > 1) out += group_div(a, run);
        run.clear();
    };
    // A block covers at most 1% of the wall time, so the picture keeps its shape.
    int64_t block = static_cast<int64_t>(kSmallFraction * static_cast<double>(b.wall_ms));
    for (uint32_t i : steps) {
        if (small(i)) {
            if (!run.empty() && b.steps[i].end - b.steps[run.front()].start > block) flush();
            run.push_back(i);
            continue;
        }
        flush();
        out += step_div(a, i, command(i));
    }
    flush();
    return out + "</div>\n";
}

/// Tick marks under the timeline, about ten of them at round intervals.
std::string axis(int64_t wall) {
    double step = 1;
    while (static_cast<double>(wall) / step > 10) {
        for (double f : {2.0, 2.5, 2.0}) {
            step *= f;
            if (static_cast<double>(wall) / step <= 10) break;
        }
    }
    std::string out = fmt::format("<div class=\"axis\" id=\"axis\" data-wall=\"{}\">", wall);
    for (double t = 0; t <= static_cast<double>(wall); t += step)
        out += fmt::format("<span class=\"tick\" style=\"left:{:.4f}%\">{:g} s</span>",
                           pct(static_cast<int64_t>(t), wall), t / 1000.0);
    return out + "</div>\n";
}

/// The colour legend of what the build has: one entry per architecture,
/// then each other kind present, the device links' stripes, the critical path.
std::string legend(const Analysis& a) {
    std::string out = "<div class=\"legend\" id=\"legend\">";
    std::vector<std::string> archs;
    std::vector<char> present(static_cast<size_t>(Kind::Other) + 1, 0);
    for (const Step& s : a.build.steps) {
        present[static_cast<size_t>(s.kind)] = 1;
        if (!s.arch.empty() && std::find(archs.begin(), archs.end(), s.arch) == archs.end())
            archs.push_back(s.arch);
    }
    std::sort(archs.begin(), archs.end());
    for (const auto& arch : archs)
        out += fmt::format("<span style=\"background-color:{}\">{}</span>", arch_colour(arch),
                           html_escape(arch));
    for (Kind k : {Kind::Bundle, Kind::Fatbin, Kind::FatbinObject, Kind::Unbundle, Kind::Host,
                   Kind::HostLink, Kind::HipCompile, Kind::Compile, Kind::Other})
        if (present[static_cast<size_t>(k)])
            out += fmt::format("<span class=\"{}\">{}</span>", kind_class(k),
                               html_escape(kind_name(k)));
    if (present[static_cast<size_t>(Kind::DeviceLink)])
        out += "<span class=\"k-device-link\">device link (striped)</span>";
    if (!a.bound.critical_path.empty()) out += "<span class=\"crit\">critical path</span>";
    return out + "</div>\n";
}

/// A step line of `level` (time, bytes) on the chart's 1000 x 100 box, bytes
/// scaled so that `most` is 95% of its height.
std::string chart_points(const std::vector<std::pair<int64_t, int64_t>>& level, int64_t wall_ms,
                         double most) {
    std::string points = "0,100";
    int64_t prev = 0;
    for (auto [t, bytes] : level) {
        double x = 1000.0 * static_cast<double>(t) / static_cast<double>(wall_ms);
        points += fmt::format(" {:.2f},{:.2f} {:.2f},{:.2f}", x,
                              100.0 - 95.0 * static_cast<double>(prev) / most, x,
                              100.0 - 95.0 * static_cast<double>(bytes) / most);
        prev = bytes;
    }
    return points;
}

/// The memory of the running steps over time, under the timeline: the sum of
/// their recorded peaks (filled: more than they held at once, as each peak
/// is the step's largest), the sum of what they reserved of the budget
/// (dashed), and the budget (a red line); empty when no peak was recorded.
std::string memory_chart(const Analysis& a) {
    const Build& b = a.build;
    const auto measured = level_steps(b, [](const Step& s) { return s.peak; });
    if (measured.empty() || b.wall_ms <= 0) return {};
    const auto reserved = level_steps(b, [](const Step& s) { return s.reserved; });
    const MemoryLevels m = memory_levels(b);
    const double most =
        static_cast<double>(std::max({m.most_measured, m.most_reserved, b.budget, uint64_t{1}}));
    std::string svg = fmt::format(
        "<svg id=\"memory\" viewBox=\"0 0 1000 100\" preserveAspectRatio=\"none\" "
        "data-most=\"{}\" data-reserved=\"{}\" data-budget=\"{}\"><polyline fill=\"#c6dbef\" "
        "stroke=\"#3182bd\" vector-effect=\"non-scaling-stroke\" points=\"{} 1000,100\"/>",
        m.most_measured, m.most_reserved, b.budget, chart_points(measured, b.wall_ms, most));
    if (!reserved.empty())
        svg += fmt::format("<polyline id=\"reserved\" fill=\"none\" stroke=\"#e6550d\" "
                           "stroke-dasharray=\"6 3\" vector-effect=\"non-scaling-stroke\" "
                           "points=\"{} 1000,100\"/>",
                           chart_points(reserved, b.wall_ms, most));
    if (b.budget > 0) {
        const double y = 100.0 - 95.0 * static_cast<double>(b.budget) / most;
        svg += fmt::format("<line id=\"budget\" x1=\"0\" x2=\"1000\" y1=\"{:.2f}\" y2=\"{:.2f}\" "
                           "stroke=\"#cb181d\" vector-effect=\"non-scaling-stroke\"/>",
                           y, y);
    }
    svg += "</svg>\n";
    return svg +
           fmt::format(
               "<p id=\"memory-note\">Memory: filled, the peaks phc-ninja step recorded of the "
               "steps running, summed (more than they held at once: each peak is its step's "
               "largest), the most {} at {:.1f} s; dashed, what they reserved of the budget, "
               "at most {}; red, the budget, {} ({}, as the steps would choose it now). Steps "
               "waited {:.1f} s for memory in all.</p>\n",
               size_words(m.most_measured), static_cast<double>(m.most_measured_at) / 1000.0,
               size_words(m.most_reserved), size_words(b.budget), html_escape(b.budget_from),
               static_cast<double>(m.waited_ms) / 1000.0);
}

/// The timeline section.
std::string timeline(const Analysis& a, const std::function<std::string(uint32_t)>& command) {
    bool group = a.build.steps.size() > kGroupAbove;
    std::string out = "<h2>Timeline</h2>\n" + legend(a);
    if (group)
        out += "<p>Steps shorter than 1% of the wall time that follow each other in a lane are "
               "drawn as hatched blocks of at most 1% of it, coloured as the kind of step that "
               "took most of the block's time.</p>\n";
    out += "<div class=\"zoom\"><label>zoom <input type=\"range\" id=\"zoom\" min=\"1\" "
           "max=\"64\" value=\"1\"></label> <span id=\"zoomval\">1\u00d7</span></div>\n"
           "<div class=\"scroll\"><div id=\"zoomed\">\n<div id=\"timeline\" class=\"timeline\">\n";
    for (const auto& lane : lanes_of(a.build))
        out += lane_div(a, lane, group, command);
    std::string memory = memory_chart(a);
    out += "</div>\n" + axis(a.build.wall_ms);
    size_t note = memory.find("<p id=");
    if (note == std::string::npos) return out + "</div></div>\n";
    return out + memory.substr(0, note) + "</div></div>\n" + memory.substr(note);
}

/// The summary tables: per kind, the bound, the critical path.
std::string summary_tables(const Analysis& a) {
    const Bound& b = a.bound;
    auto sec = [](double ms) { return fmt::format("{:.1f} s", ms / 1000.0); };
    std::string out = "<h2>Summary</h2>\n<table id=\"summary\">\n";
    auto row = [&](std::string_view what, const std::string& value) {
        out +=
            fmt::format("<tr><td>{}</td><td class=\"n\">{}</td></tr>\n", html_escape(what), value);
    };
    row("wall time", sec(static_cast<double>(a.build.wall_ms)));
    row("steps running at once: most", fmt::format("{}", a.build.max_running));
    row("steps running at once: on average", fmt::format("{:.1f}", a.build.mean_running));
    row("the steps' wall times, summed", sec(static_cast<double>(a.wall_work_ms)));
    row("the steps' times (CPU or share of the cores), summed",
        sec(static_cast<double>(b.work_ms)));
    row("critical path", sec(static_cast<double>(b.critical_ms)));
    if (!a.bound_beaten)
        row(fmt::format("best any schedule could reach on {} cores", a.cores), sec(b.bound_ms));
    row("critical-path-first schedule", sec(static_cast<double>(b.list_schedule_ms)));
    if (a.unsplit_ms > 0)
        row("the same, each split object's steps one after another",
            sec(static_cast<double>(a.unsplit_ms)));
    if (a.split_guess_ms > 0)
        row("the same, whole HIP compiles split (estimate)",
            sec(static_cast<double>(a.split_guess_ms)));
    out += "</table>\n<h3>Time per kind of step</h3>\n<table id=\"kinds\">\n"
           "<tr><th>kind</th><th class=\"n\">time</th><th class=\"n\">share</th></tr>\n";
    for (const auto& [kind, ms] : kinds_by_cost(a))
        out += fmt::format(
            "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n pct\">{:.1f}%</td></tr>\n",
            html_escape(kind), sec(static_cast<double>(ms)),
            b.work_ms > 0 ? 100.0 * static_cast<double>(ms) / static_cast<double>(b.work_ms) : 0.0);
    out +=
        "</table>\n<h3>Critical path</h3>\n<table id=\"critical\">\n"
        "<tr><th class=\"n\">start</th><th class=\"n\">end</th><th>step</th><th>output</th></tr>\n";
    for (uint32_t i : b.critical_path) {
        const Step& s = a.build.steps[i];
        out += fmt::format("<tr><td class=\"n\">{:.1f}</td><td class=\"n\">{:.1f}</td><td>{}</td>"
                           "<td>{}</td></tr>\n",
                           static_cast<double>(s.start - a.build.first_start) / 1000.0,
                           static_cast<double>(s.end - a.build.first_start) / 1000.0,
                           html_escape(kind_key(s.kind, s.arch)), html_escape(s.output));
    }
    return out + "</table>\n";
}

/// The steps with the largest recorded peaks (none: empty).
std::string memory_table(const Analysis& a) {
    std::vector<uint32_t> order;
    for (uint32_t i = 0; i < a.build.steps.size(); ++i)
        if (a.build.steps[i].peak > 0) order.push_back(i);
    if (order.empty()) return {};
    std::stable_sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
        return a.build.steps[x].peak > a.build.steps[y].peak;
    });
    std::string out = fmt::format(
        "<h3>Peak memory per step</h3>\n<p>As phc-ninja step recorded it ({} of {} steps; the "
        "largest resident size of one process of the step), largest first.</p>\n"
        "<table id=\"peaks\">\n<tr><th>step</th><th class=\"n\">peak</th><th class=\"n\">CPU"
        "</th><th class=\"n\">wall</th><th class=\"n\">waited for "
        "memory</th><th>output</th></tr>\n",
        order.size(), a.build.steps.size());
    for (size_t k = 0; k < order.size() && k < 30; ++k) {
        const Step& s = a.build.steps[order[k]];
        out += fmt::format(
            "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{:.1f} s</td>"
            "<td class=\"n\">{:.1f} s</td><td class=\"n\">{:.1f} s</td><td>{}</td></tr>\n",
            html_escape(step_label(s)), size_words(s.peak),
            static_cast<double>(std::max<int64_t>(s.cpu_ms, 0)) / 1000.0,
            static_cast<double>(s.time) / 1000.0, static_cast<double>(s.wait_ms) / 1000.0,
            html_escape(s.output));
    }
    return out + "</table>\n";
}

/// `s` with its first letter upper case (the summary's lines begin a sentence here).
std::string capital(std::string s) {
    if (!s.empty() && s[0] >= 'a' && s[0] <= 'z') s[0] = static_cast<char>(s[0] - 'a' + 'A');
    return s;
}

/// split_lines(), a paragraph each.
std::string split_paragraphs(const Analysis& a) {
    std::string out;
    for (const std::string& line : split_lines(a))
        out += "<p class=\"split\">" + html_escape(capital(line)) + ".</p>\n";
    return out;
}

/// One bar segment of the per-object view.
std::string segment(const Step& s, double left, double width) {
    std::string colour = s.arch.empty() ? "" : ";background-color:" + arch_colour(s.arch);
    return fmt::format(
        "<div class=\"{}\" style=\"left:{:.3f}%;width:{:.3f}%{}\" title=\"{}\"></div>",
        kind_class(s.kind), left, width, colour,
        html_escape(fmt::format("{}: {:.3f} s as it ran; {}", step_label(s),
                                static_cast<double>(s.time) / 1000.0, measured_words(s))));
}

/// One split object's row: unsplit (its steps one after another) and split (as they ran).
std::string object_row(const Analysis& a, const ObjectCost& o, int64_t scale) {
    const Build& b = a.build;
    std::string unsplit, split;
    int64_t at = 0, first = b.steps[o.steps.front()].start;
    for (uint32_t i : o.steps) {
        const Step& s = b.steps[i];
        unsplit += segment(s, pct(at, scale), pct(s.cost, scale));
        at += s.cost;
        split += segment(s, pct(s.start - first, scale), pct(s.time, scale));
    }
    return fmt::format("<tr class=\"object\"><td>{}</td><td class=\"n\">{:.1f} s</td>"
                       "<td class=\"n\">{:.1f} s</td><td><div class=\"bars\"><div class=\"bar\">{}"
                       "</div><div class=\"bar\">{}</div></div></td></tr>\n",
                       html_escape(o.object), static_cast<double>(o.total_ms) / 1000.0,
                       static_cast<double>(o.span_ms) / 1000.0, unsplit, split);
}

/// The per-object view: each split object's steps unsplit and side by side.
std::string objects_view(const Analysis& a) {
    std::vector<const ObjectCost*> split, whole;
    for (const ObjectCost& o : a.objects) {
        if (o.split) split.push_back(&o);
        if (!o.split && a.build.steps[o.steps.front()].kind == Kind::HipCompile)
            whole.push_back(&o);
    }
    std::string out = "<h2>Per object</h2>\n";
    if (!split.empty()) {
        int64_t scale = 1;
        for (const ObjectCost* o : split)
            scale = std::max({scale, o->total_ms, o->span_ms});
        out += "<p>Each split object: top bar, its steps' times one after another (what it would "
               "cost unsplit: the driver runs them in turn); bottom bar, as they ran (wall time, "
               "waiting for a core included).</p>\n<table id=\"objects\">\n<tr><th>object</th>"
               "<th class=\"n\">unsplit</th><th class=\"n\">split</th><th>steps</th></tr>\n";
        for (size_t k = 0; k < split.size() && k < kMaxObjects; ++k)
            out += object_row(a, *split[k], scale);
        out += "</table>\n";
        if (split.size() > kMaxObjects)
            out +=
                fmt::format("<p>... and {} more split objects.</p>\n", split.size() - kMaxObjects);
    }
    if (!whole.empty()) {
        out +=
            "<p>HIP compiles left whole: their architectures were compiled one after another "
            "inside one step (phc-ninja regen would run them in parallel). Split, each is "
            "estimated as N device compiles side by side then the host compile, each 1/(N+1) "
            "of its time (assumed: the host compile costs as much as one architecture's; the "
            "bundle is free), with a core free for each.</p>\n"
            "<table id=\"whole\">\n<tr><th>object</th><th class=\"n\">time</th>"
            "<th class=\"n\">architectures</th><th class=\"n\">split, a core each (estimate)</th>"
            "<th class=\"n\">saves</th></tr>\n";
        for (size_t k = 0; k < whole.size() && k < kMaxObjects; ++k) {
            uint32_t first = whole[k]->steps.front();
            auto g = std::find_if(a.guesses.begin(), a.guesses.end(),
                                  [&](const SplitGuess& x) { return x.step == first; });
            std::string guess, saves;
            if (g != a.guesses.end()) {
                guess = fmt::format("{:.1f} s", static_cast<double>(g->split_ms) / 1000.0);
                saves = fmt::format("{:.1f} s",
                                    static_cast<double>(g->whole_ms - g->split_ms) / 1000.0);
            }
            out += fmt::format(
                "<tr class=\"whole\"><td>{}</td><td class=\"n\">{:.1f} s</td><td "
                "class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>\n",
                html_escape(whole[k]->object), static_cast<double>(whole[k]->total_ms) / 1000.0,
                a.build.steps[first].offload_archs, guess, saves);
        }
        out += "</table>\n";
        if (a.split_guess_ms > 0)
            out += fmt::format("<p id=\"split-total\">In all: {}.</p>\n",
                               html_escape(split_lines(a).back()));
    }
    if (split.empty() && whole.empty()) out += "<p>No HIP objects in this build.</p>\n";
    return out;
}

} // namespace

std::string html_escape(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&quot;";
            break;
        case '\'':
            out += "&#39;";
            break;
        default:
            out += c;
        }
    }
    return out;
}

std::string html_page(const Analysis& a, std::string_view where,
                      const std::function<std::string(uint32_t)>& command) {
    std::string out = fmt::format(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
        "<title>phc-ninja report: {0}</title>\n<style>{1}</style></head><body>\n"
        "<h1>Where the build's time went: {0}</h1>\n"
        "<p class=\"lead\" id=\"lead\">Last build: {2} steps, wall {3:.1f} s; {4}.</p>\n"
        "<p id=\"basis\">Step times: {5}. {8}{6}.</p>\n{7}"
        "<div id=\"detail\">Point at a step for its command and times.</div>\n",
        html_escape(where), kStyle, a.build.steps.size(),
        static_cast<double>(a.build.wall_ms) / 1000.0, html_escape(concurrency_words(a)),
        html_escape(cost_basis(a)), html_escape(capital(bound_words(a))), split_paragraphs(a),
        a.build.remote_steps == 0 ? std::string() : html_escape(capital(farm_words(a))) + ". ");
    out += timeline(a, command);
    out += summary_tables(a);
    out += memory_table(a);
    out += objects_view(a);
    out += fmt::format("<script>{}</script>\n</body></html>\n", kScript);
    return out;
}

} // namespace phc::report
