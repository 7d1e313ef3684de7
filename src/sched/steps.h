// The step records: one line per output of every step `phc-ninja step` ran,
// appended to <records dir>/steps, and the memory estimate read from them.
//
// A line is ten tab-separated fields:
//
//     v1 START_MS WALL_MS CPU_MS WAIT_MS RESERVED PEAK EXIT KIND OUTPUT
//
// START_MS: when its command started (Unix time, ms; the wait for memory came
// before); WALL_MS: how long the command ran; CPU_MS: its user + system time
// (the command and every descendant it waited for); WAIT_MS: how long the
// step waited for memory before;
// RESERVED: the bytes it reserved (its estimate); PEAK: the peak resident
// size measured, in bytes (the largest of one process of the step: wait4's
// ru_maxrss, which covers the command and the descendants it waited for, the
// driver and its cc1 both, but not their sum); EXIT: the status as a shell
// gives it (128+N for signal N); KIND: device, host, bundle, link, devlink,
// embed or other; OUTPUT: the output's path as the step was told (no tab, no
// newline: the last field, so it may hold spaces).
//
// Appends are one write(2) to a file open O_APPEND, under the lock
// <file>.lock, so lines of parallel steps never mix; one that a full disk or
// a file size limit cut short is truncated away again. A line a SIGKILL cut
// short has no newline, or runs into the next line; either way its field
// count or a field is wrong, and readers skip it (losing one record costs one
// estimate, never a build). The file is bounded: the append that makes it
// reach kCompactAt bytes (or twice, four times that, ...) keeps the last line
// of each output (still under the lock, replaced atomically) when that saves
// a quarter of it, so the rewrites cost in proportion to the appends, also
// for builds with more outputs than kCompactAt holds.
//
// Estimates, when a step starts (the defaults, for steps without history):
//   - the output's own last peak, plus 10%;
//   - else the largest peak recorded for its kind, plus 10%;
//   - else the kind's default: device compile 1 GiB, host compile 1 GiB,
//     device link 2 GiB, link 1 GiB, bundle and embed 64 MiB, other 1 GiB.
// and its expected time, which lets it pass a waiting step it does not delay
// (budget.h): the longest of its outputs' last wall times, plus 10%; unknown
// when an output has none.
#pragma once

#include "util/error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace phc::sched {

/// What a step does (its estimate without history, the per-kind maximum).
/// What a step does, for its memory estimate; Remote: a compile whose work
/// runs on a farm (its local process is the engine's client).
enum class Kind { Device, Host, Bundle, Link, Devlink, Embed, Other, Remote };

/// The kind called `name` ("device", ...), or none.
std::optional<Kind> kind_named(std::string_view name);
/// The kind's name in records.
std::string_view kind_name(Kind kind);
/// The estimate of a step of `kind` without any record.
uint64_t default_estimate(Kind kind);

/// One record: one output of one step.
struct StepRecord {
    int64_t start_ms = 0;
    int64_t wall_ms = 0;
    int64_t cpu_ms = 0;
    int64_t wait_ms = 0;
    uint64_t reserved = 0;
    uint64_t peak = 0;
    int exit_code = 0;
    Kind kind = Kind::Other;
    std::string output;
};

/// The line of `r`, newline included.
std::string record_line(const StepRecord& r);
/// The record of one line (without its newline); none when it is torn or foreign.
std::optional<StepRecord> parse_record(std::string_view line);
/// Every whole record of a steps file, in order; torn lines skipped.
std::vector<StepRecord> parse_records(std::string_view text);

/// Appends the lines of `records` to `path` in one write, all or nothing, and
/// compacts the file when it grew past kCompactAt. An error when it cannot be
/// appended (the caller warns: records never fail a build).
Status append_records(const std::string& path, const std::vector<StepRecord>& records);

/// The size past which a steps file is compacted.
inline constexpr size_t kCompactAt = 4u << 20;
/// The size past which a steps file is not read (the records of a build of
/// about 250,000 outputs, twice over).
inline constexpr size_t kMaxStepsBytes = 16 * kCompactAt;

/// The longest wall time an estimate takes from a record (a year, in ms).
inline constexpr int64_t kMaxWallMs = int64_t{365} * 24 * 3600 * 1000;

/// What a step is expected to take.
struct Estimate {
    uint64_t bytes = 0;  ///< memory (see the header comment)
    int64_t wall_ms = 0; ///< time: its outputs' last wall time +10%; 0 when one has none
};

/// The estimate of a step of `kind` writing `outputs`, from a steps file's
/// text (see the header comment): the largest of its outputs' last peaks and
/// wall times.
Estimate estimate(std::string_view steps, const std::vector<std::string>& outputs, Kind kind);

} // namespace phc::sched
