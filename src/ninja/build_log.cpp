#include "ninja/build_log.h"

#include "util/fd.h"
#include "util/file.h"
#include "util/lock.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <unordered_map>

namespace phc::ninja {

namespace {

/// Splits `line` at tabs into at most `max` fields (the last keeps the rest).
size_t split_tabs(std::string_view line, std::string_view* fields, size_t max) {
    size_t n = 0;
    while (n + 1 < max) {
        size_t tab = line.find('\t');
        if (tab == std::string_view::npos) break;
        fields[n++] = line.substr(0, tab);
        line.remove_prefix(tab + 1);
    }
    fields[n++] = line;
    return n;
}

/// Parses a whole decimal field (an optional '-' and digits).
bool parse_int(std::string_view s, int64_t& out) {
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && end == s.data() + s.size();
}

/// Longest time a log entry may say, in milliseconds (about 49 days): ninja
/// writes its times from a 32-bit clock of the build. Sums of so many of them as
/// a log can hold stay far from int64_t's end.
constexpr int64_t kMaxLogMs = int64_t{1} << 32;

/// An entry's start and end when they are times ninja could have written
/// (numbers, 0 <= start <= end <= kMaxLogMs); false for a damaged line.
bool entry_times(std::string_view s, std::string_view e, int64_t& start, int64_t& end) {
    return parse_int(s, start) && parse_int(e, end) && start >= 0 && start <= end &&
           end <= kMaxLogMs;
}

/// The version of a "# ninja log vN" header, or an error naming `path`.
Result<int> header_version(std::string_view first, const std::string& path) {
    constexpr std::string_view kSignature = "# ninja log v";
    int version = 0;
    if (first.starts_with(kSignature)) {
        std::string_view v = first.substr(kSignature.size());
        if (!v.empty() && v.back() == '\r') v.remove_suffix(1);
        auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), version);
        if (ec != std::errc() || end != v.data() + v.size()) version = 0;
    }
    if (version == 0) {
        std::string shown(first.substr(0, 60));
        return error_at(path, "not a ninja log (its first line is '" + shown +
                                  "', not '# ninja log vN')");
    }
    if (version < 4 || version > 7)
        return error_at(path, "ninja log version " + std::to_string(version) +
                                  " is not supported (versions 4 to 7 are)");
    return version;
}

/// Collects the last build's entries: a drop in end times starts a new build.
class RunCollector {
public:
    explicit RunCollector(BuildLog& log) : log_(log) {}

    /// Records one line's times for `output`.
    void add(int64_t start, int64_t end, std::string_view output) {
        if (end < prev_end_ || log_.runs == 0) {
            log_.entries.clear();
            index_.clear();
            ++log_.runs;
        }
        prev_end_ = end;
        auto [it, fresh] = index_.try_emplace(output, log_.entries.size());
        if (fresh) {
            log_.entries.push_back(LogEntry{start, end, std::string(output)});
        } else {
            log_.entries[it->second].start = start;
            log_.entries[it->second].end = end;
        }
    }

private:
    BuildLog& log_;
    int64_t prev_end_ = -1;
    std::unordered_map<std::string_view, size_t> index_; ///< views into the log text
};

} // namespace

Result<BuildLog> parse_log(std::string_view text, const std::string& path) {
    size_t nl = text.find('\n');
    auto version = header_version(text.substr(0, nl), path);
    if (!version) return version.error();
    BuildLog log;
    log.version = *version;
    RunCollector runs(log);
    for (size_t pos = nl == std::string_view::npos ? text.size() : nl + 1; pos < text.size();) {
        size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text.substr(pos, end - pos);
        pos = end + 1;
        std::string_view f[5];
        if (split_tabs(line, f, 5) < 4) continue;
        int64_t start = 0, stop = 0;
        if (!entry_times(f[0], f[1], start, stop)) continue; // as ninja skips it
        runs.add(start, stop, f[3]);
    }
    return log;
}

namespace {

/// Calls `each(fields, start, stop)` for every entry of a log's text whose
/// times ninja would read, in order; nothing when the header is not one.
template <typename Each> void for_each_entry(std::string_view text, Each each) {
    size_t nl = text.find('\n');
    if (nl == std::string_view::npos || !header_version(text.substr(0, nl), "").ok()) return;
    for (size_t pos = nl + 1; pos < text.size();) {
        size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        std::string_view f[5];
        const size_t n = split_tabs(text.substr(pos, end - pos), f, 5);
        pos = end + 1;
        int64_t start = 0, stop = 0;
        if (n >= 4 && entry_times(f[0], f[1], start, stop)) each(f, start, stop);
    }
}

} // namespace

std::unordered_map<std::string, int64_t> last_durations(std::string_view text) {
    std::unordered_map<std::string, int64_t> out;
    for_each_entry(text, [&](const std::string_view* f, int64_t start, int64_t stop) {
        out[std::string(f[3])] = stop - start;
    });
    return out;
}

std::unordered_map<std::string, int64_t> log_mtimes(std::string_view text) {
    std::unordered_map<std::string, int64_t> out;
    for_each_entry(text, [&](const std::string_view* f, int64_t, int64_t) {
        if (int64_t mtime = 0; parse_int(f[2], mtime)) out[std::string(f[3])] = mtime;
    });
    return out;
}

Result<BuildLog> read_log(const std::string& path, const std::string& shown) {
    auto text = util::read_file(path);
    if (!text) {
        // read_file says "cannot read file: REASON" at PATH; keep the reason.
        const std::string& msg = text.error().message;
        size_t colon = msg.rfind(": ");
        std::string reason = colon == std::string::npos ? msg : msg.substr(colon + 2);
        return error_at(shown, "cannot read the ninja log: " + reason);
    }
    return parse_log(*text, shown);
}

std::string log_line(int64_t start_ms, int64_t end_ms, int64_t mtime, std::string_view output,
                     std::string_view hash) {
    return fmt::format("{}\t{}\t{}\t{}\t{}\n", start_ms, end_ms, mtime, output, hash);
}

Status append_log(const std::string& path, std::string_view lines, std::string_view what) {
    util::FileLock log(util::open_fd(path, O_WRONLY | O_APPEND | O_CREAT), path);
    if (log.fd() < 0)
        return error_at(path, fmt::format("cannot open {}: {}", what, std::strerror(errno)));
    (void)log.lock(); // where flock is refused (ENOLCK), the lines go in unlocked as before
    struct stat st {};
    std::string text;
    if (::fstat(log.fd(), &st) == 0 && st.st_size == 0) text = kLogHeaderV5;
    text += lines;
    std::string_view rest = text;
    while (!rest.empty()) {
        ssize_t n = ::write(log.fd(), rest.data(), rest.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0)
            return error_at(path, fmt::format("cannot write {}: {}", what, std::strerror(errno)));
        rest.remove_prefix(static_cast<size_t>(n));
    }
    return Ok{};
}

} // namespace phc::ninja
