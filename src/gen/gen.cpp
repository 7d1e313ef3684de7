#include "gen/gen.h"

#include "gen/compdb.h"
#include "gen/generate.h"
#include "gen/paths.h"
#include "util/file.h"

#include <filesystem>
#include <fmt/format.h>

namespace phc::gen {

namespace {

/// The database file: `path` itself, or DIR/compile_commands.json.
std::string database_file(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) return path + "/compile_commands.json";
    return path;
}

} // namespace

Result<GenReport> run_gen(const GenRequest& request) {
    auto db = read_compdb(database_file(request.database));
    if (!db) return db.error();
    std::string cwd = std::filesystem::current_path().string();
    GenOptions options;
    options.ninja_path = absolute_in(cwd, request.ninja_file);
    options.device_jobs = request.device_jobs;
    options.private_dir = dir_of(options.ninja_path) + "/.phc-ninja";
    options.generated_from = db->path;
    auto g = generate(*db, options);
    if (!g) return g.error();
    GenReport report{request.ninja_file, g->entries, g->split, g->plain, g->edges, false, g->notes};
    auto old = util::read_file(options.ninja_path);
    if (old && *old == g->text) return report;
    if (auto st = util::write_file_atomic(options.ninja_path, g->text); !st) return st.error();
    report.changed = true;
    return report;
}

std::string summary_line(const GenReport& r) {
    return fmt::format("phc-ninja gen: {}: {} entries ({} split, {} plain), {} edges{}",
                       r.ninja_file, r.entries, r.split, r.plain, r.edges,
                       r.changed ? "" : " (unchanged)");
}

} // namespace phc::gen
