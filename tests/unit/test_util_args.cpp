#include "util/args.h"

#include <doctest/doctest.h>
#include <string>
#include <vector>

using namespace phc::util;

namespace {

/// parse() on `words` (argv[0] added).
Parsed run(const CommandLine& cl, std::vector<std::string> words) {
    words.insert(words.begin(), "phc-ninja test");
    std::vector<char*> argv;
    for (std::string& w : words)
        argv.push_back(w.data());
    return parse(cl, static_cast<int>(argv.size()), argv.data());
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
