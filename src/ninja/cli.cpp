#include "ninja/cli.h"

#include "ninja/manifest.h"
#include "util/file.h"

#include <cstdio>
#include <string>
#include <string_view>

namespace phc::ninja {

namespace {

constexpr const char* kUsage =
    "usage: phc-ninja manifest commands [-f FILE]\n"
    "       phc-ninja manifest roundtrip [-f FILE] [-o OUT]\n"
    "\n"
    "  commands   print every non-phony edge's evaluated command, one per line\n"
    "             (what `ninja -t commands` prints for all targets)\n"
    "  roundtrip  parse FILE and write it back (to stdout, or atomically to OUT)\n"
    "\n"
    "  -f FILE    the manifest to read (default: build.ninja)\n"
    "  -o OUT     where roundtrip writes (default: stdout)\n";

struct Options {
    std::string command;
    std::string file = "build.ninja";
    std::string out;
};

/// Parses the arguments; returns an exit code when it should stop (0 for --help).
int parse_args(int argc, char** argv, Options& o) {
    for (int i = 1; i < argc; ++i) {
        std::string_view a = argv[i];
        if (a == "--help" || a == "-h") {
            std::fputs(kUsage, stdout);
            return 0;
        }
        if (a == "-f" || a == "-o") {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "%s: error: option '%s' needs an argument\n", argv[0],
                             argv[i]);
                return 2;
            }
            (a == "-f" ? o.file : o.out) = argv[++i];
        } else if (!a.empty() && a[0] == '-') {
            std::fprintf(stderr, "%s: error: unknown option '%s' (see --help)\n", argv[0], argv[i]);
            return 2;
        } else if (o.command.empty()) {
            o.command = a;
        } else {
            std::fprintf(stderr, "%s: error: unexpected argument '%s'\n", argv[0], argv[i]);
            return 2;
        }
    }
    if (o.command != "commands" && o.command != "roundtrip") {
        if (o.command.empty())
            std::fprintf(stderr, "%s: error: missing subcommand (commands or roundtrip)\n",
                         argv[0]);
        else
            std::fprintf(stderr, "%s: error: unknown subcommand '%s' (see --help)\n", argv[0],
                         o.command.c_str());
        return 2;
    }
    if (o.command == "commands" && !o.out.empty()) {
        std::fprintf(stderr, "%s: error: option '-o' only applies to roundtrip\n", argv[0]);
        return 2;
    }
    return -1;
}

void print_error(const Error& e) {
    std::fprintf(stderr, "%s\n", e.text().c_str());
}

bool write_stdout(const std::string& text) {
    return std::fwrite(text.data(), 1, text.size(), stdout) == text.size() &&
           std::fflush(stdout) == 0;
}

int run_commands(const Manifest& m) {
    std::string out;
    for (size_t i = 0; i < m.edge_count(); ++i) {
        EdgeRef e = m.edge(i);
        if (e.is_phony()) continue;
        auto command = e.evaluate("command");
        if (!command) {
            print_error(command.error());
            return 1;
        }
        out += *command;
        out += '\n';
    }
    return write_stdout(out) ? 0 : 1;
}

int run_roundtrip(const Manifest& m, const std::string& out) {
    std::string text = m.write_file(0);
    if (out.empty()) return write_stdout(text) ? 0 : 1;
    if (auto s = util::write_file_atomic(out, text); !s) {
        print_error(s.error());
        return 1;
    }
    return 0;
}

} // namespace

int cli_main(int argc, char** argv) {
    Options o;
    if (int rc = parse_args(argc, argv, o); rc >= 0) return rc;
    auto m = load_manifest(o.file);
    if (!m) {
        print_error(m.error());
        return 1;
    }
    return o.command == "commands" ? run_commands(*m) : run_roundtrip(*m, o.out);
}

} // namespace phc::ninja
