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

std::string kept_history_path(const std::string& records_dir) {
    auto text = util::read_file(records_dir + "/" + std::string(kHistoryFile));
    if (!text) return {};
    std::string path = *text;
    while (!path.empty() && (path.back() == '\n' || path.back() == '\r'))
        path.pop_back();
    return path.find('\n') == std::string::npos ? path : std::string();
}

std::vector<StepRecord> last_records(const std::string& path) {
    if (path.empty()) return {};
    auto text = util::read_file(path);
    if (!text) return {};
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
    const std::string path = kept_history_path(records_dir);
    if (path.empty() || records.empty()) return Ok{};
    const size_t slash = path.rfind('/');
    if (slash != std::string::npos && slash > 0)
        if (auto st = util::make_dirs(path.substr(0, slash)); !st) return st;
    return append_records(path, records);
}

} // namespace phc::sched
