#include "regen/regen.h"
#include "split/explain.h"

#include <fmt/format.h>

namespace phc::regen {

std::string summary_line(const Summary& s, bool dry_run) {
    std::string left;
    size_t n_left = 0;
    bool none_multi = s.objects_split == 0 && s.links_split == 0;
    for (const auto& [code, n] : s.left) {
        left += fmt::format("{}{}: {}", left.empty() ? "" : ", ", code, n);
        n_left += n;
        none_multi = none_multi && split::not_multi_arch(code);
    }
    std::string line;
    if (none_multi) {
        line = fmt::format("phc-ninja regen: no multi-architecture HIP compiles among {} edges{}",
                           s.other_edges + n_left, left.empty() ? "" : " (" + left + ")");
    } else {
        line = fmt::format("phc-ninja regen: {} {} objects into {} device edges",
                           dry_run ? "would split" : "split", s.objects_split, s.device_edges);
        if (s.links_split > 0)
            line += fmt::format("; split {} RDC link{} into {} device links", s.links_split,
                                s.links_split == 1 ? "" : "s", s.device_links);
        for (const auto& [engine, n] : s.distributed)
            line += fmt::format("; {} device compile{} sent to {}", n, n == 1 ? "" : "s", engine);
        for (const auto& [why, n] : s.kept_local)
            line += fmt::format("; {} object{} kept {} device compiles local ({})", n,
                                n == 1 ? "" : "s", n == 1 ? "its" : "their", why);
        if (n_left > 0) line += fmt::format("; left alone {} HIP edges ({})", n_left, left);
        line += fmt::format("; {} other edges", s.other_edges);
        if (!s.overlap_refused.empty() && s.objects_split > 0)
            line += "; --overlap-host not used: " + s.overlap_refused;
    }
    line += fmt::format("; {} compiler probe{}", s.probes_run, s.probes_run == 1 ? "" : "s");
    if (!s.written.empty())
        line +=
            fmt::format("; {} {}", dry_run ? "would write" : "wrote", fmt::join(s.written, ", "));
    else
        line += "; up to date";
    if (s.deps_restored > 0)
        line += fmt::format("; put back {} header record{} a direct cmake run dropped",
                            s.deps_restored, s.deps_restored == 1 ? "" : "s");
    if (!s.history.empty()) line += "; ordered by the project's history " + s.history;
    if (s.guessed_order && s.objects_split > 0)
        line += "; no build log or history: the largest sources first";
    if (s.hosts_first && s.objects_split > 0)
        line += "; no build log or history: the host compiles first";
    return line;
}

} // namespace phc::regen
