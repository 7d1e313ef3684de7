// `phc-ninja why OUTPUT`: which inputs make OUTPUT dirty, as ninja decides it.
//
// `ninja -d explain` names the newest input of an edge; for a split edge that
// is a header set (phc_s_..., depsets/depsets.h), a phony over chunks over the
// headers. why walks the same graph: the manifest (which includes the sets
// file, so a set's phony edges are in it), the edge's dependencies from
// .ninja_deps, and the times from .ninja_log, and names the real files.
//
// ninja's rules (graph.cc, RecomputeOutputDirty, ninja 1.11): an output is
// dirty when it is missing, has no line in .ninja_log, its deps record is
// missing or older than it, an input is dirty, or an input is newer than the
// output's mtime (with restat: the log's mtime) or than the mtime the log
// records. A phony's time is its newest input's; a phony without inputs
// whose file is missing is dirty. A changed command is not looked at (its
// hash differs from ninja version to ninja version): `ninja -d explain` says
// "command line changed".
#pragma once

#include "ninja/build_log.h"
#include "ninja/deps_log.h"
#include "ninja/manifest.h"
#include "util/error.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace phc::why {

/// What ninja knows of past builds.
struct History {
    std::unordered_map<std::string, int64_t> log; ///< output -> mtime its last log line records
    std::string deps_text;                        ///< .ninja_deps ("" for none)
    ninja::DepsLog deps;                          ///< parsed from deps_text
};

/// Why OUTPUT would be rebuilt: one line per reason, nested reasons (an input
/// that will be rebuilt) indented below it; empty when it is up to date.
/// `mtime` gives a file's time as ninja stats it (nanoseconds, 0 when missing);
/// tests give their own.
using Stat = int64_t (*)(const std::string& path);
Result<std::vector<std::string>> why_dirty(const ninja::Manifest& m, const History& h,
                                           std::string_view output, Stat mtime);

/// `phc-ninja why [-C DIR] [-f FILE] OUTPUT`.
int cli_main(int argc, char** argv);

} // namespace phc::why
