#include "util/file.h"

#include "util/fd.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <dirent.h>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <optional>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

namespace phc::util {

std::string join_path(const std::string& dir, const std::string& path) {
    if (dir.empty() || dir == "." || (!path.empty() && path[0] == '/')) return path;
    if (path.empty() || path == ".") return dir;
    return dir.back() == '/' ? dir + path : dir + "/" + path;
}

std::vector<std::string> split_on(std::string_view text, char sep) {
    std::vector<std::string> out;
    for (size_t start = 0;;) {
        size_t at = text.find(sep, start);
        out.emplace_back(text.substr(start, at - start));
        if (at == std::string_view::npos) return out;
        start = at + 1;
    }
}

std::string_view extension(std::string_view path) {
    size_t dot = path.rfind('.');
    size_t slash = path.rfind('/');
    if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash))
        return {};
    return path.substr(dot);
}

namespace {

Error errno_error(std::string_view what, const std::string& path) {
    return error_at(path, fmt::format("{}: {}", what, std::strerror(errno)));
}

/// The process's umask (read without changing it for long).
mode_t current_umask() {
    mode_t m = ::umask(022);
    ::umask(m);
    return m;
}

/// A position in a sequence of pieces: the next byte is pieces[index][offset].
struct Cursor {
    std::span<const std::string_view> pieces;
    size_t index = 0, offset = 0;

    /// The rest of the current piece, after stepping over finished and empty
    /// pieces; empty at the end.
    std::string_view rest() {
        while (index < pieces.size() && offset == pieces[index].size()) {
            ++index;
            offset = 0;
        }
        return index < pieces.size() ? pieces[index].substr(offset) : std::string_view();
    }

    /// Moves forward `n` bytes (at most to the end).
    void advance(size_t n) {
        while (n > 0) {
            std::string_view r = rest();
            if (r.empty()) return;
            size_t k = std::min(n, r.size());
            offset += k;
            n -= k;
        }
    }
};

/// Fills `batch` with the non-empty pieces from `at` on; returns how many.
int fill(Cursor at, std::span<iovec> batch) {
    size_t n = 0;
    for (std::string_view p; n < batch.size() && !(p = at.rest()).empty(); at.offset += p.size())
        batch[n++] = iovec{const_cast<char*>(p.data()), p.size()};
    return static_cast<int>(n);
}

/// True when reading `fd` to its end gives exactly the bytes from `want` on.
bool reads_exactly(int fd, Cursor want) {
    char buf[1 << 16];
    for (;;) {
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return false;
        if (n == 0) return want.rest().empty();
        for (std::string_view got(buf, static_cast<size_t>(n)); !got.empty();) {
            std::string_view next = want.rest();
            if (next.empty()) return false; // the file is longer
            size_t k = std::min(next.size(), got.size());
            if (std::memcmp(next.data(), got.data(), k) != 0) return false;
            got.remove_prefix(k);
            want.offset += k;
        }
    }
}

} // namespace

bool write_all(int fd, std::span<const std::string_view> pieces) {
    std::array<iovec, IOV_MAX> batch;
    Cursor at{pieces};
    for (;;) {
        int count = fill(at, batch);
        if (count == 0) return true;
        ssize_t n = ::writev(fd, batch.data(), count);
        if (n < 0 && errno == EINTR) continue;
        if (n == 0) errno = EIO; // nothing written and no reason given
        if (n <= 0) return false;
        at.advance(static_cast<size_t>(n));
    }
}

bool write_all(int fd, std::string_view data) {
    return write_all(fd, std::span<const std::string_view>(&data, 1));
}

bool file_holds(const std::string& path, std::span<const std::string_view> pieces) {
    size_t total = 0;
    for (std::string_view p : pieces)
        total += p.size();
    // stat first: a different size (or a fifo, which would block) needs no open.
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) ||
        static_cast<uint64_t>(st.st_size) != total)
        return false;
    Fd fd = open_fd(path, O_RDONLY);
    return fd.valid() && reads_exactly(fd.get(), Cursor{pieces});
}

Result<std::string> read_file(const std::string& path) {
    Fd fd = open_fd(path, O_RDONLY);
    if (!fd.valid()) return errno_error("cannot read file", path);
    std::string out;
    struct stat st {};
    if (::fstat(fd.get(), &st) == 0 && st.st_size > 0) out.reserve(static_cast<size_t>(st.st_size));
    char buf[1 << 16];
    for (;;) {
        ssize_t n = ::read(fd.get(), buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR) continue;
            return errno_error("cannot read file", path);
        }
        if (n == 0) break;
        out.append(buf, static_cast<size_t>(n));
    }
    return out;
}

