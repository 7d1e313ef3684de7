#include "launch/trace.h"

#include "util/fd.h"
#include "util/hash.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace phc::launch {

std::string trace_line(int64_t start_ms, int64_t end_ms, std::string_view name) {
    util::Hasher h;
    h.add(name);
    return fmt::format("{}\t{}\t{}\t{}\t{}\n", start_ms, end_ms, end_ms, name, h.hex64());
}

Status append_trace(const std::string& path, std::string_view lines) {
    util::Fd fd(::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644));
    if (!fd.valid())
        return error_at(path, fmt::format("cannot open trace log: {}", std::strerror(errno)));
    ::flock(fd.get(), LOCK_EX);
    struct stat st {};
    std::string text;
    if (::fstat(fd.get(), &st) == 0 && st.st_size == 0) text = "# ninja log v5\n";
    text += lines;
    std::string_view rest = text;
    while (!rest.empty()) {
        ssize_t n = ::write(fd.get(), rest.data(), rest.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            ::flock(fd.get(), LOCK_UN);
            return error_at(path, fmt::format("cannot write trace log: {}", std::strerror(errno)));
        }
        rest.remove_prefix(static_cast<size_t>(n));
    }
    ::flock(fd.get(), LOCK_UN);
    return Ok{};
}

} // namespace phc::launch
