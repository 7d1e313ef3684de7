#include "report/cli.h"

#include "report/report.h"

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <unistd.h>

namespace phc::report {

namespace {

constexpr const char* kUsage =
    R"(usage: phc-ninja report [-C DIR] [-f FILE] [--html OUT.html] [--trace OUT.json] [--cores N] [--json]

Where the last ninja build's time went: reads DIR/.ninja_log (the last build in
it; ninja 1.10 to 1.13 logs) and the build graph of DIR/FILE, and prints the
wall time, the total work, the time per kind of step (device compile and
device link per GPU architecture, bundle, host compile, fat binary, host
link, other compiles, links), the slowest objects, the critical path, and the
best time any schedule of the measured steps could reach on N cores.

  -C DIR            the build directory (default: .)
  -f FILE           the manifest, relative to DIR (default: build.ninja)
  --cores N         cores for the bound (default: this machine's)
  --json            print the summary as one JSON object instead: wall_ms,
                    work_ms, critical_path_ms, bound_ms, list_schedule_ms,
                    cores, by_kind_ms
  --trace OUT.json  write a Chrome trace (Perfetto, chrome://tracing): one
                    event per step, in lanes that never overlap
  --html OUT.html   write one self-contained page: the timeline, the summary
                    and, per split object, its device steps side by side
)";

/// Prints "phc-ninja report: error: MSG" and returns the usage-error status.
int usage_error(const std::string& msg) {
    std::fprintf(stderr, "phc-ninja report: error: %s\n", msg.c_str());
    return 2;
}

/// Parsed arguments.
struct Args {
    Request req;
    bool help = false;
};

/// Parses a positive number.
bool positive(std::string_view s, int& out) {
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && end == s.data() + s.size() && out > 0;
}

/// Parses the arguments; an empty string on success, else the error.
std::string parse_args(int argc, char** argv, Args& a) {
    for (int i = 1; i < argc; ++i) {
        std::string_view arg = argv[i];
        auto value = [&](std::string& into) -> bool {
            if (i + 1 >= argc) return false;
            into = argv[++i];
            return true;
        };
        std::string cores;
        if (arg == "-h" || arg == "--help") {
            a.help = true;
        } else if (arg == "--json") {
            a.req.json = true;
        } else if (arg == "-C" || arg == "-f" || arg == "--html" || arg == "--trace" ||
                   arg == "--cores") {
            std::string& into = arg == "-C"        ? a.req.dir
                                : arg == "-f"      ? a.req.manifest
                                : arg == "--html"  ? a.req.html
                                : arg == "--trace" ? a.req.trace
                                                   : cores;
            if (!value(into) || into.empty()) return "'" + std::string(arg) + "' needs an argument";
            if (arg == "--cores" && !positive(cores, a.req.cores))
                return "--cores: '" + cores + "' is not a positive number";
        } else {
            return "unknown argument '" + std::string(arg) + "' (see --help)";
        }
    }
    return {};
}

} // namespace

int cli_main(int argc, char** argv) {
    Args a;
    if (auto err = parse_args(argc, argv, a); !err.empty()) return usage_error(err);
    if (a.help) {
        std::fputs(kUsage, stdout);
        return 0;
    }
    // Output files are named from the current directory, read before -C.
    std::error_code ec;
    for (std::string* out : {&a.req.html, &a.req.trace})
        if (!out->empty()) *out = std::filesystem::absolute(*out, ec).string();
    if (::chdir(a.req.dir.c_str()) != 0) {
        std::fprintf(stderr, "phc-ninja report: error: %s: %s\n", a.req.dir.c_str(),
                     std::strerror(errno));
        return 1;
    }
    auto summary = run_report(a.req);
    if (!summary) {
        std::fprintf(stderr, "%s\n", summary.error().text().c_str());
        return 1;
    }
    std::fputs(summary->c_str(), stdout);
    if (!a.req.json && !a.req.trace.empty()) std::printf("trace: %s\n", a.req.trace.c_str());
    if (!a.req.json && !a.req.html.empty()) std::printf("report: %s\n", a.req.html.c_str());
    return 0;
}

} // namespace phc::report
