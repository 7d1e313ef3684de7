#include "report/trace.h"

#include <fmt/format.h>

namespace phc::report {

namespace {

/// The last path component.
std::string_view base_name(std::string_view path) {
    size_t slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

} // namespace

std::string step_label(const Step& s) {
    std::string word = short_label(s);
    std::string_view what = s.kind == Kind::Other ? base_name(s.output) : base_name(s.object);
    return word.empty() ? std::string(what) : fmt::format("{} {}", word, what);
}

std::vector<uint32_t> step_lanes(const Build& b) {
    std::vector<int64_t> start, end;
    start.reserve(b.steps.size());
    end.reserve(b.steps.size());
    for (const Step& s : b.steps) {
        start.push_back(s.start);
        end.push_back(s.end);
    }
    return assign_lanes(start, end);
}

std::string trace_json(const Analysis& a) {
    const Build& b = a.build;
    std::vector<uint32_t> lane = step_lanes(b);
    // One event a line, each written as it is made (a large build has 100,000).
    std::string out = "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
    out += json_text({{"name", "process_name"},
                      {"ph", "M"},
                      {"pid", 1},
                      {"tid", 0},
                      {"args", {{"name", "ninja build"}}}});
    for (uint32_t i = 0; i < b.steps.size(); ++i) {
        const Step& s = b.steps[i];
        Json args = {{"kind", kind_key(s.kind, s.arch)},
                     {"arch", s.arch},
                     {"object", s.object},
                     {"output", s.output},
                     {"time_ms", s.cost}};
        if (s.cpu_ms >= 0) {
            args["cpu_ms"] = s.cpu_ms;
            args["wait_ms"] = s.wait_ms;
            args["peak_bytes"] = s.peak;
        }
        if (a.on_critical_path[i]) args["critical"] = true;
        out += ",\n" + json_text({{"name", step_label(s)},
                                  {"cat", std::string(kind_name(s.kind))},
                                  {"ph", "X"},
                                  {"pid", 1},
                                  {"tid", lane[i]},
                                  {"ts", (s.start - b.first_start) * 1000},
                                  {"dur", s.time * 1000},
                                  {"args", std::move(args)}});
    }
    out += "\n]}\n";
    return out;
}

} // namespace phc::report
