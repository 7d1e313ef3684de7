#include "util/cgroup.h"

#include "util/file.h"

#include <charconv>
#include <optional>
#include <sched.h>
#include <unistd.h>

namespace phc::util {

namespace {

/// The first number of `text` (leading blanks skipped), or none.
std::optional<long long> first_number(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\n'))
        text.remove_prefix(1);
    long long n = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc() || end == text.data()) return std::nullopt;
    return n;
}

/// A cgroup folder's CPU quota in CPUs (rounded up), or none ("max", -1, unreadable).
std::optional<int> quota_cpus(const CgroupDir& d) {
    std::optional<long long> quota, period;
    if (d.v2) {
        auto text = read_regular_file(d.path + "/cpu.max", 4096);
        if (!text) return std::nullopt;
        quota = first_number(*text);
        if (size_t blank = text->find(' '); blank != std::string::npos)
            period = first_number(std::string_view(*text).substr(blank));
    } else {
        auto q = read_regular_file(d.path + "/cpu.cfs_quota_us", 4096);
        auto p = read_regular_file(d.path + "/cpu.cfs_period_us", 4096);
        if (q) quota = first_number(*q);
        if (p) period = first_number(*p);
    }
    if (!quota || !period || *quota <= 0 || *period <= 0) return std::nullopt;
    return static_cast<int>((*quota + *period - 1) / *period);
}

/// The CPUs of this process's affinity mask, else the online CPUs; at least 1.
int affinity_cpus() {
    cpu_set_t set;
    int cpus = 0;
    if (::sched_getaffinity(0, sizeof set, &set) == 0) cpus = CPU_COUNT(&set);
    if (cpus <= 0) cpus = static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN));
    return cpus > 0 ? cpus : 1;
}

} // namespace

std::vector<CgroupDir> cgroup_dirs(const std::string& root, std::string_view v1_controller) {
    std::vector<CgroupDir> out;
    auto text = read_regular_file(root + "/proc/self/cgroup", 1 << 16);
    if (!text) return out;
    for (const std::string& line : split_on(*text, '\n')) {
        std::string base, path;
        bool v2 = false;
        if (line.starts_with("0::")) {
            base = root + "/sys/fs/cgroup", path = line.substr(3), v2 = true;
        } else {
            const std::vector<std::string> f = split_on(line, ':'); // N:LIST:PATH
            if (f.size() < 3) continue;
            bool named = false;
            for (const std::string& c : split_on(f[1], ','))
                named = named || c == v1_controller;
            if (!named) continue;
            base = root + "/sys/fs/cgroup/" + f[1];
            path = line.substr(f[0].size() + f[1].size() + 2);
        }
        for (;;) {
            out.push_back({base + (path == "/" ? "" : path), v2});
            size_t slash = path.rfind('/');
            if (slash == std::string::npos || path.size() <= 1) break;
            path.resize(slash == 0 ? 1 : slash);
        }
    }
    return out;
}

int available_cpus(const std::string& root, int cpus) {
    if (cpus <= 0) cpus = affinity_cpus();
    for (const CgroupDir& d : cgroup_dirs(root, "cpu"))
        if (auto q = quota_cpus(d); q && *q < cpus) cpus = *q;
    return cpus > 0 ? cpus : 1;
}

} // namespace phc::util
