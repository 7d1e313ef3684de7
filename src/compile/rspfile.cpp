#include "compile/rspfile.h"

#include "util/file.h"

namespace phc::compile {

std::vector<std::string> split_rsp(const std::string& text) {
    std::vector<std::string> out;
    std::string cur;
    bool in_word = false;
    char quote = 0;
    for (size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (quote) {
            if (c == quote) {
                quote = 0;
            } else if (c == '\\' && quote == '"' && i + 1 < text.size()) {
                cur += text[++i];
            } else {
                cur += c;
            }
        } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            if (in_word) out.push_back(std::move(cur));
            cur.clear();
            in_word = false;
        } else if (c == '\'' || c == '"') {
            quote = c;
            in_word = true;
        } else if (c == '\\' && i + 1 < text.size()) {
            cur += text[++i];
            in_word = true;
        } else {
            cur += c;
            in_word = true;
        }
    }
    if (in_word) out.push_back(std::move(cur));
    return out;
}

namespace {

/// A response file larger than this is no command line (clang's own are a few
/// MB at most): it is not read, and neither is anything but a regular file (a
/// fifo would block, a /dev/zero-like node never ends).
constexpr size_t kMaxRspBytes = 64 << 20;

void expand_into(const std::vector<std::string>& words, size_t first, bool from_rsp, int depth,
                 const RspSource& src, Expanded& out) {
    for (size_t i = first; i < words.size(); ++i) {
        const std::string& w = words[i];
        if (w.size() < 2 || w[0] != '@') {
            out.argv.push_back(w);
            out.from_rsp.push_back(from_rsp);
            continue;
        }
        if (depth > 0) out.nested = true;
        if (depth >= 16) {
            out.unreadable = "response files nest too deeply at '" + w + "'";
            return;
        }
        std::string name = w.substr(1);
        std::string text;
        if (!src.rspfile.empty() && name == src.rspfile) {
            text = src.rspfile_content;
        } else {
            auto r = util::read_regular_file(util::join_path(src.base_dir, name), kMaxRspBytes);
            if (!r) {
                out.unreadable = r.error().text();
                return;
            }
            text = std::move(*r);
        }
        expand_into(split_rsp(text), 0, true, depth + 1, src, out);
        if (!out.unreadable.empty()) return;
    }
}

} // namespace

Expanded expand_rsp(const std::vector<std::string>& argv, const RspSource& src) {
    Expanded out;
    if (!argv.empty()) {
        out.argv.push_back(argv[0]);
        out.from_rsp.push_back(false);
    }
    expand_into(argv, 1, false, 0, src, out);
    return out;
}

} // namespace phc::compile
