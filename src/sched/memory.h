// How much memory the steps of a build may use at once: sizes as users write
// them ("8G", "512M", "75%"), and the memory this process may use (its
// cgroup's limit, else the machine's).
#pragma once

#include "util/error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace phc::sched {

/// Parses a size: a number of bytes with an optional binary suffix (K, M, G,
/// T; "KiB", "MB", ... are the same), or "N%" of `total`. Fractions are
/// allowed ("1.5G"). An error when it is none of these or zero.
Result<uint64_t> parse_memory(std::string_view text, uint64_t total);

/// The memory this process may use: its cgroup's limit (v2 memory.max, v1
/// memory.limit_in_bytes) when one is set below the machine's, else MemTotal
/// of /proc/meminfo; 0 when unknown. `root` prefixes /proc and /sys (tests).
uint64_t available_memory(const std::string& root = "");

/// The budget of a step: `spec` (--memory or PHC_MEMORY; a percent is of
/// available_memory()) when given, else available_memory() less 10%.
/// `name` names the spec's origin in errors.
Result<uint64_t> memory_budget(const std::optional<std::string>& spec, std::string_view name,
                               const std::string& root = "");

/// The file of a records folder that holds the budget regen or gen was given
/// (--memory): read when a step starts, so that it is no part of any command.
inline constexpr std::string_view kMemoryFile = "memory";

/// A step's budget spec and where it came from: the step's own `--memory`
/// (`own`), else PHC_MEMORY, else what regen or gen kept in
/// RECORDS_DIR/memory; none (the default) with the origin "PHC_MEMORY".
std::pair<std::optional<std::string>, std::string>
budget_spec(const std::optional<std::string>& own, const std::string& records_dir);

/// Ok when `spec` (--memory of regen or gen) is none or a size parse_memory
/// takes; else an error "--memory: ..." saying why.
Status check_memory_spec(const std::optional<std::string>& spec);

/// Leaves `spec` (checked: check_memory_spec) in DIR/memory for the build's steps,
/// or removes that file when `spec` is none. An error naming the file.
Status keep_memory_spec(const std::string& dir, const std::optional<std::string>& spec);

/// For --explain: how the steps' budget is chosen when regen or gen was
/// given `spec` (--memory; nullopt: none), one line.
std::string explain_budget(const std::optional<std::string>& spec);

/// "1.5 GiB", "64 MiB", "900 KiB", "12 B": a size for people.
std::string format_size(uint64_t bytes);

} // namespace phc::sched
