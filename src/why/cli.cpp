#include "ninja/build_log.h"
#include "ninja/deps_log.h"
#include "ninja/manifest.h"
#include "util/args.h"
#include "util/error.h"
#include "util/file.h"
#include "why/why.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fmt/format.h>
#include <optional>
#include <unistd.h>

namespace phc::why {

namespace {

constexpr const char* kAbout =
    R"(Says which inputs make OUTPUT dirty, as ninja decides it from the build's
.ninja_log and .ninja_deps: the headers themselves where `ninja -d explain`
names a header set (phc_s_...), and the inputs that will be rebuilt first,
each with its own reasons. A changed command is not looked at (`ninja -d
explain` says "command line changed").)";

/// The largest .ninja_log or .ninja_deps why reads.
constexpr size_t kMaxHistoryBytes = 2048u << 20;

/// Where ninja keeps `name` for manifest `m`: in its builddir, else here.
std::string in_builddir(const ninja::Manifest& m, std::string_view name) {
    auto dir = m.variable("builddir");
    if (!dir || dir->empty()) return std::string(name);
    return fmt::format("{}/{}", *dir, name);
}

/// What ninja recorded of past builds of `m`.
Result<History> read_history(const ninja::Manifest& m) {
    History h;
    // Regular files of a bounded size only: a fifo in their place never
    // hangs why, a device never floods it (then read as missing, with a warning).
    auto read = [](const std::string& path, size_t max) -> std::optional<std::string> {
        if (!util::file_exists(path)) return std::nullopt;
        auto text = util::read_regular_file(path, max);
        if (!text) {
            std::fprintf(stderr, "phc-ninja why: warning: %s; read as missing\n",
                         text.error().text().c_str());
            return std::nullopt;
        }
        return std::move(*text);
    };
    if (auto log = read(in_builddir(m, ".ninja_log"), kMaxHistoryBytes))
        h.log = ninja::log_mtimes(*log);
    const std::string deps = in_builddir(m, ".ninja_deps");
    if (auto text = read(deps, kMaxHistoryBytes)) {
        h.deps_text = std::move(*text);
        auto parsed = ninja::parse_deps_log(h.deps_text);
        if (!parsed) return error_at(deps, parsed.error().message);
        h.deps = std::move(*parsed);
    }
    return h;
}

int64_t stat_mtime(const std::string& path) {
    return std::max<int64_t>(ninja::mtime_ns(path), 0);
}

} // namespace

int cli_main(int argc, char** argv) {
    std::string dir = ".", manifest = "build.ninja";
    util::CommandLine cl{"phc-ninja why", "[-C DIR] [-f FILE] OUTPUT", kAbout, {}, {}};
    cl.positional = true;
    cl.options = {
        util::text_option({"-C"}, "DIR", "the build directory (default: .)", dir),
        util::text_option({"-f"}, "FILE", "the manifest, relative to DIR (default: build.ninja)",
                          manifest),
    };
    util::Parsed parsed = util::parse(cl, argc, argv);
    if (!parsed.error.empty()) return util::usage_error(cl, parsed.error);
    if (parsed.help) {
        std::fputs(util::usage(cl).c_str(), stdout);
        return 0;
    }
    if (parsed.positional.size() != 1)
        return util::usage_error(cl, parsed.positional.empty() ? "OUTPUT is needed"
                                                               : "one OUTPUT at a time");
    const std::string& output = parsed.positional[0];
    if (::chdir(dir.c_str()) != 0)
        return print_error(cl.name, make_error(fmt::format("{}: {}", dir, std::strerror(errno))));
    auto m = ninja::load_manifest(manifest);
    if (!m) return print_error(cl.name, m.error());
    auto h = read_history(*m);
    if (!h) return print_error(cl.name, h.error());
    auto why = why_dirty(*m, *h, output, stat_mtime);
    if (!why) return print_error(cl.name, why.error());
    if (why->empty()) {
        std::printf("%s is up to date\n", output.c_str());
        return 0;
    }
    std::printf("%s will be rebuilt:\n", output.c_str());
    for (const auto& line : *why)
        std::printf("  %s\n", line.c_str());
    return 0;
}

} // namespace phc::why
