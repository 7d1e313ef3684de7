#include "launch/output.h"

#include <algorithm>

namespace phc::launch {

namespace {

/// True when `line` continues the block before it.
bool continues_block(std::string_view line, std::string_view previous) {
    if (line.empty() || line[0] == ' ' || line[0] == '\t') return true;
    if (line.find(": note: ") != std::string_view::npos) return true;
    return previous.starts_with("In file included from ") ||
           previous.find("included from ") != std::string_view::npos;
}

} // namespace

std::vector<std::string> split_blocks(std::string_view text) {
    std::vector<std::string> blocks;
    std::string_view previous;
    while (!text.empty()) {
        size_t nl = text.find('\n');
        size_t len = nl == std::string_view::npos ? text.size() : nl + 1;
        std::string_view line = text.substr(0, len);
        std::string_view bare = line.substr(0, nl == std::string_view::npos ? len : nl);
        if (blocks.empty() || !continues_block(bare, previous))
            blocks.emplace_back(line);
        else
            blocks.back() += line;
        previous = bare;
        text.remove_prefix(len);
    }
    return blocks;
}

std::string prefix_lines(std::string_view block, std::string_view label) {
    std::string out;
    while (!block.empty()) {
        size_t nl = block.find('\n');
        size_t len = nl == std::string_view::npos ? block.size() : nl + 1;
        out += '[';
        out += label;
        out += "] ";
        out += block.substr(0, len);
        block.remove_prefix(len);
    }
    if (!out.empty() && out.back() != '\n') out += '\n';
    return out;
}

std::string merge_outputs(const std::vector<LabeledOutput>& outputs, bool complete) {
    std::vector<std::vector<std::string>> blocks;
    for (const auto& o : outputs)
        blocks.push_back(split_blocks(o.text));
    std::vector<std::vector<bool>> used(blocks.size());
    for (size_t i = 0; i < blocks.size(); ++i)
        used[i].assign(blocks[i].size(), false);

    bool can_share = complete && outputs.size() > 1;
    std::string merged;
    for (size_t i = 0; i < blocks.size(); ++i) {
        for (size_t b = 0; b < blocks[i].size(); ++b) {
            if (used[i][b]) continue;
            used[i][b] = true;
            const std::string& block = blocks[i][b];
            // Find the same block, not yet matched, in every other output.
            std::vector<size_t> match(blocks.size(), 0);
            bool everywhere = can_share;
            for (size_t j = 0; everywhere && j < blocks.size(); ++j) {
                if (j == i) continue;
                auto it = std::find_if(blocks[j].begin(), blocks[j].end(), [&](const auto& x) {
                    return !used[j][static_cast<size_t>(&x - blocks[j].data())] && x == block;
                });
                if (it == blocks[j].end())
                    everywhere = false;
                else
                    match[j] = static_cast<size_t>(it - blocks[j].begin());
            }
            if (everywhere) {
                for (size_t j = 0; j < blocks.size(); ++j)
                    if (j != i) used[j][match[j]] = true;
                merged += block;
            } else {
                merged += prefix_lines(block, outputs[i].label);
            }
        }
    }
    return merged;
}

} // namespace phc::launch
