#include "regen/state.h"

#include "ninja/build_log.h"
#include "regen/cmake.h"
#include "sched/history.h"
#include "util/file.h"

#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <unistd.h>
#include <vector>

namespace phc::regen {

std::string probe_cache_path(const Options& opts, Summary& sum) {
    if (opts.dry_run) return {};
    auto made = util::make_dirs(kProbeDir);
    if (made && ::access(kProbeDir, W_OK) == 0) return kProbeCache;
    std::string why = made ? std::strerror(errno) : made.error().message;
    sum.warnings.push_back(fmt::format("{}/{}: cannot be used ({}); compiler probes are kept in "
                                       "memory for this run",
                                       opts.build_dir.empty() ? "." : opts.build_dir, kProbeDir,
                                       why));
    return {};
}

std::string ninja_log_path(const ninja::Manifest& m, std::string_view name) {
    auto dir = m.variable("builddir");
    if (!dir || dir->empty()) return std::string(name);
    return fmt::format("{}/{}", *dir, name);
}

std::string project_key() {
    auto cache = util::read_file("CMakeCache.txt");
    if (!cache) return {};
    const std::string name = cache_value(*cache, "CMAKE_PROJECT_NAME");
    if (name.empty()) return {};
    return fmt::format("cmake-{}-{}", name, cache_value(*cache, "CMAKE_BUILD_TYPE"));
}

split::Durations past_durations(const ninja::Manifest& m, bool steps, Summary& sum) {
    auto text = util::read_file(ninja_log_path(m, ".ninja_log"));
    split::Durations durations = text ? ninja::last_durations(*text) : split::Durations{};
    if (!steps) return durations;
    const std::string history = sched::history_file(sched::history_dir(), project_key());
    if (auto st = sched::keep_history_path(kProbeDir, history); !st)
        sum.warnings.push_back(st.error().text() + "; the steps keep no history");
    auto read = sched::last_records(history);
    if (!read) sum.warnings.push_back(read.error().text());
    const std::vector<sched::StepRecord> past =
        read ? std::move(*read) : std::vector<sched::StepRecord>();
    if (durations.empty() && !past.empty()) {
        for (auto& [out, ms] : sched::wall_times(past))
            durations.emplace(out, ms);
        sum.history = history;
    }
    if (auto st = sched::seed_steps(kProbeDir, past); !st)
        sum.warnings.push_back(st.error().text());
    return durations;
}

} // namespace phc::regen
