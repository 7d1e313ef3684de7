// Turning asynchronous signals into bytes on a pipe (the self-pipe trick), so the
// launcher's single-threaded poll() loop sees them like any other event.
#pragma once

#include "util/error.h"
#include "util/fd.h"

#include <memory>
#include <vector>

namespace phc::launch {

/// While alive, SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGCHLD write their number to a
/// non-blocking pipe; SIGPIPE is caught and ignored (a handler, not SIG_IGN, so
/// children still start with the default). The old dispositions come back on
/// destruction. One instance per process.
class SignalPipe {
public:
    /// Installs the handlers.
    static Result<std::unique_ptr<SignalPipe>> install();
    ~SignalPipe();
    SignalPipe(const SignalPipe&) = delete;
    SignalPipe& operator=(const SignalPipe&) = delete;

    /// The descriptor to poll for POLLIN.
    int fd() const { return read_.get(); }
    /// Reads every pending signal number (empty when none).
    std::vector<int> drain();
    /// Consumes the pending signals; returns the first that is not SIGCHLD, or 0.
    int first_forwarded();

private:
    SignalPipe() = default;
    util::Fd read_;
    util::Fd write_;
};

/// The terminating signals the launcher forwards to its children.
inline constexpr int kForwardedSignals[] = {2 /*INT*/, 15 /*TERM*/, 1 /*HUP*/, 3 /*QUIT*/};

/// Restores the default disposition of `sig` and raises it on this process, so the
/// parent sees that we died of it. Returns only if the signal did not kill us.
void reraise(int sig);

} // namespace phc::launch
