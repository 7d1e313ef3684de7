// Writing ninja syntax: escaping and statement text. A thin local layer so the
// generator reads as a list of statements; the escaping rules are ninja's
// (https://ninja-build.org/manual.html#ref_lexer).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace phc::gen {

/// A path in a build line: '$', ' ', ':' and newlines escaped with '$'.
std::string ninja_path(std::string_view path);

/// A variable value: '$' doubled, newlines escaped ("$\n" continues a line).
std::string ninja_value(std::string_view value);

/// One `build` statement with its edge-scoped variables.
struct BuildStatement {
    std::vector<std::string> outputs;  ///< explicit outputs (already spelled, unescaped)
    std::string rule;                  ///< rule name
    std::vector<std::string> inputs;   ///< explicit inputs
    std::vector<std::string> implicit; ///< implicit inputs (after '|')
    std::vector<std::pair<std::string, std::string>> vars; ///< name, unescaped value
};

/// The text of `b`, ending in a newline.
std::string render_build(const BuildStatement& b);

} // namespace phc::gen
