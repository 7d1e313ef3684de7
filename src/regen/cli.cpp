#include "regen/cli.h"

#include "regen/regen.h"
#include "sched/memory.h"
#include "split/explain.h"
#include "split/options.h"
#include "util/args.h"
#include "util/file.h"
#include "util/settings.h"
#include "util/subprocess.h"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <string>
#include <string_view>
#include <unistd.h>

namespace phc::regen {

namespace {

constexpr const char* kAbout =
    R"(Rewrites a configured Ninja build (e.g. after `cmake -G Ninja`) so that every
multi-architecture HIP compile becomes one device edge per architecture, a
bundle edge and a host edge. CMake's original is kept as FILE.cmake; when
CMake re-runs itself, ninja runs regen again (and, until that succeeds, every
ninja run retries it and stops). With CMake's Ninja Multi-Config generator,
build.ninja and every build-<Config>.ninja are rewritten together.)";

/// What the command line says.
struct Args {
    Options o;
    split::SplitArgs split;
    std::string dir = ".";
    bool quiet = false;
};

util::CommandLine command_line(Args& a) {
    util::CommandLine cl{"phc-ninja regen", "[options]", kAbout, {}, {}};
    static const std::string environment = util::settings_help("regen");
    cl.notes = environment;
    cl.options = {
        util::text_option({"-C"}, "DIR", "the build directory (default: .)", a.dir),
        util::text_option({"-f"}, "FILE", "the manifest, relative to DIR (default: build.ninja)",
                          a.o.manifest),
        util::text_option({"-o"}, "OUT",
                          "write the result to OUT instead of rewriting FILE in place\n"
                          "(rewritten included files still go next to theirs, as\n"
                          "<file>.phc); '-' writes it to stdout and the reports to\n"
                          "stderr, refused when included files need rewriting. A device\n"
                          "or fifo is written through. OUT must not be a file regen\n"
                          "reads or keeps (FILE.cmake, included files).",
                          a.o.output),
    };
    for (auto& opt : split::split_options(a.split))
        cl.options.push_back(std::move(opt));
    cl.options.push_back(util::flag_option({"--strict"},
                                           "fail when a compiler cannot be probed (default: "
                                           "leave its\nedges alone, reason probe-failed, and "
                                           "split the rest)",
                                           a.o.strict));
    cl.options.push_back(
        util::flag_option({"-n", "--dry-run"}, "decide and report, write nothing", a.o.dry_run));
    cl.options.push_back(util::flag_option({"-q", "--quiet"}, "print nothing on success", a.quiet));
    return cl;
}

/// `path`, relative to the build directory, spelled from the user's directory
/// (-C's DIR in front); absolute paths and "-" (stdout) as they are.
std::string in_dir(const std::string& dir, const std::string& path) {
    if (dir.empty() || dir == "." || path.empty() || path[0] == '/' || path == "-") return path;
    std::string d = dir;
    while (d.size() > 1 && d.back() == '/')
        d.pop_back();
    return d + (d == "/" ? "" : "/") + path;
}

/// `where` (a location of regen's: "path", "path:line", "path:line:col") with
/// its path spelled from the user's directory (in_dir).
std::string where_from_user(const std::string& dir, const std::string& where) {
    size_t colon = where.find(':');
    if (colon == std::string::npos) return in_dir(dir, where);
    return in_dir(dir, where.substr(0, colon)) + where.substr(colon);
}

/// `msg` (a warning of regen, "path: ...") with its leading path spelled from
/// the user's directory; unchanged when it does not start with a path.
std::string from_user(const std::string& dir, const std::string& msg) {
    size_t colon = msg.find(':');
    if (colon == std::string::npos || colon == 0 || msg.find(' ') < colon) return msg;
    return where_from_user(dir, msg.substr(0, colon)) + msg.substr(colon);
}

/// The edges left alone because their compiler could not be probed, one
/// warning per reason (with how many edges and the first one).
void warn_probe_failures(const Summary& s) {
    std::map<std::string, std::pair<size_t, std::string>> by_reason;
    std::vector<std::string> order;
    for (const auto& d : s.decisions) {
        if (d.code != "probe-failed") continue;
        auto [it, fresh] = by_reason.try_emplace(d.text, 0, d.object);
        if (fresh) order.push_back(d.text);
        ++it->second.first;
    }
    for (const std::string& why : order) {
        const auto& [n, first] = by_reason[why];
        std::fprintf(stderr, "phc-ninja regen: warning: %s\n", why.c_str());
        std::fprintf(stderr,
                     "phc-ninja regen: warning: %zu HIP edge%s left alone (probe-failed), "
                     "first %s; --strict makes this an error\n",
                     n, n == 1 ? "" : "s", first.c_str());
    }
}

} // namespace

