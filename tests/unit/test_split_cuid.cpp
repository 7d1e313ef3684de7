#include "compile/analysis.h"
#include "split/cuid.h"

#include <doctest/doctest.h>

using namespace phc;
using namespace phc::split;

namespace {

/// The CUID of `cmd` run in `work_dir` (absolute) of a build rooted at `root`.
std::string cuid(const std::string& root, const std::string& work_dir, const std::string& cmd) {
    compile::Analysis a = compile::analyze_string(cmd, {work_dir, {}, {}});
    REQUIRE_MESSAGE(a.decision.split(), a.decision.text);
    return make_cuid(a, cuid_place(a, root));
}

const std::string kFlags = "-x hip -O2 --rocm-path=/usr -isystem /usr/include/rocprim "
                           "--offload-arch=gfx906 --offload-arch=gfx90a";

/// CMake's shape: absolute source and include paths, the object relative to
/// the build directory `build` of the checkout `top`.
std::string cmake_command(const std::string& top, const std::string& object = "CMakeFiles/t.dir",
                          const std::string& defines = "-DN=1") {
    return "/usr/bin/clang++-15 " + defines + " -I" + top + "/src/include -I" + top +
           "/build/gen " + kFlags + " -MD -MT " + object + "/k.hip.o -MF " + object +
           "/k.hip.o.d -o " + object + "/k.hip.o -x hip -c " + top + "/src/k.hip";
}

} // namespace

TEST_CASE("CUIDs are pinned: a hash change would rebuild every object of every user") {
    // The same parts hashed on any machine (little-endian length prefixes) give
    // these values; they must never change without a deliberate decision.
    // v2 (issue 15): the working directory relative to the build's root is
    // hashed first, and paths of the checkout are relative.
    const CuidPlace none; // root and working directory "/": nothing to relocate
    CHECK(cuid_of(none, "k.o", "k.hip", {"-x", "hip", "-O2", "-c", "k.hip", "-o", "k.o"},
                  "clang++-15") == "954bc359626ad30e");
    CHECK(cuid_of(none, "CMakeFiles/t.dir/src/a.hip.o", "/src/a.hip", {}, "/usr/bin/clang++-15") ==
          "6076e6cd1a36d7c5");
    // Relative commands hash the same wherever they run (the working directory
    // is the build's root): the first value again.
    CHECK(
        cuid("/somewhere/build", "/somewhere/build",
             "clang++-15 -x hip -O2 --offload-arch=gfx906 --offload-arch=gfx90a -c k.hip -o k.o") ==
        "954bc359626ad30e");
}

TEST_CASE("CUID: the same build in two checkouts gets the same CUID") {
    const std::string a = cuid("/a/build", "/a/build", cmake_command("/a"));
    CHECK(a == cuid("/home/ci/builds/7/proj/build", "/home/ci/builds/7/proj/build",
                    cmake_command("/home/ci/builds/7/proj")));
    // A build directory inside the source tree, as deep as another: the same too.
    CHECK(cuid("/x/y/build", "/x/y/build", cmake_command("/x/y")) == a);
    // ... but not from the build's own words: another layout is another command.
    CHECK(cuid("/a/b/build", "/a/b/build", cmake_command("/a")) != a);
}

TEST_CASE("CUID: two objects of one build never share one") {
    const std::string root = "/p/build";
    // One source in two targets (other defines, other object).
    CHECK(cuid(root, root, cmake_command("/p", "CMakeFiles/t1.dir")) !=
          cuid(root, root, cmake_command("/p", "CMakeFiles/t2.dir")));
    CHECK(cuid(root, root, cmake_command("/p", "CMakeFiles/t.dir", "-DN=1")) !=
          cuid(root, root, cmake_command("/p", "CMakeFiles/t.dir", "-DN=2")));
    // The same relative command in two directories (two entries of one
    // compilation database, two subprojects' kernel.o; a `cd DIR &&`).
    const std::string rel =
        "clang++-15 -x hip --offload-arch=gfx906 --offload-arch=gfx90a -c kernel.hip -o kernel.o";
    CHECK(cuid(root, root + "/sub1", rel) != cuid(root, root + "/sub2", rel));
    CHECK(cuid(root, root, "cd sub1 && " + rel) != cuid(root, root, "cd sub2 && " + rel));
    CHECK(cuid(root, root, "cd sub1 && " + rel) == cuid(root, root + "/sub1", rel));
    // Outside the root too (its path from the root has "..").
    CHECK(cuid(root, "/p/a", rel) != cuid(root, "/p/b", rel));
    CHECK(cuid(root, "/p/a", rel) != cuid(root, root + "/a", rel));
    // A root of "/" (the launcher without CCACHE_BASEDIR): the directory whole.
    CHECK(cuid("/", "/p/sub1", rel) != cuid("/", "/p/sub2", rel));
    CHECK(cuid("/", "/p/sub1", rel) != cuid("/", "/q/sub1", rel));
    // With CCACHE_BASEDIR as the root: subprojects differ, checkouts agree.
    CHECK(cuid("/p", "/p/sub1", rel) != cuid("/p", "/p/sub2", rel));
    CHECK(cuid("/p", "/p/sub1", rel) == cuid("/q/r", "/q/r/sub1", rel));
}

