// Reading ninja's .ninja_log: the entries of the last build in it.
#pragma once

#include "util/error.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace phc::report {

/// One output's line of the log: its edge's start and end, in milliseconds
/// since the build started.
struct LogEntry {
    int64_t start = 0;
    int64_t end = 0;
    std::string output;
};

/// The last build recorded in a log.
struct BuildLog {
    int version = 0;               ///< the header's version (4 to 7)
    size_t runs = 0;               ///< how many builds the log holds
    std::vector<LogEntry> entries; ///< the last build's, one per output, in first-logged order
};

/// Parses the text of a ninja log (v4 of ninja 1.9, v5 of ninja 1.10-1.11, v6
/// of 1.12, v7 of 1.13: the same tab-separated start, end, mtime, output and
/// hash columns; only the hash differs). ninja appends a line per output as
/// edges finish and restarts its clock for every build, so a drop in end times
/// starts a new build; the last one is kept (an output logged twice in it keeps
/// its first place and its last times). Lines with fewer than four fields, or
/// whose times ninja cannot have written (not numbers, negative, an end before
/// the start, over 2^32 ms), are skipped, as ninja skips lines it cannot read.
/// Errors name `path`: not a ninja log, an unsupported version.
Result<BuildLog> parse_log(std::string_view text, const std::string& path);

/// How long each output's edge took the last time it ran, in milliseconds,
/// over every build the log holds (lines that are not entries, or damaged as
/// parse_log() skips them, are skipped).
std::unordered_map<std::string, int64_t> last_durations(std::string_view text);

/// Reads and parses the log at `path`; errors name it as `shown` (a missing
/// file: "cannot read the ninja log: No such file or directory" at SHOWN).
Result<BuildLog> read_log(const std::string& path, const std::string& shown);

} // namespace phc::report
