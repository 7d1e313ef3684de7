// The numbers of a report: per kind of step, per object, the bound; and the
// summary as text and as the JSON the former scripts/ninja-timing --json printed.
#pragma once

#include "report/bound.h"
#include "report/build.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace phc::report {

/// The steps of one object (or linked file) and what they cost.
struct ObjectCost {
    std::string object;
    int64_t total_ms = 0;        ///< the sum of its steps: what it costs unsplit
    int64_t span_ms = 0;         ///< its last step's end - its first step's start
    bool split = false;          ///< it has per-architecture device steps
    std::vector<uint32_t> steps; ///< indices into Build::steps, by start
};

/// Everything the outputs show.
struct Analysis {
    Build build;
    Bound bound;
    int cores = 1;
    std::map<std::string, int64_t> by_kind_ms; ///< kind_key() -> summed time
    std::vector<ObjectCost> objects;           ///< by total_ms, largest first
    std::vector<char> on_critical_path;        ///< per step
};

/// Computes the per-kind and per-object tables and the bound on `cores` workers.
Analysis analyse(Build build, int cores);

/// The dependency graph of the steps, for compute_bound().
Dag make_dag(const Build& build);

/// The summary as JSON, with the former scripts/ninja-timing --json's keys, order and
/// spacing: wall_ms, work_ms, critical_path_ms, bound_ms (an integer when the
/// critical path is the bound, else a float), list_schedule_ms, cores, by_kind_ms.
std::string json_summary(const Analysis& a);

/// The summary for people: wall time, work, time per kind, the bound, the
/// slowest objects and the critical path. `where` names the build directory.
std::string text_summary(const Analysis& a, std::string_view where);

/// `ms` as seconds with one decimal ("12.3 s").
std::string seconds(double ms);

/// `s` as a JSON string literal (quotes included).
std::string json_string(std::string_view s);

/// A double as Python's repr prints it (shortest round trip, ".0" when whole).
std::string python_float(double d);

} // namespace phc::report
