#include "report/report.h"

#include "ninja/build_log.h"
#include "ninja/manifest.h"
#include "report/html.h"
#include "report/trace.h"
#include "sched/memory.h"
#include "util/file.h"

#include <filesystem>
#include <sys/stat.h>
#include <thread>

namespace phc::report {

namespace {

/// "DIR/NAME" for messages ("NAME" when DIR is ".").
std::string shown_path(const std::string& dir, const std::string& name) {
    if (dir.empty() || dir == ".") return name;
    return dir.back() == '/' ? dir + name : dir + "/" + name;
}

/// Where ninja keeps the log: in `builddir` when the manifest sets it.
std::string log_path(const ninja::Manifest& m) {
    auto builddir = m.variable("builddir");
    if (!builddir || builddir->empty()) return ".ninja_log";
    return std::string(*builddir) + "/.ninja_log";
}

/// When `path` was last written, in Unix ms (0: unknown).
int64_t written_ms(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return 0;
    return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1'000'000;
}

/// Writes the trace and HTML files the request names.
Status write_outputs(const Request& r, const Analysis& a, const ninja::Manifest& m) {
    if (!r.trace.empty()) {
        Status s = util::write_file_atomic(r.trace, trace_json(a));
        if (!s) return s;
    }
    if (r.html.empty()) return Ok{};
    auto command = [&](uint32_t i) -> std::string {
        int32_t edge = a.build.steps[i].edge;
        if (edge < 0) return {};
        auto c = m.edge(static_cast<size_t>(edge)).evaluate("command");
        return c ? *c : std::string();
    };
    return util::write_file_atomic(r.html, html_page(a, r.dir, command));
}

} // namespace

Result<std::string> run_report(const Request& r) {
    std::error_code ec;
    if (!std::filesystem::exists(r.manifest, ec))
        return error_at(shown_path(r.dir, r.manifest),
                        "no ninja manifest (run the report in a ninja build directory, or name "
                        "it with -C DIR and -f FILE)");
    auto m = ninja::load_manifest(r.manifest);
    if (!m) return m.error();
    std::string log_file = log_path(*m);
    auto log = ninja::read_log(log_file, shown_path(r.dir, log_file));
    if (!log) return log.error();
    int cores = r.cores > 0 ? r.cores : static_cast<int>(std::thread::hardware_concurrency());
    Build build = make_build(*m, *log);
    // phc-ninja step's records, when the build ran its steps through it.
    if (auto steps = util::read_regular_file(r.steps, sched::kMaxStepsBytes))
        attach_records(build, sched::parse_records(*steps), written_ms(log_file));
    // The budget as the steps choose it (they do when they start: it may
    // have been another one then).
    const std::string records = r.steps.substr(0, r.steps.rfind('/') + 1);
    const auto [spec, origin] = sched::budget_spec(std::nullopt, records.empty() ? "." : records);
    if (auto b = sched::memory_budget(spec, origin)) {
        build.budget = *b;
        build.budget_from = spec ? origin : "the machine's memory less 10%";
    }
    Analysis a = analyse(std::move(build), cores > 0 ? cores : 1);
    if (Status s = write_outputs(r, a, *m); !s) return s.error();
    return r.json ? json_summary(a) : text_summary(a, r.dir);
}

} // namespace phc::report
