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
#detail{position:sticky;top:0;background:#fffbe6;border:1px solid #e6d9a6;padding:4px 8px;
 white-space:pre-wrap;font:12px monospace;min-height:1.4em;z-index:2}
)";

/// Shows a step's title in the detail box on hover (the title stays for tooltips).
constexpr const char* kScript = R"(
document.addEventListener('mouseover',function(e){
 var t=e.target.closest('[title]');if(t)document.getElementById('detail').textContent=t.title;});
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

/// The title (tooltip) of one step.
std::string step_title(const Analysis& a, uint32_t i, const std::string& command) {
    const Step& s = a.build.steps[i];
    std::string cmd =
        command.size() > kMaxCommand ? command.substr(0, kMaxCommand) + " ..." : command;
    return fmt::format("{}\n{}{}\noutput: {}\n{:.3f} s to {:.3f} s: {:.3f} s{}\n{}", step_label(s),
                       kind_key(s.kind, s.arch), s.arch.empty() ? "" : "", s.output,
                       static_cast<double>(s.start - a.build.first_start) / 1000.0,
                       static_cast<double>(s.end - a.build.first_start) / 1000.0,
                       static_cast<double>(s.time) / 1000.0,
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
    std::string out = "<div class=\"axis\">";
    for (double t = 0; t <= static_cast<double>(wall); t += step)
        out += fmt::format("<span class=\"tick\" style=\"left:{:.4f}%\">{:g} s</span>",
                           pct(static_cast<int64_t>(t), wall), t / 1000.0);
    return out + "</div>\n";
}

/// The colour legend: one entry per architecture, then the other kinds.
std::string legend(const Analysis& a) {
    std::string out = "<div class=\"legend\">";
    std::vector<std::string> archs;
    for (const Step& s : a.build.steps)
        if (!s.arch.empty() && std::find(archs.begin(), archs.end(), s.arch) == archs.end())
            archs.push_back(s.arch);
    std::sort(archs.begin(), archs.end());
    for (const auto& arch : archs)
        out += fmt::format("<span style=\"background-color:{}\">{}</span>", arch_colour(arch),
                           html_escape(arch));
    for (Kind k :
         {Kind::Bundle, Kind::Host, Kind::HostLink, Kind::HipCompile, Kind::Compile, Kind::Other})
        out +=
            fmt::format("<span class=\"{}\">{}</span>", kind_class(k), html_escape(kind_name(k)));
    out += "<span class=\"k-device-link\">device link (striped)</span>"
           "<span class=\"crit\">critical path</span></div>\n";
    return out;
}

/// The timeline section.
std::string timeline(const Analysis& a, const std::function<std::string(uint32_t)>& command) {
    bool group = a.build.steps.size() > kGroupAbove;
    std::string out = "<h2>Timeline</h2>\n" + legend(a);
    if (group)
        out += "<p>Steps shorter than 1% of the wall time that follow each other in a lane are "
               "drawn as hatched blocks of at most 1% of it, coloured as the kind of step that "
               "took most of the block's time.</p>\n";
    out += "<div id=\"timeline\" class=\"timeline\">\n";
    for (const auto& lane : lanes_of(a.build))
        out += lane_div(a, lane, group, command);
    return out + "</div>\n" + axis(a.build.wall_ms);
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
    row("total work", sec(static_cast<double>(b.work_ms)));
    row("critical path", sec(static_cast<double>(b.critical_ms)));
    row(fmt::format("best any schedule could reach on {} cores", a.cores), sec(b.bound_ms));
    row("critical-path-first schedule", sec(static_cast<double>(b.list_schedule_ms)));
    out += "</table>\n<h3>Time per kind of step</h3>\n<table id=\"kinds\">\n";
    for (const auto& [kind, ms] : a.by_kind_ms)
        row(kind, sec(static_cast<double>(ms)));
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

/// One bar segment of the per-object view.
std::string segment(const Step& s, double left, double width) {
    std::string colour = s.arch.empty() ? "" : ";background-color:" + arch_colour(s.arch);
    return fmt::format(
        "<div class=\"{}\" style=\"left:{:.3f}%;width:{:.3f}%{}\" title=\"{}\"></div>",
        kind_class(s.kind), left, width, colour,
        html_escape(
            fmt::format("{}: {:.3f} s", step_label(s), static_cast<double>(s.time) / 1000.0)));
}

/// One split object's row: unsplit (its steps one after another) and split (as they ran).
std::string object_row(const Analysis& a, const ObjectCost& o, int64_t scale) {
    const Build& b = a.build;
    std::string unsplit, split;
    int64_t at = 0, first = b.steps[o.steps.front()].start;
    for (uint32_t i : o.steps) {
        const Step& s = b.steps[i];
        unsplit += segment(s, pct(at, scale), pct(s.time, scale));
        at += s.time;
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
        out += "<p>Each split object: top bar, its steps one after another (what it would cost "
               "unsplit); bottom bar, as they ran.</p>\n<table id=\"objects\">\n<tr><th>object</th>"
               "<th class=\"n\">unsplit</th><th class=\"n\">split</th><th>steps</th></tr>\n";
        for (size_t k = 0; k < split.size() && k < kMaxObjects; ++k)
            out += object_row(a, *split[k], scale);
        out += "</table>\n";
        if (split.size() > kMaxObjects)
            out +=
                fmt::format("<p>... and {} more split objects.</p>\n", split.size() - kMaxObjects);
    }
    if (!whole.empty()) {
        out += "<p>HIP compiles left whole: their architectures were compiled one after another "
               "inside one step (phc-ninja regen would run them in parallel).</p>\n"
               "<table id=\"whole\">\n<tr><th>object</th><th class=\"n\">time</th>"
               "<th class=\"n\">architectures</th></tr>\n";
        for (size_t k = 0; k < whole.size() && k < kMaxObjects; ++k)
            out += fmt::format(
                "<tr><td>{}</td><td class=\"n\">{:.1f} s</td><td class=\"n\">{}</td></tr>\n",
                html_escape(whole[k]->object), static_cast<double>(whole[k]->total_ms) / 1000.0,
                a.build.steps[whole[k]->steps.front()].offload_archs);
        out += "</table>\n";
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
        "<p class=\"lead\">Last build: {2} steps, wall {3:.1f} s, work {4:.1f} s; the best any "
        "schedule could reach on {5} cores: {6:.1f} s.</p>\n<div id=\"detail\">Point at a step "
        "for its command and times.</div>\n",
        html_escape(where), kStyle, a.build.steps.size(),
        static_cast<double>(a.build.wall_ms) / 1000.0,
        static_cast<double>(a.bound.work_ms) / 1000.0, a.cores, a.bound.bound_ms / 1000.0);
    out += timeline(a, command);
    out += summary_tables(a);
    out += objects_view(a);
    out += fmt::format("<script>{}</script>\n</body></html>\n", kScript);
    return out;
}

} // namespace phc::report
