#include "util/lock.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <thread>

namespace phc::util {

namespace {

Error lock_error(const std::string& where, const char* what) {
    return error_at(where, std::string(what) + ": " + std::strerror(errno));
}

} // namespace

Result<FileLock> FileLock::open(const std::string& path) {
    // O_NONBLOCK: a fifo put in the lock file's place does not hang the open.
    Fd fd = open_fd(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0666);
    if (!fd.valid()) return lock_error(path, "cannot open lock file");
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) return lock_error(path, "cannot open lock file");
    if (!S_ISREG(st.st_mode)) return error_at(path, "lock file is not a regular file");
    return FileLock(std::move(fd), path);
}

Status FileLock::lock() {
    if (held_) return Ok{};
    while (::flock(fd_.get(), LOCK_EX) != 0)
        if (errno != EINTR) return lock_error(where_, "cannot lock");
    held_ = true;
    return Ok{};
}

Result<bool> FileLock::try_lock() {
    if (held_) return true;
    while (::flock(fd_.get(), LOCK_EX | LOCK_NB) != 0) {
        if (errno == EWOULDBLOCK) return false;
        if (errno != EINTR) return lock_error(where_, "cannot lock");
    }
    held_ = true;
    return true;
}

void FileLock::unlock() {
    if (held_) ::flock(fd_.get(), LOCK_UN);
    held_ = false;
}

Result<bool> FileLock::lock_within(std::chrono::milliseconds limit) {
    const auto until = std::chrono::steady_clock::now() + limit;
    for (;;) {
        auto had = try_lock();
        if (!had || *had || std::chrono::steady_clock::now() >= until) return had;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
}

} // namespace phc::util
