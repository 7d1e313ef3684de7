#include "sched/runner.h"

#include "util/subprocess.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <sys/resource.h>
#include <sys/wait.h>

namespace phc::sched {

namespace {

constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

std::atomic<pid_t> g_child{0};
std::atomic<int> g_pending{0}; ///< a signal that came before the child was there

void forward(int sig) {
    if (pid_t child = g_child.load())
        ::kill(child, sig);
    else
        g_pending.store(sig);
}

/// Our handlers while the child runs; the old dispositions back on destruction.
/// A disposition of "ignore" stays (make in the background ignores SIGINT;
/// the command inherits that, as it would without us).
class Forwarding {
public:
    Forwarding() {
        for (size_t i = 0; i < std::size(kForwarded); ++i) {
            ::sigaction(kForwarded[i], nullptr, &old_[i]);
            if (old_[i].sa_handler == SIG_IGN) continue;
            struct sigaction sa {};
            sa.sa_handler = forward;
            sigemptyset(&sa.sa_mask);
            sa.sa_flags = SA_RESTART;
            ::sigaction(kForwarded[i], &sa, nullptr);
        }
    }
    ~Forwarding() {
        g_child.store(0);
        for (size_t i = 0; i < std::size(kForwarded); ++i)
            ::sigaction(kForwarded[i], &old_[i], nullptr);
    }
    Forwarding(const Forwarding&) = delete;
    Forwarding& operator=(const Forwarding&) = delete;

private:
    struct sigaction old_[std::size(kForwarded)]{};
};

int64_t ms(const timeval& t) {
    return static_cast<int64_t>(t.tv_sec) * 1000 + t.tv_usec / 1000;
}

} // namespace

Result<Measured> run_measured(const std::vector<std::string>& argv, const std::string& cwd,
                              const std::vector<std::pair<std::string, std::string>>& env) {
    Forwarding forwarding;
    util::SpawnOptions options;
    options.cwd = cwd;
    options.env = env;
    options.inherit_stdio = true;
    const auto start = std::chrono::steady_clock::now();
    const int64_t start_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count();
    auto child = util::spawn(argv, options);
    if (!child) return child.error();
    g_child.store(child->pid);
    if (int sig = g_pending.exchange(0)) ::kill(child->pid, sig);
    int status = 0;
    struct rusage ru {};
    while (::wait4(child->pid, &status, 0, &ru) < 0 && errno == EINTR) {
    }
    Measured m;
    m.start_ms = start_ms;
    m.wall_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::steady_clock::now() - start)
                    .count();
    m.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    m.peak = static_cast<uint64_t>(ru.ru_maxrss) * 1024; // KiB on Linux
    m.cpu_ms = ms(ru.ru_utime) + ms(ru.ru_stime);
    return m;
}

} // namespace phc::sched
