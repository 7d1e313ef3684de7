// Path spelling for the generated ninja file: every path is resolved against the
// entry's directory and then spelled relative to the ninja file's directory
// when it lies inside it, absolute otherwise. One rule, so one file is always
// spelled one way (ninja and depfiles compare spellings, not inodes).
#pragma once

#include <string>
#include <string_view>

namespace phc::gen {

/// `path` made absolute against `base` (when relative) and lexically normalised
/// ("a/./b/../c" -> "a/c", no trailing slash). `base` must be absolute.
std::string absolute_in(std::string_view base, std::string_view path);

/// The spelling of absolute `path` as seen from directory `dir`: relative when
/// `path` is inside `dir` (never with ".."), else `path` itself.
std::string spell_from(std::string_view dir, std::string_view path);

/// The directory part of absolute `path` ("/a/b/c.o" -> "/a/b", "/x" -> "/").
std::string dir_of(std::string_view path);

} // namespace phc::gen
