#include "util/args.h"

#include <doctest/doctest.h>
#include <optional>
#include <string>
#include <vector>

using namespace phc::util;

namespace {

/// `f(argc, argv)` on `words` (argv[0] added).
template <class F> auto with_argv(std::vector<std::string> words, F f) {
    words.insert(words.begin(), "phc-ninja test");
    std::vector<char*> argv;
    for (std::string& w : words)
        argv.push_back(w.data());
    return f(static_cast<int>(argv.size()), argv.data());
}

/// parse() on `words` (argv[0] added).
Parsed run(const CommandLine& cl, std::vector<std::string> words) {
    return with_argv(std::move(words),
                     [&](int argc, char** argv) { return parse(cl, argc, argv); });
}

} // namespace

TEST_CASE("args: values in every spelling, switches, positional words, --") {
    std::string dir, out;
    bool dry = false;
    int jobs = 0;
    CommandLine cl{"phc-ninja test", "[options] [FILE...]", "About.", {}, {}};
    cl.positional = true;
    cl.options = {text_option({"-C"}, "DIR", "the directory", dir),
                  text_option({"-o", "--output"}, "OUT", "where\nit goes", out),
                  flag_option({"-n", "--dry-run"}, "nothing", dry),
                  positive_option({"--jobs"}, "N", "how many", jobs)};
    Parsed p = run(cl, {"-C", "d", "a", "--output=x", "-n", "--jobs", "3", "--", "-b"});
    CHECK(p.error.empty());
    CHECK(dir == "d");
    CHECK(out == "x");
    CHECK(dry);
    CHECK(jobs == 3);
    CHECK(p.positional == std::vector<std::string>{"a", "-b"});

    CHECK(run(cl, {"--bogus"}).error == "unknown option '--bogus'");
    CHECK(run(cl, {"-C"}).error == "option '-C' needs a value (DIR)");
    CHECK(run(cl, {"--dry-run=1"}).error == "option '--dry-run' takes no value");
    CHECK(run(cl, {"--jobs=0"}).error == "--jobs: '0' is not a positive number");
    CHECK(run(cl, {"--jobs", "2x"}).error == "--jobs: '2x' is not a positive number");
    CHECK(run(cl, {"a", "-h", "--bogus"}).help); // help wins, nothing after it is checked

    cl.positional = false;
    CHECK(run(cl, {"a"}).error == "unexpected argument 'a'");
    cl.positional = true;
    cl.stop_at_word = true; // a command line follows the options
    p = run(cl, {"-n", "clang++", "-C", "x"});
    CHECK(p.error.empty());
    CHECK(p.positional == std::vector<std::string>{"clang++", "-C", "x"});

    CHECK(usage(cl) == "usage: phc-ninja test [options] [FILE...]\n"
                       "\n"
                       "About.\n"
                       "\n"
                       "options:\n"
                       "  -C DIR            the directory\n"
                       "  -o, --output OUT  where\n"
                       "                    it goes\n"
                       "  -n, --dry-run     nothing\n"
                       "  --jobs N          how many\n");
}

TEST_CASE("args: parse_or_usage ends the command on --help (0) and on a usage error (2)") {
    bool dry = false;
    CommandLine cl{"phc-ninja test", "[options]", "About.", {}, {}};
    cl.options = {flag_option({"-n"}, "nothing", dry)};
    auto start = [&](std::vector<std::string> words, Parsed& p) {
        return with_argv(std::move(words),
                         [&](int argc, char** argv) { return parse_or_usage(cl, argc, argv, p); });
    };
    Parsed p;
    CHECK(start({"-n"}, p) == std::nullopt);
    CHECK(dry);
    CHECK(start({"--bogus"}, p) == 2); // "phc-ninja test: error: unknown option ..." on stderr
    CHECK(p.error == "unknown option '--bogus'");
    CHECK(start({"-h"}, p) == 0); // the usage on stdout
    CHECK(p.help);
}
