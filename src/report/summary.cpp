#include "report/summary.h"

#include "sched/memory.h"

#include <algorithm>
#include <cmath>
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
        o.total_ms += s.cost;
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
        std::string label = short_label(s);
        parts += fmt::format("{}{}{}", label, label.empty() ? "" : " ",
                             seconds(static_cast<double>(s.cost)));
    }
    if (!o.split) {
        auto g = std::find_if(a.guesses.begin(), a.guesses.end(),
                              [&](const SplitGuess& x) { return x.step == o.steps.front(); });
        if (g != a.guesses.end())
            parts += fmt::format("; split, about {} with a core per architecture",
                                 seconds(static_cast<double>(g->split_ms)));
        return fmt::format("  {:>9}  {}  ({})\n", seconds(static_cast<double>(o.total_ms)),
                           o.object, parts);
    }
    return fmt::format("  {:>9}  {}  (split: done in {}; {})\n",
                       seconds(static_cast<double>(o.total_ms)), o.object,
                       seconds(static_cast<double>(o.span_ms)), parts);
}

} // namespace

std::string seconds(double ms) {
    return fmt::format("{:.1f} s", ms / 1000.0);
}

std::string json_text(const Json& j) {
    return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

Analysis analyse(Build build, int cores) {
    Analysis a;
    a.build = std::move(build);
    a.cores = std::max(cores, 1);
    measure_concurrency(a.build);
    set_costs(a.build, a.cores);
    a.bound = compute_bound(cost_dag(a.build), a.cores);
    // Never a bound the measured build beat (CPU times of steps that used
    // several cores can sum to more than cores × wall).
    a.bound_beaten = a.bound.bound_ms > static_cast<double>(a.build.wall_ms);
    for (const Step& s : a.build.steps) {
        a.by_kind_ms[kind_key(s.kind, s.arch)] += s.cost;
        a.wall_work_ms += s.time;
    }
    a.objects = group_objects(a.build);
    a.on_critical_path.assign(a.build.steps.size(), 0);
    for (uint32_t i : a.bound.critical_path)
        a.on_critical_path[i] = 1;
    a.unsplit_ms = unsplit_schedule_ms(a.build, a.cores);
    a.guesses = split_guesses(a.build);
    a.split_guess_ms = split_schedule_ms(a.build, a.cores);
    return a;
}

std::vector<std::pair<std::string, int64_t>> kinds_by_cost(const Analysis& a) {
    std::vector<std::pair<std::string, int64_t>> kinds(a.by_kind_ms.begin(), a.by_kind_ms.end());
    std::stable_sort(kinds.begin(), kinds.end(),
                     [](const auto& x, const auto& y) { return x.second > y.second; });
    return kinds;
}

std::string concurrency_words(const Analysis& a) {
    const Build& b = a.build;
    std::string out = fmt::format("up to {} steps at once, {:.1f} on average, on {} cores",
                                  b.max_running, b.mean_running, a.cores);
    if (b.max_running > a.cores)
        out += ": more than the cores, so a step's wall time includes waiting for a core";
    return out;
}

std::string cost_basis(const Analysis& a) {
    const Build& b = a.build;
    size_t n = b.steps.size(), wall = n - b.cpu_steps;
    std::string out;
    const size_t cpu = b.cpu_steps - b.remote_steps;
    if (cpu > 0)
        out = fmt::format("CPU time (recorded by phc-ninja step) for {} of {} steps", cpu, n);
    if (b.remote_steps > 0)
        out += fmt::format("{}wall time for the {} whose work ran on a farm",
                           out.empty() ? "" : "; ", b.remote_steps);
    if (wall == 0) return out;
    if (!out.empty()) out += "; for the others, ";
    out += b.max_running > a.cores
               ? fmt::format("wall time counted as a share of the {} cores while more steps ran "
                             "(k > {} at once: {}/k each)",
                             a.cores, a.cores, a.cores)
               : std::string("wall time (no more steps ran at once than cores)");
    return out;
}

namespace {

/// An object as Python's json.dumps spaces it (", " and ": "), as the former
/// script printed it; its values as json_text() writes them.
std::string python_spaced(const Json& j) {
    if (!j.is_object()) return json_text(j);
    std::string out;
    for (const auto& [key, value] : j.items())
        out += (out.empty() ? "" : ", ") + json_text(key) + ": " + python_spaced(value);
    return "{" + out + "}";
}

} // namespace

/// The memory section of --json: the budget, the most reserved and measured
/// at once, the time waited (null without step records).
Json memory_json(const Build& b) {
    if (b.cpu_steps == 0) return Json(nullptr);
    const MemoryLevels m = memory_levels(b);
    return Json{{"budget_bytes", b.budget},
                {"budget_from", b.budget_from},
                {"most_reserved_bytes", m.most_reserved},
                {"most_measured_bytes", m.most_measured},
                {"waited_ms", m.waited_ms}};
}

namespace {

/// The share of the cores × wall the local steps' work filled (0 to 1 and more).
double local_busy(const Analysis& a) {
    const double capacity = static_cast<double>(a.cores) * static_cast<double>(a.build.wall_ms);
    return capacity > 0 ? static_cast<double>(a.bound.local_ms) / capacity : 0;
}

} // namespace

std::string json_summary(const Analysis& a) {
    const Bound& b = a.bound;
    auto or_null = [](int64_t ms) { return ms > 0 ? Json(ms) : Json(nullptr); };
    Json kinds = Json::object();
    for (const auto& [kind, ms] : a.by_kind_ms)
        kinds[kind] = ms;
    const Json summary = {
        {"wall_ms", a.build.wall_ms},
        {"work_ms", b.work_ms},
        {"critical_path_ms", b.critical_ms},
        {"bound_ms", a.bound_beaten        ? Json(nullptr)
                     : b.bound_is_critical ? Json(b.critical_ms)
                                           : Json(b.bound_ms)},
        {"list_schedule_ms", b.list_schedule_ms},
        {"cores", a.cores},
        {"wall_work_ms", a.wall_work_ms},
        {"max_running", a.build.max_running},
        {"mean_running", std::round(a.build.mean_running * 100) / 100},
        {"cpu_steps", a.build.cpu_steps},
        {"bound_beaten", a.bound_beaten},
        {"unsplit_ms", or_null(a.unsplit_ms)},
        {"split_estimate_ms", or_null(a.split_guess_ms)},
        {"by_kind_ms", kinds},
        {"memory", memory_json(a.build)},
        {"farm", a.build.remote_steps == 0
                     ? Json(nullptr)
                     : Json{{"steps", a.build.remote_steps},
                            {"wall_ms", a.bound.work_ms - a.bound.local_ms},
                            {"local_work_ms", a.bound.local_ms},
                            {"local_busy", std::round(local_busy(a) * 1000) / 1000}}},
    };
    return python_spaced(summary) + "\n";
}

std::string farm_words(const Analysis& a) {
    if (a.build.remote_steps == 0) return {};
    return fmt::format("{} of {} steps ran on a farm, {} of their wall time (counted as it is, "
                       "never against the cores); the workstation's own steps used {} of its "
                       "{} cores × {} ({:.0f}% busy)",
                       a.build.remote_steps, a.build.steps.size(),
                       seconds(static_cast<double>(a.bound.work_ms - a.bound.local_ms)),
                       seconds(static_cast<double>(a.bound.local_ms)), a.cores,
                       seconds(static_cast<double>(a.build.wall_ms)), 100 * local_busy(a));
}

std::string bound_words(const Analysis& a) {
    const Bound& b = a.bound;
    if (a.bound_beaten)
        return fmt::format("no bound on {} cores: the steps' times need {} at least, and the build "
                           "took {} (steps that used several cores each, or more cores than {})",
                           a.cores, seconds(b.bound_ms),
                           seconds(static_cast<double>(a.build.wall_ms)), a.cores);
    return fmt::format("best any schedule could reach on {} cores: {} (critical path {}; "
                       "critical-path-first schedule {})",
                       a.cores, seconds(b.bound_ms), seconds(static_cast<double>(b.critical_ms)),
                       seconds(static_cast<double>(b.list_schedule_ms)));
}

std::vector<std::string> split_lines(const Analysis& a) {
    std::vector<std::string> out;
    if (a.unsplit_ms > 0)
        out.push_back(fmt::format(
            "the split build took {}; its steps, one object after another as the driver runs "
            "them, would have taken about {} on the same {} cores (a critical-path-first "
            "schedule of the step times above with each split object's steps summed into one; "
            "the same schedule of the split steps: {})",
            seconds(static_cast<double>(a.build.wall_ms)),
            seconds(static_cast<double>(a.unsplit_ms)), a.cores,
            seconds(static_cast<double>(a.bound.list_schedule_ms))));
    if (a.split_guess_ms > 0) {
        int64_t saved = a.bound.list_schedule_ms - a.split_guess_ms;
        std::string what =
            saved > 0 ? fmt::format("would save about {} of the {} it took",
                                    seconds(static_cast<double>(saved)),
                                    seconds(static_cast<double>(a.build.wall_ms)))
                      : std::string("would not make it faster (the cores are busy without it)");
        out.push_back(fmt::format(
            "splitting its {} whole HIP compiles {}, on the same {} cores (an estimate: a "
            "critical-path-first schedule of the step times above takes {}, and {} with each "
            "compile of N architectures taken as N device compiles side by side then a host "
            "compile, each 1/(N+1) of its time, the bundle free)",
            a.guesses.size(), what, a.cores, seconds(static_cast<double>(a.bound.list_schedule_ms)),
            seconds(static_cast<double>(a.split_guess_ms))));
    }
    return out;
}

std::string text_summary(const Analysis& a, std::string_view where) {
    const Bound& b = a.bound;
    const Build& build = a.build;
    std::string out = fmt::format("last build in {} (the last of {} in its log): {} steps, "
                                  "wall {}, work {}\n",
                                  where, build.runs, build.steps.size(),
                                  seconds(static_cast<double>(build.wall_ms)),
                                  seconds(static_cast<double>(b.work_ms)));
    out += fmt::format("concurrency: {}\n", concurrency_words(a));
    out += fmt::format("step times: {} (their wall times sum to {})\n", cost_basis(a),
                       seconds(static_cast<double>(a.wall_work_ms)));
    if (std::string farm = farm_words(a); !farm.empty()) out += "farm: " + farm + "\n";
    out += "time per kind of step:\n";
    for (const auto& [kind, ms] : kinds_by_cost(a))
        out += fmt::format(
            "  {:<45} {:>9} {:>5.1f}%\n", kind, seconds(static_cast<double>(ms)),
            b.work_ms > 0 ? 100.0 * static_cast<double>(ms) / static_cast<double>(b.work_ms) : 0.0);
    out += bound_words(a) + "\n";
    if (a.build.cpu_steps > 0) {
        const MemoryLevels m = memory_levels(a.build);
        out += fmt::format("memory: at most {} reserved and {} measured at once (the recorded "
                           "peaks summed) against a budget of {} ({}); steps waited {} for it\n",
                           sched::format_size(m.most_reserved), sched::format_size(m.most_measured),
                           sched::format_size(a.build.budget), a.build.budget_from,
                           seconds(static_cast<double>(m.waited_ms)));
    }
    for (const std::string& line : split_lines(a))
        out += line + "\n";
    out += "slowest objects (their steps' times summed: what each would cost unsplit):\n";
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
