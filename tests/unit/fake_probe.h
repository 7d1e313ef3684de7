// Test helper: driver probe results like clang-15's, without running a compiler.
// test_probe_driver.cpp checks them against clang-15's recorded `-###` output
// (tests/data/split), so they stay what the real probe gives.
#pragma once

#include "compile/analysis.h"
#include "compile/command.h"
#include "probe/probe.h"
#include "split/plan.h"
#include "util/file.h"

#include <algorithm>
#include <doctest/doctest.h>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace phc::test {

/// A probe result like clang-15's, for the architectures in bundle order.
inline probe::ProbeResult fake_probe(std::vector<std::string> archs) {
    probe::ProbeResult p;
    p.driver = probe::DriverKind::Old;
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
    p.distribute_checked = true; // as if the guard had passed the farm's shape
    return p;
}

/// A probe result like clang-15's for an RDC (-fgpu-rdc) compile: the bundle is
/// the object and holds the host object.
inline probe::ProbeResult fake_rdc_probe(std::vector<std::string> archs) {
    probe::ProbeResult p;
    p.driver = probe::DriverKind::Old;
    p.rdc = true;
    p.bundler = "/usr/lib/llvm-15/bin/clang-offload-bundler";
    std::string targets = "-targets=";
    for (const std::string& a : archs)
        targets += "hip-amdgcn-amd-amdhsa-" + a + ",";
    p.bundler_args = {"-type=o", targets + "host-x86_64-pc-linux-gnu", "-output=@PHC_OUTPUT@"};
    for (size_t k = 0; k < archs.size(); ++k)
        p.bundler_args.push_back("-input=@PHC_INPUT_" + std::to_string(k) + "@");
    p.bundler_args.push_back("-input=@PHC_HOST@");
    p.archs = std::move(archs);
    p.device_compiles = p.archs.size();
    p.distribute_checked = true;
    return p;
}

/// The architectures a compile names, as the driver bundles them (clang 15 to 22
/// sort them): --offload-arch= values (comma lists too) less --no-offload-arch= ones.
inline std::vector<std::string> driver_archs(const std::vector<std::string>& argv) {
    std::vector<std::string> archs;
    for (const std::string& w : argv) {
        bool add = w.starts_with("--offload-arch="), remove = w.starts_with("--no-offload-arch=");
        if (!add && !remove) continue;
        for (const std::string& one : util::split_on(w.substr(w.find('=') + 1), ',')) {
            if (add && !one.empty()) archs.push_back(one);
            if (remove) std::erase(archs, one);
        }
    }
    return compile::arch_set(archs);
}

/// A prober that runs no compiler: it answers as clang-15 (through hipcc too)
/// would, from the command line alone. Compilers it does not know (not clang or
/// hipcc, or a path under /nonexistent) are "not found", as the real probe says.
inline probe::Prober fake_prober() {
    probe::Prober p;
    p.key_head = [](const probe::ProbeRequest& req) -> Result<std::vector<std::string>> {
        if (req.argv.empty()) return make_error("empty compile command");
        const std::string& cc = req.argv[0];
        if (compile::compiler_kind(cc) == compile::CompilerKind::Unknown ||
            cc.starts_with("/nonexistent/"))
            return make_error("compiler '" + cc + "' not found");
        std::vector<std::string> head{"fake-probe", cc};
        head.insert(head.end(), req.env.begin(), req.env.end());
        return head;
    };
    p.run = [](const probe::ProbeRequest& req) -> Result<probe::ProbeResult> {
        std::vector<std::string> archs = driver_archs(req.argv);
        bool rdc = std::find(req.argv.begin(), req.argv.end(), "-fgpu-rdc") != req.argv.end();
        return rdc ? fake_rdc_probe(std::move(archs)) : fake_probe(std::move(archs));
    };
    return p;
}

/// The plan of `command` (a multi-architecture compile) with fake_probe(archs):
/// device depfiles, every other choice the default.
inline split::Plan fake_plan(const std::string& command, std::vector<std::string> archs) {
    compile::Analysis a = compile::analyze_string(command, {});
    REQUIRE(a.decision.split());
    probe::ProbeResult probe = fake_probe(std::move(archs));
    probe::apply_probe(a, probe);
    REQUIRE(a.decision.split());
    return split::make_plan(std::move(a), probe,
                            {.private_dir = {},
                             .device_depfiles = true,
                             .cuid_root = {},
                             .tool = {},
                             .distribute = {},
                             .preprocessed_dir = {},
                             .host_triple = {}});
}

} // namespace phc::test
