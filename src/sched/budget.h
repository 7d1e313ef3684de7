// One memory budget shared by every step of a build: across ninja's parallel
// edges and across phc-launch processes under make, with no daemon.
//
// The folder <records dir>/budget/ holds one file per step that is waiting or
// running, "<pid>.XXXXXX" (six random letters, as mkstemp's: pids of other
// pid namespaces never clash), flock'ed by its step for as long as it lives and holding one
// line, "<state> <bytes> <since> <end>": state W (waiting) or R (running), the
// step's estimate, when it began to wait and, running, when it is expected to
// end (CLOCK_MONOTONIC ns; 0: unknown; a line of three fields, as earlier
// versions wrote, is a step of unknown end). Every look
// at the folder happens under the lock of budget/lock. A file whose flock is
// free is stale (its step died: the kernel let go of its lock, SIGKILL or OOM
// kill included) and is removed by whoever sees it, so a dead step never holds
// memory in the next build. The folder is opened once, without following a
// link in its place (refused, as the records folder's other files are), and
// only regular files of that pattern are ever read or removed.
//
// A step may start when (see may_start), EASY backfilling as batch schedulers
// do it:
//   - nothing runs and no older step waits, or
//   - what runs plus its estimate fits in the budget, and no older step waits, or
//   - it fits now and does not delay the oldest step waiting (the head): the
//     head's "shadow" is when enough running steps will have ended (by their
//     expected ends) for it to fit; a step may pass the head when it is
//     expected to end by then, or when it fits in what the head leaves free at
//     that time.
// So a step larger than the budget runs alone, the build always progresses,
// and a large step is not starved by smaller ones that keep fitting, while the
// small steps behind it use the memory it cannot. A running step's entry
// holds its expected end (CLOCK_MONOTONIC ns; start + its last wall time
// +10%; 0 when it has no history): a step of unknown end never ends "in time"
// (the rule then is the plain one: it fits beside what runs and the head). A
// step that may not start waits for a step to end (inotify on the folder), and
// polls again (1 ms, doubling up to 50 ms) for the steps that died.
#pragma once

#include "util/error.h"
#include "util/lock.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace phc::sched {

/// A running step: its reservation and when it is expected to end.
struct Running {
    uint64_t bytes = 0;
    int64_t end = 0; ///< CLOCK_MONOTONIC ns; 0: unknown
};

/// What the other steps of the folder hold.
struct Holders {
    std::vector<Running> running; ///< each running step
    uint64_t ahead = 0;           ///< the estimate of the oldest step waiting before us
    int64_t ahead_since = 0;      ///< when that step began to wait
    bool waiting = false;         ///< some step began to wait before us

    /// The bytes the running steps reserved, in all.
    uint64_t reserved() const;
};

/// What a step asks for: its estimate and how long it is expected to run.
struct Ask {
    uint64_t bytes = 0;
    int64_t duration_ns = 0; ///< 0: unknown
};

/// When the oldest waiting step is expected to fit (`time`, CLOCK_MONOTONIC
/// ns; INT64_MAX when a running step's end is unknown) and the bytes it leaves
/// free then (`extra`).
struct Shadow {
    int64_t time = 0;
    uint64_t extra = 0;
};

/// The head's shadow at `now` (h.waiting must be true).
Shadow shadow_of(const Holders& h, uint64_t budget, int64_t now);

/// True when a step asking `ask` may start at `now` beside `h` under `budget`.
bool may_start(const Holders& h, const Ask& ask, uint64_t budget, int64_t now);

/// CLOCK_MONOTONIC now, in ns (the clock of reservations).
int64_t monotonic_ns();

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

    /// Waits until `ask` may start under `budget` in the budget folder `dir`
    /// (made when missing), then holds its bytes until its expected end. An
    /// error when the folder or its files cannot be made, or a link or
    /// another file is in the folder's place.
    friend Result<Reservation> reserve(const std::string& dir, const Ask& ask, uint64_t budget);

private:
    util::Fd dir_;     ///< the budget folder, opened without following links
    std::string name_; ///< the reservation file's name in it
    util::FileLock file_;
    int64_t waited_ms_ = 0;
};

Result<Reservation> reserve(const std::string& dir, const Ask& ask, uint64_t budget);

/// What the other live steps of the folder open as `dirfd` (`dir` names it)
/// hold; stale reservation files removed, names of any other pattern never
/// looked at. `self` is left out. Call it under the folder's lock.
Holders scan_holders(int dirfd, const std::string& dir, const std::string& self, int64_t since);

} // namespace phc::sched
