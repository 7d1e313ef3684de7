// Test helper: the jobs clang-15's driver prints for an RDC link, without running it.
#pragma once

#include "probe/probe.h"

#include <string>

namespace phc::test {

/// Jobs like clang-15's for `-fgpu-rdc --hip-link` of a.o and b.o, gfx906 and gfx90a.
inline phc::probe::DriverJobs clang15_link_jobs() {
    const std::string t = "/scratch/";
    const std::string bundler = "/usr/lib/llvm-15/bin/clang-offload-bundler";
    const std::string targets = "-targets=host-x86_64-pc-linux-gnu,hip-amdgcn-amd-amdhsa-gfx906,"
                                "hip-amdgcn-amd-amdhsa-gfx90a";
    phc::probe::DriverJobs d;
    d.temp_dir = "/scratch";
    for (std::string obj : {"a", "b"})
        d.jobs.push_back({bundler, "-type=o", targets, "-input=" + obj + ".o",
                          "-output=" + t + obj + "-h.o", "-output=" + t + obj + "-gfx906.o",
                          "-output=" + t + obj + "-gfx90a.o", "-unbundle",
                          "-allow-missing-bundles"});
    for (std::string arch : {"gfx906", "gfx90a"})
        d.jobs.push_back({"/usr/lib/llvm-15/bin/lld", "-flavor", "gnu", "-shared",
                          "-plugin-opt=mcpu=" + arch, "-o", t + arch + ".out",
                          t + "a-" + arch + ".o", t + "b-" + arch + ".o"});
    d.jobs.push_back({bundler, "-type=o", "-bundle-align=4096",
                      "-targets=host-x86_64-unknown-linux,hipv4-amdgcn-amd-amdhsa--gfx906,"
                      "hipv4-amdgcn-amd-amdhsa--gfx90a",
                      "-input=/dev/null", "-input=" + t + "gfx906.out",
                      "-input=" + t + "gfx90a.out", "-output=" + t + "x.hipfb"});
    d.jobs.push_back({"/usr/lib/llvm-15/bin/llvm-mc", "-triple", "x86_64-pc-linux-gnu", "-o",
                      t + "x.o", t + "x-1.mcin", "--filetype=obj"});
    d.jobs.push_back(
        {"/usr/bin/ld", "-o", "bin/app", t + "a-h.o", t + "b-h.o", t + "x.o", "-lamdhip64"});
    return d;
}

} // namespace phc::test
