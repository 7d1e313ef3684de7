// Path spelling, depfile detection and the ninja text gen writes for entries
// it does not split.
#include "fake_probe.h"
#include "gen/compdb.h"
#include "gen/depfile.h"
#include "gen/gen.h"
#include "gen/generate.h"
#include "gen/paths.h"
#include "ninja/manifest.h"
#include "scratch.h"

#include <doctest/doctest.h>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

using namespace phc::gen;
using Args = std::vector<std::string>;

TEST_CASE("gen paths: absolute_in normalises and resolves relative paths") {
    CHECK(absolute_in("/w", "a/./b/../c.o") == "/w/a/c.o");
    CHECK(absolute_in("/w/x", "../y/") == "/w/y");
    CHECK(absolute_in("/w", "/abs/p.o") == "/abs/p.o");
    CHECK(absolute_in("/", "a") == "/a");
    CHECK(absolute_in("/w/x", "") == "/w/x");
    CHECK(absolute_in("/w/x/", ".") == "/w/x");
}

TEST_CASE("gen paths: spell_from is relative inside the directory, absolute outside") {
    CHECK(spell_from("/w", "/w/obj/a.o") == "obj/a.o");
    CHECK(spell_from("/w", "/wx/a.o") == "/wx/a.o");
    CHECK(spell_from("/w", "/other/a.o") == "/other/a.o");
    CHECK(spell_from("/w", "/w") == "/w");
    CHECK(spell_from("/", "/a/b") == "a/b");
    CHECK(dir_of("/w/phc.ninja") == "/w");
    CHECK(dir_of("/phc.ninja") == "/");
}

TEST_CASE("gen depfile: the target a depfile names first") {
    CHECK(depfile_target({"cc", "-MD", "-c", "a.c", "-o", "o/a.o"}, "o/a.o") == "o/a.o");
    CHECK(depfile_target({"cc", "-MD", "-MT", "t1", "-MT", "t2", "-c", "a.c"}, "a.o") == "t1");
    CHECK(depfile_target({"cc", "-MD", "-MQx.o", "-c", "a.c"}, "a.o") == "x.o");
    CHECK(depfile_names({"cc", "-MD", "-c", "a.c", "-o", "./o/a.o"}, "./o/a.o", "o/a.o"));
    CHECK_FALSE(depfile_names({"cc", "-MD", "-c", "a.c", "-o", "a.o"}, "a.o", "sub/a.o"));
}

TEST_CASE("gen depfile: compiles are recognised by -c, and get -MD -MF appended") {
    CHECK(is_compile({"cc", "-c", "a.c"}));
    CHECK_FALSE(is_compile({"cc", "a.o", "-o", "app"}));
    CHECK_FALSE(is_compile({"-c"}));
    CHECK(with_depfile({"cc", "-c", "a.c"}, "/w/a.o.d") ==
          Args{"cc", "-c", "a.c", "-MD", "-MF", "/w/a.o.d"});
}

namespace {

Entry entry(std::size_t index, std::string dir, Args argv, std::string file, std::string out) {
    Entry e;
    e.index = index;
    e.directory = std::move(dir);
    e.argv = std::move(argv);
    e.file = std::move(file);
    e.output = std::move(out);
    return e;
}

GenOptions options_in(const std::string& dir, int device_jobs = 0) {
    GenOptions o;
    o.ninja_path = dir + "/phc.ninja";
    o.private_dir = dir + "/.phc-ninja";
    o.device_jobs = device_jobs;
    o.generated_from = "compile_commands.json";
    o.prober = phc::test::fake_prober();
    return o;
}

} // namespace

