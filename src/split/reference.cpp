#include "split/reference.h"

#include "util/elf.h"
#include "util/file.h"
#include "util/subprocess.h"

#include <fmt/format.h>

namespace phc::split {

namespace {

/// How often the driver runs before an output is said to differ.
constexpr int kRuns = 6;

/// Runs the driver's own command writing `ref`; Identical (nothing to say) when it succeeded.
Result<Verdict> run_reference(const std::vector<std::string>& argv, const util::SpawnOptions& opts,
                              const std::string& ref) {
    auto run = util::run_capture(argv, opts);
    if (!run) return run.error();
    if (run->exit_code == 0 && util::file_exists(ref)) return Verdict{};
    std::string why = run->err.substr(0, run->err.find('\n'));
    return Verdict{
        Verdict::Kind::Failed,
        fmt::format("the driver's own command failed (exit {}): {}", run->exit_code, why)};
}

} // namespace

Result<Verdict> compare_with_driver(std::string_view mine, const Step& reference,
                                    const std::string& base_dir, const std::string& ref,
                                    const std::string& tmpdir) {
    util::SpawnOptions opts;
    opts.cwd = util::join_path(base_dir, reference.cwd);
    opts.env = util::env_pairs(reference.env);
    opts.env.emplace_back("TMPDIR", tmpdir); // the driver's temporaries stay there
    auto first = run_reference(reference.argv, opts, ref);
    if (!first) return first.error();
    if (first->kind != Verdict::Kind::Identical) return *first;
    auto theirs = util::read_file(ref);
    if (!theirs) return theirs.error();
    std::string diff = util::elf::first_difference(mine, *theirs);
    // More runs tell a split that differs from a driver that differs from itself:
    // one that writes the split's bytes, or two that disagree.
    for (int run = 1; run < kRuns && !diff.empty(); ++run) {
        auto again = run_reference(reference.argv, opts, ref);
        if (!again) return again.error();
        if (again->kind != Verdict::Kind::Identical) return *again;
        auto other = util::read_file(ref);
        if (!other) return other.error();
        if (*other == mine) return Verdict{};
        if (*other != *theirs)
            return Verdict{Verdict::Kind::Unstable,
                           "two runs of the driver's own compile differ (" +
                               util::elf::first_difference(*other, *theirs) +
                               "): its bytes depend on the run, so the split's cannot be compared"};
    }
    if (diff.empty()) return Verdict{};
    return Verdict{Verdict::Kind::Differs,
                   diff + fmt::format(" (the driver wrote the same bytes {} times)", kRuns)};
}

} // namespace phc::split
