#include "sched/steps.h"

#include "util/fd.h"
#include "util/file.h"
#include "util/lock.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <span>
#include <sys/stat.h>
#include <unistd.h>
#include <unordered_map>

namespace phc::sched {

namespace {

constexpr std::array<std::string_view, 8> kKindNames = {"device",  "host",  "bundle", "link",
                                                        "devlink", "embed", "other",  "remote"};
constexpr uint64_t kMiB = 1ull << 20, kGiB = 1ull << 30;
constexpr size_t kFields = 10;

template <typename T> bool number(std::string_view text, T& into) {
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), into);
    return ec == std::errc() && end == text.data() + text.size() && !text.empty();
}

/// `text` split on tabs, at most `limit` + 1 pieces (more: the line is not ours).
std::vector<std::string_view> fields(std::string_view text, size_t limit) {
    std::vector<std::string_view> out;
    while (out.size() <= limit) {
        size_t tab = text.find('\t');
        out.push_back(text.substr(0, tab));
        if (tab == std::string_view::npos) break;
        text.remove_prefix(tab + 1);
    }
    return out;
}

/// Plus 10%: a step's peak varies a little from run to run.
uint64_t with_margin(uint64_t peak) {
    return peak + peak / 10;
}

/// Which of the sizes kCompactAt, 2 x kCompactAt, 4 x kCompactAt, ... `size`
/// has reached (-1: none).
int compact_level(size_t size) {
    int level = -1;
    for (size_t at = kCompactAt; size >= at && level < 62; at *= 2)
        ++level;
    return level;
}

/// Keeps the last line of each output, in the order of those lines, when the
/// file is still past kCompactAt (another step may have compacted it before
/// the caller had the lock) and that saves a quarter of it at least (a build
/// with more outputs than fit is left to grow to the next size). Called under
/// the file's lock, which every append takes too, so no record appended
/// meanwhile is lost by the rename; the file is read again before it, and
/// left alone should it have changed anyway (a writer that takes no lock).
/// Quietly: a failure leaves the file as it was.
void compact(const std::string& path) {
    auto text = util::read_regular_file(path, kMaxStepsBytes);
    if (!text || text->size() <= kCompactAt) return;
    std::vector<StepRecord> all = parse_records(*text);
    std::unordered_map<std::string_view, size_t> last;
    for (size_t i = 0; i < all.size(); ++i)
        last[all[i].output] = i;
    std::string kept;
    for (size_t i = 0; i < all.size(); ++i)
        if (last[all[i].output] == i) kept += record_line(all[i]);
    if (kept.size() > text->size() / 4 * 3) return; // too little to gain
    if (!util::file_holds(path, std::span<const std::string_view>({std::string_view(*text)})))
        return; // changed since: compacted again by a later append
    (void)util::write_file_atomic(path, kept);
}

/// How long an append waits for the file's lock (a step stopped by ^Z may
/// hold it): past that the records are not kept, which costs estimates only.
constexpr std::chrono::milliseconds kLockWait{2000};

} // namespace

std::optional<Kind> kind_named(std::string_view name) {
    for (size_t i = 0; i < kKindNames.size(); ++i)
        if (kKindNames[i] == name) return static_cast<Kind>(i);
    return std::nullopt;
}

std::string_view kind_name(Kind kind) {
    return kKindNames[static_cast<size_t>(kind)];
}

uint64_t default_estimate(Kind kind) {
    switch (kind) {
    case Kind::Devlink:
        return 2 * kGiB;
    case Kind::Bundle:
    case Kind::Embed:
        return 64 * kMiB;
    case Kind::Remote: // the engine's client; a compile it runs locally is learnt
        return 256 * kMiB;
    default:
        return kGiB;
    }
}

std::string record_line(const StepRecord& r) {
    return fmt::format("v1\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n", r.start_ms, r.wall_ms, r.cpu_ms,
                       r.wait_ms, r.reserved, r.peak, r.exit_code, kind_name(r.kind), r.output);
}