TEST_CASE("gen generate: a plain compile keeps its depfile and runs in its directory") {
    Database db;
    db.entries.push_back(entry(0, "/w",
                               {"g++", "-O2", "-MD", "-MP", "-c", "m.cpp", "-o", "obj/m.o"},
                               "/w/m.cpp", "/w/obj/m.o"));
    auto g = generate(db, options_in("/w"));
    REQUIRE(g.ok());
    CHECK(g->entries == 1);
    CHECK(g->plain == 1);
    CHECK(g->split == 0);
    CHECK(g->edges == 1);
    CHECK(g->text.find("builddir = .phc-ninja\n") != std::string::npos);
    CHECK(g->text.find("build obj/m.o: phc_compile_keep m.cpp\n"
                       "  command = cd /w && g++ -O2 -MD -MP -c m.cpp -o obj/m.o\n"
                       "  depfile = obj/m.d\n"
                       "  description = CC obj/m.o\n") != std::string::npos);
    CHECK(g->text.find("pool ") == std::string::npos);
}

TEST_CASE("gen generate: a depfile naming the object otherwise is copied for the deps log") {
    Database db;
    db.entries.push_back(entry(0, "/w/sub", {"g++", "-MD", "-c", "m.cpp", "-o", "m.o"},
                               "/w/sub/m.cpp", "/w/sub/m.o"));
    auto g = generate(db, options_in("/w"));
    REQUIRE(g.ok());
    REQUIRE(g->notes.size() == 1);
    CHECK(g->notes[0] == "1 of 1 entries run in another directory than the ninja file (entry 0 in "
                         "/w/sub): relative header paths in their depfiles will not match, and "
                         "ninja may rebuild them every time; write the ninja file there instead");
    // make's m.d stays on disk: ninja reads (and deletes) a copy.
    CHECK(g->text.find("build sub/m.o: phc_compile sub/m.cpp\n"
                       "  command = cd /w/sub && g++ -MD -c m.cpp -o m.o && cp m.d m.d.ninja\n"
                       "  depfile = sub/m.d.ninja\n") != std::string::npos);
    CHECK(g->text.find("rule phc_compile\n  command = $command\n  description = $description\n"
                       "  deps = gcc\n  depfile = $depfile\n") != std::string::npos);
    CHECK(g->text.find("rule phc_compile_keep\n  command = $command\n"
                       "  description = $description\n  depfile = $depfile\n") !=
          std::string::npos);
}

TEST_CASE("gen generate: a compile without a depfile is given one next to its output") {
    Database db;
    db.entries.push_back(entry(0, "/w/build", {"g++", "-c", "/src/m.cpp", "-o", "m.o"},
                               "/src/m.cpp", "/w/build/m.o"));
    auto g = generate(db, options_in("/w"));
    REQUIRE(g.ok());
    CHECK(g->text.find("build build/m.o: phc_compile /src/m.cpp\n"
                       "  command = cd /w/build && g++ -c /src/m.cpp -o m.o -MD -MF "
                       "/w/build/m.o.d\n"
                       "  depfile = build/m.o.d\n") != std::string::npos);
}

TEST_CASE("gen generate: a command that does not compile gets no header deps") {
    Database db;
    db.entries.push_back(entry(0, "/w", {"ld", "a.o", "-o", "app"}, "/w/a.o", "/w/app"));
    auto g = generate(db, options_in("/w"));
    REQUIRE(g.ok());
    CHECK(g->text.find("build app: phc_run a.o\n  command = cd /w && ld a.o -o app\n") !=
          std::string::npos);
}

TEST_CASE(
    "gen generate: a command with shell operators runs as written, unsplit, with its reason") {
    Database db;
    Entry e = entry(0, "/w",
                    {"gen.sh", "clang++-15", "--offload-arch=gfx906", "--offload-arch=gfx90a", "-x",
                     "hip", "-c", "-", "-o", "p.o"},
                    "/w/p.hip", "/w/p.o");
    e.shell = "gen.sh | clang++-15 --offload-arch=gfx906 --offload-arch=gfx90a -x hip -c - -o p.o";
    e.shell_reason = "the command is not a simple command (operator '|')";
    db.entries.push_back(e);
    auto g = generate(db, options_in("/w"));
    REQUIRE(g.ok());
    CHECK(g->plain == 1);
    CHECK(g->split == 0);
    CHECK(g->text.find("build p.o: phc_run p.hip\n  command = cd /w && (gen.sh | clang++-15 "
                       "--offload-arch=gfx906 --offload-arch=gfx90a -x hip -c - -o p.o)\n") !=
          std::string::npos);
    REQUIRE(g->decisions.size() == 1);
    CHECK_FALSE(g->decisions[0].split);
    CHECK(g->decisions[0].code == "not-simple");
    CHECK(g->decisions[0].text == e.shell_reason);
}

