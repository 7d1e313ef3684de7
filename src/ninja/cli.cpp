#include "ninja/cli.h"

#include "ninja/manifest.h"
#include "util/args.h"
#include "util/file.h"

#include <cstdio>
#include <string>
#include <string_view>

namespace phc::ninja {

namespace {

constexpr const char* kAbout =
    "  commands   print every non-phony edge's evaluated command, one per line\n"
    "             (what `ninja -t commands` prints for all targets)\n"
    "  roundtrip  parse FILE and write it back (to stdout, or atomically to OUT)";

struct Options {
    std::string file = "build.ninja";
    std::string out;
};

util::CommandLine command_line(Options& o) {
    util::CommandLine cl{"phc-ninja manifest",
                         "commands [-f FILE]\n       phc-ninja manifest roundtrip [-f FILE] "
                         "[-o OUT]",
                         kAbout,
                         {},
                         {}};
    cl.positional = true;
    cl.options = {
        util::text_option({"-f"}, "FILE", "the manifest to read (default: build.ninja)", o.file),
        util::text_option({"-o"}, "OUT", "where roundtrip writes (default: stdout)", o.out),
    };
    return cl;
}

/// Writes `text` to stdout; an error names it "-".
Status write_stdout(const std::string& text) {
    if (std::fwrite(text.data(), 1, text.size(), stdout) == text.size() && std::fflush(stdout) == 0)
        return Ok{};
    return error_at("-", "cannot write to stdout");
}

Status run_commands(const Manifest& m) {
    std::string out;
    for (size_t i = 0; i < m.edge_count(); ++i) {
        EdgeRef e = m.edge(i);
        if (e.is_phony()) continue;
        auto command = e.evaluate("command");
        if (!command) return command.error();
        out += *command;
        out += '\n';
    }
    return write_stdout(out);
}

Status run_roundtrip(const Manifest& m, const std::string& out) {
    std::string text = m.write_file(0);
    if (out.empty()) return write_stdout(text);
    return util::write_file_atomic(out, text);
}

} // namespace

int cli_main(int argc, char** argv) {
    Options o;
    const util::CommandLine cl = command_line(o);
    util::Parsed parsed;
    if (auto status = util::parse_or_usage(cl, argc, argv, parsed)) return *status;
    const std::string command = parsed.positional.empty() ? "" : parsed.positional[0];
    auto check = [&]() -> std::string {
        if (command.empty()) return "missing subcommand (commands or roundtrip)";
        if (command != "commands" && command != "roundtrip")
            return "unknown subcommand '" + command + "'";
        if (parsed.positional.size() > 1)
            return "unexpected argument '" + parsed.positional[1] + "'";
        if (command == "commands" && !o.out.empty()) return "option '-o' only applies to roundtrip";
        return {};
    };
    const std::string error = check();
    if (!error.empty()) return util::usage_error(cl, error);
    auto m = load_manifest(o.file);
    if (!m) return print_error(cl.name, m.error());
    Status done = command == "commands" ? run_commands(*m) : run_roundtrip(*m, o.out);
    return done ? 0 : print_error(cl.name, done.error());
}

} // namespace phc::ninja
