// What this process's cgroups allow it: the folders of a controller, from its
// own cgroup up to the root (a parent's limit binds as well), and the CPUs it
// may use (its affinity, less a cgroup CPU quota).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace phc::util {

/// One cgroup folder of this process.
struct CgroupDir {
    std::string path; ///< ROOT/sys/fs/cgroup/... of one level
    bool v2 = false;  ///< the unified hierarchy (v2 file names), else the v1 controller's
};

/// The folders of this process's cgroups that hold `v1_controller`'s files
/// ("memory", "cpu"): the v2 cgroup ("0::PATH" of /proc/self/cgroup) and the v1
/// one ("N:LIST:PATH" where LIST names the controller), each from its own level
/// up to the root. `root` prefixes every path (tests give a fake tree).
std::vector<CgroupDir> cgroup_dirs(const std::string& root, std::string_view v1_controller);

/// The CPUs this process may run on: `cpus` (0: its affinity, from
/// sched_getaffinity, else the online CPUs), less what the lowest CPU quota of
/// its cgroups allows (v2 cpu.max "QUOTA PERIOD", v1 cpu.cfs_quota_us /
/// cpu.cfs_period_us, rounded up); at least 1.
int available_cpus(const std::string& root = "", int cpus = 0);

} // namespace phc::util
