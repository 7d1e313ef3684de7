#include "regen/hook.h"

#include "compile/shell.h"
#include "ninja/statements.h"
#include "ninja/writer.h"
#include "regen/edges.h"
#include "regen/original.h"
#include "split/options.h"
#include "util/settings.h"

#include <fmt/format.h>

namespace phc::regen {

namespace {

/// The command that runs regen again, as the hook and the stand-in run it.
std::string regen_again(const Options& o) {
    // What the environment chose must hold when ninja re-runs regen too.
    std::string again =
        util::get("PHC_DEVICE_WARNINGS") == "first" ? "PHC_DEVICE_WARNINGS=first " : "";
    again += compile::quote_word(o.self) + " regen -C " + compile::quote_word(o.build_dir);
    if (o.manifest != "build.ninja") again += " -f " + compile::quote_word(o.manifest);
    if (o.device_jobs > 0) again += fmt::format(" --device-jobs {}", o.device_jobs);
    if (o.strict) again += " --strict";
    if (!o.select.only().empty()) again += " --only " + compile::quote_word(o.select.only());
    if (!o.select.skip().empty()) again += " --skip " + compile::quote_word(o.select.skip());
    if (o.overlap_host) again += " --overlap-host";
    if (o.distribute) again += " --distribute " + std::string(split::engine_name(*o.distribute));
    if (o.remote_jobs > 0 && o.remote_jobs != split::remote_jobs_default())
        again += fmt::format(" --remote-jobs {}", o.remote_jobs);
    if (o.memory) again += " --memory " + compile::quote_word(*o.memory);
    return again + " --quiet";
}

/// The stand-in for a top manifest while regen has not succeeded after CMake
/// re-ran: it starts with kMarker (so regen reads CMake's manifest from
/// FILE.cmake), and its one edge, which writes what CMake's generator edge
/// writes, depends on an always-dirty phony target: every ninja run retries
/// regen first, and stops (loudly) while regen fails.
std::string stand_in(const ninja::EdgeRef& generator, const std::string& again) {
    std::string out = fmt::format(
        "{}stands in for the split manifest: CMake re-ran, phc-ninja regen did not finish.\n"
        "# CMake wrote <this file>.cmake. Every ninja run retries regen first, and\n"
        "# stops while it fails; when it succeeds, it replaces this file.\n\n",
        kMarker);
    ninja::RuleStatement rule{std::string(kRetryRule),
                              {{"command", again, true},
                               {"description",
                                "Re-running phc-ninja regen, which failed after CMake re-ran "
                                "(nothing is built until it succeeds)",
                                true},
                               {"generator", "1"}}};
    ninja::BuildStatement always;
    always.outputs = {"phc_regen_always"};
    always.rule = "phony";
    ninja::BuildStatement retry;
    for (auto o : generator.outputs())
        retry.outputs.emplace_back(o);
    for (auto o : generator.implicit_outputs())
        retry.implicit_outputs.emplace_back(o);
    retry.rule = std::string(kRetryRule);
    retry.implicit = {"phc_regen_always"};
    for (const ninja::NewStatement& st :
         std::vector<ninja::NewStatement>{rule, ninja::RawStatement{"\n"}, always, retry})
        if (auto text = ninja::render(st)) out += *text;
    return out;
}

/// The generator edge again, with a command that, after CMake, replaces every
/// top manifest CMake wrote by a stand-in (CMake's goes to FILE.cmake) and
/// then runs regen, which replaces the stand-ins. The stand-ins are in place
/// before regen can fail (phc-ninja moved or deleted, an error, an interrupt),
/// so ninja never loads CMake's unsplit manifest without the hook: it retries
/// regen on every run until regen succeeds. A top that is already regen's own
/// (first line kMarker) is left as it is.
ninja::BuildStatement hooked_generator(const ninja::EdgeRef& e, const std::string& command,
                                       const Options& o, const std::vector<std::string>& tops) {
    ninja::BuildStatement b;
    auto strings = [](const std::vector<std::string_view>& v) {
        return std::vector<std::string>(v.begin(), v.end());
    };
    b.outputs = strings(e.outputs());
    b.implicit_outputs = strings(e.implicit_outputs());
    b.rule = std::string(e.rule().name);
    b.inputs = strings(e.inputs());
    b.implicit = strings(e.implicit_inputs());
    b.order_only = strings(e.order_only());
    b.validations = strings(e.validations());
    for (const auto& eb : e.bindings())
        if (eb.name != "command")
            b.bindings.push_back({std::string(eb.name), std::string(eb.source), false});
    const std::string again = regen_again(o);
    // printf's arguments: the stand-in's lines (ninja text; the shell's quoting).
    std::string lines;
    const std::string text = stand_in(e, again);
    for (size_t at = 0; at < text.size();) {
        size_t nl = text.find('\n', at);
        lines += " " + compile::quote_word(std::string_view(text).substr(at, nl - at));
        at = nl + 1;
    }
    // Absolute paths: CMake's command may change directory ("cd DIR && cmake ...").
    std::string files;
    for (const std::string& top : tops)
        files += " " + compile::quote_word(o.build_dir + "/" + top);
    const std::string marker = compile::quote_word(kMarker);
    const std::string install = fmt::format(
        "for f in{}; do [ -f \"$f\" ] || continue; l=; IFS= read -r l <\"$f\"; case \"$l\" in "
        "{}*) ;; *) printf '%s\\n'{} >\"$f.phc-stub\" && mv -f \"$f\" \"$f.cmake\" && "
        "mv -f \"$f.phc-stub\" \"$f\" || exit 1;; esac; done",
        files, marker, lines);
    b.bindings.push_back({"command", command + " && { " + install + "; } && " + again, true});
    return b;
}

} // namespace

Status hook_generator(ninja::Manifest& m, size_t edge, const Options& o,
                      const std::vector<std::string>& tops) {
    ninja::EdgeRef g = m.edge(edge);
    auto cmd = g.evaluate("command");
    if (!cmd) return edge_error(m, g, cmd.error());
    if (auto st = m.replace(g.statement(), {hooked_generator(g, *cmd, o, tops)}); !st)
        return edge_error(m, g, st.error());
    return Ok{};
}

} // namespace phc::regen
