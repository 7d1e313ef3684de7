// The compiler options phc-ninja must understand, as data: a table sorted by
// name (the idea of ccache's compopt.cpp), looked up through an index by the
// name's first distinguishing byte (one short scan per word, not a search per prefix).
// Options not in the table pass through untouched, in their spelling and order.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace phc::compile {

/// Properties of an option.
enum OptionFlag : unsigned {
    kSeparate = 1u << 0, ///< its value may be the next argument (`-I dir`)
    kJoined = 1u << 1,   ///< its value may be glued on (`-Idir`, `--x=val` for names ending in '=')
    kJoinedAndSep = 1u << 2, ///< a glued suffix and the next argument (`-Xarch_gfx906 -O3`)
    kPath = 1u << 3,         ///< its value is a path, relative to the working directory
    kAffectsSplit = 1u << 4, ///< the split analysis or the plan reads or edits it
    kNotDriver = 1u << 5,    ///< cannot change the driver's jobs: left out of the probe key
    kDependency = 1u << 6,   ///< controls the dependency file (-MD family)
};

/// One row of the option table.
struct OptionInfo {
    std::string_view name; ///< spelling, including a trailing '=' for `--name=value` options
    unsigned flags;
};

/// The whole table, sorted by name (checked by a unit test).
std::span<const OptionInfo> option_table();

/// The row whose name is exactly `name`, or nullptr.
const OptionInfo* find_option(std::string_view name);

/// One command-line argument (or two, for `-o out`), classified.
struct ParsedArg {
    size_t index = 0;              ///< position of its first word in the argv it came from
    size_t count = 1;              ///< words it spans (2 for a separate value)
    const OptionInfo* option = {}; ///< nullptr for inputs and unknown options
    std::string value;  ///< the option's value (-Xarch_: the suffix), or the input's path
    bool input = false; ///< a non-option word: a source or object file

    /// True for the option named `n`.
    bool is(std::string_view n) const { return option && option->name == n; }
};

/// Classifies argv[first..]: each word becomes a known option (with its value),
/// an input file, or an unknown option kept as is. "--" makes the rest inputs.
std::vector<ParsedArg> parse_args(const std::vector<std::string>& argv, size_t first = 1);

} // namespace phc::compile
