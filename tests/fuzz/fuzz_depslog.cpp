// Fuzzes the deps-log reader (regen/depslog.h) from outside: any bytes as
// .ninja_deps, and any text as .phc-ninja/deps.ninja.records. The reader may
// refuse a log, never crash; a log it accepts, with records appended, reads
// back with every old path at its id, the new paths after them and a record
// for the new output. Records lines read back as they were written.
#include "fuzz_check.h"
#include "regen/depslog.h"

#include <cstddef>
#include <cstdint>
#include <string>

using namespace phc;
using phc::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    for (const auto& [output, r] : regen::parse_records(text)) {
        check(output == r.output && !output.empty());
        auto again = regen::parse_records(regen::records_line(r));
        check(again.size() == 1 && again.at(output) == r);
    }
    auto log = regen::parse_deps_log(text);
    if (!log) return 0;
    check(log->size == text.size());
    check(log->paths.size() == log->ids.size() && log->recorded.size() == log->paths.size());
    const auto before = log->paths;
    std::vector<std::string> deps{"phc_fuzz_dep"};
    if (!before.empty()) deps.push_back(before[0]);
    const std::string more = regen::deps_log_append(*log, {{"phc_fuzz_out", 42, deps}});
    auto back = regen::parse_deps_log(text + more);
    check(back.ok());
    for (size_t i = 0; i < before.size(); ++i)
        check(back->paths[i] == before[i]);
    check(back->has_record("phc_fuzz_out"));
    return 0;
}
