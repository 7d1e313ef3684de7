// The `gen` command as a function: read the database, generate, write the
// ninja file only when its bytes change.
#pragma once

#include "util/error.h"

#include <cstddef>
#include <string>
#include <vector>

namespace phc::gen {

/// The command's arguments, already parsed.
struct GenRequest {
    std::string database = "compile_commands.json"; ///< a file, or a directory holding one
    std::string ninja_file = "phc.ninja";           ///< output path
    int device_jobs = 0;                            ///< 0: no device pool
};

/// What was done, for the summary line.
struct GenReport {
    std::string ninja_file;
    std::size_t entries = 0, split = 0, plain = 0, edges = 0;
    bool changed = false;           ///< false when the file already had these bytes
    std::vector<std::string> notes; ///< entries left alone for a reason worth telling
};

/// Runs gen. Nothing is written when it fails.
Result<GenReport> run_gen(const GenRequest& request);

/// The one-line summary printed after a successful run.
std::string summary_line(const GenReport& report);

} // namespace phc::gen
