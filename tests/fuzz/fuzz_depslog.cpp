// Fuzzes the deps-log reader (ninja/deps_log.h, regen/records.h) from outside: any bytes as
// .ninja_deps, and any text as .phc-ninja/deps.ninja.records. The reader may
// refuse a log, never crash; a log it accepts, with records appended, reads
// back with every old path at its id, the new paths after them and a record
// for the new output. Records lines read back as they were written. What
// regen would put back of them (restorable(), against the outputs the lines
// name as the manifest's) is what a build could have recorded: no
// dependency an edge writes (no cycle), and a log ninja reads back whole.
#include "depsets/records.h"
#include "fuzz_check.h"
#include "ninja/deps_log.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

using namespace phc;
using phc::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    const auto records = depsets::parse_records(text);
    std::vector<std::string> written;
    for (const auto& [output, r] : records) {
        check(output == r.output && !output.empty());
        auto again = depsets::parse_records(depsets::records_line(r));
        check(again.size() == 1 && again.at(output) == r);
        written.push_back(output);
    }
    std::sort(written.begin(), written.end());
    std::vector<depsets::DepsRecord> restored;
    for (const auto& [output, r] : records) {
        if (!depsets::restorable(r, written)) continue;
        for (const std::string& d : r.deps) // no edge writes a dependency: no cycle
            check(!std::binary_search(written.begin(), written.end(), d) && d != output);
        check(4 * (3 + r.deps.size()) <= (1u << 19) - 1);
        restored.push_back(r);
    }
    if (!restored.empty()) {
        auto empty = ninja::parse_deps_log(std::string("# ninjadeps\n\x04\0\0\0", 16));
        check(empty.ok());
        const std::string log =
            std::string("# ninjadeps\n\x04\0\0\0", 16) + ninja::deps_log_append(*empty, restored);
        auto read = ninja::parse_deps_log(log); // checks ninja's limits and ids as ninja does
        check(read.ok());
        for (const auto& r : restored)
            check(read->has_record(r.output));
    }
    auto log = ninja::parse_deps_log(text);
    if (!log) return 0;
    check(log->size == text.size());
    check(log->paths.size() == log->ids.size() && log->recorded.size() == log->paths.size());
    const auto before = log->paths;
    std::vector<std::string> deps{"phc_fuzz_dep"};
    if (!before.empty()) deps.push_back(before[0]);
    const std::string more = ninja::deps_log_append(*log, {{"phc_fuzz_out", 42, deps}});
    auto back = ninja::parse_deps_log(text + more);
    check(back.ok());
    for (size_t i = 0; i < before.size(); ++i)
        check(back->paths[i] == before[i]);
    check(back->has_record("phc_fuzz_out"));
    return 0;
}
