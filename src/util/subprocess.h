// Starting child processes: the one place that does (the compiler probe, the
// tests and the launcher's parallel supervisor in src/launch/ all start their
// children through spawn()), and the simple blocking case, run_capture().
#pragma once

#include "util/error.h"
#include "util/fd.h"

#include <string>
#include <sys/types.h>
#include <utility>
#include <vector>

namespace phc::util {

/// How spawn() starts a child, besides its argv.
struct SpawnOptions {
    std::string cwd;                                      ///< empty: ours
    std::vector<std::pair<std::string, std::string>> env; ///< set on top of ours
    std::vector<std::pair<int, std::string>> files;       ///< opened read-only as these descriptors
    /// The child starts with no signal blocked and SIGINT, SIGTERM, SIGHUP,
    /// SIGQUIT, SIGCHLD and SIGPIPE at their defaults, whatever this process
    /// blocks or ignores (a launcher that catches them, started by a make that
    /// ignores SIGINT in the background).
    bool default_signals = false;
    /// stdin, stdout and stderr are ours, not /dev/null and pipes (the Child's
    /// out and err are then empty): a step runner's command talks to ninja.
    bool inherit_stdio = false;
};

/// A started child.
struct Child {
    pid_t pid = -1;
    Fd out; ///< the read end of its stdout (non-blocking, close-on-exec)
    Fd err; ///< the read end of its stderr (non-blocking, close-on-exec)
};

/// Starts argv[0] (searched in PATH when it has no '/') with argv, stdin from
/// /dev/null, stdout and stderr on two pipes. The child stays in this process
/// group and inherits every descriptor that is not close-on-exec (a make
/// jobserver's pipe stays open for it). An Error ("cannot run 'cc': reason")
/// when it could not be started; the caller reaps the child.
Result<Child> spawn(const std::vector<std::string>& argv, const SpawnOptions& options = {});

/// "NAME=value" assignments as SpawnOptions::env pairs (no '=': an empty value).
std::vector<std::pair<std::string, std::string>> env_pairs(const std::vector<std::string>& env);

/// What a finished child did.
struct Completed {
    int exit_code = -1; ///< exit status, or 128+signal when killed by a signal
    std::string out;    ///< everything it wrote to stdout
    std::string err;    ///< everything it wrote to stderr
};

/// Runs argv (as spawn() does) in `cwd` when not empty, and waits. An Error
/// only when it could not be started.
Result<Completed> run_capture(const std::vector<std::string>& argv, const std::string& cwd = {});

/// run_capture() started as `options` say.
Result<Completed> run_capture(const std::vector<std::string>& argv, const SpawnOptions& options);

/// run_capture() with TMPDIR set to `tmpdir`: a tool's temporary files go to a
/// folder of the caller's (the driver's -###, the wrapper's --dry-run name them).
Result<Completed> run_capture_tmp(const std::vector<std::string>& argv, const std::string& tmpdir);

/// Runs argv (as spawn() does) with our stdin, stdout and stderr, and waits:
/// its exit status (128 + signal when killed). An Error only when it could not
/// be started.
Result<int> run_inheriting(const std::vector<std::string>& argv);

/// Replaces this process with argv (argv[0] searched in PATH). Returns only
/// when it cannot: the error ("cannot run 'cc': reason"), and in `exit_code`,
/// when given, the status a shell gives (127: not found, 126: otherwise).
Error exec_program(const std::vector<std::string>& argv, int* exit_code = nullptr);

/// The running program's absolute path (/proc/self/exe), or "" when unknown.
std::string self_exe();

/// Finds `name` in PATH the way execvp does; returns it unchanged when it has a '/'.
/// Empty when not found.
std::string find_program(const std::string& name);

} // namespace phc::util
