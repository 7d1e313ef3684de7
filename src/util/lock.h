// An flock(2) lock that lets go when it goes out of scope: the one way every
// part of phc-ninja locks a file (the header sets, the probe cache, the ninja
// log, the launcher's private folders, the step runner's memory budget).
//
// flock locks belong to an open file description: closing the descriptor (or
// the holder's death, SIGKILL included) releases the lock, so a lock is never
// left behind by a process that is gone. A forked child shares the parent's
// open descriptions, and so its locks, until it closes them or execs (every
// descriptor here is close-on-exec).
#pragma once

#include "util/error.h"
#include "util/fd.h"

#include <chrono>
#include <string>

namespace phc::util {

/// Holds an open file (or folder) and, once lock() or try_lock() said so, its
/// exclusive flock. Movable; the lock and the file go together on destruction.
class FileLock {
public:
    FileLock() = default;
    /// Takes `fd` (a file or folder already open) to lock; `where` names it in errors.
    FileLock(Fd fd, std::string where) : fd_(std::move(fd)), where_(std::move(where)) {}

    /// Opens `path` to lock it, creating it (mode 0666 less the umask) when
    /// missing; links are not followed and only a regular file is accepted.
    static Result<FileLock> open(const std::string& path);

    /// Waits for the lock (signals do not cut the wait short).
    Status lock();
    /// Takes the lock when it is free: true; false when another holds it.
    Result<bool> try_lock();
    /// Tries for up to `limit`, every 2 ms: true when had. For a lock whose
    /// holder may be stopped (^Z) where going on without it is better.
    Result<bool> lock_within(std::chrono::milliseconds limit);

    /// True when the lock is held.
    bool held() const { return held_; }
    /// The descriptor (-1 when none), to read or write the locked file.
    int fd() const { return fd_.get(); }
    /// Lets go of the lock; the file stays open, to lock again.
    void unlock();
    /// Lets go of the lock and closes the file.
    void release() {
        fd_.reset();
        held_ = false;
    }

private:
    Fd fd_;
    std::string where_;
    bool held_ = false;
};

} // namespace phc::util
