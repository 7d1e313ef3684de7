#include "launch/jobserver.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

namespace phc::launch {

Token::Token(Token&& other) noexcept
    : owner_(std::exchange(other.owner_, nullptr)), value_(other.value_) {}

Token& Token::operator=(Token&& other) noexcept {
    if (this != &other) {
        release();
        owner_ = std::exchange(other.owner_, nullptr);
        value_ = other.value_;
    }
    return *this;
}

void Token::release() {
    if (auto* o = std::exchange(owner_, nullptr)) o->give_back(value_);
}

Jobserver::~Jobserver() = default;

std::unique_ptr<Jobserver> Jobserver::local(int total_jobs) {
    std::unique_ptr<Jobserver> js(new Jobserver());
    js->local_ = true;
    js->local_extra_ = total_jobs <= 0 ? -1 : total_jobs - 1;
    js->what_ = total_jobs <= 0 ? "local, unlimited" : fmt::format("local -j{}", total_jobs);
    return js;
}

std::unique_ptr<Jobserver> Jobserver::shared(std::unique_ptr<CpuPool> pool) {
    std::unique_ptr<Jobserver> js(new Jobserver());
    js->what_ = fmt::format("the CPU pool of {} in {}", pool->size(), pool->dir());
    js->pool_ = std::move(pool);
    return js;
}

Result<std::unique_ptr<Jobserver>> Jobserver::open_fifo(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        return make_error(fmt::format("fifo {}: {}", path, std::strerror(errno)));
    if (!S_ISFIFO(st.st_mode)) return make_error(fmt::format("{} is not a fifo", path));
    util::Fd fd = util::open_fd(path, O_RDWR | O_NONBLOCK);
    if (!fd.valid()) return make_error(fmt::format("fifo {}: {}", path, std::strerror(errno)));
    std::unique_ptr<Jobserver> js(new Jobserver());
    js->write_fd_ = fd.get(); // the same descriptor, owned as read_fd_
    js->read_fd_ = std::move(fd);
    js->what_ = "fifo:" + path;
    return js;
}

Status check_pipe_fds(int read_fd, int write_fd) {
    struct stat rs {
    }, ws{};
    if (::fstat(read_fd, &rs) != 0) return make_error(fmt::format("fd {} is not open", read_fd));
    if (::fstat(write_fd, &ws) != 0) return make_error(fmt::format("fd {} is not open", write_fd));
    if (!S_ISFIFO(rs.st_mode)) return make_error(fmt::format("fd {} is not a pipe", read_fd));
    if (!S_ISFIFO(ws.st_mode)) return make_error(fmt::format("fd {} is not a pipe", write_fd));
    if (rs.st_dev != ws.st_dev || rs.st_ino != ws.st_ino)
        return make_error(fmt::format("fds {} and {} are not the same pipe", read_fd, write_fd));
    int racc = ::fcntl(read_fd, F_GETFL) & O_ACCMODE;
    int wacc = ::fcntl(write_fd, F_GETFL) & O_ACCMODE;
    if (racc != O_RDONLY && racc != O_RDWR)
        return make_error(fmt::format("fd {} is not open for reading", read_fd));
    if (wacc != O_WRONLY && wacc != O_RDWR)
        return make_error(fmt::format("fd {} is not open for writing", write_fd));
    return Ok{};
}

Result<std::unique_ptr<Jobserver>> Jobserver::open_pipe(int read_fd, int write_fd) {
    if (auto st = check_pipe_fds(read_fd, write_fd); !st) return st.error();
    // A private open file description, so O_NONBLOCK does not leak to make and
    // its other clients (which may expect blocking reads).
    util::Fd fd = util::open_fd(fmt::format("/proc/self/fd/{}", read_fd), O_RDONLY | O_NONBLOCK);
    if (!fd.valid()) {
        // No /proc: duplicate the descriptor. If the shared pipe is blocking, a
        // token taken by someone else between poll() and read() can make our read
        // wait for the next free token; that is rare and still makes progress.
        fd.reset(::fcntl(read_fd, F_DUPFD_CLOEXEC, 3));
        if (!fd.valid()) return make_error(fmt::format("fd {}: {}", read_fd, std::strerror(errno)));
    }
    std::unique_ptr<Jobserver> js(new Jobserver());
    js->read_fd_ = std::move(fd);
    js->write_fd_ = write_fd;
    js->what_ = fmt::format("pipe {},{}", read_fd, write_fd);
    return js;
}

std::unique_ptr<Jobserver>
Jobserver::connect(const Makeflags& flags,
                   const std::function<std::unique_ptr<Jobserver>()>& fallback,
                   std::string* warning) {
    const JobserverAuth& a = flags.auth;
    Result<std::unique_ptr<Jobserver>> js = make_error("no jobserver");
    switch (a.kind) {
    case JobserverAuth::Kind::None:
        return fallback();
    case JobserverAuth::Kind::Fifo:
        js = open_fifo(a.path);
        break;
    case JobserverAuth::Kind::Pipe:
        js = open_pipe(a.read_fd, a.write_fd);
        break;
    case JobserverAuth::Kind::Invalid:
        js = make_error("not a form this launcher knows");
        break;
    }
    if (js) return std::move(js).value();
    auto pool = fallback();
    if (warning)
        *warning = fmt::format("jobserver '{}' is unusable ({}); using {}", a.text,
                               js.error().text(), pool->describe());
    return pool;
}

std::optional<Token> Jobserver::try_acquire() {
    if (pool_) {
        auto slot = pool_->try_take();
        if (!slot) return std::nullopt;
        ++held_;
        return Token(this, *slot);
    }
    if (local_) {
        if (local_extra_ >= 0 && held_ >= local_extra_) return std::nullopt;
        ++held_;
        return Token(this, '+');
    }
    if (eof_ || !read_fd_.valid()) return std::nullopt;
    char byte = 0;
    while (true) {
        ssize_t n = ::read(read_fd_.get(), &byte, 1);
        if (n == 1) {
            ++held_;
            return Token(this, byte);
        }
        if (n < 0 && errno == EINTR) continue;
        if (n == 0) eof_ = true; // the server is gone: only the implicit slot remains
        return std::nullopt;     // EAGAIN: none free now; other errors: treat as none
    }
}

void Jobserver::give_back(int value) {
    --held_;
    if (pool_) return pool_->give_back(value);
    if (local_) return;
    const char byte = static_cast<char>(value);
    while (true) {
        ssize_t n = ::write(write_fd_, &byte, 1);
        if (n == 1) return;
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) {
            pollfd p{write_fd_, POLLOUT, 0};
            ::poll(&p, 1, 1000);
            continue;
        }
        return; // EPIPE/EBADF: the server is gone, nobody to give it to
    }
}

} // namespace phc::launch
