#include "util/file.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

namespace phc::util {

namespace {

Error errno_error(std::string_view what, const std::string& path) {
    return make_error(fmt::format("{}: error: {}: {}", path, what, std::strerror(errno)));
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
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    bool same = reads_exactly(fd, Cursor{pieces});
    ::close(fd);
    return same;
}

Result<std::string> read_file(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno_error("cannot read file", path);
    std::string out;
    struct stat st {};
    if (::fstat(fd, &st) == 0 && st.st_size > 0) out.reserve(static_cast<size_t>(st.st_size));
    char buf[1 << 16];
    for (;;) {
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR) continue;
            Error e = errno_error("cannot read file", path);
            ::close(fd);
            return e;
        }
        if (n == 0) break;
        out.append(buf, static_cast<size_t>(n));
    }
    ::close(fd);
    return out;
}

Status write_file_atomic(const std::string& path, std::string_view content) {
    return write_file_atomic(path, std::span<const std::string_view>(&content, 1));
}

Status write_file_atomic(const std::string& path, std::span<const std::string_view> pieces) {
    return write_file_atomic(path, pieces, Sync::Disk);
}

Status write_file_atomic(const std::string& given, std::span<const std::string_view> pieces,
                         Sync sync) {
    // Replace a symlink's target, not the link itself.
    std::error_code ec;
    std::string path = given;
    if (std::filesystem::is_symlink(given, ec)) {
        auto real = std::filesystem::canonical(given, ec);
        if (!ec) path = real.string();
    }
    std::string tmp = path + ".phc-tmp-XXXXXX";
    int fd = ::mkstemp(tmp.data());
    if (fd < 0) return errno_error("cannot create temporary file next to it", given);
    struct stat st {};
    mode_t mode = 0666 & ~current_umask();
    if (::stat(path.c_str(), &st) == 0) mode = st.st_mode & 07777;
    ::fchmod(fd, mode);
    if (!write_all(fd, pieces) || (sync == Sync::Disk && ::fsync(fd) != 0)) {
        Error e = errno_error("cannot write file", path);
        ::close(fd);
        ::unlink(tmp.c_str());
        return e;
    }
    ::close(fd);
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        Error e = errno_error("cannot replace file", path);
        ::unlink(tmp.c_str());
        return e;
    }
    return Ok{};
}

bool file_exists(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0;
}

Status make_dirs(const std::string& path) {
    std::error_code ec;
    std::filesystem::create_directories(path, ec);
    if (ec)
        return make_error(
            fmt::format("{}: error: cannot create directory: {}", path, ec.message()));
    return Ok{};
}

} // namespace phc::util
