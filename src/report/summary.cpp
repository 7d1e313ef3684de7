#include "report/summary.h"

#include <algorithm>
#include <fmt/format.h>
#include <unordered_map>

namespace phc::report {

namespace {

/// Groups the steps by object; sorts objects by cost and their steps by start.
std::vector<ObjectCost> group_objects(const Build& b) {
    std::unordered_map<std::string_view, size_t> index;
    std::vector<ObjectCost> objects;
    for (uint32_t i = 0; i < b.steps.size(); ++i) {
        const Step& s = b.steps[i];
        auto [it, fresh] = index.try_emplace(s.object, objects.size());
        if (fresh) objects.push_back(ObjectCost{s.object, 0, 0, false, {}});
        ObjectCost& o = objects[it->second];
        o.total_ms += s.time;
        o.split = o.split || s.kind == Kind::Device || s.kind == Kind::DeviceLink;
        o.steps.push_back(i);
    }
    for (ObjectCost& o : objects) {
        std::sort(o.steps.begin(), o.steps.end(), [&](uint32_t x, uint32_t y) {
            return b.steps[x].start != b.steps[y].start ? b.steps[x].start < b.steps[y].start
                                                        : x < y;
        });
        int64_t first = b.steps[o.steps.front()].start, last = first;
        for (uint32_t i : o.steps)
            last = std::max(last, b.steps[i].end);
        o.span_ms = last - first;
    }
    std::stable_sort(objects.begin(), objects.end(), [](const ObjectCost& x, const ObjectCost& y) {
        return x.total_ms > y.total_ms;
    });
    return objects;
}

/// One object's line: its cost unsplit, and per step kind what it took.
std::string object_line(const Analysis& a, const ObjectCost& o) {
    std::string parts;
    for (uint32_t i : o.steps) {
        const Step& s = a.build.steps[i];
        if (!parts.empty()) parts += ", ";
        parts += fmt::format("{} {}", short_label(s), seconds(static_cast<double>(s.time)));
    }
    if (!o.split)
        return fmt::format("  {:>9}  {}  ({})\n", seconds(static_cast<double>(o.total_ms)),
                           o.object, parts);
    return fmt::format("  {:>9}  {}  (split: done in {}; {})\n",
                       seconds(static_cast<double>(o.total_ms)), o.object,
                       seconds(static_cast<double>(o.span_ms)), parts);
}

} // namespace

std::string seconds(double ms) {
    return fmt::format("{:.1f} s", ms / 1000.0);
}

std::string python_float(double d) {
    std::string s = fmt::format("{}", d);
    if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
    return s;
}

std::string json_string(std::string_view s) {
    std::string out = "\"";
    for (char c : s) {
        unsigned char u = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (u < 0x20) {
            out += fmt::format("\\u{:04x}", static_cast<unsigned>(u));
        } else {
            out += c;
        }
    }
    return out + "\"";
}

Dag make_dag(const Build& build) {
    Dag d;
    d.time.reserve(build.steps.size());
    d.deps.reserve(build.steps.size());
    for (const Step& s : build.steps) {
        d.time.push_back(s.time);
        d.deps.push_back(s.deps);
    }
    return d;
}

Analysis analyse(Build build, int cores) {
    Analysis a;
    a.build = std::move(build);
    a.cores = std::max(cores, 1);
    a.bound = compute_bound(make_dag(a.build), a.cores);
    for (const Step& s : a.build.steps)
        a.by_kind_ms[kind_key(s.kind, s.arch)] += s.time;
    a.objects = group_objects(a.build);
    a.on_critical_path.assign(a.build.steps.size(), 0);
    for (uint32_t i : a.bound.critical_path)
        a.on_critical_path[i] = 1;
    return a;
}

std::string json_summary(const Analysis& a) {
    const Bound& b = a.bound;
    std::string bound =
        b.bound_is_critical ? fmt::format("{}", b.critical_ms) : python_float(b.bound_ms);
    std::string kinds;
    for (const auto& [kind, ms] : a.by_kind_ms)
        kinds += fmt::format("{}{}: {}", kinds.empty() ? "" : ", ", json_string(kind), ms);
    return fmt::format("{{\"wall_ms\": {}, \"work_ms\": {}, \"critical_path_ms\": {}, "
                       "\"bound_ms\": {}, \"list_schedule_ms\": {}, \"cores\": {}, "
                       "\"by_kind_ms\": {{{}}}}}\n",
                       a.build.wall_ms, b.work_ms, b.critical_ms, bound, b.list_schedule_ms,
                       a.cores, kinds);
}

std::string text_summary(const Analysis& a, std::string_view where) {
    const Bound& b = a.bound;
    const Build& build = a.build;
    std::string out = fmt::format("last build in {} (the last of {} in its log): {} steps, "
                                  "wall {}, work {}\n",
                                  where, build.runs, build.steps.size(),
                                  seconds(static_cast<double>(build.wall_ms)),
                                  seconds(static_cast<double>(b.work_ms)));
    out += "time per kind of step:\n";
    for (const auto& [kind, ms] : a.by_kind_ms)
        out += fmt::format("  {:<45} {:>9}\n", kind, seconds(static_cast<double>(ms)));
    out += fmt::format("best any schedule could reach on {} cores: {} (critical path {}; "
                       "critical-path-first schedule {})\n",
                       a.cores, seconds(b.bound_ms), seconds(static_cast<double>(b.critical_ms)),
                       seconds(static_cast<double>(b.list_schedule_ms)));
    out += "slowest objects (their steps' sum: what each would cost unsplit):\n";
    for (size_t i = 0; i < a.objects.size() && i < 10; ++i)
        out += object_line(a, a.objects[i]);
    out += fmt::format("critical path: {} in {} steps\n",
                       seconds(static_cast<double>(b.critical_ms)), b.critical_path.size());
    for (uint32_t i : b.critical_path) {
        const Step& s = build.steps[i];
        out += fmt::format("  {:>7.1f} {:>7.1f}  {:<28} {}\n",
                           static_cast<double>(s.start - build.first_start) / 1000.0,
                           static_cast<double>(s.end - build.first_start) / 1000.0,
                           kind_key(s.kind, s.arch), s.output);
    }
    return out;
}

} // namespace phc::report
