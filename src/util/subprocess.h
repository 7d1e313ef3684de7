// Running a program to completion and capturing its output (used by the
// compiler probe and the tests). The launcher's parallel supervisor lives in
// src/launch/; this is the simple blocking case.
#pragma once

#include "util/error.h"

#include <string>
#include <vector>

namespace phc::util {

/// What a finished child did.
struct Completed {
    int exit_code = -1; ///< exit status, or 128+signal when killed by a signal
    std::string out;    ///< everything it wrote to stdout
    std::string err;    ///< everything it wrote to stderr
};

/// Runs argv[0] (searched in PATH when it has no '/') with argv, in `cwd` when not
/// empty, stdin from /dev/null, and waits. An Error only when it could not be started.
Result<Completed> run_capture(const std::vector<std::string>& argv, const std::string& cwd = {});

/// Finds `name` in PATH the way execvp does; returns it unchanged when it has a '/'.
/// Empty when not found.
std::string find_program(const std::string& name);

} // namespace phc::util
