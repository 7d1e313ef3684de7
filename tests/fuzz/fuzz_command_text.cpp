// Fuzzes the parsers of command text from outside: shell splitting, quoting,
// response files and the driver's `-###` job lines. None may crash or hang;
// words joined by join_command() must split back to themselves, and the words
// of a response file quoted for one must read back the same.
#include "compile/analysis.h"
#include "compile/rspfile.h"
#include "compile/shell.h"
#include "fuzz_check.h"
#include "probe/probe.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

using namespace phc;
using phc::fuzz::check;
using namespace phc::compile;
using namespace phc::probe;

namespace {

/// The words of `text`, cut at NUL bytes (a word cannot hold one).
std::vector<std::string> words_of(std::string_view text) {
    std::vector<std::string> out(1);
    for (char c : text) {
        if (c == '\0')
            out.emplace_back();
        else
            out.back() += c;
    }
    return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    // Shell: a command string is split, recognised and analysed without crashing.
    ShellSplit s = split_shell(text);
    (void)analyze_string(text, {});
    (void)analyze_link_string(text, {});
    // Quoting round trip: any words survive join -> split.
    std::vector<std::string> words = words_of(text);
    ShellSplit back = split_shell(join_command(words));
    check(back.unsupported.empty());
    check(back.tokens.size() == words.size());
    for (size_t k = 0; k < words.size() && k < back.tokens.size(); ++k)
        check(back.tokens[k].text == words[k]);
    // Response files: the words quoted as the steps write them read back the same.
    std::vector<std::string> rsp = split_rsp(join_command(words));
    check(rsp == words);
    (void)split_rsp(text);
    // The driver's job lines.
    (void)parse_jobs(text);
    (void)bundle_entry_arch(text);
    (void)s;
    return 0;
}
