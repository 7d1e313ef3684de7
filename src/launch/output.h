// Merging the output of per-architecture compiles: a diagnostic that every
// architecture printed is shown once; one that only some printed is shown with
// the architecture named ("[gfx90a] ...").
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace phc::launch {

/// One architecture's captured stream.
struct LabeledOutput {
    std::string label; ///< e.g. "gfx90a"
    std::string text;  ///< what it printed on one stream
};

/// Splits compiler output into diagnostic blocks: a block starts at a line that
/// is not indented, is not a `note:` and does not follow an "In file included
/// from" line; it keeps the source line, caret and notes that follow. Each block
/// keeps its trailing newline(s).
std::vector<std::string> split_blocks(std::string_view text);

/// Merges the streams. Blocks of the first output come in their order: a block
/// present in every output is printed once, plain; others get "[label] " before
/// each of their lines. Then the blocks only the other outputs have, prefixed.
/// Blocks are compared with each output's own label masked, so "1 warning
/// generated when compiling for gfx906." matches the gfx90a one and is printed
/// once as "... for gfx906, gfx90a.". With a single output (or when `complete` is
/// false: not every architecture ran to the end) every block is prefixed, since
/// none is known to be common.
std::string merge_outputs(const std::vector<LabeledOutput>& outputs, bool complete = true);

/// Puts "[label] " before every line of `block`.
std::string prefix_lines(std::string_view block, std::string_view label);

} // namespace phc::launch
