// ninja's build log, .ninja_log: what each build ran, and when.
//
// A text file that ninja appends to as edges finish, one line per output:
//
//     # ninja log v5
//     <start ms> TAB <end ms> TAB <mtime> TAB <output> TAB <command hash, hex>
//
// Times are milliseconds since that build started: ninja restarts its clock
// for every build, so an end time lower than the line before's starts a new
// build. Versions: v4 (ninja 1.9) has no hash column worth reading, v5 (1.10,
// 1.11; MurmurHash64A), v6 (1.12), v7 (1.13; rapidhash): the columns are the
// same, only the hash differs. ninja skips a line it cannot read.
#pragma once

#include "util/error.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace phc::ninja {

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

/// Parses the text of a ninja log (versions 4 to 7). The last build is kept
/// (an output logged twice in it keeps its first place and its last times).
/// Lines with fewer than four fields, or whose times ninja cannot have written
/// (not numbers, negative, an end before the start, over 2^32 ms), are
/// skipped, as ninja skips lines it cannot read. Errors name `path`: not a
/// ninja log, an unsupported version.
Result<BuildLog> parse_log(std::string_view text, const std::string& path);

/// How long each output's edge took the last time it ran, in milliseconds,
/// over every build the log holds (lines that are not entries, or damaged as
/// parse_log() skips them, are skipped).
std::unordered_map<std::string, int64_t> last_durations(std::string_view text);

/// The mtime each output's last line records (ninja's LookupByOutput: the
/// newest line of an output in the whole log), in the unit ninja writes
/// (nanoseconds since ninja 1.10); lines parse_log() skips are skipped.
std::unordered_map<std::string, int64_t> log_mtimes(std::string_view text);

/// Reads and parses the log at `path`; errors name it as `shown` (a missing
/// file: "cannot read the ninja log: No such file or directory" at SHOWN).
Result<BuildLog> read_log(const std::string& path, const std::string& shown);

/// The header of a version 5 log, the version phc-ninja writes (the one
/// ninjatracing and ninja 1.10-1.11 read).
inline constexpr std::string_view kLogHeaderV5 = "# ninja log v5\n";

/// One version 5 line (with its newline); `hash` is written as it is.
std::string log_line(int64_t start_ms, int64_t end_ms, int64_t mtime, std::string_view output,
                     std::string_view hash);

/// Appends `lines` to the log at `path` in one write, under an flock so that
/// concurrent writers neither interleave nor both write the header
/// (kLogHeaderV5), which goes first when the file is new or empty. Errors say
/// "cannot open WHAT: ..." or "cannot write WHAT: ..." at `path`.
Status append_log(const std::string& path, std::string_view lines, std::string_view what);

} // namespace phc::ninja
