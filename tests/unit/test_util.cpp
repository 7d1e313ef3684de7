#include "util/file.h"
#include "util/hash.h"
#include "util/subprocess.h"

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace phc;

TEST_CASE("hash parts are length-prefixed and stable") {
    util::Hasher a, b;
    a.add("ab").add("c");
    b.add("a").add("bc");
    CHECK(a.hex128() != b.hex128());
    CHECK(a.hex128().size() == 32);
    CHECK(a.hex64().size() == 16);
    CHECK(util::hash_hex("x") == util::hash_hex("x"));
    CHECK(util::hash_hex("x") != util::hash_hex("y"));
}

TEST_CASE("atomic write replaces content and keeps mode; read_file errors name the path") {
    char dir[] = "/tmp/phc-unit-XXXXXX";
    REQUIRE(::mkdtemp(dir) != nullptr);
    std::string path = std::string(dir) + "/f.txt";
    REQUIRE(util::write_file_atomic(path, "one").ok());
    REQUIRE(::chmod(path.c_str(), 0600) == 0);
    REQUIRE(util::write_file_atomic(path, "two").ok());
    auto r = util::read_file(path);
    REQUIRE(r.ok());
    CHECK(*r == "two");
    struct stat st {};
    REQUIRE(::stat(path.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
    auto missing = util::read_file(std::string(dir) + "/nope");
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error().message ==
          std::string(dir) + "/nope: error: cannot read file: No such file or directory");
    std::string link = std::string(dir) + "/link";
    REQUIRE(::symlink(path.c_str(), link.c_str()) == 0);
    REQUIRE(util::write_file_atomic(link, "three").ok());
    struct stat lst {};
    REQUIRE(::lstat(link.c_str(), &lst) == 0);
    CHECK(S_ISLNK(lst.st_mode));
    CHECK(*util::read_file(path) == "three");
    ::unlink(link.c_str());
    mode_t old_mask = ::umask(077);
    std::string fresh = std::string(dir) + "/fresh";
    REQUIRE(util::write_file_atomic(fresh, "x").ok());
    ::umask(old_mask);
    REQUIRE(::stat(fresh.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
    ::unlink(fresh.c_str());
    auto bad = util::write_file_atomic(std::string(dir) + "/no/such/dir/f", "x");
    CHECK_FALSE(bad.ok());
    ::unlink(path.c_str());
    ::rmdir(dir);
}

TEST_CASE("run_capture returns exit code and both streams") {
    auto r = util::run_capture({"sh", "-c", "echo out; echo err >&2; exit 3"});
    REQUIRE(r.ok());
    CHECK(r->exit_code == 3);
    CHECK(r->out == "out\n");
    CHECK(r->err == "err\n");
    auto cwd = util::run_capture({"pwd"}, "/tmp");
    REQUIRE(cwd.ok());
    CHECK(cwd->out == "/tmp\n");
    auto missing = util::run_capture({"phc-no-such-program-xyz"});
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error().message == "error: phc-no-such-program-xyz: command not found");
}
