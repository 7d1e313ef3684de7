// apply_probe (declared in probe.h): the driver's jobs confirm or overturn a split.
#include "probe/probe.h"

#include <string>
#include <vector>

namespace phc::probe {

namespace {

using compile::Decision;
using compile::Reason;

std::string join_archs(const std::vector<std::string>& archs) {
    std::string out;
    for (const std::string& a : archs)
        out += (out.empty() ? "" : ",") + a;
    return out;
}

} // namespace

void apply_probe(compile::Analysis& a, const ProbeResult& p) {
    if (!a.decision.split()) return;
    if (p.driver == DriverKind::New && p.codegen.empty() && p.embed_option.empty()) {
        a.decision = Decision{Reason::NewDriver,
                              "the new offload driver's jobs are not understood" +
                                  (p.not_understood.empty() ? "" : " (" + p.not_understood + ")")};
    } else if (p.driver == DriverKind::None) {
        a.decision = Decision{Reason::NotHip, "the driver plans no HIP device compiles"};
    } else if (p.rdc && p.embed_option.empty() && !p.has_host_input()) {
        a.decision = Decision{Reason::Rdc, "the driver's RDC bundle has no host object input"};
    } else if (p.archs.size() != a.archs.size() ||
               compile::arch_set(p.archs) != compile::arch_set(a.archs)) {
        a.decision =
            Decision{Reason::ArchMismatch, "the driver bundles " + join_archs(p.archs) +
                                               ", the command names " + join_archs(a.archs)};
    } else if (!p.jobs_differ.empty()) {
        a.decision = Decision{Reason::JobsDiffer, p.jobs_differ};
    }
}

} // namespace phc::probe
