// An owned file descriptor: closed when it goes out of scope, movable, never copied.
#pragma once

#include <string>
#include <utility>

namespace phc::util {

/// Owns one descriptor (or none, -1). The launcher and the probe hold short-lived pipes;
/// this keeps every error path from leaking one into the next child.
class Fd {
public:
    Fd() = default;
    explicit Fd(int fd) : fd_(fd) {}
    Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
    Fd& operator=(Fd&& other) noexcept {
        if (this != &other) reset(std::exchange(other.fd_, -1));
        return *this;
    }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd() { reset(); }

    /// The descriptor, or -1.
    int get() const { return fd_; }
    /// True when a descriptor is held.
    bool valid() const { return fd_ >= 0; }
    /// Closes the held descriptor (if any) and takes `fd`.
    void reset(int fd = -1);
    /// Gives up ownership without closing.
    int release() { return std::exchange(fd_, -1); }

private:
    int fd_ = -1;
};

/// Opens `path` with `flags` (O_CLOEXEC always added; EINTR retried); an
/// invalid Fd (errno set) when it cannot be opened.
Fd open_fd(const std::string& path, int flags, unsigned mode = 0644);

/// Sets O_NONBLOCK on `fd`; false (errno set) on failure.
bool set_nonblocking(int fd);

} // namespace phc::util
