// What the measured steps of a build allow: the critical path, the best time
// any schedule of them could reach on N cores, a critical-path-first list
// schedule, and lanes for drawing them (the algorithms of the former
// scripts/ninja-timing).
#pragma once

#include <cstdint>
#include <vector>

namespace phc::report {

/// Steps with durations and dependencies (indices of the steps each one waits for).
struct Dag {
    std::vector<int64_t> time;               ///< milliseconds per step
    std::vector<std::vector<uint32_t>> deps; ///< per step, the steps it needs (no duplicates)
    /// Per step, 1 when its work runs on a farm: it takes no worker of the
    /// `cores` (the farm is taken as unbounded, so the bound stays a lower
    /// bound). Empty: every step is local.
    std::vector<char> remote = {};
};

/// What compute_bound() finds.
struct Bound {
    int64_t work_ms = 0;     ///< the sum of all step times
    int64_t local_ms = 0;    ///< the sum of the local steps' times (work_ms less the farm's)
    int64_t critical_ms = 0; ///< the longest chain of dependent steps
    double bound_ms = 0;     ///< no schedule on `cores` workers can finish sooner
    bool bound_is_critical =
        true; ///< bound_ms is critical_ms (an integer, as the script printed it)
    int64_t list_schedule_ms = 0;        ///< what a critical-path-first list schedule reaches
    std::vector<uint32_t> critical_path; ///< the steps of one longest chain, first to last
};

/// Computes the bound as the script did: the largest of the critical path,
/// the work / cores, and for every step v (the work of v's ancestors) / cores +
/// the longest chain starting at v; work on a farm (Dag::remote) counts on the
/// chains only, never against the cores, and then also, for every time t, t +
/// the local work whose chain before it takes at least t, / cores. Dependency cycles (never in a
/// ninja build) are broken by ignoring the dependencies that close them.
Bound compute_bound(const Dag& dag, int cores);

/// Only the critical-path-first list schedule of compute_bound(): its makespan.
int64_t list_schedule_ms(const Dag& dag, int cores);

/// Assigns each interval [start, end) to a lane so that no two in a lane
/// overlap, reusing the lowest free lane (so lanes = the most running at once).
std::vector<uint32_t> assign_lanes(const std::vector<int64_t>& start,
                                   const std::vector<int64_t>& end);

} // namespace phc::report
