#include "regen/cli.h"

#include "regen/regen.h"
#include "split/explain.h"
#include "util/file.h"

#include <cerrno>
#include <charconv>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <string>
#include <string_view>
#include <unistd.h>

namespace phc::regen {

namespace {

constexpr const char* kUsage =
    R"(usage: phc-ninja regen [-C DIR] [-f FILE] [-o OUT] [--device-jobs N]
                        [--only REGEX] [--skip REGEX] [--strict] [--dry-run] [--explain] [--quiet]

Rewrites a configured Ninja build (e.g. after `cmake -G Ninja`) so that every
multi-architecture HIP compile becomes one device edge per architecture, a
bundle edge and a host edge. CMake's original is kept as FILE.cmake; when
CMake re-runs itself, ninja runs regen again (and, until that succeeds, every
ninja run retries it and stops). With CMake's Ninja Multi-Config generator,
build.ninja and every build-<Config>.ninja are rewritten together.

  -C DIR            the build directory (default: .)
  -f FILE           the manifest, relative to DIR (default: build.ninja)
  -o OUT            write the result to OUT instead of rewriting FILE in place
                    (rewritten included files still go next to theirs, as
                    <file>.phc); '-' writes it to stdout and the reports to
                    stderr, refused when included files need rewriting. A device
                    or fifo is written through. OUT must not be a file regen
                    reads or keeps (FILE.cmake, included files).
  --device-jobs N   run at most N device compiles at once (a ninja pool)
  --only REGEX      split only objects whose output path (as the manifest
                    spells it) REGEX matches (RE2 syntax, anywhere in the path)
  --skip REGEX      do not split objects whose output path REGEX matches; both
                    leave the others alone (reason not-selected, see --explain)
  --strict          fail when a compiler cannot be probed (default: leave its
                    edges alone, reason probe-failed, and split the rest)
  --dry-run         decide and report, write nothing
  --explain         list every HIP compile edge with its decision
  --quiet           print nothing on success
)";

int usage_error(const std::string& msg) {
    std::fprintf(stderr, "phc-ninja regen: error: %s (see --help)\n", msg.c_str());
    return 2;
}

/// The running binary's absolute path, for the command ninja runs after CMake.
std::string self_path() {
    char buf[PATH_MAX];
    ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
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

/// `msg` (a message of regen, "path:line: error: ...") with its leading path
/// spelled from the user's directory (in_dir); unchanged when it does not
/// start with a path.
std::string from_user(const std::string& dir, const std::string& msg) {
    size_t colon = msg.find(':');
    if (colon == std::string::npos || colon == 0 || msg.find(' ') < colon) return msg;
    return in_dir(dir, msg.substr(0, colon)) + msg.substr(colon);
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
    Options o;
    std::string dir = ".";
    bool explain = false, quiet = false;
    std::string only, skip;
    for (int i = 1; i < argc; ++i) {
        std::string_view a = argv[i];
        auto value = [&](std::string& into) {
            if (i + 1 >= argc) return false;
            into = argv[++i];
            return true;
        };
        std::string v;
        if (a == "-h" || a == "--help") {
            std::fputs(kUsage, stdout);
            return 0;
        } else if (a == "-C") {
            if (!value(dir)) return usage_error("-C needs a directory");
        } else if (a == "-f") {
            if (!value(o.manifest)) return usage_error("-f needs a file");
        } else if (a == "-o") {
            if (!value(o.output)) return usage_error("-o needs a file");
        } else if (a == "--device-jobs" || a.starts_with("--device-jobs=")) {
            if (a.starts_with("--device-jobs="))
                v = a.substr(14);
            else if (!value(v))
                return usage_error("--device-jobs needs a number");
            auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), o.device_jobs);
            if (ec != std::errc() || p != v.data() + v.size() || o.device_jobs < 1)
                return usage_error(fmt::format("--device-jobs: '{}' is not a positive number", v));
        } else if (a == "--only") {
            if (!value(only)) return usage_error("--only needs a regular expression");
        } else if (a == "--skip") {
            if (!value(skip)) return usage_error("--skip needs a regular expression");
        } else if (a == "--strict") {
            o.strict = true;
        } else if (a == "--dry-run" || a == "-n") {
            o.dry_run = true;
        } else if (a == "--explain") {
            explain = true;
        } else if (a == "--quiet" || a == "-q") {
            quiet = true;
        } else {
            return usage_error(fmt::format("unknown argument '{}'", a));
        }
    }
    auto select = split::Selection::make(only, skip);
    if (!select) return usage_error(select.error().message);
    o.select = std::move(*select);
    std::error_code ec;
    // Reports go to stderr when the manifest goes to stdout.
    std::FILE* report = !o.output.empty() && util::is_stdout(o.output) ? stderr : stdout;
    if (!o.output.empty() && o.output != "-")
        o.output = std::filesystem::absolute(o.output, ec).string();
    if (::chdir(dir.c_str()) != 0) {
        std::fprintf(stderr, "phc-ninja regen: error: %s: %s\n", dir.c_str(), std::strerror(errno));
        return 1;
    }
    o.build_dir = std::filesystem::current_path(ec).string();
    // -o naming the manifest itself is an in-place rewrite (which keeps the original).
    if (!o.output.empty() && o.output != "-" &&
        std::filesystem::weakly_canonical(o.output, ec) ==
            std::filesystem::weakly_canonical(o.manifest, ec))
        o.output.clear();
    o.self = self_path();
    // For diagnosis and tests: PHC_REGEN_SHAPES=0 plans every edge on its own,
    // PHC_REGEN_VERIFY=1 checks every reused plan against the edge's own.
    const char* shapes = std::getenv("PHC_REGEN_SHAPES");
    o.shapes = !(shapes && std::string_view(shapes) == "0");
    const char* verify = std::getenv("PHC_REGEN_VERIFY");
    o.verify_shapes = verify && std::string_view(verify) == "1";
    auto r = run(o);
    // Paths in messages are relative to the build directory: spelled from the
    // user's directory (with -C's DIR) when they lead a message.
    if (!r) {
        std::fprintf(stderr, "%s\n", from_user(dir, r.error().text()).c_str());
        return 1;
    }
    for (const auto& w : r->warnings)
        std::fprintf(stderr, "phc-ninja regen: warning: %s\n", from_user(dir, w).c_str());
    warn_probe_failures(*r);
    for (std::string& path : r->written)
        path = in_dir(dir, path);
    if (explain) split::print_decisions(report, r->decisions);
    if (o.dry_run)
        for (const auto& d : r->decisions)
            if (d.split && !explain)
                std::fprintf(report, "would split %s into %zu device edges [%s]\n",
                             d.object.c_str(), d.archs.size(),
                             fmt::format("{}", fmt::join(d.archs, " ")).c_str());
    if (!quiet || o.dry_run) std::fprintf(report, "%s\n", summary_line(*r, o.dry_run).c_str());
    // Everything is written; freeing the manifest would only cost time.
    std::fflush(nullptr);
    std::_Exit(0);
}

} // namespace phc::regen