TEST_CASE("gen generate: the same database gives the same bytes") {
    Database db;
    db.entries.push_back(entry(0, "/w", {"g++", "-c", "a.cpp", "-o", "a.o"}, "/w/a.cpp", "/w/a.o"));
    db.entries.push_back(
        entry(1, "/w", {"g++", "-c", "b b.cpp", "-o", "b.o"}, "/w/b b.cpp", "/w/b.o"));
    auto a = generate(db, options_in("/w", 2));
    auto b = generate(db, options_in("/w", 2));
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    CHECK(a->text == b->text);
    CHECK(a->text.find("build b.o: phc_compile b$ b.cpp\n  command = cd /w && g++ -c 'b b.cpp'") !=
          std::string::npos);
}

TEST_CASE("gen generate: a path ninja cannot express is an error naming the entry") {
    Database db;
    db.path = "cc.json";
    db.entries.push_back(entry(0, "/w", {"g++", "-c", "a.cpp", "-o", "a.o"}, "/w/a.cpp", "/w/a.o"));
    db.entries.push_back(
        entry(1, "/w", {"g++", "-c", "b.cpp", "-o", "a|b.o"}, "/w/b.cpp", "/w/a|b.o"));
    auto g = generate(db, options_in("/w"));
    REQUIRE_FALSE(g.ok());
    CHECK(format_error("", g.error()) ==
          "cc.json: error: entry 1: path 'a|b.o' contains '|', which ninja "
          "cannot express in a path");
}

TEST_CASE("gen generate: a multi-arch HIP compile becomes device, bundle and host edges") {
    namespace fs = std::filesystem;
    fs::path tmp = fs::temp_directory_path() / ("phc_gen_unit_" + std::to_string(::getpid()));
    fs::create_directories(tmp);
    const std::string dir = std::string(PHC_TEST_DATA) + "/gen";
    Database db;
    db.entries.push_back(entry(0, dir,
                               {"clang++-15", "-x", "hip", "--rocm-path=/usr",
                                "--hip-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode",
                                "--offload-arch=gfx90a", "--offload-arch=gfx906", "-c", "k.hip",
                                "-o", tmp.string() + "/k.o"},
                               dir + "/k.hip", tmp.string() + "/k.o"));
    GenOptions o = options_in(tmp.string(), 1);
    auto g = generate(db, o);
    fs::remove_all(tmp);
    REQUIRE(g.ok());
    // The entry runs in the data folder, not beside the ninja file: one note.
    REQUIRE(g->notes.size() == 1);
    CHECK(g->notes[0].rfind("1 of 1 entries run in another directory", 0) == 0);
    CHECK(g->split == 1);
    CHECK(g->plain == 0);
    CHECK(g->edges == 4);
    const std::string& t = g->text;
    // Device edges in the driver's bundle order (sorted), by the object's own
    // rule (one template fits both), in the pool, with depfiles.
    const std::string device = "build .phc-ninja/objs/k.o/gfx906.o: PHC_HIP_DEVICE_";
    auto d906 = t.find(device);
    REQUIRE(d906 != std::string::npos);
    const std::string rule =
        t.substr(d906 + device.size() - 15, 31); // PHC_HIP_DEVICE_ and 16 hex digits
    CHECK(t.find("rule " + rule + "\n") < d906);
    CHECK(t.find("build .phc-ninja/objs/k.o/gfx906.o: " + rule + " " + dir + "/k.hip\n") == d906);
    auto d90a = t.find("build .phc-ninja/objs/k.o/gfx90a.o: " + rule + " " + dir + "/k.hip\n");
    auto bundle = t.find("build .phc-ninja/objs/k.o/bundle.hipfb: PHC_HIP_BUNDLE "
                         ".phc-ninja/objs/k.o/gfx906.o .phc-ninja/objs/k.o/gfx90a.o\n");
    auto host =
        t.find("build k.o: PHC_HIP_HOST " + dir + "/k.hip | .phc-ninja/objs/k.o/bundle.hipfb\n");
    REQUIRE(d90a != std::string::npos);
    REQUIRE(bundle != std::string::npos);
    REQUIRE(host != std::string::npos);
    CHECK(d906 < d90a);
    CHECK(d90a < bundle);
    CHECK(bundle < host);
    CHECK(t.find("pool phc_hip_device\n  depth = 1\n") != std::string::npos);
    CHECK(t.find("  pool = phc_hip_device\n") != std::string::npos);
    CHECK(t.find("  depfile = .phc-ninja/objs/k.o/$PHC_ARCH.d\n") != std::string::npos);
    // The host step had no depfile: it is given one, through the deps log.
    CHECK(t.find("  PHC_DEPFILE = k.o.d\n  PHC_DEPS = gcc\n") != std::string::npos);
    // Every step runs in the entry's directory.
    CHECK(t.find("cd " + dir + " && clang++-15 ") != std::string::npos);
    // Every compile step of the object, as ninja evaluates its command, carries
    // one and the same CUID.
    auto m = phc::ninja::parse_manifest(t);
    REQUIRE(m.ok());
    REQUIRE(m->edge_count() == 4);
    std::size_t count = 0;
    std::string cuid;
    for (std::size_t i = 0; i < m->edge_count(); ++i) {
        auto command = m->edge(i).evaluate("command");
        REQUIRE(command.ok());
        auto at = command->find("-cuid=");
        if (at == std::string::npos) continue;
        std::string c = command->substr(at, command->find_first_of(" \n", at) - at);
        if (cuid.empty()) cuid = c;
        CHECK(c == cuid);
        ++count;
    }
    CHECK(count == 3);
}

