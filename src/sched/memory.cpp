#include "sched/memory.h"

#include "util/cgroup.h"
#include "util/file.h"
#include "util/settings.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

namespace phc::sched {

namespace {

/// A cgroup file's number ("max", empty or unreadable: none).
std::optional<uint64_t> read_number(const std::string& path) {
    auto text = util::read_regular_file(path, 4096);
    if (!text) return std::nullopt;
    uint64_t n = 0;
    auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), n);
    if (ec != std::errc() || end == text->data()) return std::nullopt;
    return n;
}

/// MemTotal of /proc/meminfo in bytes, or 0.
uint64_t mem_total(const std::string& root) {
    auto text = util::read_regular_file(root + "/proc/meminfo", 1 << 16);
    if (!text) return 0;
    size_t at = text->find("MemTotal:");
    if (at == std::string::npos) return 0;
    at = text->find_first_of("0123456789", at);
    uint64_t kib = 0;
    if (at == std::string::npos) return 0;
    std::from_chars(text->data() + at, text->data() + text->size(), kib);
    return kib * 1024;
}

/// The lowest memory limit of this process's cgroups (v2 memory.max, v1
/// memory.limit_in_bytes, each level up to the root), or none.
std::optional<uint64_t> cgroup_limit(const std::string& root) {
    std::optional<uint64_t> lowest;
    for (const util::CgroupDir& d : util::cgroup_dirs(root, "memory")) {
        auto n = read_number(d.path + (d.v2 ? "/memory.max" : "/memory.limit_in_bytes"));
        if (n && (!lowest || *n < *lowest)) lowest = n;
    }
    return lowest;
}

} // namespace

Result<uint64_t> parse_memory(std::string_view text, uint64_t total) {
    auto bad = [&] {
        return make_error(fmt::format("'{}' is not a size (512M, 8G) or a percent (75%)", text));
    };
    double n = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc() || end == text.data() || !(n > 0)) return bad();
    std::string_view unit(end, static_cast<size_t>(text.data() + text.size() - end));
    if (unit == "%") {
        if (n > 100) return bad();
        return static_cast<uint64_t>(static_cast<double>(total) * n / 100);
    }
    for (std::string_view tail : {"iB", "B"})
        if (unit.size() > tail.size() && unit.ends_with(tail)) unit.remove_suffix(tail.size());
    const std::string_view units = "BKMGT";
    size_t power = unit.empty() ? 0 : units.find(static_cast<char>(std::toupper(unit[0])));
    if (power == std::string_view::npos || unit.size() > 1) return bad();
    const double bytes = std::ldexp(n, static_cast<int>(10 * power));
    if (bytes < 1 || bytes > 1e19) return bad();
    return static_cast<uint64_t>(bytes);
}

uint64_t available_memory(const std::string& root) {
    const uint64_t machine = mem_total(root);
    auto limit = cgroup_limit(root);
    if (limit && (machine == 0 || *limit < machine)) return *limit;
    return machine;
}

Result<uint64_t> memory_budget(const std::optional<std::string>& spec, std::string_view name,
                               const std::string& root) {
    const uint64_t available = available_memory(root);
    if (!spec || spec->empty()) return available - available / 10;
    auto n = parse_memory(*spec, available);
    if (!n) return make_error(fmt::format("{}: {}", name, n.error().message));
    return *n;
}

std::pair<std::optional<std::string>, std::string>
budget_spec(const std::optional<std::string>& own, const std::string& records_dir) {
    if (own) return {own, "--memory"};
    if (auto env = util::get("PHC_MEMORY")) return {env, "PHC_MEMORY"};
    const std::string file = records_dir + "/" + std::string(kMemoryFile);
    if (auto text = util::read_regular_file(file, 256)) {
        std::string spec = *text;
        while (!spec.empty() && (spec.back() == '\n' || spec.back() == ' '))
            spec.pop_back();
        if (!spec.empty()) return {spec, file};
    }
    return {std::nullopt, "PHC_MEMORY"};
}

Status check_memory_spec(const std::optional<std::string>& spec) {
    if (!spec) return Ok{};
    if (auto n = parse_memory(*spec, available_memory()); !n)
        return make_error(fmt::format("--memory: {}", n.error().message));
    return Ok{};
}

Status keep_memory_spec(const std::string& dir, const std::optional<std::string>& spec) {
    const std::string file = dir + "/" + std::string(kMemoryFile);
    if (!spec) {
        // Only a regular file is ever removed.
        struct stat st {};
        if (::lstat(file.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return Ok{};
        if (::unlink(file.c_str()) != 0 && errno != ENOENT)
            return make_error(fmt::format("{}: cannot remove: {}", file, std::strerror(errno)));
        return Ok{};
    }
    if (auto st = check_memory_spec(spec); !st) return st;
    if (auto st = util::make_dirs(dir); !st) return st;
    return util::write_file_atomic(file, *spec + "\n");
}

std::string explain_budget(const std::optional<std::string>& spec) {
    const uint64_t available = available_memory();
    std::string out;
    if (spec) {
        auto n = parse_memory(*spec, available);
        out = fmt::format("memory budget: {} = {} (--memory, kept in .phc-ninja/memory)", *spec,
                          n ? format_size(*n) : std::string("?"));
    } else {
        const uint64_t machine = mem_total("");
        out = fmt::format("memory budget: {}, the {} ({}) less 10% (--memory to choose)",
                          format_size(available - available / 10),
                          available < machine ? "cgroup's memory limit" : "machine's memory",
                          format_size(available));
    }
    out += "; each step reads it when it starts and waits until its estimate (its last "
           "peak +10%) fits beside the steps running; PHC_MEMORY when ninja runs overrides it";
    if (auto env = util::get("PHC_MEMORY")) out += fmt::format(" (set here: {})", *env);
    return out;
}

std::string format_size(uint64_t bytes) {
    constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = static_cast<double>(bytes);
    int u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        ++u;
    }
    if (u == 0 || v >= 100 || v == std::floor(v)) return fmt::format("{:.0f} {}", v, kUnits[u]);
    return fmt::format("{:.1f} {}", v, kUnits[u]);
}

} // namespace phc::sched
