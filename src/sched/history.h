// The step records' history outside the build directory: the first full
// build of a fresh build directory (every CI job, every new checkout) has no
// .ninja_log and no step records, so without it regen and gen keep CMake's
// order and every step reserves its kind's default.
//
// Each step the runner records (steps.h) is also appended to the project's
// history file, in the same format and bounded the same way: one file per
// project in the history folder (PHC_HISTORY, else
// $XDG_CACHE_HOME/phc-ninja/history, else ~/.cache/phc-ninja/history; a CI
// cache keeps it). Records name outputs as ninja does, relative to the build
// directory, so another build directory or checkout of the same project
// (the same key: CMake's project name and build type, or gen's source
// folder's name) finds them. regen and gen keep the file's path in
// .phc-ninja/history for the runner (never in a command), and, when the build
// directory has no .ninja_log, order the edges by the history's wall times;
// when it has no step records, the history's last record per output seeds
// them, so that each step's estimate is its own last peak. A stale or foreign
// history changes only the order and the estimates, never a command or an
// output.
#pragma once

#include "sched/steps.h"
#include "util/error.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace phc::sched {

/// The file in the records folder that names the history file.
inline constexpr std::string_view kHistoryFile = "history";

/// The history folder: PHC_HISTORY, else $XDG_CACHE_HOME/phc-ninja/history,
/// else $HOME/.cache/phc-ninja/history; "" when PHC_HISTORY is "off" or there
/// is no home.
std::string history_dir();

/// The project's history file in `dir` ("" when `dir` or the key is ""; a
/// build whose project has no name keeps no history): the key made
/// a safe file name, with a hash of it (keys that differ only in unsafe
/// characters stay apart).
std::string history_file(const std::string& dir, std::string_view project_key);

/// Keeps `path` in DIR/history for the build's steps (atomically), or removes
/// that file when `path` is "". An error naming the file.
Status keep_history_path(const std::string& records_dir, const std::string& path);

/// The history file the records folder names, or "" (none kept). An error
/// naming DIR/history when it is there but no regular file of a bounded size
/// (a fifo, a device): the caller warns and keeps no history.
Result<std::string> kept_history_path(const std::string& records_dir);

/// The last record of each output in the history file `path` (none when it
/// is missing). An error naming it when it is no regular file of at most
/// kMaxStepsBytes: the caller warns and goes on without (a history never
/// breaks a build).
Result<std::vector<StepRecord>> last_records(const std::string& path);

/// How long each output's step took (wall ms), from `records`.
std::unordered_map<std::string, int64_t> wall_times(const std::vector<StepRecord>& records);

/// Writes `records` as DIR/steps when it has none yet (a fresh build
/// directory); Ok and nothing written otherwise.
Status seed_steps(const std::string& records_dir, const std::vector<StepRecord>& records);

/// Appends `records` to the history file the records folder names, if any
/// (the runner, after its own records). An error when it cannot.
Status append_history(const std::string& records_dir, const std::vector<StepRecord>& records);

} // namespace phc::sched
