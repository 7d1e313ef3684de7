#include "launch/pool.h"

#include "util/cgroup.h"
#include "util/file.h"
#include "util/settings.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fmt/format.h>
#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>

namespace phc::launch {

Result<std::unique_ptr<CpuPool>> CpuPool::open(const std::string& dir, int size) {
    if (auto st = util::make_user_dir(dir); !st) return st.error();
    auto lock = util::FileLock::open(dir + "/lock");
    if (!lock) return lock.error();
    std::unique_ptr<CpuPool> pool(new CpuPool());
    pool->dir_ = dir;
    pool->lock_ = std::move(*lock);
    pool->slots_.resize(static_cast<size_t>(size > 0 ? size : 1));
    pool->changes_ = util::Fd(::inotify_init1(IN_CLOEXEC | IN_NONBLOCK));
    if (pool->changes_.valid() &&
        ::inotify_add_watch(pool->changes_.get(), dir.c_str(), IN_CLOSE_WRITE) < 0)
        pool->changes_.reset();
    return pool;
}

void CpuPool::drain() {
    char events[4096];
    while (changes_.valid() && ::read(changes_.get(), events, sizeof events) > 0) {
    }
}

Result<std::optional<int>> CpuPool::take_free(char mark, int* extras) {
    *extras = 0;
    for (size_t i = 0; i < slots_.size(); ++i) {
        util::FileLock& slot = slots_[i];
        if (slot.held()) continue; // ours
        if (slot.fd() < 0) {
            auto opened = util::FileLock::open(fmt::format("{}/slot.{}", dir_, i));
            if (!opened) return opened.error();
            slot = std::move(*opened);
        }
        auto had = slot.try_lock();
        if (!had) return had.error();
        if (*had) {
            if (::pwrite(slot.fd(), &mark, 1, 0) != 1)
                return error_at(dir_, std::string("cannot write a slot: ") + std::strerror(errno));
            return std::optional<int>(static_cast<int>(i));
        }
        char held = 0; // another launcher's: its letter
        if (::pread(slot.fd(), &held, 1, 0) == 1 && held == 'E') ++*extras;
    }
    return std::optional<int>();
}

Status CpuPool::join(std::chrono::milliseconds limit, int stop_fd) {
    if (own_ >= 0) return Ok{};
    const auto until = std::chrono::steady_clock::now() + limit;
    auto had = lock_.lock_within(limit);
    if (!had) return had.error();
    if (!*had) return Ok{}; // a stopped launcher holds the folder: go on uncounted
    Status result = Ok{};
    for (;;) {
        drain();
        int extras = 0;
        auto slot = take_free('I', &extras);
        if (!slot) {
            result = slot.error();
            break;
        }
        if (*slot) own_ = **slot;
        const auto now = std::chrono::steady_clock::now();
        if (*slot || extras == 0 || now >= until) break;
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - now);
        const int wait = static_cast<int>(std::min<long long>(left.count() + 1, retry_ms()));
        pollfd p[2] = {{stop_fd, POLLIN, 0}, {changes_.get(), POLLIN, 0}};
        if (::poll(p, 2, wait) > 0 && (p[0].revents & POLLIN)) break; // a signal: stop waiting
    }
    lock_.unlock();
    return result;
}

std::optional<int> CpuPool::try_take() {
    drain();
    auto had = lock_.try_lock();
    if (!had || !*had) return std::nullopt;
    int extras = 0;
    auto slot = take_free('E', &extras);
    lock_.unlock();
    return slot ? *slot : std::nullopt;
}

void CpuPool::give_back(int slot) {
    if (slot >= 0 && static_cast<size_t>(slot) < slots_.size())
        slots_[static_cast<size_t>(slot)].release(); // closed: the lock goes, waiters wake
}

std::string pool_dir() {
    if (auto p = util::get("PHC_POOL_DIR"); p && !p->empty()) return *p;
    if (const char* x = std::getenv("XDG_RUNTIME_DIR"); x && *x)
        return std::string(x) + "/phc-pool";
    return fmt::format("/tmp/phc-pool-{}", ::geteuid());
}

Result<int> pool_size() {
    const auto env = util::get("PHC_JOBS");
    if (!env) return util::available_cpus();
    int v = 0;
    auto [end, ec] = std::from_chars(env->data(), env->data() + env->size(), v);
    if (ec != std::errc() || end != env->data() + env->size() || v <= 0)
        return make_error(fmt::format("PHC_JOBS='{}' is not a positive number", *env));
    return v;
}

} // namespace phc::launch
