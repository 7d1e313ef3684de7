#include "sched/history.h"

#include "util/file.h"
#include "util/hash.h"
#include "util/settings.h"

#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

namespace phc::sched {

std::string history_dir() {
    if (auto v = util::get("PHC_HISTORY"); v && !v->empty()) return *v == "off" ? "" : *v;
    const std::string base = util::user_cache_dir();
    return base.empty() ? std::string() : base + "/phc-ninja/history";
}

std::string history_file(const std::string& dir, std::string_view project_key) {
    if (dir.empty() || project_key.empty()) return {};
    std::string name;
    for (char c : project_key.substr(0, 64))
        name += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ? c : '_';
    return fmt::format("{}/{}-{}.steps", dir, name,
                       util::Hasher().add(project_key).hex64().substr(0, 8));
}

Status keep_history_path(const std::string& records_dir, const std::string& path) {
    const std::string file = records_dir + "/" + std::string(kHistoryFile);
    if (path.empty()) {
        // Only a regular file is ever removed.
        struct stat st {};
        if (::lstat(file.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return Ok{};
        if (::unlink(file.c_str()) != 0 && errno != ENOENT)
            return make_error(fmt::format("{}: cannot remove: {}", file, std::strerror(errno)));
        return Ok{};
    }
    if (auto st = util::make_dirs(records_dir); !st) return st;
    return util::write_file_atomic(file, path + "\n");
}

namespace {

/// The longest path DIR/history names (more: not one we wrote).
constexpr size_t kMaxPathBytes = 4096;

/// The text of the outside file `path` when it is a regular file of at most
/// `max_bytes` (util::read_regular_file: a fifo or device there never hangs
/// or floods us): "" when it is missing, an error naming it otherwise.
Result<std::string> read_if_there(const std::string& path, size_t max_bytes) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 && errno == ENOENT) return std::string();
    auto text = util::read_regular_file(path, max_bytes);
    if (!text) return make_error(text.error().text() + "; the step history is not used");
    return text;
}

} // namespace

Result<std::string> kept_history_path(const std::string& records_dir) {
    auto text = read_if_there(records_dir + "/" + std::string(kHistoryFile), kMaxPathBytes);
    if (!text) return text.error();
    std::string path = *text;
    while (!path.empty() && (path.back() == '\n' || path.back() == '\r'))
        path.pop_back();
    return path.find('\n') == std::string::npos ? path : std::string();
}

Result<std::vector<StepRecord>> last_records(const std::string& path) {
    if (path.empty()) return std::vector<StepRecord>();
    auto text = read_if_there(path, kMaxStepsBytes);
    if (!text) return text.error();
    std::vector<StepRecord> all = parse_records(*text);
    std::unordered_map<std::string, size_t> last; // output -> index in out
    std::vector<StepRecord> out;
    for (StepRecord& r : all) {
        if (r.exit_code != 0) continue; // a failed step says little of a good one
        auto [it, fresh] = last.try_emplace(r.output, out.size());
        if (fresh)
            out.push_back(std::move(r));
        else
            out[it->second] = std::move(r);
    }
    return out;
}

std::unordered_map<std::string, int64_t> wall_times(const std::vector<StepRecord>& records) {
    std::unordered_map<std::string, int64_t> out;
    for (const StepRecord& r : records)
        out[r.output] = r.wall_ms;
    return out;
}

Status seed_steps(const std::string& records_dir, const std::vector<StepRecord>& records) {
    const std::string steps = records_dir + "/steps";
    struct stat st {};
    if (records.empty() || ::lstat(steps.c_str(), &st) == 0) return Ok{};
    std::string text;
    for (const StepRecord& r : records)
        text += record_line(r);
    if (auto s = util::make_dirs(records_dir); !s) return s;
    return util::write_file_atomic(steps, text);
}

Status append_history(const std::string& records_dir, const std::vector<StepRecord>& records) {
    if (records.empty()) return Ok{};
    auto kept = kept_history_path(records_dir);
    if (!kept) return kept.error();
    const std::string& path = *kept;
    if (path.empty()) return Ok{};
    const size_t slash = path.rfind('/');
    if (slash != std::string::npos && slash > 0)
        if (auto st = util::make_dirs(path.substr(0, slash)); !st) return st;
    return append_records(path, records);
}

} // namespace phc::sched
