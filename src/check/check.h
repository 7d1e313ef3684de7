// `phc-ninja check`: does a split build hold the driver's own bytes? For
// chosen outputs of a build that regen or gen wrote, it runs the original
// command (CMake's edge, or the compilation database's entry) as the driver
// would, with the CUID the split's steps used, into a scratch folder, and
// compares the result with the output on disk, byte for byte.
//
// Which outputs were split, and with which CUID, is read from the split
// manifest itself: an output is split when the edge that writes it runs
// another command than the original; its CUID is the `-cuid=` of that edge or
// of the edges it reads from (the host and device compiles). What was built is
// what is checked, whatever options regen or gen had.
#pragma once

#include "split/reference.h"
#include "util/error.h"

#include <string>
#include <string_view>
#include <vector>

namespace phc::check {

/// One split output and how the driver itself writes it.
struct Target {
    std::string output;   ///< as the split manifest names it (relative to the build directory)
    std::string command;  ///< the original command, shell text
    std::string base_dir; ///< where it runs ("" = the build directory)
    std::string rspfile, rspfile_content; ///< the original edge's response file, if any
    std::string cuid;                     ///< the CUID of the split's steps ("" when none)
};

/// The split outputs of the build described by `manifest` (build.ninja as
/// rewritten by regen, or a ninja file gen wrote from a database: `compdb`
/// names it, or "" for the one its first line names). Paths relative to the
/// working directory, which is the build directory.
Result<std::vector<Target>> split_targets(const std::string& manifest, const std::string& compdb);

/// Runs the driver's own command for `t` into folder `scratch` (absolute,
/// existing) and compares its output with `t.output` (split::compare_with_driver).
Result<split::Verdict> check_target(const Target& t, const std::string& scratch);

/// `phc-ninja check [-C DIR] [-f FILE] [--sample N | --all] [OUTPUT...]`.
int cli_main(int argc, char** argv);

} // namespace phc::check
