// One memory budget shared by every step of a build: across ninja's parallel
// edges and across phc-launch processes under make, with no daemon.
//
// The folder <records dir>/budget/ holds one file per step that is waiting or
// running, "<pid>.XXXXXX" (mkstemp's letters: pids of other pid namespaces
// never clash), flock'ed by its step for as long as it lives and holding one
// line, "<state> <bytes> <since>": state W (waiting) or R (running), the
// step's estimate, and when it began to wait (CLOCK_MONOTONIC ns). Every look
// at the folder happens under the lock of budget/lock. A file whose flock is
// free is stale (its step died: the kernel let go of its lock, SIGKILL or OOM
// kill included) and is removed by whoever sees it, so a dead step never holds
// memory in the next build.
//
// A step may start when (see may_start):
//   - nothing runs and no older step waits, or
//   - what runs plus its estimate fits in the budget, and the oldest step
//     waiting (if any) would still fit beside it.
// So a step larger than the budget runs alone, the build always progresses,
// and a large step is not starved by smaller ones that keep fitting. A step
// that may not start waits for a step to end (inotify on the folder), and
// polls again (1 ms, doubling up to 50 ms) for the steps that died.
#pragma once

#include "util/error.h"
#include "util/lock.h"

#include <cstdint>
#include <string>
#include <utility>

namespace phc::sched {

/// What the other steps of the folder hold.
struct Holders {
    uint64_t running = 0;    ///< bytes reserved by running steps
    int running_count = 0;   ///< running steps
    uint64_t ahead = 0;      ///< the estimate of the oldest step waiting before us
    int64_t ahead_since = 0; ///< when that step began to wait
    bool waiting = false;    ///< some step began to wait before us
};

/// True when a step of `bytes` may start now beside `h` under `budget`.
bool may_start(const Holders& h, uint64_t bytes, uint64_t budget);

/// A step's place in the budget: released (the file removed, its lock let go)
/// when this is destroyed.
class Reservation {
public:
    Reservation() = default;
    Reservation(Reservation&& other) noexcept { *this = std::move(other); }
    Reservation& operator=(Reservation&&) noexcept;
    ~Reservation();

    /// How long the step waited for memory, in ms.
    int64_t waited_ms() const { return waited_ms_; }

    /// Waits until `bytes` may start under `budget` in the budget folder
    /// `dir` (made when missing), then holds them. An error when the folder or
    /// its files cannot be made.
    friend Result<Reservation> reserve(const std::string& dir, uint64_t bytes, uint64_t budget);

private:
    std::string path_;
    util::FileLock file_;
    int64_t waited_ms_ = 0;
};

Result<Reservation> reserve(const std::string& dir, uint64_t bytes, uint64_t budget);

/// What the folder's other live steps hold (stale files removed); for tests
/// and reports. `self` is left out. Call it under the folder's lock.
Holders scan_holders(const std::string& dir, const std::string& self, int64_t since);

} // namespace phc::sched
