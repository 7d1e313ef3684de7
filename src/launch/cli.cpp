#include "launch/cli.h"

#include "launch/launcher.h"
#include "launch/makeflags.h"
#include "launch/planning.h"
#include "launch/precheck.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <string_view>
#include <unistd.h>

namespace phc::launch {

namespace {

constexpr std::string_view kUsage =
    "usage: phc-launch COMPILER ARGS...\n"
    "       phc-ninja launch [--] COMPILER ARGS...\n"
    "\n"
    "Runs one compile. A multi-architecture HIP object compile (-c, two or more\n"
    "--offload-arch) is split: one device compile per architecture in parallel,\n"
    "taking job slots from the GNU make jobserver in MAKEFLAGS, then the bundler and\n"
    "the host compile. Anything else is handed to the compiler unchanged.\n"
    "\n"
    "environment:\n"
    "  PHC_COMPILER=cc      put cc in front of the arguments\n"
    "  PHC_JOBS=N           compiles at once when there is no jobserver and no -jN\n"
    "                       in MAKEFLAGS (default: CPUs/2, at least 1)\n"
    "  PHC_NINJA_TRACE=log  append ninja-log (v5) lines per step, for ninjatracing\n"
    "  PHC_PROBE_CACHE=f    where compiler probes are cached (default\n"
    "                       ~/.cache/phc-ninja/probes.json)\n";

/// Replaces this process with `cmd`; returns 127 (with a message) only on failure.
int exec_command(const std::vector<std::string>& cmd) {
    std::vector<char*> argv;
    for (const auto& a : cmd)
        argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execvp(argv[0], argv.data());
    int e = errno;
    std::fprintf(stderr, "phc-launch: error: cannot run '%s': %s\n", argv[0], std::strerror(e));
    return e == ENOENT ? 127 : 126;
}

/// Prints one warning line.
void warn(const std::string& text) {
    write_all(2, "phc-launch: warning: " + text + "\n");
}

/// A private folder for device objects and the bundle.
std::string make_private_dir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/phc-launch-XXXXXX";
    if (!::mkdtemp(templ.data())) return {};
    return templ;
}

/// The parallelism without a usable jobserver (PHC_JOBS or the default); a bad
/// PHC_JOBS adds a line to `warnings`.
int fallback_jobs(std::vector<std::string>& warnings) {
    const char* env = std::getenv("PHC_JOBS");
    int jobs = default_jobs(env);
    if (env && *env && std::to_string(jobs) != env)
        warnings.push_back(
            fmt::format("PHC_JOBS='{}' is not a positive number; using {}", env, jobs));
    return jobs;
}

/// Removes the private folder (quietly: it may be gone already).
void remove_dir(const std::string& dir) {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
}

/// Plans and runs a command the pre-check found worth a look. Signals are caught
/// from the start, so an interrupt during planning also removes the folder.
int run_candidate(const std::vector<std::string>& cmd) {
    // The jobserver first: until we open anything, the advertised descriptor
    // numbers are either make's pipe or closed. (Our own signal pipe would
    // otherwise get those numbers and pass for a jobserver.)
    Makeflags flags = makeflags_from_env(std::getenv("MAKEFLAGS"), std::getenv("CARGO_MAKEFLAGS"));
    std::vector<std::string> warnings(1);
    int fallback = flags.jobs ? *flags.jobs : fallback_jobs(warnings);
    auto js = Jobserver::connect(flags, fallback, &warnings[0]);

    auto signals = SignalPipe::install();
    if (!signals) {
        warn(signals.error().message + "; compiling without splitting");
        return exec_command(cmd);
    }
    std::string dir = make_private_dir();
    if (dir.empty()) {
        warn(fmt::format("cannot create a private folder ({}); compiling without splitting",
                         std::strerror(errno)));
        signals->reset();
        return exec_command(cmd);
    }
    bool compile = std::find(cmd.begin(), cmd.end(), "-c") != cmd.end();
    auto planned =
        compile ? plan_command(cmd, dir, probe_cache_path()) : plan_link_command(cmd, dir);
    if (int sig = (*signals)->first_forwarded()) {
        remove_dir(dir);
        reraise(sig);
        return 128 + sig;
    }
    if (!planned || !planned->jobs) {
        remove_dir(dir);
        signals->reset(); // the compiler gets our original dispositions
        if (!planned) warn(planned.error().message + "; compiling without splitting");
        return exec_command(cmd);
    }

    for (const auto& w : warnings) // only now: a command we do not split stays quiet
        if (!w.empty()) warn(w);
    LaunchOptions opt;
    if (const char* t = std::getenv("PHC_NINJA_TRACE")) opt.trace_path = t;
    Outcome out = run_split(*planned->jobs, *js, **signals, opt);
    // Every token is back (run_jobs returns only when no child is left).
    js.reset();
    remove_dir(dir);
    if (out.signal) reraise(out.signal);
    return out.exit_code;
}

} // namespace

int cli_main(int argc, char** argv) {
    bool subcommand = std::string_view(argv[0]) == "phc-ninja launch";
    int first = 1;
    if (subcommand && argc > 1) {
        std::string_view a1 = argv[1];
        if (a1 == "--help" || a1 == "-h") {
            write_all(1, kUsage);
            return 0;
        }
        if (a1 == "--") first = 2;
    }
    std::vector<std::string> cmd =
        command_from({argv + first, argv + argc}, std::getenv("PHC_COMPILER"));
    if (cmd.empty()) {
        write_all(2, "phc-launch: error: no compiler command given\n");
        write_all(2, kUsage);
        return 2;
    }
    switch (route(cmd)) {
    case Route::PassThrough:
        return exec_command(cmd);
    case Route::Preprocess:
        return exec_command(preprocess_argv(cmd));
    case Route::Candidate:
        return run_candidate(cmd);
    }
    return 2;
}

} // namespace phc::launch
