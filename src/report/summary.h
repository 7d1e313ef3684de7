// The numbers of a report: per kind of step, per object, the bound; and the
// summary as text and as the JSON the former scripts/ninja-timing --json printed.
#pragma once

#include "report/bound.h"
#include "report/build.h"
#include "report/model.h"

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace phc::report {

/// The steps of one object (or linked file) and what they cost.
struct ObjectCost {
    std::string object;
    int64_t total_ms = 0;        ///< the sum of its steps' costs: what it costs unsplit
    int64_t span_ms = 0;         ///< its last step's end - its first step's start
    bool split = false;          ///< it has per-architecture device steps
    std::vector<uint32_t> steps; ///< indices into Build::steps, by start
};

/// Everything the outputs show. Times of steps are their costs (model.h).
struct Analysis {
    Build build;
    Bound bound; ///< of the steps' costs
    int cores = 1;
    int64_t wall_work_ms = 0;                  ///< the sum of the steps' wall times
    bool bound_beaten = false;                 ///< the build beat bound.bound_ms: not shown
    int64_t unsplit_ms = 0;                    ///< unsplit_schedule_ms(), 0: nothing split
    int64_t split_guess_ms = 0;                ///< split_schedule_ms(), 0: nothing to split
    std::vector<SplitGuess> guesses;           ///< split_guesses()
    std::map<std::string, int64_t> by_kind_ms; ///< kind_key() -> summed cost
    std::vector<ObjectCost> objects;           ///< by total_ms, largest first
    std::vector<char> on_critical_path;        ///< per step
};

/// Measures the concurrency, sets the steps' costs on `cores` (the CPU
/// times attached before are kept), and computes the per-kind and
/// per-object tables, the bound and the split and unsplit estimates.
Analysis analyse(Build build, int cores);

/// The kinds by cost, largest first (ties by name).
std::vector<std::pair<std::string, int64_t>> kinds_by_cost(const Analysis& a);

/// How the steps' times were taken, in words ("CPU time recorded for 3 of 12
/// steps, the others' wall time ...").
std::string cost_basis(const Analysis& a);

/// The concurrency in words ("up to 4 steps at once, 2.7 on average, on 2 cores: ...").
std::string concurrency_words(const Analysis& a);

/// The farm's share in words, or "" when no step's work ran on a farm: the
/// steps that ran elsewhere and their wall time, and how busy the
/// workstation's cores were (the local steps' work over cores × wall).
std::string farm_words(const Analysis& a);

/// The bound in words, or why there is none (the build beat it).
std::string bound_words(const Analysis& a);

/// In words: the split build against its steps one object after another (when
/// it split objects), and the estimate of its whole HIP compiles split (when it
/// has some): none, one or two lines.
std::vector<std::string> split_lines(const Analysis& a);

/// The summary as JSON: the former scripts/ninja-timing --json's keys, order
/// and spacing (Python's json.dumps: ", " and ": ") (wall_ms, work_ms, critical_path_ms, bound_ms:
/// an integer when the critical path is the bound, else a float, null when the build beat it;
/// list_schedule_ms, cores),
/// then wall_work_ms, max_running, mean_running, cpu_steps, bound_beaten,
/// unsplit_ms and split_estimate_ms (null when they do not apply), by_kind_ms,
/// memory, and farm (steps, wall_ms, local_work_ms, local_busy; null when no
/// step ran on a farm).
/// work_ms and the kinds are the steps' costs.
std::string json_summary(const Analysis& a);

/// The summary for people: wall time, work, time per kind, the bound, the
/// slowest objects and the critical path. `where` names the build directory.
std::string text_summary(const Analysis& a, std::string_view where);

/// `ms` as seconds with one decimal ("12.3 s").
std::string seconds(double ms);

/// JSON values keep their keys in the order they were added.
using Json = nlohmann::ordered_json;

/// `j` as compact JSON text; bytes that are not UTF-8 become U+FFFD (a path
/// in the log can hold any bytes; nlohmann_json would throw on them). Numbers
/// are spelled as Python's repr spells them (shortest round trip, "2.0").
std::string json_text(const Json& j);

} // namespace phc::report
