// Test helper: a driver probe result like clang-15's, without running a compiler.
#pragma once

#include "compile/probe.h"

#include <string>
#include <utility>
#include <vector>

namespace phc::compile {

/// A probe result like clang-15's, for the architectures in bundle order.
inline ProbeResult fake_probe(std::vector<std::string> archs) {
    ProbeResult p;
    p.driver = DriverKind::Old;
    p.bundler = "/usr/lib/llvm-15/bin/clang-offload-bundler";
    std::string targets = "-targets=host-x86_64-unknown-linux";
    p.bundler_args = {"-type=o", "-bundle-align=4096", "", "-input=/dev/null"};
    for (size_t k = 0; k < archs.size(); ++k) {
        targets += ",hipv4-amdgcn-amd-amdhsa--" + archs[k];
        p.bundler_args.push_back("-input=@PHC_INPUT_" + std::to_string(k) + "@");
    }
    p.bundler_args[2] = targets;
    p.bundler_args.push_back("-output=@PHC_OUTPUT@");
    p.archs = std::move(archs);
    p.device_compiles = p.archs.size();
    return p;
}

} // namespace phc::compile
