#include "launch/signals.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

namespace phc::launch {

namespace {

/// The self-pipe's write end, for the handler.
volatile sig_atomic_t g_write_fd = -1;
/// Signals we catch, and their previous dispositions (restored on destruction).
constexpr int kCaught[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGPIPE};
struct sigaction g_old[sizeof kCaught / sizeof kCaught[0]];

/// Async-signal-safe: writes the signal's number to the pipe (SIGPIPE is dropped).
extern "C" void on_signal(int sig) {
    int saved = errno;
    if (sig != SIGPIPE && g_write_fd >= 0) {
        unsigned char b = static_cast<unsigned char>(sig);
        [[maybe_unused]] ssize_t n = ::write(g_write_fd, &b, 1);
    }
    errno = saved;
}

} // namespace

static_assert(SIGINT == 2 && SIGTERM == 15 && SIGHUP == 1 && SIGQUIT == 3);

Result<std::unique_ptr<SignalPipe>> SignalPipe::install() {
    int p[2];
    if (::pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0)
        return make_error(fmt::format("pipe: {}", std::strerror(errno)));
    std::unique_ptr<SignalPipe> sp(new SignalPipe());
    sp->read_.reset(p[0]);
    sp->write_.reset(p[1]);
    g_write_fd = p[1];
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
    for (size_t i = 0; i < std::size(kCaught); ++i)
        ::sigaction(kCaught[i], &sa, &g_old[i]);
    return sp;
}

SignalPipe::~SignalPipe() {
    for (size_t i = 0; i < std::size(kCaught); ++i)
        ::sigaction(kCaught[i], &g_old[i], nullptr);
    g_write_fd = -1;
}

std::vector<int> SignalPipe::drain() {
    std::vector<int> sigs;
    unsigned char buf[64];
    while (true) {
        ssize_t n = ::read(read_.get(), buf, sizeof buf);
        if (n > 0) {
            sigs.insert(sigs.end(), buf, buf + n);
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        return sigs;
    }
}

void reraise(int sig) {
    struct sigaction sa {};
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    ::sigaction(sig, &sa, nullptr);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    ::sigprocmask(SIG_UNBLOCK, &set, nullptr);
    ::raise(sig);
}

int SignalPipe::first_forwarded() {
    for (int s : drain())
        if (s != SIGCHLD) return s;
    return 0;
}

} // namespace phc::launch