TEST_CASE("gen generate: a split host step keeps make's depfile when ninja spells it otherwise") {
    namespace fs = std::filesystem;
    fs::path tmp = fs::temp_directory_path() / ("phc_gen_unit_mt_" + std::to_string(::getpid()));
    fs::create_directories(tmp);
    const std::string dir = std::string(PHC_TEST_DATA) + "/gen";
    const std::string obj = tmp.string() + "/k.o";
    Database db;
    db.entries.push_back(entry(0, dir,
                               {"clang++-15", "-x", "hip", "--rocm-path=/usr",
                                "--hip-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode",
                                "--offload-arch=gfx90a", "--offload-arch=gfx906", "-MD", "-MT",
                                "other/k.o", "-MF", obj + ".dep", "-c", "k.hip", "-o", obj},
                               dir + "/k.hip", obj));
    auto g = generate(db, options_in(tmp.string()));
    fs::remove_all(tmp);
    REQUIRE(g.ok());
    REQUIRE(g->split == 1);
    const std::string& t = g->text;
    auto host = t.find("build k.o: PHC_HIP_HOST ");
    REQUIRE(host != std::string::npos);
    std::string edge = t.substr(host);
    CHECK(edge.find("$ && cp " + obj + ".dep " + obj + ".dep.ninja\n") != std::string::npos);
    CHECK(edge.find("  PHC_DEPFILE = k.o.dep.ninja\n  PHC_DEPS = gcc\n") != std::string::npos);
}

