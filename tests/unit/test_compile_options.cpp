#include "compile/options.h"
#include "compile/rspfile.h"
#include "scratch.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

using namespace phc::compile;

TEST_CASE("option table is sorted and unique, and lookups find every row") {
    auto t = option_table();
    REQUIRE(t.size() > 40);
    for (size_t i = 1; i < t.size(); ++i)
        CHECK_MESSAGE(t[i - 1].name < t[i].name, t[i - 1].name, " >= ", t[i].name);
    for (const auto& o : t)
        CHECK(find_option(o.name) == &o);
    CHECK(find_option("-nonexistent") == nullptr);
    CHECK(find_option("") == nullptr);
    for (const char* need : {"-c",
                             "-o",
                             "-x",
                             "-E",
                             "-S",
                             "-M",
                             "-MM",
                             "-MD",
                             "-MMD",
                             "-MF",
                             "-MT",
                             "-MQ",
                             "-MP",
                             "-fsyntax-only",
                             "-emit-llvm",
                             "--offload-arch=",
                             "--no-offload-arch=",
                             "--cuda-gpu-arch=",
                             "--offload-device-only",
                             "--offload-host-only",
                             "--cuda-device-only",
                             "--cuda-host-only",
                             "-fgpu-rdc",
                             "-fno-gpu-rdc",
                             "--offload-new-driver",
                             "--no-offload-new-driver",
                             "-foffload-via-llvm",
                             "--offload-compress",
                             "--no-offload-compress",
                             "--offload-compression-level=",
                             "--offload-jobs=",
                             "-parallel-jobs=",
                             "-cuid=",
                             "-fuse-cuid=",
                             "-save-temps",
                             "-save-temps=",
                             "-ftime-trace",
                             "-ftime-trace=",
                             "-Xclang",
                             "-mllvm",
                             "-Xarch_device",
                             "-Xarch_host",
                             "-Xoffload-linker",
                             "-I",
                             "-D",
                             "-U",
                             "-include",
                             "-isystem",
                             "-iquote",
                             "-idirafter",
                             "--sysroot",
                             "--sysroot=",
                             "-B",
                             "-target",
                             "--target="})
        CHECK_MESSAGE(find_option(need) != nullptr, need);
}

TEST_CASE("parse_args: joined, separate, inputs, unknown options keep their place") {
    std::vector<std::string> argv = {"clang++",
                                     "-Ifoo",
                                     "-I",
                                     "bar",
                                     "--offload-arch=gfx90a:xnack+",
                                     "-o",
                                     "x.o",
                                     "-oy.o",
                                     "-Wall",
                                     "-Xclang",
                                     "-foo",
                                     "-include-pch",
                                     "p.pch",
                                     "@r.rsp",
                                     "a.hip",
                                     "-Xarch_gfx906",
                                     "-O3",
                                     "--",
                                     "-b.hip"};
    auto a = parse_args(argv);
    REQUIRE(a.size() == 12);
    CHECK((a[0].is("-I") && a[0].value == "foo" && a[0].count == 1));
    CHECK((a[1].is("-I") && a[1].value == "bar" && a[1].count == 2 && a[1].index == 2));
    CHECK((a[2].is("--offload-arch=") && a[2].value == "gfx90a:xnack+"));
    CHECK((a[3].is("-o") && a[3].value == "x.o"));
    CHECK((a[4].is("-o") && a[4].value == "y.o"));
    CHECK((a[5].option == nullptr && !a[5].input && a[5].index == 8));
    CHECK((a[6].is("-Xclang") && a[6].value == "-foo"));
    CHECK((a[7].is("-include-pch") && a[7].value == "p.pch"));
    CHECK((a[8].option == nullptr && !a[8].input && a[8].value == "@r.rsp"));
    CHECK((a[9].input && a[9].value == "a.hip"));
    CHECK((a[10].is("-Xarch_") && a[10].count == 2 && a[10].value == "gfx906"));
    CHECK((a[11].input && a[11].value == "-b.hip"));
}

TEST_CASE("response files: GNU splitting, nesting, ninja rspfile_content") {
    CHECK(split_rsp("a 'b c' \"d\\\"e\" f\\ g\n") ==
          std::vector<std::string>{"a", "b c", "d\"e", "f g"});
    RspSource src{"", "x.rsp", "--offload-arch=gfx906 '-I a b'"};
    Expanded e = expand_rsp({"cc", "-c", "@x.rsp", "k.hip"}, src);
    REQUIRE(e.unreadable.empty());
    CHECK(e.argv ==
          std::vector<std::string>{"cc", "-c", "--offload-arch=gfx906", "-I a b", "k.hip"});
    CHECK(e.from_rsp == std::vector<bool>{false, false, true, true, false});
    Expanded missing = expand_rsp({"cc", "@/nonexistent/phc.rsp"}, {});
    CHECK(missing.unreadable.find("/nonexistent/phc.rsp") != std::string::npos);
}

TEST_CASE("response files: only regular files of at most 64 MB are read") {
    phc::test::ScratchDir dir("phc-rsp");
    // A fifo without a writer: reading it would wait for ever.
    REQUIRE(::mkfifo(dir.file("fifo.rsp").c_str(), 0600) == 0);
    Expanded fifo = expand_rsp({"cc", "@fifo.rsp", "-c", "k.hip"}, {dir.path(), {}, {}});
    CHECK(fifo.unreadable == dir.file("fifo.rsp") + ": not a regular file");
    // A node like /dev/zero (1, 5), made in the scratch folder: it never ends.
    if (::mknod(dir.file("zero.rsp").c_str(), S_IFCHR | 0600, makedev(1, 5)) == 0) {
        Expanded zero = expand_rsp({"cc", "@" + dir.file("zero.rsp")}, {});
        CHECK(zero.unreadable == dir.file("zero.rsp") + ": not a regular file");
    } else {
        MESSAGE("mknod is not permitted here: the character device case is skipped");
    }
    // A file over the limit (sparse: no space used) is not read either.
    int fd = ::open(dir.file("big.rsp").c_str(), O_CREAT | O_WRONLY, 0600);
    REQUIRE(fd >= 0);
    REQUIRE(::ftruncate(fd, (64 << 20) + 1) == 0);
    ::close(fd);
    Expanded big = expand_rsp({"cc", "@big.rsp"}, {dir.path(), {}, {}});
    CHECK(big.unreadable.find("big.rsp: larger than") != std::string::npos);
    // Nested in a readable one, the fifo is refused too.
    REQUIRE(::symlink("fifo.rsp", dir.file("link.rsp").c_str()) == 0);
    Expanded nested = expand_rsp({"cc", "@outer.rsp"}, {dir.path(), "outer.rsp", "@link.rsp"});
    CHECK(nested.unreadable == dir.file("link.rsp") + ": not a regular file");
}
