// Merging the output of per-architecture compiles and the host compile: each
// distinct diagnostic is shown once, plain when every compile printed it, else
// with the ones that did named ("[gfx906, gfx90a] ...").
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

/// The label of the host compile's output ("1 warning generated when
/// compiling for host."), which is merged with the device compiles' too.
inline constexpr std::string_view kHostLabel = "host";

/// Merges the streams: each distinct block once, in the order the outputs
/// printed them (the first output's blocks, then those only later ones have).
/// A block every output printed, or only the host compile, is shown plain;
/// one only some printed gets "[label, label] " (those outputs' labels)
/// before each of its lines; blocks
/// are matched one for one (a block printed twice by one output and once by
/// the others is shown plain, then once more with that output's label).
/// Blocks are compared with each output's own label masked (the host's only
/// in "compiling for host"), so "1 warning generated when compiling for
/// gfx906." matches the gfx90a one and is printed once as "... for gfx906,
/// gfx90a.". With a single output (or when `complete` is false: not every
/// architecture ran to the end) every block is prefixed, since none is known
/// to be common.
std::string merge_outputs(const std::vector<LabeledOutput>& outputs, bool complete = true);

/// Puts "[label] " before every line of `block`.
std::string prefix_lines(std::string_view block, std::string_view label);

} // namespace phc::launch
