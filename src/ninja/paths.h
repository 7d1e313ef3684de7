// Path canonicalisation and shell quoting exactly as ninja 1.11 does them for
// node paths and for $in / $out.
#pragma once

#include <string>
#include <string_view>

namespace phc::ninja {

/// True when canonicalize_path() could change `path` (has "." / ".." components,
/// "//", or a trailing '/'). Lets the parser keep most paths as zero-copy views.
bool needs_canonicalization(std::string_view path);

/// ninja's CanonicalizePath: drops "." components and duplicate slashes, folds
/// "x/.." where possible; a relative path that folds away entirely becomes ".",
/// an absolute one "" ("/" too: ninja 1.11 spells it so, 1.12 keeps "/"). The
/// one spelling of a node path in phc-ninja: the parser's, the header sets'.
std::string canonicalize_path(std::string_view path);

/// Appends `s` to `out` quoted for a POSIX shell when it holds anything outside
/// [A-Za-z0-9_+-./] (ninja's GetShellEscapedString: '...' with ' as '\'').
void append_shell_escaped(std::string& out, std::string_view s);

} // namespace phc::ninja
