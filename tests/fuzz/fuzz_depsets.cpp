// Fuzzes header sets (regen/depsets.h) from outside: any depfile text. The
// parser may refuse it, never crash; what it accepts becomes a set whose lines
// parse as ninja (phc-ninja's own parser, as ninja reads the sets file) and
// whose set reaches exactly the depfile's paths, each once, through its chunks;
// the set's name depends only on the paths, not on their order or repeats.
#include "depsets/depsets.h"
#include "fuzz_check.h"
#include "ninja/manifest.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

using namespace phc;
using phc::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    auto d = depsets::parse_depfile(text);
    if (!d || d->deps.empty()) return 0;
    check(!d->target.empty());
    const depsets::DepSet set = depsets::make_depset(d->deps);
    std::string lines;
    for (const auto& c : set.chunks)
        lines += c.line;
    lines += set.line;
    auto m = ninja::parse_manifest(lines, "deps.ninja");
    check(m.ok());
    // The set's phony reaches each chunk, each chunk its folder's paths.
    std::set<std::string> chunks, reached;
    for (size_t i = 0; i < m->edge_count(); ++i) {
        ninja::EdgeRef e = m->edge(i);
        check(e.is_phony());
        check(e.outputs().size() == 1);
        const std::string out(e.outputs()[0]);
        if (out == set.name) {
            for (auto in : e.inputs())
                chunks.insert(std::string(in));
            continue;
        }
        check(out.starts_with("phc_c_"));
        for (auto in : e.inputs())
            check(reached.insert(std::string(in)).second); // each path once
    }
    check(chunks.size() == set.chunks.size());
    for (const auto& c : set.chunks)
        check(chunks.count(c.name) == 1);
    // Exactly the depfile's paths (as ninja spells them: the set's own paths
    // are canonical, so the set of a set's paths is the same set).
    std::vector<std::string> paths(reached.begin(), reached.end());
    check(depsets::make_depset(paths).name == set.name);
    std::vector<std::string> twice = d->deps;
    twice.insert(twice.end(), d->deps.rbegin(), d->deps.rend());
    check(depsets::make_depset(twice).name == set.name);
    for (const std::string& dep : d->deps)
        check(dep.find_first_of(" :$|#\\\n") == std::string::npos);
    return 0;
}
