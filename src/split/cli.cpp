#include "split/cli.h"

#include "compile/command.h"
#include "compile/shell.h"
#include "split/guard.h"
#include "split/link.h"
#include "split/plan.h"
#include "util/args.h"
#include "util/settings.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace phc::split {

namespace {

/// The parsed command line of `explain`.
struct Args {
    compile::AnalyzeInput input;
    std::string probe_cache;
    PlanOptions plan;
    std::vector<std::string> words;
};

util::CommandLine command_line(Args& a) {
    util::CommandLine cl{"phc-ninja explain",
                         "[options] [--] <compile command words...>\n"
                         "       phc-ninja explain [options] [--] '<compile command as one "
                         "shell string>'",
                         "Prints the decision, its reason and the planned commands as a shell "
                         "script. The CUID is the launcher's (seen from CCACHE_BASEDIR when that "
                         "is set).",
                         {},
                         {}};
    cl.positional = true;
    cl.stop_at_word = true;
    cl.options = {
        util::text_option({"-C"}, "DIR", "the directory the command runs in (default: current)",
                          a.input.base_dir),
        util::text_option({"--probe-cache"}, "FILE",
                          "read and update this driver probe cache (JSON)", a.probe_cache),
        util::text_option({"--private-dir"}, "DIR",
                          "folder for device objects (default: <object>.phc)", a.plan.private_dir),
        util::flag_option({"--device-depfiles"}, "give every device step a depfile",
                          a.plan.device_depfiles),
        util::flag_option({"--overlap-host"},
                          "run the host compile beside the device compiles, then put the\n"
                          "device code into its object (objcopy)",
                          a.plan.overlap_host),
        util::text_option({"--rspfile"}, "NAME", "ninja rspfile name used by the command",
                          a.input.rspfile),
        util::text_option({"--rspfile-content"}, "TEXT", "ninja rspfile_content for it",
                          a.input.rspfile_content),
    };
    return cl;
}

void print_plan(const Plan& p) {
    const compile::Decision& d = p.analysis.decision;
    std::printf("# decision: %s\n", p.split() ? "split" : "leave");
    std::printf("# reason: %s: %s\n", std::string(compile::reason_code(d.reason)).c_str(),
                d.text.c_str());
    if (!p.split()) return;
    std::printf("# guard: the split's driver jobs are the original's\n");
    if (!p.overlap_reason.empty())
        std::printf("# overlap-host not used: %s\n", p.overlap_reason.c_str());
    std::printf("# cuid: %s\n", p.cuid.c_str());
    Step mk;
    mk.cwd = p.analysis.command.cwd;
    mk.argv = {"mkdir", "-p", p.private_dir};
    // Each step is a command of its own: a subshell keeps its `cd` from the next line.
    auto line = [](const Step& s) {
        std::string sh = s.shell();
        std::printf(s.cwd.empty() ? "%s\n" : "(%s)\n", sh.c_str());
    };
    line(mk);
    for (const Step& s : p.steps)
        line(s);
}

/// Prints the plan of an RDC link: every object is unbundled (explain does not
/// know which compiles are split), each architecture linked on its own. The
/// new driver's link is planned from the objects as they are now.
int explain_link(const Args& a, std::string_view self) {
    std::string cmd = a.words.size() == 1 ? a.words[0] : compile::join_command(a.words);
    auto lp = plan_link(
        compile::analyze_link_string(cmd, a.input),
        [](const std::string&) { return static_cast<const SplitObject*>(nullptr); }, {},
        LinkInputs::Present);
    if (!lp) return print_error(self, lp.error());
    const compile::Decision& d = lp->analysis.decision;
    std::printf("# decision: %s\n", lp->split() ? "split" : "leave");
    std::printf("# reason: %s: %s\n", std::string(compile::reason_code(d.reason)).c_str(),
                d.text.c_str());
    if (!lp->split()) return 0;
    Step mk;
    mk.cwd = lp->analysis.command.cwd;
    mk.argv = {"mkdir", "-p", lp->private_dir};
    for (const Step* s : {&mk})
        std::printf(s->cwd.empty() ? "%s\n" : "(%s)\n", s->shell().c_str());
    for (const Step& s : lp->steps)
        std::printf(s.cwd.empty() ? "%s\n" : "(%s)\n", s.shell().c_str());
    return 0;
}

} // namespace

int cli_main(int argc, char** argv) {
    Args a;
    const util::CommandLine cl = command_line(a);
    util::Parsed parsed;
    if (auto status = util::parse_or_usage(cl, argc, argv, parsed)) return *status;
    if (parsed.positional.empty()) return util::usage_error(cl, "no compile command given");
    a.words = std::move(parsed.positional);
    const auto basedir = util::get("CCACHE_BASEDIR");
    a.plan.cuid_root = root_from_basedir(basedir ? basedir->c_str() : nullptr);
    compile::Analysis an =
        a.words.size() == 1 ? compile::analyze_string(a.words[0], a.input) : [&] {
            compile::Recognised r = compile::recognise_argv(a.words);
            if (r.command) return compile::analyze(std::move(*r.command), a.input);
            compile::Analysis bad;
            bad.decision = {compile::Reason::NotSimple, r.reason};
            return bad;
        }();
    if (an.decision.reason == compile::Reason::NoCompile) {
        std::string cmd = a.words.size() == 1 ? a.words[0] : compile::join_command(a.words);
        if (compile::analyze_link_string(cmd, a.input).decision.reason !=
            compile::Reason::LinkNotRdc)
            return explain_link(a, cl.name);
    }
    probe::ProbeCache probes(a.probe_cache, guarded_prober());
    auto p = plan(std::move(an), probes, a.plan);
    if (!p) return print_error(cl.name, p.error());
    print_plan(*p);
    std::printf("# probes run: %zu\n", probes.probes_run());
    return 0;
}

} // namespace phc::split
