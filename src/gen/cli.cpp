#include "gen/cli.h"

#include "gen/gen.h"
#include "split/explain.h"
#include "util/file.h"

#include <charconv>
#include <cstdio>
#include <fmt/format.h>
#include <string>
#include <string_view>

namespace phc::gen {

namespace {

constexpr const char* kUsage =
    "usage: phc-ninja gen [-p compile_commands.json | DIR] [-o phc.ninja] [--device-jobs N]\n"
    "                     [--only REGEX] [--skip REGEX] [--explain]\n"
    "\n"
    "Writes a ninja file that builds the objects of a compilation database at the\n"
    "paths the original build expects. Multi-architecture HIP compiles become one\n"
    "device compile edge per architecture, a bundle edge and a host edge.\n"
    "\n"
    "  -p PATH            the database, or a directory holding compile_commands.json\n"
    "                     (default: ./compile_commands.json)\n"
    "  -o FILE            the ninja file to write (default: phc.ninja); '-' writes it\n"
    "                     to stdout (the summary then goes to stderr), a device or\n"
    "                     fifo is written through. An existing FILE is replaced only\n"
    "                     when gen wrote it (or it is empty); the database, an\n"
    "                     entry's source or object are refused.\n"
    "  --device-jobs N    run at most N device compiles at once (a ninja pool)\n"
    "  --only REGEX       split only entries whose object path (as the ninja file\n"
    "                     spells it) REGEX matches (RE2 syntax, anywhere in the path)\n"
    "  --skip REGEX       do not split entries whose object path REGEX matches; both\n"
    "                     keep the others as one edge (reason not-selected, --explain)\n"
    "  --explain          list every entry with its decision and reason\n"
    "\n"
    "Entries may use \"command\" or \"arguments\"; relative paths resolve against the\n"
    "entry's \"directory\", a relative \"directory\" against the database's. Errors\n"
    "name entries by their 0-based index. Nothing is written on error, and an\n"
    "unchanged file is not rewritten.\n"
    "\n"
    "gen's folder .phc-ninja/ (ninja's builddir, device objects, probe cache) goes\n"
    "next to FILE, or in the current directory when FILE is '-', a device or a fifo\n"
    "(paths are then spelled from the current directory).\n"
    "\n"
    "Then: ninja -f FILE, from FILE's directory (best: the entries' directory).\n";

/// Prints "phc-ninja gen: error: MSG" and returns the usage-error status.
int usage_error(const std::string& msg) {
    std::fprintf(stderr, "phc-ninja gen: error: %s\n", msg.c_str());
    return 2;
}

/// Parses the arguments into `req`; an empty string on success, else the error.
std::string parse_args(int argc, char** argv, GenRequest& req, bool& help, bool& explain) {
    bool have_db = false;
    std::string only, skip;
    for (int i = 1; i < argc; ++i) {
        std::string_view a = argv[i];
        auto value = [&](std::string& into) -> std::string {
            if (i + 1 >= argc) return "'" + std::string(a) + "' needs an argument";
            into = argv[++i];
            return {};
        };
        if (a == "-h" || a == "--help") {
            help = true;
        } else if (a == "--explain") {
            explain = true;
        } else if (a == "-p") {
            if (auto err = value(req.database); !err.empty()) return err;
            have_db = true;
        } else if (a == "-o") {
            if (auto err = value(req.ninja_file); !err.empty()) return err;
        } else if (a == "--only") {
            if (auto err = value(only); !err.empty()) return err;
        } else if (a == "--skip") {
            if (auto err = value(skip); !err.empty()) return err;
        } else if (a == "--device-jobs" || a.rfind("--device-jobs=", 0) == 0) {
            std::string n;
            if (a == "--device-jobs") {
                if (auto err = value(n); !err.empty()) return err;
            } else {
                n = a.substr(a.find('=') + 1);
            }
            auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(), req.device_jobs);
            if (ec != std::errc() || end != n.data() + n.size() || req.device_jobs < 1)
                return "--device-jobs: '" + n + "' is not a positive number";
        } else if (!a.empty() && a[0] == '-') {
            return "unknown option '" + std::string(a) + "' (see --help)";
        } else if (!have_db) {
            req.database = a;
            have_db = true;
        } else {
            return "unexpected argument '" + std::string(a) + "' (see --help)";
        }
    }
    auto select = split::Selection::make(only, skip);
    if (!select) return select.error().message;
    req.select = std::move(*select);
    return {};
}

} // namespace

int cli_main(int argc, char** argv) {
    GenRequest req;
    bool help = false, explain = false;
    if (auto err = parse_args(argc, argv, req, help, explain); !err.empty())
        return usage_error(err);
    if (help) {
        std::fputs(kUsage, stdout);
        return 0;
    }
    // The summary goes to stderr when the ninja file goes to stdout (decided
    // before the run: a replaced file is another inode afterwards).
    std::FILE* summary = util::is_stdout(req.ninja_file) ? stderr : stdout;
    auto report = run_gen(req);
    if (!report) {
        std::fprintf(stderr, "%s\n", report.error().text().c_str());
        return 1;
    }
    for (const auto& note : report->notes)
        std::fprintf(stderr, "phc-ninja gen: note: %s\n", note.c_str());
    if (explain) split::print_decisions(summary, report->decisions);
    std::fprintf(summary, "%s\n", summary_line(*report).c_str());
    return 0;
}

} // namespace phc::gen
