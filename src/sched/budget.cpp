#include "sched/budget.h"

#include "util/file.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <memory>
#include <optional>
#include <poll.h>
#include <random>
#include <string_view>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace phc::sched {

namespace {

constexpr int64_t kNever = INT64_MAX;
/// What one entry may hold at most (1 EiB), and how long a step may be
/// expected to run (a year): a garbage file or record never overflows a sum.
constexpr uint64_t kMaxBytes = uint64_t{1} << 60;
constexpr int64_t kMaxDurationNs = int64_t{365} * 24 * 3600 * 1000000000;
/// The letters after "<pid>." in a reservation's name.
constexpr size_t kLetters = 6;

/// A reservation file's line: state, bytes, since, end.
struct Entry {
    char state = 0;
    uint64_t bytes = 0;
    int64_t since = 0;
    int64_t end = 0;
};

std::optional<Entry> read_entry(int fd) {
    char buf[96] = {};
    ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
    Entry e;
    long long since = 0, end = 0;
    unsigned long long bytes = 0;
    if (n <= 0 || std::sscanf(buf, "%c %llu %lld %lld", &e.state, &bytes, &since, &end) < 3)
        return std::nullopt;
    e.bytes = std::min<uint64_t>(bytes, kMaxBytes); // sums of a few never overflow
    e.since = since;
    e.end = end > 0 ? end : 0;
    return e;
}

/// Writes the entry over the last one: always 64 bytes (padded), so no
/// truncation is needed (ext4 writes a file truncated to zero back to disk
/// when it is closed, which costs every step a fraction of a millisecond).
bool write_entry(int fd, const Entry& e) {
    std::string line = fmt::format("{} {} {} {}", e.state, e.bytes, e.since, e.end);
    line.resize(63, ' ');
    line += '\n';
    return ::pwrite(fd, line.data(), line.size(), 0) == static_cast<ssize_t>(line.size());
}

/// True when `name` is a reservation's, "<pid>.XXXXXX" (digits, a dot, six
/// letters or digits): nothing else in the folder is ever removed, whatever
/// was put there.
bool is_reservation(std::string_view name) {
    const size_t dot = name.find('.');
    if (dot == 0 || dot == std::string_view::npos || name.size() != dot + 1 + kLetters)
        return false;
    auto digit = [](char c) { return c >= '0' && c <= '9'; };
    auto letter = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
    return std::all_of(name.begin(), name.begin() + static_cast<ptrdiff_t>(dot), digit) &&
           std::all_of(name.begin() + static_cast<ptrdiff_t>(dot) + 1, name.end(), letter);
}

/// Counts one other step's file `name` into `h`, or removes it when stale.
void count_entry(int dirfd, const std::string& dir, const char* name, int64_t since, Holders& h) {
    util::FileLock file(
        util::Fd(::openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)),
        dir + "/" + name);
    struct stat st {};
    if (file.fd() < 0 || ::fstat(file.fd(), &st) != 0 || !S_ISREG(st.st_mode)) return;
    auto had = file.try_lock();
    if (!had) return;
    if (*had) { // its step is gone (or has just let go): the file is stale
        ::unlinkat(dirfd, name, 0);
        return;
    }
    auto e = read_entry(file.fd());
    if (!e) return; // not a reservation (every one is written whole under the folder's lock)
    if (e->state == 'R') {
        h.running.push_back({e->bytes, e->end});
    } else if (e->since < since && (!h.waiting || e->since < h.ahead_since)) {
        h.waiting = true;
        h.ahead = e->bytes;
        h.ahead_since = e->since;
    }
}

/// The budget folder `dir`, made when missing and opened without following a
/// link in its place: a link there (to a folder outside the build directory)
/// is refused, as the other files of the records folder are, so that no
/// step ever removes a file of a folder it was pointed to.
Result<util::Fd> open_folder(const std::string& dir) {
    if (auto st = util::make_dirs(dir); !st) return st.error();
    util::Fd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (fd.valid()) return fd;
    if (errno == ELOOP || errno == ENOTDIR)
        return error_at(dir, "not a folder (a link or another file in its place): not used");
    return error_at(dir, std::string("cannot open the budget folder: ") + std::strerror(errno));
}

