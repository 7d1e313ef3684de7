// The one command-line parser of every subcommand: options (a switch, or one
// taking a value as "-o VALUE", "--name VALUE" or "--name=VALUE"), "--" ending
// them, positional words, the usage text laid out the same way everywhere, and
// the same error text for unknown options and missing values.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace phc::util {

/// One option of a subcommand.
struct Option {
    std::vector<std::string_view> names; ///< e.g. {"-n", "--dry-run"}; the first is shown first
    std::string_view value;              ///< what it takes, e.g. "DIR"; "" for a switch
    std::string_view help;               ///< its description; '\n' starts another line
    /// Takes the value ("" for a switch); returns "" or what is wrong with it.
    std::function<std::string(const std::string&)> take;
};

/// A switch that sets `flag`.
Option flag_option(std::vector<std::string_view> names, std::string_view help, bool& flag);

/// An option whose value is stored in `into` as it is.
Option text_option(std::vector<std::string_view> names, std::string_view value,
                   std::string_view help, std::string& into);

/// An option whose value must be a positive number, stored in `into`.
Option positive_option(std::vector<std::string_view> names, std::string_view value,
                       std::string_view help, int& into);

/// A subcommand's command line.
struct CommandLine {
    std::string_view name;     ///< as in messages: "phc-ninja regen"
    std::string_view synopsis; ///< the usage line(s) after the name ('\n' + name for more)
    std::string_view about;    ///< what it does, printed after the usage lines
    std::vector<Option> options;
    std::string_view notes; ///< printed after the options
    /// Positional words: none (an error), or every non-option word; with
    /// `stop_at_word`, the first one ends the options (a command line follows).
    bool positional = false;
    bool stop_at_word = false;
};

/// What parse() found.
struct Parsed {
    bool help = false;                   ///< -h or --help (nothing else was checked after it)
    std::vector<std::string> positional; ///< the words that are no options, in order
    std::string error;                   ///< "" when parsing succeeded
};

/// Parses argv[1..argc).
Parsed parse(const CommandLine& cl, int argc, char** argv);

/// Every subcommand's start: parse() into `parsed`, then for -h or --help the
/// usage on stdout (returns 0), for a usage error its message (usage_error,
/// returns 2). nullopt: neither, the command goes on with `parsed`.
std::optional<int> parse_or_usage(const CommandLine& cl, int argc, char** argv, Parsed& parsed);

/// The usage text: "usage: NAME SYNOPSIS", the about text, and the options in
/// two columns ("  -C DIR  the build directory").
std::string usage(const CommandLine& cl);

/// Prints "NAME: error: MSG (see --help)" on stderr and returns 2, the status
/// of a usage error.
int usage_error(const CommandLine& cl, std::string_view msg);

} // namespace phc::util