TEST_CASE("gen generate: --only and --skip choose the entries to split; others stay one edge") {
    Database db;
    for (std::string name : {"big", "small"})
        db.entries.push_back(
            entry(db.entries.size(), "/w",
                  {"clang++-15", "-x", "hip", "--offload-arch=gfx906", "--offload-arch=gfx90a",
                   "-c", name + ".hip", "-o", "obj/" + name + ".o"},
                  "/w/" + name + ".hip", "/w/obj/" + name + ".o"));
    GenOptions o = options_in("/w");
    auto all = generate(db, o);
    REQUIRE(all.ok());
    CHECK(all->split == 2);
    auto skip = phc::split::Selection::make("", "small");
    REQUIRE(skip.ok());
    o.select = *skip;
    auto g = generate(db, o);
    REQUIRE(g.ok());
    CHECK(g->split == 1);
    CHECK(g->plain == 1);
    REQUIRE(g->decisions.size() == 2);
    CHECK(g->decisions[0].split);
    CHECK(g->decisions[1].code == "not-selected");
    CHECK(g->decisions[1].text == "--skip 'small' matches obj/small.o");
    CHECK(g->text.find("build obj/small.o: phc_compile small.hip\n") != std::string::npos);
    CHECK(g->text.find("build .phc-ninja/objs/obj/big.o/gfx906.o: ") != std::string::npos);
    CHECK(g->text.find("objs/obj/small.o") == std::string::npos);
    auto only = phc::split::Selection::make("small", "");
    REQUIRE(only.ok());
    o.select = *only;
    g = generate(db, o);
    REQUIRE(g.ok());
    CHECK(g->decisions[0].code == "not-selected");
    CHECK(g->decisions[1].split);
}

namespace {

/// The -cuid= values in gen's text, in order of appearance, one per object.
std::vector<std::string> cuids_in(const std::string& text) {
    std::vector<std::string> out;
    for (size_t at = text.find("-cuid="); at != std::string::npos; at = text.find("-cuid=", at)) {
        at += 6;
        std::string c = text.substr(at, text.find_first_of(" \n", at) - at);
        if (out.empty() || out.back() != c) out.push_back(c);
    }
    return out;
}

/// Two subprojects compiling kernel.hip the same way, under the ninja file's directory `top`.
Database subprojects(const std::string& top) {
    Database db;
    const Args hip = {"clang++-15",
                      "-x",
                      "hip",
                      "--offload-arch=gfx906",
                      "--offload-arch=gfx90a",
                      "-I" + top + "/include",
                      "-c",
                      "kernel.hip",
                      "-o",
                      "kernel.o"};
    for (std::string sub : {"sub1", "sub2"})
        db.entries.push_back(entry(db.entries.size(), top + "/" + sub, hip,
                                   top + "/" + sub + "/kernel.hip", top + "/" + sub + "/kernel.o"));
    return db;
}

} // namespace

TEST_CASE("gen generate: the same relative command in two directories gets two CUIDs, the same "
          "in every checkout") {
    auto a = generate(subprojects("/w/one"), options_in("/w/one"));
    REQUIRE(a.ok());
    REQUIRE(a->split == 2);
    std::vector<std::string> ca = cuids_in(a->text);
    REQUIRE(ca.size() == 2);
    CHECK(ca[0] != ca[1]);
    auto b = generate(subprojects("/elsewhere/two"), options_in("/elsewhere/two"));
    REQUIRE(b.ok());
    CHECK(cuids_in(b->text) == ca);
}

