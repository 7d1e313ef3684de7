// The CPU pool: the job slots every phc-launch of the user on the machine
// shares when there is no usable jobserver (plain ninja, make without `+`).
//
// The pool folder holds `slot.0` .. `slot.<N-1>` and `lock`. A slot is taken by
// flock(2)ing its file (util::FileLock) and given back by closing it, so a
// launcher killed by SIGKILL gives its slots back with its life: the kernel
// lets go of its locks. A taken slot's file holds one letter, written under
// the folder's `lock`: `I` when it counts a launcher's own slot (the one its
// build tool started it in), `E` when it runs an extra job.
//
// The rules, each applied under `lock`:
//   - join: a launcher about to split takes a free slot for its own job. When
//     none is free it waits while other launchers hold extra slots (they end
//     by themselves: their jobs are running), and goes on uncounted once none
//     does. So a launcher started beyond the pool's size only ever joins
//     launchers that each run one job, and `ninja -jN` never runs more than
//     max(N, pool) compilers.
//   - extra: a launcher takes a free slot for each further job, never waiting.
// A launcher always runs its jobs one at a time without any slot: nothing
// waits on something that waits, so nothing deadlocks. The join waits at most
// `limit` (a holder stopped with ^Z would otherwise hold everyone up).
//
// Closing a slot's file wakes the waiters (inotify IN_CLOSE_WRITE on the
// folder: every file here is open for writing); they also look again every
// 50 ms.
#pragma once

#include "util/error.h"
#include "util/fd.h"
#include "util/lock.h"

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace phc::launch {

/// One launcher's view of the user's CPU pool. Not movable (tokens point at
/// its Jobserver): it lives in a unique_ptr.
class CpuPool {
public:
    /// The pool of `size` slots in the folder `dir`, made (0700) when missing and
    /// refused when it is a symbolic link, another user's or writable by others.
    static Result<std::unique_ptr<CpuPool>> open(const std::string& dir, int size);

    CpuPool(const CpuPool&) = delete;
    CpuPool& operator=(const CpuPool&) = delete;

    /// Counts this launcher's own job in the pool (see the rules above); waits
    /// at most `limit`, and no longer once `stop_fd` is readable (a signal on
    /// the launcher's signal pipe). Idempotent.
    Status join(std::chrono::milliseconds limit, int stop_fd = -1);
    /// Takes a free slot for an extra job: its number; none when none is free
    /// or the folder's lock is busy. Never blocks.
    std::optional<int> try_take();
    /// Gives extra slot `slot` back.
    void give_back(int slot);

    /// A descriptor that becomes readable when a slot may have been freed (-1
    /// when inotify is not there: poll every retry_ms()).
    int wait_fd() const { return changes_.get(); }
    /// How often to look again while a slot is wanted, in ms.
    static constexpr int retry_ms() { return 50; }
    /// The number of slots.
    int size() const { return static_cast<int>(slots_.size()); }
    /// True when this launcher's own job holds a slot.
    bool counted() const { return own_ >= 0; }
    /// The folder.
    const std::string& dir() const { return dir_; }

private:
    CpuPool() = default;
    /// Under the folder's lock: a free slot, now taken and marked `mark`; or
    /// none, with `extras` the slots others hold as extras.
    Result<std::optional<int>> take_free(char mark, int* extras);
    /// Empties the inotify queue.
    void drain();

    std::string dir_;
    std::vector<util::FileLock> slots_; ///< opened when first looked at
    util::FileLock lock_;               ///< the folder's `lock`
    util::Fd changes_;                  ///< inotify on the folder, or none
    int own_ = -1;                      ///< the slot of this launcher's own job
};

/// The pool folder: PHC_POOL_DIR, else $XDG_RUNTIME_DIR/phc-pool, else
/// /tmp/phc-pool-<uid>.
std::string pool_dir();

/// The pool's size: PHC_JOBS when set (an error naming it when it is not a
/// positive number), else the CPUs this process may use (util::available_cpus).
Result<int> pool_size();

} // namespace phc::launch
