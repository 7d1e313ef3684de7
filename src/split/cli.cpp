#include "split/cli.h"

#include "compile/command.h"
#include "compile/shell.h"
#include "split/link.h"
#include "split/plan.h"

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace phc::split {

namespace {

constexpr const char* kUsage =
    "usage: phc-ninja explain [options] -- <compile command words...>\n"
    "       phc-ninja explain [options] -- '<compile command as one shell string>'\n"
    "\n"
    "Prints the decision, its reason and the planned commands as a shell script.\n"
    "\n"
    "options:\n"
    "  -C DIR                 the directory the command runs in (default: current)\n"
    "  --probe-cache FILE     read and update this driver probe cache (JSON)\n"
    "  --private-dir DIR      folder for device objects (default: <object>.phc)\n"
    "  --device-depfiles      give every device step a depfile\n"
    "  --rspfile NAME         ninja rspfile name used by the command\n"
    "  --rspfile-content TEXT ninja rspfile_content for it\n";

/// The parsed command line of `explain`.
struct Args {
    compile::AnalyzeInput input;
    std::string probe_cache;
    PlanOptions plan;
    std::vector<std::string> words;
};

/// Parses argv; returns an error message ("" on success).
std::string parse(int argc, char** argv, Args& a) {
    int i = 1;
    for (; i < argc; ++i) {
        std::string_view w = argv[i];
        auto value = [&](std::string& into) {
            if (i + 1 >= argc) return false;
            into = argv[++i];
            return true;
        };
        bool ok = true;
        if (w == "--") {
            ++i;
            break;
        } else if (w == "-C") {
            ok = value(a.input.base_dir);
        } else if (w == "--probe-cache") {
            ok = value(a.probe_cache);
        } else if (w == "--private-dir") {
            ok = value(a.plan.private_dir);
        } else if (w == "--device-depfiles") {
            a.plan.device_depfiles = true;
        } else if (w == "--rspfile") {
            ok = value(a.input.rspfile);
        } else if (w == "--rspfile-content") {
            ok = value(a.input.rspfile_content);
        } else if (!w.empty() && w[0] == '-') {
            return "unknown option '" + std::string(w) + "'";
        } else {
            break;
        }
        if (!ok) return "option '" + std::string(w) + "' needs a value";
    }
    for (; i < argc; ++i)
        a.words.emplace_back(argv[i]);
    if (a.words.empty()) return "no compile command given";
    return {};
}

void print_plan(const Plan& p) {
    const compile::Decision& d = p.analysis.decision;
    std::printf("# decision: %s\n", p.split() ? "split" : "leave");
    std::printf("# reason: %s: %s\n", std::string(compile::reason_code(d.reason)).c_str(),
                d.text.c_str());
    if (!p.split()) return;
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
/// know which compiles are split), each architecture linked on its own.
int explain_link(const Args& a, const char* self) {
    std::string cmd = a.words.size() == 1 ? a.words[0] : compile::join_command(a.words);
    auto lp = plan_link(compile::analyze_link_string(cmd, a.input), [](const std::string&) {
        return static_cast<const SplitObject*>(nullptr);
    });
    if (!lp) {
        std::fprintf(stderr, "%s: %s\n", self, lp.error().text().c_str());
        return 1;
    }
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
    if (std::string err = parse(argc, argv, a); !err.empty()) {
        std::fprintf(stderr, "%s: error: %s\n%s", argv[0], err.c_str(), kUsage);
        return 2;
    }
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
            return explain_link(a, argv[0]);
    }
    probe::ProbeCache probes(a.probe_cache);
    auto p = plan(std::move(an), probes, a.plan);
    if (!p) {
        std::fprintf(stderr, "%s: %s\n", argv[0], p.error().text().c_str());
        return 1;
    }
    print_plan(*p);
    std::printf("# probes run: %zu\n", probes.probes_run());
    return 0;
}

} // namespace phc::split