std::optional<StepRecord> parse_record(std::string_view line) {
    auto f = fields(line, kFields);
    if (f.size() != kFields || f[0] != "v1" || f[9].empty()) return std::nullopt;
    StepRecord r;
    auto kind = kind_named(f[8]);
    if (!kind || !number(f[1], r.start_ms) || !number(f[2], r.wall_ms) || !number(f[3], r.cpu_ms) ||
        !number(f[4], r.wait_ms) || !number(f[5], r.reserved) || !number(f[6], r.peak) ||
        !number(f[7], r.exit_code))
        return std::nullopt;
    r.kind = *kind;
    r.output = f[9];
    return r;
}

std::vector<StepRecord> parse_records(std::string_view text) {
    std::vector<StepRecord> out;
    while (!text.empty()) {
        size_t nl = text.find('\n');
        if (nl == std::string_view::npos) break; // cut short: no newline yet
        if (auto r = parse_record(text.substr(0, nl))) out.push_back(std::move(*r));
        text.remove_prefix(nl + 1);
    }
    return out;
}

Status append_records(const std::string& path, const std::vector<StepRecord>& records) {
    std::string lines;
    for (const StepRecord& r : records)
        if (r.output.find_first_of("\t\n") == std::string::npos) lines += record_line(r);
    if (lines.empty()) return Ok{};
    // One lock for appends and compaction: an append never lands in a file
    // that compaction has read and is about to replace, and one cut short can
    // be undone without undoing another's.
    auto lock = util::FileLock::open(path + ".lock");
    if (!lock) return lock.error();
    auto had = lock->lock_within(kLockWait);
    if (!had) return had.error();
    if (!*had) return error_at(path, "busy (its lock is held): the records were not kept");
    util::Fd fd = util::open_fd(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK);
    struct stat st {};
    if (!fd.valid() || ::fstat(fd.get(), &st) != 0)
        return error_at(path, std::string("cannot append: ") + std::strerror(errno));
    if (!S_ISREG(st.st_mode)) return error_at(path, "cannot append: not a regular file");
    ssize_t n;
    do {
        n = ::write(fd.get(), lines.data(), lines.size()); // one write: lines never mix
    } while (n < 0 && errno == EINTR);
    if (n != static_cast<ssize_t>(lines.size())) {
        // A full disk or a file size limit (SIGXFSZ ignored) cut it short:
        // all or nothing, so that no torn line runs into the next append.
        const std::string why =
            n < 0 ? std::strerror(errno) : "cut short (a full disk or a file size limit)";
        const bool undone = n > 0 && ::ftruncate(fd.get(), st.st_size) == 0;
        return error_at(path, fmt::format("cannot append: {}{}", why,
                                          n <= 0   ? ""
                                          : undone ? " (undone)"
                                                   : "; a cut line remains"));
    }
    // Only when the append reaches the next of the sizes kCompactAt x 2^k: at
    // least a quarter of that is appended between two compactions, so their
    // cost stays in proportion to what the steps append.
    const auto before = static_cast<size_t>(st.st_size);
    if (compact_level(before + lines.size()) > compact_level(before)) compact(path);
    return Ok{};
}

Estimate estimate(std::string_view steps, const std::vector<std::string>& outputs, Kind kind) {
    std::vector<const StepRecord*> last(outputs.size(), nullptr); // each output's last success
    const std::vector<StepRecord> records = parse_records(steps);
    uint64_t kind_peak = 0;
    for (const StepRecord& r : records) {
        if (r.exit_code != 0) continue; // a failed step's peak says little
        if (r.kind == kind) kind_peak = std::max(kind_peak, r.peak);
        auto it = std::find(outputs.begin(), outputs.end(), r.output);
        if (it != outputs.end()) last[static_cast<size_t>(it - outputs.begin())] = &r;
    }
    Estimate e;
    std::optional<uint64_t> own;
    bool every_wall = !outputs.empty();
    for (const StepRecord* r : last) {
        if (!r) {
            every_wall = false;
            continue;
        }
        own = std::max(own.value_or(0), r->peak);
        const int64_t wall = std::clamp<int64_t>(r->wall_ms, 0, kMaxWallMs);
        e.wall_ms = std::max(e.wall_ms, wall + wall / 10);
    }
    if (!every_wall) e.wall_ms = 0;
    e.bytes = own             ? with_margin(*own)
              : kind_peak > 0 ? with_margin(kind_peak)
                              : default_estimate(kind);
    return e;
}

} // namespace phc::sched
