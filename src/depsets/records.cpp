#include "depsets/records.h"

#include "depsets/depsets.h"
#include "util/file.h"
#include "util/lock.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

namespace phc::depsets {

namespace {

/// Larger files are not ours to read: the records regen keeps...
constexpr size_t kMaxRecordsBytes = 512u << 20;
/// ...and a deps log (ninja's own of a very large build stays well below this).
constexpr size_t kMaxDepsLogBytes = 2048u << 20;

/// The last line of each of `names` that `last` has, in that order.
std::string last_lines(const std::unordered_map<std::string, DepsRecord>& last,
                       const std::vector<std::string>& names) {
    std::string lines;
    for (const auto& name : names)
        if (auto it = last.find(name); it != last.end()) lines += records_line(it->second);
    return lines;
}

/// Replaces the records file by `lines`, headed as compact_if_grown() reads it.
Status write_compacted(const std::string& records_file, const std::string& lines) {
    return util::write_file_atomic(records_file,
                                   fmt::format("# compacted {}\n{}", lines.size(), lines));
}

/// The first line of `path` (a /proc file), or "".
std::string first_line(const std::string& path) {
    auto text = util::read_regular_file(path, 4096);
    if (!text) return {};
    return text->substr(0, text->find('\n'));
}

/// The target of the link `path`, or "".
std::string link_target(const std::string& path) {
    char buf[4096];
    ssize_t n = ::readlink(path.c_str(), buf, sizeof buf);
    return n > 0 && static_cast<size_t>(n) < sizeof buf ? std::string(buf, static_cast<size_t>(n))
                                                        : std::string();
}

/// This process and its ancestors.
std::vector<long> self_and_ancestors() {
    std::vector<long> out{static_cast<long>(::getpid())};
    for (int depth = 0; depth < 64 && out.back() > 1; ++depth) {
        auto status = util::read_regular_file(fmt::format("/proc/{}/status", out.back()), 1 << 16);
        if (!status) break;
        const size_t at = status->find("\nPPid:");
        if (at == std::string::npos) break;
        const long parent = std::strtol(status->c_str() + at + 7, nullptr, 10);
        if (parent <= 0) break;
        out.push_back(parent);
    }
    return out;
}

} // namespace

bool restorable(const DepsRecord& r, const std::vector<std::string>& written) {
    auto fits = [](const std::string& path) {
        return path.size() + 3 + 4 <= ninja::kMaxDepsRecordSize;
    };
    if (r.mtime <= 0 || !recordable_path(r.output) || !fits(r.output) ||
        r.deps.size() > ninja::kMaxDepsRecordSize / 4 - 3)
        return false;
    for (const std::string& d : r.deps)
        if (!recordable_path(d) || !fits(d) || d == r.output ||
            std::binary_search(written.begin(), written.end(), d))
            return false;
    return true;
}

long ninja_building_here() {
    char cwd[4096];
    if (!::getcwd(cwd, sizeof cwd)) return 0;
    const std::vector<long> us = self_and_ancestors();
    DIR* proc = ::opendir("/proc");
    if (!proc) return 0;
    long found = 0;
    while (dirent* e = ::readdir(proc)) {
        char* end = nullptr;
        const long pid = std::strtol(e->d_name, &end, 10);
        if (pid <= 0 || *end != '\0' || std::find(us.begin(), us.end(), pid) != us.end()) continue;
        const std::string comm = first_line(fmt::format("/proc/{}/comm", pid));
        if (!comm.starts_with("ninja") && comm != "samu") continue;
        if (link_target(fmt::format("/proc/{}/cwd", pid)) != cwd) continue;
        found = pid;
        break;
    }
    ::closedir(proc);
    return found;
}

std::string records_line(const DepsRecord& r) {
    std::string line = fmt::format("{} {}", r.mtime, r.output);
    for (const auto& d : r.deps)
        line.append(" ").append(d);
    line += '\n';
    return line;
}

std::unordered_map<std::string, DepsRecord> parse_records(std::string_view text) {
    std::unordered_map<std::string, DepsRecord> last;
    while (!text.empty()) {
        size_t nl = text.find('\n');
        if (nl == std::string_view::npos) break; // a line cut short: not a record
        std::string_view line = text.substr(0, nl);
        text.remove_prefix(nl + 1);
        const std::vector<std::string_view> words = words_of(line);
        DepsRecord r;
        if (words.size() < 2) continue;
        auto [end, ec] =
            std::from_chars(words[0].data(), words[0].data() + words[0].size(), r.mtime);
        if (ec != std::errc() || end != words[0].data() + words[0].size() || r.mtime <= 0) continue;
        r.output = words[1];
        for (size_t k = 2; k < words.size(); ++k)
            r.deps.emplace_back(words[k]);
        last[r.output] = std::move(r);
    }
    return last;
}

Status compact_records(const std::string& records_file, std::string_view text,
                       const std::vector<std::string>* outputs) {
    auto last = parse_records(text);
    std::vector<std::string> names;
    if (outputs) {
        names = *outputs;
    } else {
        for (const auto& [name, r] : last)
            names.push_back(name);
        std::sort(names.begin(), names.end());
    }
    return write_compacted(records_file, last_lines(last, names));
}

void compact_if_grown(const std::string& records_file, long long size) {
    constexpr long long kCompactAt = 8LL << 20;
    if (size <= kCompactAt) return;
    util::FileLock file(util::open_fd(records_file, O_RDONLY | O_NOFOLLOW), records_file);
    if (file.fd() < 0) return;
    char head[64] = {};
    const ssize_t n = ::pread(file.fd(), head, sizeof head - 1, 0);
    long long after_last = 0;
    if (n > 0) std::sscanf(head, "# compacted %lld", &after_last);
    struct stat st;
    if (size <= 2 * after_last || ::fstat(file.fd(), &st) != 0 || !S_ISREG(st.st_mode)) return;
    if (auto had = file.try_lock(); !had || !*had) return;
    // Read after taking the lock: another process may have compacted it.
    if (auto text = util::read_regular_file(records_file, kMaxRecordsBytes);
        text && static_cast<long long>(text->size()) > kCompactAt)
        (void)compact_records(records_file, *text);
}

Result<Restored> restore_deps(const std::string& deps_log, const std::string& records_file,
                              const std::vector<std::string>& outputs,
                              const std::vector<std::string>& written) {
    Restored done;
    auto records_text = util::read_regular_file(records_file, kMaxRecordsBytes);
    if (!records_text) return done;
    auto last = parse_records(*records_text);
    // Compact the records: the last line of each output of the manifest.
    if (const std::string kept = last_lines(last, outputs);
        records_text->size() > 2 * kept.size() + 4096)
        if (auto st = write_compacted(records_file, kept); !st) return st.error();

    struct stat st;
    if (::lstat(deps_log.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return done;
    auto text = util::read_regular_file(deps_log, kMaxDepsLogBytes);
    if (!text) return done;
    auto log = ninja::parse_deps_log(*text);
    if (!log) return done;
    std::vector<DepsRecord> missing;
    for (const auto& o : outputs) {
        auto it = last.find(o);
        if (it == last.end() || log->has_record(o)) continue;
        if (!restorable(it->second, written)) continue;
        if (ninja::mtime_ns(o) != it->second.mtime) continue; // rebuilt since, or gone
        missing.push_back(it->second);
    }
    if (missing.empty()) return done;
    if (long pid = ninja_building_here()) {
        done.waiting = missing.size();
        done.ninja = pid;
        return done;
    }
    const std::string bytes = ninja::deps_log_append(*log, missing);
    util::Fd fd = util::open_fd(deps_log, O_WRONLY | O_APPEND | O_NOFOLLOW);
    if (!fd.valid()) return done;
    // Only after the records just read: ninja may have written since.
    struct stat now;
    if (::fstat(fd.get(), &now) != 0 || !S_ISREG(now.st_mode) ||
        static_cast<uint64_t>(now.st_size) != text->size())
        return done;
    if (!util::write_all(fd.get(), bytes))
        return error_at(deps_log, std::string("cannot append: ") + std::strerror(errno));
    if (::close(fd.release()) != 0)
        return error_at(deps_log, std::string("cannot append: ") + std::strerror(errno));
    done.records = missing.size();
    return done;
}

PutBack put_back_records(const std::string& sets, const std::string& deps_log,
                         std::vector<std::string> outputs) {
    PutBack done;
    const std::string records = sets + ".records";
    if (::access(records.c_str(), F_OK) != 0) return done;
    std::sort(outputs.begin(), outputs.end());
    outputs.erase(std::unique(outputs.begin(), outputs.end()), outputs.end());
    // No record may name a path an edge writes: the split edges' outputs and
    // those of the manifests (SETS.outputs, which deps_set_command just wrote).
    std::vector<std::string> written = outputs;
    if (auto listed = util::read_file(sets + ".outputs"))
        for (std::string& path : util::split_on(*listed, '\n'))
            if (!path.empty()) written.push_back(std::move(path));
    std::sort(written.begin(), written.end());
    // Outputs are spelled, and the records file named, from the build
    // directory: what ninja uses when it runs there. When ninja itself runs
    // regen (the hooked generator edge), nothing is missing (CMake skips its
    // clean-up inside a build) and the manifest is rewritten, so ninja reloads
    // its logs before it writes another record: appends never race its ids.
    // Another ninja building here meanwhile would (restore_deps waits for none).
    auto r = restore_deps(deps_log, records, outputs, written);
    if (!r) {
        done.warning = r.error().text();
        return done;
    }
    done.records = r->records;
    if (r->waiting > 0)
        done.warning = fmt::format(
            "{} deps record{} that a direct cmake run dropped not put back while ninja (process "
            "{}) builds in this directory; run `phc-ninja regen` again once it is done",
            r->waiting, r->waiting == 1 ? "" : "s", r->ninja);
    return done;
}

} // namespace phc::depsets