TEST_CASE("gen generate: with the last build's times, entries and edges come critical path first") {
    namespace fs = std::filesystem;
    fs::path tmp = fs::temp_directory_path() / ("phc_gen_order_" + std::to_string(::getpid()));
    fs::create_directories(tmp);
    const std::string dir = std::string(PHC_TEST_DATA) + "/gen";
    const std::string w = tmp.string();
    Database db;
    for (const char* name : {"a", "b"})
        db.entries.push_back(
            entry(db.entries.size(), dir,
                  {"clang++-15", "-x", "hip", "--rocm-path=/usr",
                   "--hip-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode",
                   "--offload-arch=gfx90a", "--offload-arch=gfx906", "-c", "k.hip", "-o",
                   w + "/" + name + ".o"},
                  dir + "/k.hip", w + "/" + name + ".o"));
    db.entries.push_back(
        entry(2, w, {"g++", "-c", "p.cpp", "-o", "p.o"}, w + "/p.cpp", w + "/p.o"));
    auto builds = [](const std::string& t) {
        std::vector<std::string> out;
        for (auto at = t.find("\nbuild "); at != std::string::npos; at = t.find("\nbuild ", at + 1))
            out.push_back(t.substr(at + 7, t.find(':', at) - at - 7));
        return out;
    };
    GenOptions o = options_in(w);
    auto plain = generate(db, o);
    REQUIRE(plain.ok());
    using S = std::vector<std::string>;
    const std::string a = ".phc-ninja/objs/a.o/", b = ".phc-ninja/objs/b.o/";
    CHECK(builds(plain->text) == S{a + "gfx906.o", a + "gfx90a.o", a + "bundle.hipfb", "a.o",
                                   b + "gfx906.o", b + "gfx90a.o", b + "bundle.hipfb", "b.o",
                                   "p.o"});
    // b's gfx90a device compile took longest: b first, its gfx90a first; the
    // plain compile (2 s) before a (1.2 s at most).
    o.durations = {
        {a + "gfx906.o", 900}, {a + "gfx90a.o", 1000}, {a + "bundle.hipfb", 10}, {"a.o", 200},
        {b + "gfx906.o", 900}, {b + "gfx90a.o", 4000}, {b + "bundle.hipfb", 10}, {"b.o", 200},
        {"p.o", 2000}};
    auto timed = generate(db, o);
    fs::remove_all(tmp);
    REQUIRE(timed.ok());
    CHECK(builds(timed->text) == S{b + "gfx90a.o", b + "gfx906.o", b + "bundle.hipfb", "b.o", "p.o",
                                   a + "gfx90a.o", a + "gfx906.o", a + "bundle.hipfb", "a.o"});
}

TEST_CASE("gen summary: a database without a multi-architecture HIP compile says so") {
    GenReport r;
    r.ninja_file = "phc.ninja";
    r.entries = 3;
    r.plain = 3;
    r.edges = 3;
    r.changed = true;
    for (const char* code : {"not-hip", "single-arch", "not-hip"}) {
        EntryDecision d;
        d.code = code;
        r.decisions.push_back(d);
    }
    CHECK(summary_line(r) == "phc-ninja gen: phc.ninja: no multi-architecture HIP compiles among 3 "
                             "entries (not-hip: 2, single-arch: 1), 3 edges");
    r.changed = false;
    CHECK(summary_line(r).ends_with(", 3 edges (unchanged)"));
    // A multi-architecture compile left alone (its compiler cannot be probed) is one.
    r.decisions[1].code = "probe-failed";
    CHECK(summary_line(r) == "phc-ninja gen: phc.ninja: 3 entries (0 split, 3 plain), 3 edges "
                             "(unchanged)");
}

TEST_CASE("gen generate: a compiler that cannot be probed leaves its entry alone; --strict fails") {
    phc::test::ScratchDir tmp("phc-gen-strict");
    Database db;
    db.path = "compile_commands.json";
    const Args hip = {"-x",
                      "hip",
                      "--rocm-path=/usr",
                      "--hip-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode",
                      "--offload-arch=gfx90a",
                      "--offload-arch=gfx906",
                      "-c",
                      "k.hip",
                      "-o"};
    auto argv = [&](const std::string& cc, const std::string& out) {
        Args a{cc};
        a.insert(a.end(), hip.begin(), hip.end());
        a.push_back(out);
        return a;
    };
    db.entries.push_back(entry(0, tmp.path(), argv("clang++-15", tmp.file("a.o")),
                               tmp.file("k.hip"), tmp.file("a.o")));
    db.entries.push_back(entry(1, tmp.path(), argv("/nonexistent/clang++", tmp.file("b.o")),
                               tmp.file("k.hip"), tmp.file("b.o")));
    GenOptions o = options_in(tmp.path());
    auto g = generate(db, o);
    REQUIRE(g.ok());
    CHECK(g->split == 1);
    CHECK(g->decisions.at(1).code == "probe-failed");
    o.strict = true;
    auto strict = generate(db, o);
    REQUIRE_FALSE(strict.ok());
    CHECK(phc::format_error("phc-ninja gen", strict.error()) ==
          "compile_commands.json: error: entry 1: compiler '/nonexistent/clang++' not found");
}
