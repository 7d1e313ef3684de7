#include "check/check.h"
#include "ninja/paths.h"
#include "util/args.h"
#include "util/file.h"
#include "util/subprocess.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

namespace phc::check {

namespace {

struct Args {
    std::string dir = ".", manifest = "build.ninja", compdb;
    int sample = 8;
    bool all = false, no_build = false;
};

util::CommandLine command_line(Args& a) {
    util::CommandLine cl{
        "phc-ninja check",
        "[options] [OUTPUT...]",
        "Checks that a split build's outputs are the driver's own: runs the original command of "
        "each chosen object or RDC link (CMake's edge, or the compilation database's entry) with "
        "the CUID the split used, into a scratch folder, and compares the bytes. Prints "
        "'identical' or where an output first differs; exits 1 when one differs.",
        {},
        "The chosen outputs are built first (ninja OUTPUT...), unless --no-build."};
    cl.positional = true;
    cl.options = {
        util::text_option({"-C"}, "DIR", "the build directory (default: current)", a.dir),
        util::text_option({"-f"}, "FILE", "the split manifest (default: build.ninja)", a.manifest),
        util::text_option({"--compdb"}, "FILE",
                          "gen's compilation database (default: the one its file names)", a.compdb),
        util::positive_option({"--sample"}, "N",
                              "check N split outputs, spread over the build "
                              "(default: 8)",
                              a.sample),
        util::flag_option({"--all"}, "check every split output", a.all),
        util::flag_option({"--no-build"}, "compare the outputs as they are, without ninja",
                          a.no_build),
    };
    return cl;
}

/// `n` of `all`, spread evenly (the first, the last and between them).
std::vector<Target> sample(std::vector<Target> all, size_t n) {
    if (all.size() <= n) return all;
    std::vector<Target> out;
    for (size_t k = 0; k < n; ++k)
        out.push_back(all[n == 1 ? 0 : k * (all.size() - 1) / (n - 1)]);
    return out;
}

/// The targets OUTPUT... names, each one a split output; an Error names the first that is not.
Result<std::vector<Target>> named(const std::vector<Target>& all,
                                  const std::vector<std::string>& outputs) {
    std::vector<Target> out;
    for (const std::string& o : outputs) {
        const std::string path = ninja::canonicalize_path(o);
        auto t =
            std::find_if(all.begin(), all.end(), [&](const Target& x) { return x.output == path; });
        if (t == all.end()) return error_at(o, "not a split output of this build");
        out.push_back(*t);
    }
    return out;
}

/// Removes the scratch folder: its regular files and folders, nothing else.
void remove_scratch(const std::string& dir) {
    ::nftw(
        dir.c_str(),
        [](const char* path, const struct stat* st, int type, struct FTW*) {
            if (type == FTW_DP)
                ::rmdir(path);
            else if (type == FTW_F && S_ISREG(st->st_mode))
                ::unlink(path);
            return 0;
        },
        16, FTW_DEPTH | FTW_PHYS);
}

/// Builds the chosen outputs with ninja, so what is compared is current.
Status build(const Args& a, const std::vector<Target>& targets) {
    std::vector<std::string> argv{"ninja", "-f", a.manifest};
    for (const Target& t : targets)
        argv.push_back(t.output);
    auto r = util::run_capture(argv);
    if (!r) return r.error();
    if (r->exit_code != 0) {
        std::fputs(r->out.c_str(), stderr);
        return make_error(
            fmt::format("ninja failed (exit {}) building the outputs to check", r->exit_code));
    }
    return Ok{};
}

} // namespace

int cli_main(int argc, char** argv) {
    Args a;
    const util::CommandLine cl = command_line(a);
    util::Parsed parsed;
    if (auto status = util::parse_or_usage(cl, argc, argv, parsed)) return *status;
    if (a.all && !parsed.positional.empty())
        return util::usage_error(cl, "--all and OUTPUT... exclude each other");
    if (a.manifest.find('/') != std::string::npos)
        return util::usage_error(cl, "-f names a file in the build directory (-C DIR): '" +
                                         a.manifest + "'");
    if (::chdir(a.dir.c_str()) != 0)
        return print_error(cl.name, make_error(fmt::format("{}: {}", a.dir, std::strerror(errno))));
    auto all = split_targets(a.manifest, a.compdb);
    if (!all) return print_error(cl.name, all.error());
    if (all->empty()) {
        std::printf("phc-ninja check: %s splits nothing: nothing to check\n", a.manifest.c_str());
        return 0;
    }
    auto chosen = parsed.positional.empty()
                      ? Result<std::vector<Target>>(
                            a.all ? *all : sample(*all, static_cast<size_t>(a.sample)))
                      : named(*all, parsed.positional);
    if (!chosen) return print_error(cl.name, chosen.error());
    if (!a.no_build)
        if (Status st = build(a, *chosen); !st) return print_error(cl.name, st.error());
    if (Status st = util::make_dirs(".phc-ninja"); !st) return print_error(cl.name, st.error());
    std::string scratch = ".phc-ninja/check-XXXXXX";
    if (!::mkdtemp(scratch.data()))
        return print_error(cl.name, make_error(fmt::format("cannot make a scratch folder in "
                                                           ".phc-ninja: {}",
                                                           std::strerror(errno))));
    char* abs = ::realpath(scratch.c_str(), nullptr);
    const std::string scratch_abs = abs ? abs : scratch;
    std::free(abs);
    size_t count[4] = {0, 0, 0, 0};
    constexpr const char* kLabel[4] = {"identical", "DIFFERS", "UNSTABLE", "FAILED"};
    for (const Target& t : *chosen) {
        auto v = check_target(t, scratch_abs);
        if (!v) v = split::Verdict{split::Verdict::Kind::Failed, v.error().text()};
        const auto k = static_cast<size_t>(v->kind);
        ++count[k];
        if (v->text.empty())
            std::printf("%-10s %s\n", kLabel[k], t.output.c_str());
        else
            std::printf("%-10s %s: %s\n", kLabel[k], t.output.c_str(), v->text.c_str());
        std::fflush(stdout);
    }
    remove_scratch(scratch_abs);
    std::printf("phc-ninja check: %zu of %zu split outputs checked: %zu identical", chosen->size(),
                all->size(), count[0]);
    if (count[1]) std::printf(", %zu DIFFER from the driver's", count[1]);
    if (count[2]) std::printf(", %zu not comparable (the driver is not deterministic)", count[2]);
    if (count[3]) std::printf(", %zu could not be checked", count[3]);
    std::printf("\n");
    return count[1] || count[3] ? 1 : 0;
}

} // namespace phc::check
