// Writing ninja text: escaping, rendering structured statements, and writing a
// loaded (possibly edited) manifest file back.
#pragma once

#include "ninja/eval_string.h"
#include "ninja/statements.h"
#include "util/error.h"

#include <string>
#include <string_view>

namespace phc::ninja {

/// Escapes a literal path for a build/default/include line: '$' -> "$$",
/// ' ' -> "$ ", ':' -> "$:". Characters ninja cannot express in a path
/// ('\n', '\r', '\0', '|') are left alone: check with path_error() first.
std::string escape_path(std::string_view path);

/// Appends escape_path(path) to `out`.
void append_escaped_path(std::string& out, std::string_view path);

/// True when escape_path(path) differs from `path`.
bool needs_path_escape(std::string_view path);

/// Escapes a literal value so it evaluates back to itself: '$' -> "$$" and
/// leading spaces -> "$ " (ninja drops unescaped leading blanks). '\n', '\r' and
/// '\0' cannot be expressed in a value: check with value_error() first.
std::string escape_value(std::string_view value);

/// Value text (for a binding, not a path) that parses back to `s`: literal
/// parts escaped as escape_value() does, variables written as ${name}.
std::string to_ninja_text(const EvalString& s);

/// Why `path` cannot be written as a literal path, or empty when it can.
std::string path_error(std::string_view path);

/// Why a literal `value` cannot be written, or empty when it can.
std::string value_error(std::string_view value);

/// The text of one statement in ninja's usual layout (two-space indented
/// bindings, one statement per line, ending in '\n'). Errors name the bad field.
Result<std::string> render(const NewStatement& statement);

/// Appends render(statement) to `out`; on an Error `out` is left as it was.
Status render_to(std::string& out, const NewStatement& statement);

} // namespace phc::ninja
