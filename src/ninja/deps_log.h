// ninja's deps log, .ninja_deps: the dependencies each edge's depfile (or
// /showIncludes) named when it last ran, in a binary file ninja appends to.
//
// After a 12-byte signature "# ninjadeps\n" and a 4-byte version (4 for
// ninja 1.10 to 1.13), records follow, each a 4-byte little-endian head
// (high bit: a deps record; the rest: the size of its body, a multiple of 4,
// at most kMaxDepsRecordSize) and its body:
//
//     path record:  path bytes, NUL padding to 4 bytes, ~id (4 bytes)
//     deps record:  output id, mtime low 32 bits, mtime high 32 bits
//                   (nanoseconds, as ninja stats it), one id per dependency
//
// Ids number path records in order from 0 (the ~id checks that). A later deps
// record of an output replaces an earlier one; ninja truncates the log at the
// first record it cannot read, and rewrites it whole (recompacts) when most
// records are stale.
#pragma once

#include "util/error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace phc::ninja {

/// The largest record body ninja reads (its kMaxRecordSize).
inline constexpr uint32_t kMaxDepsRecordSize = (1u << 19) - 1;

/// A record of ninja's deps log: an output, its mtime when recorded
/// (nanoseconds, as ninja stats it) and its dependencies, as ninja spells them.
struct DepsRecord {
    std::string output;
    int64_t mtime = 0;
    std::vector<std::string> deps;

    bool operator==(const DepsRecord&) const = default;
};

/// What phc-ninja needs to know of a deps log: its paths (by id) and which of
/// them have a record.
struct DepsLog {
    std::vector<std::string> paths;               ///< by id
    std::unordered_map<std::string, int32_t> ids; ///< path -> id
    std::vector<bool> recorded;                   ///< by id: a deps record names it
    uint64_t size = 0;                            ///< bytes read (the whole file)
    std::vector<uint32_t> last;                   ///< by id: the byte of its last record (parse)

    bool has_record(std::string_view path) const;
};

/// The last record of `path` in `text`, the log `log` was parsed from
/// (parse_deps_log), or nullopt when it has none.
std::optional<DepsRecord> record_of(std::string_view text, const DepsLog& log,
                                    std::string_view path);

/// Reads a version 4 deps log from `text`. An error for anything else (another
/// version, a record cut short or naming an unknown id).
Result<DepsLog> parse_deps_log(std::string_view text);

/// The bytes that append `records` to `log`: path records for paths it lacks
/// (each once), then one deps record each; updates `log` to match.
std::string deps_log_append(DepsLog& log, const std::vector<DepsRecord>& records);

/// The mtime of `path` as ninja stats it (nanoseconds since the epoch), or -1.
int64_t mtime_ns(const std::string& path);

} // namespace phc::ninja