int cli_main(int argc, char** argv) {
    Args args;
    const util::CommandLine cl = command_line(args);
    util::Parsed parsed;
    if (auto status = util::parse_or_usage(cl, argc, argv, parsed)) return *status;
    Options& o = args.o;
    const std::string& dir = args.dir;
    const bool explain = args.split.explain, quiet = args.quiet;
    o.device_jobs = args.split.device_jobs;
    o.overlap_host = args.split.overlap_host;
    auto engine = args.split.engine();
    if (!engine) return util::usage_error(cl, engine.error().message);
    o.distribute = *engine;
    if (o.distribute != split::Engine::None) o.remote_jobs = args.split.remote_depth();
    auto select = args.split.selection();
    if (!select) return util::usage_error(cl, select.error().message);
    if (auto st = sched::check_memory_spec(args.split.memory); !st)
        return util::usage_error(cl, st.error().message);
    o.memory = args.split.memory;
    o.select = std::move(*select);
    std::error_code ec;
    // Reports go to stderr when the manifest goes to stdout.
    std::FILE* report = !o.output.empty() && util::is_stdout(o.output) ? stderr : stdout;
    if (!o.output.empty() && o.output != "-")
        o.output = std::filesystem::absolute(o.output, ec).string();
    if (::chdir(dir.c_str()) != 0)
        return print_error(cl.name, make_error(fmt::format("{}: {}", dir, std::strerror(errno))));
    o.build_dir = std::filesystem::current_path(ec).string();
    // -o naming the manifest itself is an in-place rewrite (which keeps the original).
    if (!o.output.empty() && o.output != "-" &&
        std::filesystem::weakly_canonical(o.output, ec) ==
            std::filesystem::weakly_canonical(o.manifest, ec))
        o.output.clear();
    o.self = util::self_exe();
    auto r = run(o);
    // Paths in messages are relative to the build directory: spelled from the
    // user's directory (with -C's DIR) when they lead a message.
    if (!r) {
        Error e = r.error();
        if (!e.where.empty()) e.where = where_from_user(dir, e.where);
        return print_error(cl.name, e);
    }
    for (const auto& w : r->warnings)
        std::fprintf(stderr, "phc-ninja regen: warning: %s\n", from_user(dir, w).c_str());
    warn_probe_failures(*r);
    for (std::string& path : r->written)
        path = in_dir(dir, path);
    if (explain) split::print_decisions(report, r->decisions);
    if (explain) std::fprintf(report, "%s\n", sched::explain_budget(o.memory).c_str());
    if (o.dry_run)
        for (const auto& d : r->decisions)
            if (d.split && !explain)
                std::fprintf(report, "would split %s into %zu device edges [%s]\n",
                             d.object.c_str(), d.archs.size(),
                             fmt::format("{}", fmt::join(d.archs, " ")).c_str());
    if (!quiet || o.dry_run) std::fprintf(report, "%s\n", summary_line(*r, o.dry_run).c_str());
    return 0;
}

} // namespace phc::regen
