#include "launch/cli.h"

#include "launch/launcher.h"
#include "launch/makeflags.h"
#include "launch/planning.h"
#include "launch/pool.h"
#include "launch/precheck.h"
#include "util/args.h"
#include "util/file.h"
#include "util/lock.h"
#include "util/settings.h"
#include "util/subprocess.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>

namespace phc::launch {

namespace {

constexpr std::string_view kAbout =
    "Runs one compile. A multi-architecture HIP object compile (-c, two or more\n"
    "--offload-arch) is split: one device compile per architecture in parallel,\n"
    "taking job slots from the GNU make jobserver in MAKEFLAGS, then the bundler and\n"
    "the host compile. Anything else is handed to the compiler unchanged. Options\n"
    "end at the compiler's name (or at --): what follows is the compiler's.";

/// The launcher's command line: options (only --help), then the compiler command.
util::CommandLine command_line() {
    util::CommandLine cl{"phc-launch",
                         "[--] COMPILER ARGS...\n       phc-ninja launch [--] COMPILER ARGS...",
                         kAbout,
                         {},
                         {}};
    static const std::string environment = util::settings_help("phc-launch");
    cl.notes = environment;
    cl.positional = true;
    cl.stop_at_word = true;
    return cl;
}

/// Replaces this process with `cmd`; returns 127 or 126 (with a message) only on failure.
int exec_command(const std::vector<std::string>& cmd) {
    int code = 127;
    print_error("phc-launch", util::exec_program(cmd, &code));
    return code;
}

/// Prints one warning line.
void warn(const std::string& text) {
    write_all(2, "phc-launch: warning: " + text + "\n");
}

/// The private folder for device objects and the bundle (and its lock).
struct PrivateDir {
    std::string path;    ///< empty: none could be made (errno says why)
    util::FileLock lock; ///< the folder itself, open (close-on-exec) and flock(2)ed
};

constexpr std::string_view kDirPrefix = "phc-launch-";

/// The owner's pid when `name` is a private folder's ("phc-launch-<pid>-" and
/// mkdtemp's six letters), else 0.
pid_t private_dir_owner(std::string_view name) {
    if (!name.starts_with(kDirPrefix)) return 0;
    name.remove_prefix(kDirPrefix.size());
    size_t dash = name.find('-');
    if (dash == 0 || dash == std::string_view::npos || dash > 9 || name.size() != dash + 7)
        return 0;
    long pid = 0;
    for (char c : name.substr(0, dash)) {
        if (c < '0' || c > '9') return 0;
        pid = pid * 10 + (c - '0');
    }
    for (char c : name.substr(dash + 1))
        if (!std::isalnum(static_cast<unsigned char>(c))) return 0;
    return static_cast<pid_t>(pid);
}

/// True when a process `pid` runs in our pid namespace (a zombie, not reaped yet
/// by a busy or absent init, does not run).
bool process_runs(pid_t pid) {
    if (::kill(pid, 0) != 0 && errno != EPERM) return false;
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
    auto stat = util::read_file(path);
    // Gone since kill() (a zombie reaped meanwhile): it does not run; else
    // we cannot tell, and it may.
    if (!stat) return ::kill(pid, 0) == 0 || errno == EPERM;
    size_t paren = stat->rfind(')');
    return paren == std::string::npos || paren + 2 >= stat->size() ||
           ((*stat)[paren + 2] != 'Z' && (*stat)[paren + 2] != 'X');
}

/// Removes the private folders in `tmp` that launchers killed by SIGKILL left
/// behind (a signal they see, they clean up after). A folder is left over when
/// it is ours (our uid, a real folder), no process of our pid namespace has its
/// owner's pid (that also keeps a folder between its mkdtemp and its lock), and
/// its lock is free: its owner holds it while it lives, in whatever pid
/// namespace, and the kernel lets go of it when the owner dies. Quietly: it is
/// housekeeping.
void remove_stale_dirs(const std::string& tmp) {
    DIR* d = ::opendir(tmp.c_str());
    if (!d) return;
    while (const dirent* e = ::readdir(d)) {
        pid_t owner = private_dir_owner(e->d_name);
        if (owner <= 0 || owner == ::getpid()) continue;
        if (process_runs(owner)) continue;
        util::FileLock lock(util::Fd(::openat(::dirfd(d), e->d_name,
                                              O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)),
                            e->d_name);
        struct stat st {};
        if (lock.fd() < 0 || ::fstat(lock.fd(), &st) != 0 || st.st_uid != ::geteuid()) continue;
        if (auto had = lock.try_lock(); had && *had) {
            std::error_code ec; // removed while we hold its lock: nobody can take it meanwhile
            std::filesystem::remove_all(tmp + "/" + e->d_name, ec);
        }
    }
    ::closedir(d);
}

/// A private folder "$TMPDIR/phc-launch-<pid>-XXXXXX", locked while this process
/// lives, so the leftovers of a killed launcher can be told from live folders
/// (see remove_stale_dirs, run here too: leftovers never pile up).
PrivateDir make_private_dir() {
    const char* env = std::getenv("TMPDIR");
    const std::string tmp = env && *env ? env : "/tmp";
    for (int attempt = 0; attempt < 3; ++attempt) {
        std::string templ = fmt::format("{}/{}{}-XXXXXX", tmp, kDirPrefix, ::getpid());
        if (!::mkdtemp(templ.data())) return {};
        util::FileLock lock(util::open_fd(templ, O_RDONLY | O_DIRECTORY | O_NOFOLLOW), templ);
        struct stat st {};
        if (auto had = lock.fd() >= 0 ? lock.try_lock() : Result<bool>(false);
            had && *had && ::fstat(lock.fd(), &st) == 0 && st.st_nlink > 0) {
            remove_stale_dirs(tmp);
            return {templ, std::move(lock)};
        }
        // Taken for a leftover and removed before we locked it (a launcher in
        // another pid namespace cannot see that we run): make another.
        int e = errno;
        lock.release();
        std::error_code ec;
        std::filesystem::remove_all(templ, ec);
        errno = e;
    }
    return {};
}

/// How long a launcher waits to count its own job in the CPU pool at most (see
/// launch/pool.h): longer than a device compile takes, shorter than a stopped
/// build may stay stopped.
constexpr std::chrono::seconds kJoinLimit{60};

/// The CPU pool (PHC_POOL_DIR, PHC_JOBS); when it cannot be had, `error` says
/// why (reported only if the command is split) and the fallback is one job at a time.
std::unique_ptr<Jobserver> open_pool(std::optional<Error>& error) {
    auto size = pool_size();
    if (!size) {
        error = size.error();
        return Jobserver::local(1);
    }
    auto pool = CpuPool::open(pool_dir(), *size);
    if (!pool) {
        error = make_error(pool.error().text() + " (the CPU pool's folder, PHC_POOL_DIR)");
        return Jobserver::local(1);
    }
    return Jobserver::shared(std::move(*pool));
}

/// Removes the private folder (quietly: it may be gone already), then lets go of its lock.
void remove_dir(PrivateDir& dir) {
    std::error_code ec;
    std::filesystem::remove_all(dir.path, ec);
    dir.lock.release();
}

/// Plans and runs a command the pre-check found worth a look. Signals are caught
/// from the start, so an interrupt during planning also removes the folder.
int run_candidate(const std::vector<std::string>& cmd) {
    // The jobserver first: until we open anything, the advertised descriptor
    // numbers are either make's pipe or closed. (Our own signal pipe would
    // otherwise get those numbers and pass for a jobserver.)
    Makeflags flags = makeflags_from_env(std::getenv("MAKEFLAGS"), std::getenv("CARGO_MAKEFLAGS"));
    std::string warning;
    std::optional<Error> pool_error;
    auto js = Jobserver::connect(
        flags, [&] { return open_pool(pool_error); }, &warning);

    auto signals = SignalPipe::install();
    if (!signals) {
        warn(signals.error().text() + "; compiling without splitting");
        return exec_command(cmd);
    }
    PrivateDir dir = make_private_dir();
    if (dir.path.empty()) {
        warn(fmt::format("cannot create a private folder ({}); compiling without splitting",
                         std::strerror(errno)));
        signals->reset();
        return exec_command(cmd);
    }
    bool compile = std::find(cmd.begin(), cmd.end(), "-c") != cmd.end();
    auto planned = compile ? plan_command(cmd, dir.path, probe_cache_path())
                           : plan_link_command(cmd, dir.path);
    if (int sig = (*signals)->first_forwarded()) {
        remove_dir(dir);
        reraise(sig);
        return 128 + sig;
    }
    if (!planned || !planned->jobs) {
        remove_dir(dir);
        signals->reset(); // the compiler gets our original dispositions
        if (!planned) warn(planned.error().text() + "; compiling without splitting");
        return exec_command(cmd);
    }

    if (pool_error) { // a setting that is wrong: said, never guessed at
        remove_dir(dir);
        print_error("phc-launch", *pool_error);
        return 1;
    }
    if (!warning.empty()) warn(warning); // only now: a command we do not split stays quiet
    if (CpuPool* pool = js->pool()) {
        if (auto st = pool->join(kJoinLimit, (*signals)->fd()); !st)
            warn(st.error().text() + "; running one step at a time");
        if (int sig = (*signals)->first_forwarded()) {
            js.reset();
            remove_dir(dir);
            reraise(sig);
            return 128 + sig;
        }
    }
    LaunchOptions opt;
    if (auto t = util::get("PHC_NINJA_TRACE")) opt.trace_path = *t;
    Outcome out = run_split(*planned->jobs, *js, **signals, opt);
    // Every token is back (run_jobs returns only when no child is left).
    js.reset();
    remove_dir(dir);
    if (out.signal) reraise(out.signal);
    return out.exit_code;
}

} // namespace

int cli_main(int argc, char** argv) {
    const util::CommandLine cl = command_line();
    const auto compiler_setting = util::get("PHC_COMPILER");
    const char* compiler = compiler_setting ? compiler_setting->c_str() : nullptr;
    std::vector<std::string> args;
    if (compiler && *compiler) {
        // The arguments are all the compiler's (phc.py's way), but a leading "--".
        const int first = argc > 1 && std::string_view(argv[1]) == "--" ? 2 : 1;
        args.assign(argv + first, argv + argc);
    } else {
        util::Parsed parsed;
        if (auto status = util::parse_or_usage(cl, argc, argv, parsed)) return *status;
        args = std::move(parsed.positional);
    }
    std::vector<std::string> cmd = command_from(args, compiler);
    if (cmd.empty()) return util::usage_error(cl, "no compiler command given");
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
