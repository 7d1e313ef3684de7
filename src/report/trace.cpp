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
    std::string out = "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
    out += "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,"
           "\"args\":{\"name\":\"ninja build\"}}";
    for (uint32_t i = 0; i < b.steps.size(); ++i) {
        const Step& s = b.steps[i];
        fmt::format_to(std::back_inserter(out),
                       ",\n{{\"name\":{},\"cat\":{},\"ph\":\"X\",\"pid\":1,\"tid\":{},\"ts\":{},"
                       "\"dur\":{},\"args\":{{\"kind\":{},\"arch\":{},\"object\":{},\"output\":{},"
                       "\"time_ms\":{}{}{}}}}}",
                       json_string(step_label(s)), json_string(kind_name(s.kind)), lane[i],
                       (s.start - b.first_start) * 1000, s.time * 1000,
                       json_string(kind_key(s.kind, s.arch)), json_string(s.arch),
                       json_string(s.object), json_string(s.output), s.cost,
                       s.cpu_ms < 0 ? std::string()
                                    : fmt::format(",\"cpu_ms\":{},\"wait_ms\":{},\"peak_bytes\":{}",
                                                  s.cpu_ms, s.wait_ms, s.peak),
                       a.on_critical_path[i] ? ",\"critical\":true" : "");
    }
    out += "\n]}\n";
    return out;
}

} // namespace phc::report