TEST_CASE("CUID: paths outside the checkout are hashed as written") {
    // The source outside every directory the root shares: nothing is relocated.
    CuidPlace place{"/build", "/build"};
    CHECK(cuid_base(place, "/src/k.hip").empty());
    CHECK(cuid_of(place, "k.o", "/src/k.hip", {"-I/src/inc"}, "clang++") !=
          cuid_of({"/build2", "/build2"}, "k.o", "/src2/k.hip", {"-I/src2/inc"}, "clang++"));
    // The checkout is what the root and the source share.
    CHECK(cuid_base({"/a/build", "/a/build"}, "/a/src/k.hip") == "/a");
    CHECK(cuid_base({"/a/build", "/a/build/sub"}, "../../src/./k.hip") == "/a");
    CHECK(cuid_base({"/a/build", "/a/build"}, "gen/k.hip") == "/a/build");
    CHECK(cuid_base({"/ab", "/ab"}, "/a/k.hip").empty());
}

TEST_CASE("CUID: rebase_word rewrites paths under the base where a path can start") {
    CHECK(rebase_word("/a/src/k.hip", "/a", "..") == "../src/k.hip");
    CHECK(rebase_word("/a", "/a", "..") == "..");
    CHECK(rebase_word("-I/a/src/inc", "/a", "..") == "-I../src/inc");
    CHECK(rebase_word("--include-directory=/a/i", "/a", "..") == "--include-directory=../i");
    CHECK(rebase_word("-DDATA=/a/d:/a/e", "/a", "..") == "-DDATA=../d:../e");
    CHECK(rebase_word("-Wp,-MD,/a/b/k.d", "/a", "..") == "-Wp,-MD,../b/k.d");
    CHECK(rebase_word("/ab/k.hip", "/a", "..") == "/ab/k.hip");
    CHECK(rebase_word("/x/a/k.hip", "/a", "..") == "/x/a/k.hip");
    CHECK(rebase_word("-isystem/a/i", "/a", ".") == "-isystem./i");
    CHECK(rebase_word("-DX/a/k", "/a", "..") == "-DX/a/k");
    CHECK(rebase_word("-Iinclude/a/k", "/a", "..") == "-Iinclude/a/k");
    CHECK(rebase_word("/a/k.hip", "", "..") == "/a/k.hip");
}

TEST_CASE("CUID: the root from CCACHE_BASEDIR") {
    CHECK(root_from_basedir(nullptr) == "/");
    CHECK(root_from_basedir("") == "/");
    CHECK(root_from_basedir("relative/dir") == "/");
    CHECK(root_from_basedir("/ci/builds/") == "/ci/builds");
    CHECK(root_from_basedir("/ci/./x/../builds") == "/ci/builds");
}

TEST_CASE("CUID: the place of an analysis") {
    compile::Analysis a = compile::analyze_string(
        "cd sub && clang++ -x hip --offload-arch=gfx906 --offload-arch=gfx90a -c k.hip -o k.o",
        {"/a/build/", {}, {}});
    CuidPlace p = cuid_place(a);
    CHECK(p.root == "/a/build");
    CHECK(p.work_dir == "/a/build/sub");
    CHECK(cuid_place(a, "/a/").root == "/a");
    CHECK(absolute_normal("/a/b", "../c/./d/") == "/a/c/d");
    CHECK(absolute_normal("/", "x") == "/x");
    CHECK(absolute_normal("/a", "") == "/a");
}
