// Fuzzes the compilation-database reader (gen/compdb.h): it must never crash
// or hang; an error is one line (its message) naming the database; a database
// it accepts has absolute, distinct outputs and entries in order; and the
// ninja file gen writes for it (without splitting: no compiler runs here)
// either is an error or parses as ninja.
#include "fuzz_check.h"
#include "gen/compdb.h"
#include "gen/generate.h"
#include "ninja/manifest.h"

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

using namespace phc;
using phc::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    auto db = gen::parse_compdb(text, "db.json", "/w");
    if (!db) {
        check(db.error().where.starts_with("db.json"));
        check(db.error().message.find('\n') == std::string::npos);
        // No "error:" prefix of its own (the message may quote the input,
        // which may say anything).
        check(!db.error().message.starts_with("error:"));
        return 0;
    }
    std::set<std::string> outputs;
    for (size_t i = 0; i < db->entries.size(); ++i) {
        const gen::Entry& e = db->entries[i];
        check(e.index == i);
        check(!e.argv.empty());
        check(e.directory.starts_with('/') && e.file.starts_with('/') && e.output.starts_with('/'));
        check(outputs.insert(e.output).second);
    }
    gen::GenOptions o;
    o.ninja_path = "/w/phc.ninja";
    o.generated_from = "db.json";
    auto g = gen::generate(*db, o); // no private folder: nothing is split or probed
    if (!g) return 0;
    check(g->entries == db->entries.size());
    auto m =
        ninja::parse_manifest(g->text, "phc.ninja", [](const std::string&) -> Result<std::string> {
            return make_error("No such file or directory");
        });
    check(m.ok());
    return 0;
}
