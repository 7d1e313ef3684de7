#include "report/cli.h"

#include "report/report.h"
#include "util/args.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <unistd.h>

namespace phc::report {

namespace {

constexpr const char* kAbout =
    R"(Where the last ninja build's time went: reads DIR/.ninja_log (the last build in
it; ninja 1.10 to 1.13 logs) and the build graph of DIR/FILE, and prints the
wall time, how many steps ran at once, the time per kind of step (device
compile and device link per GPU architecture, bundle, host compile, fat
binary, host link, other compiles, links), the best time any schedule of the
measured steps could reach on N cores, the build against its split objects'
steps one after another (or its whole HIP compiles split, estimated), the
slowest objects and the critical path. A step's time is its CPU time when
phc-ninja step recorded it (DIR/.phc-ninja/steps), else its wall time, counted
N/k while k > N steps ran at once.)";

util::CommandLine command_line(Request& r) {
    util::CommandLine cl{"phc-ninja report", "[options]", kAbout, {}, {}};
    cl.options = {
        util::text_option({"-C"}, "DIR", "the build directory (default: .)", r.dir),
        util::text_option({"-f"}, "FILE", "the manifest, relative to DIR (default: build.ninja)",
                          r.manifest),
        util::positive_option(
            {"--cores"}, "N",
            "cores of the build, for the shares and the bound\n(default: this machine's)", r.cores),
        util::flag_option({"--json"},
                          "print the summary as one JSON object instead: wall_ms,\n"
                          "work_ms, critical_path_ms, bound_ms, list_schedule_ms,\n"
                          "cores, wall_work_ms, max_running, mean_running,\n"
                          "cpu_steps, bound_beaten, unsplit_ms, split_estimate_ms,\n"
                          "by_kind_ms",
                          r.json),
        util::text_option({"--trace"}, "OUT.json",
                          "write a Chrome trace (Perfetto, chrome://tracing): one\n"
                          "event per step, in lanes that never overlap",
                          r.trace),
        util::text_option({"--html"}, "OUT.html",
                          "write one self-contained page: the timeline, the summary\n"
                          "and, per split object, its device steps side by side",
                          r.html),
    };
    return cl;
}

} // namespace

int cli_main(int argc, char** argv) {
    Request req;
    const util::CommandLine cl = command_line(req);
    util::Parsed parsed;
    if (auto status = util::parse_or_usage(cl, argc, argv, parsed)) return *status;
    // Output files are named from the current directory, read before -C.
    std::error_code ec;
    for (std::string* out : {&req.html, &req.trace})
        if (!out->empty()) *out = std::filesystem::absolute(*out, ec).string();
    if (::chdir(req.dir.c_str()) != 0)
        return print_error(cl.name, make_error(req.dir + ": " + std::strerror(errno)));
    auto summary = run_report(req);
    if (!summary) return print_error(cl.name, summary.error());
    std::fputs(summary->c_str(), stdout);
    if (!req.json && !req.trace.empty()) std::printf("trace: %s\n", req.trace.c_str());
    if (!req.json && !req.html.empty()) std::printf("report: %s\n", req.html.c_str());
    return 0;
}

} // namespace phc::report
