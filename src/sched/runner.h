// Running one step's command and measuring it: the command starts with our
// stdin, stdout and stderr (ninja reads them as if it ran the command), and
// its exit status comes back as a shell gives it.
#pragma once

#include "util/error.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace phc::sched {

/// What a step's command did.
struct Measured {
    int exit_code = 0;    ///< its exit status, or 128+N when signal N ended it
    uint64_t peak = 0;    ///< peak resident bytes of one process of it (see steps.h)
    int64_t cpu_ms = 0;   ///< user + system time of it and the descendants it waited for
    int64_t start_ms = 0; ///< when it started (Unix time, ms)
    int64_t wall_ms = 0;
};

/// Runs `argv` (searched in PATH) and waits for it. SIGINT, SIGTERM, SIGHUP
/// and SIGQUIT sent to us alone are passed on to it (a signal to the process
/// group reaches it anyway). An error ("cannot run 'cc': reason") when it
/// could not be started.
/// `cwd` ("" for ours) is where it runs, `env` what it gets set on top of our
/// environment.
Result<Measured> run_measured(const std::vector<std::string>& argv, const std::string& cwd = {},
                              const std::vector<std::pair<std::string, std::string>>& env = {});

} // namespace phc::sched
