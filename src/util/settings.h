// Settings as data: every environment variable phc-ninja reads, in one table
// (name, default, what it does, which commands read it), as ccache's
// k_env_variable_table. Code reads a variable only through get(); `phc-ninja
// --help` lists the table and `phc-ninja version --verbose` prints each value
// with its origin.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace phc::util {

/// One environment variable.
struct Setting {
    std::string_view name;     ///< "PHC_OVERLAP_HOST"
    std::string_view fallback; ///< the value when it is not set, in words ("0", "none", ...)
    std::string_view help;     ///< what it does, one line
    std::string_view readers;  ///< the commands that read it: "phc-launch", "regen", ...
};

/// Every variable, sorted by name.
std::span<const Setting> settings();

/// The value of variable `name` (which must be in the table), or nullopt when
/// it is not set. Unset and set-but-empty differ.
std::optional<std::string> get(std::string_view name);

/// The table as --help prints it: one line a variable.
/// With `reader` ("regen", "phc-launch", ...), only the variables that
/// command reads (the first word of each of their readers).
std::string settings_help(std::string_view reader = {});

/// Each variable's value and where it came from ("environment" or "default").
std::string settings_report();

} // namespace phc::util
