// What each step cost a core, and what the build would have taken split
// differently: the model behind the report's numbers.
//
// ninja's log gives each step's wall time. When more steps ran at once than
// there are cores, that time includes waiting for a core: summed, it is no
// measure of work, and work / cores is no bound. So each step's cost is:
//   - its CPU time (user + system) when `phc-ninja step` recorded it in
//     .phc-ninja/steps (matched by output, and only when the record lies in
//     the log's last build: see attach_records());
//   - else its core share: its wall time, where every moment that k > cores
//     steps ran counts cores / k (the share of a core each had if all were
//     busy). Equal to its wall time when no more steps ran than cores.
// The shares of all steps never exceed cores × wall time, so neither the
// work / cores nor the critical path of the shares exceed the measured build.
#pragma once

#include "report/bound.h"
#include "report/build.h"
#include "sched/steps.h"

#include <cstdint>
#include <vector>

namespace phc::report {

/// Fills max_running and mean_running of `b` from its steps' intervals.
void measure_concurrency(Build& b);

/// Each step's core share on `cores` (see the header comment), in ms.
std::vector<int64_t> core_shares(const Build& b, int cores);

/// Copies CPU time, waiting time and peak memory from `records` (the step
/// records, oldest first) into the steps they belong to: the last record of a
/// step's output, when it succeeded and its start (less its wait for memory)
/// is within 1 s of the step's start in the log once the records' clock is put
/// on the log's (by the difference most records agree on, within 1 s; the
/// newest on ties): records of an earlier build for outputs the last one
/// rebuilt without phc-ninja step are left out so. When `log_written_ms` (the
/// log's last write, Unix ms; 0: unknown) is given, that clock must put the
/// last step's end within 3 s of it, else none matches (an earlier build's
/// records alone). Returns how many matched.
size_t attach_records(Build& b, const std::vector<sched::StepRecord>& records,
                      int64_t log_written_ms = 0);

/// Sets each step's cost: its CPU time when recorded, else its core share.
void set_costs(Build& b, int cores);

/// The steps as a graph of their costs.
Dag cost_dag(const Build& b);

/// The critical-path-first schedule on `cores` of the build with each split
/// object's (or RDC link's) steps summed into one step, as the driver runs
/// them one after another; dependencies are the steps' own. 0 when nothing is split.
int64_t unsplit_schedule_ms(const Build& b, int cores);

/// The estimate for a whole HIP compile of N architectures split: N device
/// steps and a host step, each cost / (N + 1) (assumed: the host compile and
/// each architecture's device compile cost alike; the bundle is free).
struct SplitGuess {
    uint32_t step = 0;    ///< the whole HIP compile
    int archs = 0;        ///< its architectures
    int64_t whole_ms = 0; ///< its cost
    int64_t split_ms = 0; ///< one device step then the host step: 2 × cost / (N + 1)
};

/// The guesses for each whole HIP compile of 2 or more architectures, largest first.
std::vector<SplitGuess> split_guesses(const Build& b);

/// The critical-path-first schedule on `cores` of the build with every whole
/// HIP compile split as split_guesses() assumes. 0 when none would be split.
int64_t split_schedule_ms(const Build& b, int cores);

} // namespace phc::report
