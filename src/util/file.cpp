#include "util/file.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <sys/stat.h>
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

} // namespace

bool write_all(int fd, std::string_view data) {
    while (!data.empty()) {
        ssize_t n = ::write(fd, data.data(), data.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        data.remove_prefix(static_cast<size_t>(n));
    }
    return true;
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

Status write_file_atomic(const std::string& given, std::string_view content) {
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
    if (!write_all(fd, content) || ::fsync(fd) != 0) {
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