/// The folder's lock file, opened in `dirfd` (a regular file, links not followed).
Result<util::FileLock> open_lock(int dirfd, const std::string& dir) {
    const std::string where = dir + "/lock";
    util::Fd fd(::openat(dirfd, "lock",
                         O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0666));
    struct stat st {};
    if (!fd.valid() || ::fstat(fd.get(), &st) != 0)
        return error_at(where, std::string("cannot open lock file: ") + std::strerror(errno));
    if (!S_ISREG(st.st_mode)) return error_at(where, "lock file is not a regular file");
    return util::FileLock(std::move(fd), where);
}

/// A new reservation file in `dirfd`, "<pid>.XXXXXX" as mkstemp names them;
/// its name in `name`.
util::Fd make_reservation_file(int dirfd, std::string& name) {
    static constexpr std::string_view kAlphabet =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    std::random_device random;
    for (int attempt = 0; attempt < 100; ++attempt) {
        name = fmt::format("{}.", ::getpid());
        for (size_t i = 0; i < kLetters; ++i)
            name += kAlphabet[random() % kAlphabet.size()];
        util::Fd fd(::openat(dirfd, name.c_str(),
                             O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
        if (fd.valid() || errno != EEXIST) return fd;
    }
    return util::Fd();
}

} // namespace

uint64_t Holders::reserved() const {
    uint64_t sum = 0;
    for (const Running& r : running) // each <= kMaxBytes: the sum never overflows
        sum = std::min(sum + std::min(r.bytes, kMaxBytes), kMaxBytes);
    return sum;
}

int64_t monotonic_ns() {
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

Shadow shadow_of(const Holders& h, uint64_t budget, int64_t now) {
    // What stays reserved after the running steps that end first have ended.
    auto free_beside = [&](uint64_t remaining) {
        return remaining + h.ahead <= budget ? budget - remaining - h.ahead : 0;
    };
    const uint64_t reserved = h.reserved();
    uint64_t remaining = reserved;
    if (remaining + h.ahead <= budget || h.running.empty()) return {now, free_beside(remaining)};
    std::vector<Running> ends = h.running;
    for (Running& r : ends)
        r.end = r.end == 0 ? kNever : std::max(r.end, now); // late: about to end
    std::sort(ends.begin(), ends.end(),
              [](const Running& a, const Running& b) { return a.end < b.end; });
    for (const Running& r : ends) {
        if (r.end == kNever) break;
        remaining -= std::min(remaining, r.bytes);
        // The head fits then, or runs alone once nothing else does.
        if (remaining + h.ahead <= budget || remaining == 0) return {r.end, free_beside(remaining)};
    }
    // Some step's end is unknown: nothing is known to end before the head starts.
    return {kNever, free_beside(reserved)};
}

bool may_start(const Holders& h, const Ask& ask, uint64_t budget, int64_t now) {
    if (!h.running.empty() && h.reserved() + ask.bytes > budget) return false; // does not fit now
    if (!h.waiting) return true;
    const Shadow s = shadow_of(h, budget, now);
    if (ask.bytes <= s.extra) return true; // fits beside the head when it starts
    return ask.duration_ns > 0 && s.time != kNever && s.time - now >= ask.duration_ns;
}

Holders scan_holders(int dirfd, const std::string& dir, const std::string& self, int64_t since) {
    Holders h;
    // A descriptor of its own: the DIR takes it, and reads from the start.
    const int fd = ::openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    std::unique_ptr<DIR, int (*)(DIR*)> d(fd >= 0 ? ::fdopendir(fd) : nullptr, ::closedir);
    if (!d) {
        if (fd >= 0) ::close(fd);
        return h;
    }
    while (const dirent* e = ::readdir(d.get())) {
        const std::string_view name = e->d_name;
        if (!is_reservation(name) || name == self) continue;
        count_entry(dirfd, dir, e->d_name, since, h);
    }
    return h;
}

Reservation& Reservation::operator=(Reservation&& other) noexcept {
    if (this != &other) {
        if (!name_.empty()) ::unlinkat(dir_.get(), name_.c_str(), 0);
        dir_ = std::move(other.dir_);
        name_ = std::exchange(other.name_, {});
        file_ = std::move(other.file_);
        waited_ms_ = other.waited_ms_;
    }
    return *this;
}

Reservation::~Reservation() {
    // Removed while still locked: nobody takes a removed file for a live one.
    if (!name_.empty()) ::unlinkat(dir_.get(), name_.c_str(), 0);
}

Result<Reservation> reserve(const std::string& dir, const Ask& asked, uint64_t budget) {
    const Ask ask{std::min(asked.bytes, kMaxBytes),
                  std::clamp<int64_t>(asked.duration_ns, 0, kMaxDurationNs)};
    // Every file of the folder is opened and removed relative to the folder
    // opened once: the folder renamed or replaced by a link meanwhile never
    // sends a removal elsewhere.
    auto dirfd = open_folder(dir);
    if (!dirfd) return dirfd.error();
    auto folder = open_lock(dirfd->get(), dir);
    if (!folder) return folder.error();
    if (auto st = folder->lock(); !st) return st.error();
    Reservation r;
    std::string self;
    util::Fd fd = make_reservation_file(dirfd->get(), self);
    if (!fd.valid())
        return error_at(dir, std::string("cannot make a reservation: ") + std::strerror(errno));
    const std::string path = dir + "/" + self;
    r.dir_ = std::move(*dirfd);
    r.name_ = self;
    r.file_ = util::FileLock(std::move(fd), path);
    if (auto had = r.file_.try_lock(); !had) return had.error();
    Entry mine{'W', ask.bytes, monotonic_ns(), 0};
    const auto start = std::chrono::steady_clock::now();
    // A step that ends removes its file: the waiting steps learn of it at once
    // (inotify), watched from the first look that says wait, which is made
    // again once the watch is there, so no removal is missed. (Only a step
    // that waits pays for inotify: closing one takes the kernel milliseconds.)
    // A dead step's file goes only when a look finds it stale: the polls (1 ms,
    // doubling up to 50 ms) remain for that, and where inotify is not there.
    util::Fd released;
    bool watching = false;
    int delay_ms = 1;
    for (;;) {
        const int64_t now = monotonic_ns();
        const bool start_now =
            may_start(scan_holders(r.dir_.get(), dir, self, mine.since), ask, budget, now);
        if (start_now) {
            mine.state = 'R';
            mine.end = ask.duration_ns > 0 ? now + ask.duration_ns : 0;
        }
        if (!write_entry(r.file_.fd(), mine))
            return error_at(path, std::string("cannot write: ") + std::strerror(errno));
        if (start_now) break;
        if (!watching) {
            watching = true;
            released = util::Fd(::inotify_init1(IN_CLOEXEC | IN_NONBLOCK));
            if (released.valid() &&
                ::inotify_add_watch(released.get(), dir.c_str(),
                                    IN_DELETE | IN_ONLYDIR | IN_DONT_FOLLOW) < 0)
                released = util::Fd();
            continue; // look again, watching
        }
        folder->unlock();
        if (released.valid()) {
            pollfd p{released.get(), POLLIN, 0};
            if (::poll(&p, 1, delay_ms) > 0) {
                char events[4096];
                while (::read(released.get(), events, sizeof events) > 0) {
                }
            }
        } else {
            std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
        }
        delay_ms = std::min(delay_ms * 2, 50);
        if (auto st = folder->lock(); !st) return st.error();
    }
    r.waited_ms_ = std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::steady_clock::now() - start)
                       .count();
    return r;
}

} // namespace phc::sched
