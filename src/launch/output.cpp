#include "launch/output.h"

#include <algorithm>
#include <cctype>

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

namespace {

/// `block` with each whole-word `label` replaced by '\x01', so that "1 warning
/// generated when compiling for gfx906." matches its gfx90a twin. The host's
/// label is replaced only there ("compiling for host"): "host" is a common word.
std::string without_label(const std::string& block, const std::string& label) {
    if (label.empty()) return block;
    const std::string word = label == kHostLabel ? "compiling for " + label : label;
    const size_t keep = word.size() - label.size(); // the part before the label stays
    std::string key;
    size_t pos = 0;
    while (true) {
        size_t hit = block.find(word, pos);
        if (hit == std::string::npos) break;
        size_t after = hit + word.size();
        bool word_end = after == block.size() ||
                        !(std::isalnum(static_cast<unsigned char>(block[after])) ||
                          block[after] == ':' || block[after] == '+' || block[after] == '-');
        key.append(block, pos, hit + keep - pos);
        key += word_end ? std::string("\x01") : label;
        pos = after;
    }
    key.append(block, pos);
    return key;
}

/// The labels of `outputs` at `which`, comma-separated.
std::string joined_labels(const std::vector<LabeledOutput>& outputs,
                          const std::vector<size_t>& which) {
    std::string labels;
    for (size_t i : which)
        labels += (labels.empty() ? "" : ", ") + outputs[i].label;
    return labels;
}

/// `key` with the placeholder replaced by `labels`.
std::string with_labels(const std::string& key, const std::string& labels) {
    std::string out;
    for (char c : key)
        if (c == '\x01')
            out += labels;
        else
            out += c;
    return out;
}

} // namespace

std::string merge_outputs(const std::vector<LabeledOutput>& outputs, bool complete) {
    std::vector<std::vector<std::string>> keys;
    for (const auto& o : outputs) {
        keys.emplace_back();
        for (auto& b : split_blocks(o.text))
            keys.back().push_back(without_label(b, o.label));
    }
    std::vector<std::vector<bool>> used(keys.size());
    for (size_t i = 0; i < keys.size(); ++i)
        used[i].assign(keys[i].size(), false);

    std::string merged;
    for (size_t i = 0; i < keys.size(); ++i) {
        for (size_t b = 0; b < keys[i].size(); ++b) {
            if (used[i][b]) continue;
            used[i][b] = true;
            const std::string& key = keys[i][b];
            // The same block, not yet matched, in each later output (every
            // block of an earlier one is matched already).
            std::vector<size_t> from{i};
            for (size_t j = i + 1; j < keys.size(); ++j)
                for (size_t k = 0; k < keys[j].size(); ++k)
                    if (!used[j][k] && keys[j][k] == key) {
                        used[j][k] = true;
                        from.push_back(j);
                        break;
                    }
            const std::string labels = joined_labels(outputs, from);
            // The host compile's own are plain, as the driver prints them.
            const bool host_only = from.size() == 1 && outputs[i].label == kHostLabel;
            if (host_only || (complete && outputs.size() > 1 && from.size() == outputs.size()))
                merged += with_labels(key, labels);
            else
                merged += prefix_lines(with_labels(key, labels), labels);
        }
    }
    return merged;
}

} // namespace phc::launch
