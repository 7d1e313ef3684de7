// The one line `--explain` prints per compile: regen's edges and gen's
// entries both have an object, a decision, its architectures and its reason.
#pragma once

#include <cstdio>
#include <fmt/format.h>
#include <string_view>
#include <vector>

namespace phc::split {

/// True for the reason codes of a command that is no multi-architecture HIP
/// compile (one architecture or none, another language or compiler, not a
/// compile): a build whose every HIP-looking edge has one gets "no
/// multi-architecture HIP compiles among N edges" instead of "split 0 objects".
inline bool not_multi_arch(std::string_view code) {
    return code == "single-arch" || code == "no-arch" || code == "not-hip" ||
           code == "unknown-compiler" || code == "no-compile" || code == "link-not-rdc";
}

/// Prints "split  OBJECT  [ARCHS]" or "left alone  OBJECT  CODE: TEXT" for each
/// decision (a type with object, split, archs, code, text, engine,
/// local_reason and host); a split compile whose device compiles go to an
/// engine says which, one that keeps them local although an engine was asked
/// for says why, and where --overlap-host's host compile goes.
template <typename Decision>
void print_decisions(std::FILE* to, const std::vector<Decision>& decisions) {
    for (const auto& d : decisions) {
        if (d.split)
            std::fprintf(to, "split       %s  [%s]%s%s\n", d.object.c_str(),
                         fmt::format("{}", fmt::join(d.archs, " ")).c_str(),
                         !d.engine.empty() ? ("  device compiles: " + d.engine).c_str()
                         : !d.local_reason.empty()
                             ? ("  device compiles local: " + d.local_reason).c_str()
                             : "",
                         d.host.empty() ? "" : (", host compile " + d.host).c_str());
        else
            std::fprintf(to, "left alone  %s  %s: %s\n", d.object.c_str(), d.code.c_str(),
                         d.text.c_str());
    }
}

} // namespace phc::split
