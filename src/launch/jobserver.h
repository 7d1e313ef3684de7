// A GNU make jobserver client (POSIX), and the user's CPU pool (pool.h) used
// when there is none.
//
// The protocol: a job server hands out N-1 one-byte tokens through a pipe or a
// fifo; every client already owns one implicit slot (the one it was started in).
// To run one more job at once a client reads a byte; when that job is done it
// writes the same byte back. A client must write back every byte it read, on
// every exit path, or the whole build loses parallelism (or hangs).
//
// We never block on the jobserver: the read side is non-blocking (a fifo we open
// ourselves, or the inherited pipe re-opened through /proc/self/fd so that its
// O_NONBLOCK is ours alone) and the event loop poll()s it.
#pragma once

#include "launch/makeflags.h"
#include "launch/pool.h"
#include "util/error.h"
#include "util/fd.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace phc::launch {

class Jobserver;

/// One token taken from a Jobserver (a byte of the shared pipe, or a slot of a
/// pool). Move-only; destroying it gives the same byte back to its server.
class Token {
public:
    Token(Jobserver* owner, int value) : owner_(owner), value_(value) {}
    Token(Token&& other) noexcept;
    Token& operator=(Token&& other) noexcept;
    Token(const Token&) = delete;
    Token& operator=(const Token&) = delete;
    ~Token() { release(); }

    /// Gives the token back now (idempotent).
    void release();
    /// The byte read from the jobserver.
    char byte() const { return static_cast<char>(value_); }

private:
    Jobserver* owner_ = nullptr;
    int value_ = 0; ///< the byte, or the CPU pool's slot
};

/// The source of extra job slots for one launcher process. Do not move it while
/// tokens are out (they point at it): it lives in a unique_ptr.
class Jobserver {
public:
    /// A local pool allowing `total_jobs` jobs at once (the implicit slot + total-1
    /// tokens); 0 means unlimited.
    static std::unique_ptr<Jobserver> local(int total_jobs);
    /// Tokens from the user's CPU pool (pool.h), shared by every launcher.
    static std::unique_ptr<Jobserver> shared(std::unique_ptr<CpuPool> pool);
    /// Opens the fifo at `path` (O_RDWR|O_NONBLOCK). Errors say why it is unusable.
    static Result<std::unique_ptr<Jobserver>> open_fifo(const std::string& path);
    /// Uses the inherited pipe `read_fd`/`write_fd` after checking it (check_pipe_fds).
    static Result<std::unique_ptr<Jobserver>> open_pipe(int read_fd, int write_fd);

    /// What `flags` advertises, or when that is unusable or absent, what
    /// `fallback` makes (the CPU pool). `warning` gets one line when an
    /// advertised jobserver could not be used.
    static std::unique_ptr<Jobserver>
    connect(const Makeflags& flags, const std::function<std::unique_ptr<Jobserver>()>& fallback,
            std::string* warning);

    ~Jobserver();
    Jobserver(const Jobserver&) = delete;
    Jobserver& operator=(const Jobserver&) = delete;

    /// Takes a token if one is free right now; never blocks.
    std::optional<Token> try_acquire();
    /// The descriptor to poll for POLLIN while a token is wanted; -1 when waiting
    /// cannot help (local pool, or the jobserver pipe reached EOF).
    int wait_fd() const { return pool_ ? pool_->wait_fd() : eof_ ? -1 : read_fd_.get(); }
    /// While a token is wanted, look again after this many ms even without an
    /// event (-1: never; the CPU pool: a slot's holder may die unseen).
    int retry_ms() const { return pool_ ? CpuPool::retry_ms() : -1; }
    /// The CPU pool, when tokens come from it.
    CpuPool* pool() const { return pool_.get(); }
    /// True when the jobserver's pipe was closed under us (we then use only the implicit slot).
    bool saw_eof() const { return eof_; }
    /// Tokens currently out.
    int held() const { return held_; }
    /// A short description ("fifo:/path", "pipe 3,4", "local -j4") for messages.
    const std::string& describe() const { return what_; }

private:
    friend class Token;
    Jobserver() = default;
    /// Writes `value`, a byte, back (or frees a pool's slot).
    void give_back(int value);

    util::Fd read_fd_;              ///< our non-blocking read side (none for a local pool)
    int write_fd_ = -1;             ///< where tokens go back (may be read_fd_ for a fifo)
    util::Fd owned_write_;          ///< owns write_fd_ when we opened it
    bool local_ = false;            ///< a local pool, no shared pipe
    int local_extra_ = -1;          ///< tokens the local pool may hand out; -1 unlimited
    std::unique_ptr<CpuPool> pool_; ///< the user's CPU pool, when tokens come from it
    int held_ = 0;
    bool eof_ = false;
    std::string what_;
};

/// Checks that `read_fd` and `write_fd` are open, are both ends of one pipe or
/// fifo, and are open for reading and writing respectively. make 4.3 advertises
/// its descriptors even to recipes that did not get them (they are then closed
/// or reused for something else).
Status check_pipe_fds(int read_fd, int write_fd);

} // namespace phc::launch