Result<std::string> read_regular_file(const std::string& path, size_t max_bytes) {
    auto refused = [&](const struct stat& st) -> std::optional<Error> {
        if (!S_ISREG(st.st_mode)) return error_at(path, "not a regular file");
        if (static_cast<uint64_t>(st.st_size) > max_bytes)
            return error_at(path, fmt::format("larger than {} bytes", max_bytes));
        return std::nullopt;
    };
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return errno_error("cannot read file", path);
    if (auto e = refused(st)) return *e;
    // O_NONBLOCK: should the path have become a fifo since the stat, the open
    // does not wait for a writer; what was opened is checked again.
    Fd fd = open_fd(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
    if (!fd.valid()) return errno_error("cannot read file", path);
    if (::fstat(fd.get(), &st) != 0) return errno_error("cannot read file", path);
    if (auto e = refused(st)) return *e;
    std::string out;
    out.reserve(static_cast<size_t>(st.st_size));
    char buf[1 << 16];
    for (;;) {
        ssize_t n = ::read(fd.get(), buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR) continue;
            return errno_error("cannot read file", path);
        }
        if (n == 0) break;
        out.append(buf, static_cast<size_t>(n));
        if (out.size() > max_bytes) // it grew meanwhile
            return error_at(path, fmt::format("larger than {} bytes", max_bytes));
    }
    return out;
}

Status write_file_atomic(const std::string& path, std::string_view content) {
    return write_file_atomic(path, std::span<const std::string_view>(&content, 1));
}

Status write_file_atomic(const std::string& path, std::span<const std::string_view> pieces) {
    return write_file_atomic(path, pieces, Sync::Disk);
}

namespace {

/// What a temporary file's name adds to its target's: mkstemp(3)'s six letters follow.
constexpr std::string_view kTempMark = ".phc-tmp-";
constexpr size_t kTempLetters = 6;
/// A temporary of ours this much older than now is a leftover (SIGKILL, power cut).
constexpr time_t kStaleSeconds = 60;

/// True when `name` is "<base>.phc-tmp-" followed by mkstemp's six letters.
bool is_our_temporary(std::string_view name, std::string_view base) {
    if (name.size() != base.size() + kTempMark.size() + kTempLetters) return false;
    if (!name.starts_with(base) || name.substr(base.size(), kTempMark.size()) != kTempMark)
        return false;
    for (char c : name.substr(base.size() + kTempMark.size()))
        if (!std::isalnum(static_cast<unsigned char>(c))) return false;
    return true;
}

/// Removes regular files in `dir` named like our temporaries of `base` that are
/// older than kStaleSeconds. Quietly: it is housekeeping.
void remove_stale_temporaries(const std::string& dir, std::string_view base) {
    DIR* d = ::opendir(dir.c_str());
    if (!d) return;
    const time_t now = ::time(nullptr);
    while (const dirent* e = ::readdir(d)) {
        if (!is_our_temporary(e->d_name, base)) continue;
        struct stat st {};
        if (::fstatat(::dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISREG(st.st_mode) && st.st_mtime < now - kStaleSeconds)
            ::unlinkat(::dirfd(d), e->d_name, 0);
    }
    ::closedir(d);
}

/// Replaces (or creates) the regular file `path` through a temporary file next
/// to it and rename(2). `given` names it in messages; `mode` is the new file's.
Status replace_regular(const std::string& given, const std::string& path,
                       std::span<const std::string_view> pieces, Sync sync, mode_t mode) {
    size_t slash = path.rfind('/');
    std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
    remove_stale_temporaries(dir, slash == std::string::npos ? path : path.substr(slash + 1));
    // From the temporary's creation to its rename or removal, a stop signal
    // waits: an interrupted run leaves no temporary behind.
    StopSignalsHeld held;
    std::string tmp = path + std::string(kTempMark) + std::string(kTempLetters, 'X');
    Fd fd(::mkstemp(tmp.data()));
    if (!fd.valid()) return errno_error("cannot create temporary file next to it", given);
    ::fchmod(fd.get(), mode);
    if (!write_all(fd.get(), pieces) || (sync == Sync::Disk && ::fsync(fd.get()) != 0)) {
        Error e = errno_error("cannot write file", path);
        fd.reset();
        ::unlink(tmp.c_str());
        return e;
    }
    fd.reset();
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        Error e = errno_error("cannot replace file", path);
        ::unlink(tmp.c_str());
        return e;
    }
    return Ok{};
}

/// Writes into the character device or fifo `path` (no creation, no rename).
Status write_through(const std::string& path, std::span<const std::string_view> pieces) {
    Fd fd = open_fd(path, O_WRONLY | O_NOCTTY);
    if (!fd.valid()) return errno_error("cannot open for writing", path);
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0 || !(S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)))
        return error_at(path, "refusing to write: it changed while writing"); // leave it alone
    if (!write_all(fd.get(), pieces)) return errno_error("cannot write", path);
    if (::close(fd.release()) != 0 && errno != EINTR) return errno_error("cannot write", path);
    return Ok{};
}

/// "a directory", "a block device", ... for a file type write_file_atomic refuses.
const char* refused_kind(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "of a kind that is not written (not a regular file, character device or fifo)";
}

} // namespace

namespace {

/// Where and how write_file_atomic() writes `given`.
struct Destination {
    WriteMode mode = WriteMode::Create;
    std::string path; ///< the file to create or replace (a link's final target), or to open
    mode_t perms = 0; ///< a created or replaced file's permission bits
};

Result<Destination> destination(const std::string& given) {
    struct stat st {};
    if (::lstat(given.c_str(), &st) != 0) {
        if (errno != ENOENT) return errno_error("cannot examine file", given);
        return Destination{WriteMode::Create, given, 0666 & ~current_umask()};
    }
    const bool link = S_ISLNK(st.st_mode);
    if (link && ::stat(given.c_str(), &st) != 0)
        return error_at(given, fmt::format("refusing to write through a link whose target is "
                                           "missing or cannot be resolved: {}",
                                           std::strerror(errno)));
    if (S_ISREG(st.st_mode)) {
        if (!link) return Destination{WriteMode::Replace, given, st.st_mode & 07777};
        // Replace the link's final target; the link stays.
        char real[PATH_MAX];
        if (!::realpath(given.c_str(), real))
            return error_at(given, fmt::format("refusing to write through a link whose target "
                                               "cannot be resolved: {}",
                                               std::strerror(errno)));
        return Destination{WriteMode::Replace, real, st.st_mode & 07777};
    }
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))
        return Destination{WriteMode::Through, given, 0};
    return error_at(given, fmt::format("refusing to write: it is {}{}", link ? "a link to " : "",
                                       refused_kind(st.st_mode)));
}

} // namespace

Result<WriteMode> write_mode(const std::string& path) {
    auto d = destination(path);
    if (!d) return d.error();
    return d->mode;
}

Status write_file_atomic(const std::string& path, std::span<const std::string_view> pieces,
                         Sync sync) {
    auto d = destination(path);
    if (!d) return d.error();
    if (d->mode == WriteMode::Through) return write_through(path, pieces);
    return replace_regular(path, d->path, pieces, sync, d->perms);
}

FileId file_id(const std::string& path) {
    FileId id;
    std::error_code ec;
    // A file's identity, not a ninja node: the kernel's view, lexically when it does not exist.
    std::string normal = std::filesystem::absolute(path, ec).lexically_normal().string();
    if (normal.size() > 1 && normal.back() == '/') normal.pop_back();
    // The path as the kernel resolves it, else lexically normalised ("a/missing/../b").
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 || ::stat(normal.c_str(), &st) == 0) {
        id.exists = true;
        id.dev = st.st_dev;
        id.ino = st.st_ino;
    } else {
        id.path = std::move(normal);
    }
    return id;
}

bool is_stdout(const std::string& path) {
    if (path == "-") return true;
    struct stat out {
    }, st{};
    return ::fstat(1, &out) == 0 && ::stat(path.c_str(), &st) == 0 && out.st_dev == st.st_dev &&
           out.st_ino == st.st_ino;
}

bool file_exists(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0;
}

Status make_dirs(const std::string& path) {
    std::error_code ec;
    std::filesystem::create_directories(path, ec);
    if (ec) return error_at(path, "cannot create directory: " + ec.message());
    return Ok{};
}

Status make_user_dir(const std::string& path) {
    const std::string parent = std::filesystem::path(path).parent_path().string();
    if (!parent.empty() && parent != path)
        if (auto st = make_dirs(parent); !st) return st;
    if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST)
        return error_at(path, std::string("cannot create directory: ") + std::strerror(errno));
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0)
        return error_at(path, std::string("cannot read: ") + std::strerror(errno));
    if (S_ISLNK(st.st_mode)) return error_at(path, "is a symbolic link, not a folder");
    if (!S_ISDIR(st.st_mode)) return error_at(path, "is not a folder");
    if (st.st_uid != ::geteuid())
        return error_at(
            path, fmt::format("is owned by uid {}, not by this user ({})", st.st_uid, ::geteuid()));
    if (st.st_mode & (S_IWGRP | S_IWOTH)) return error_at(path, "is writable by other users");
    return Ok{};
}

std::string user_cache_dir() {
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return x;
    if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache";
    return {};
}

} // namespace phc::util
