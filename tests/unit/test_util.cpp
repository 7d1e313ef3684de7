#include "util/file.h"
#include "util/hash.h"
#include "util/subprocess.h"
#include "util/text_arena.h"

#include <atomic>
#include <climits>
#include <csignal>
#include <doctest/doctest.h>
#include <filesystem>
#include <pthread.h>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <vector>

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

TEST_CASE("text arena: views stay valid and intact across chunks") {
    util::TextArena arena;
    std::vector<std::string_view> views;
    std::vector<std::string> expected;
    // 48 texts of 1 MiB fill more than one 32 MiB chunk; one larger than a chunk.
    for (int k = 0; k < 48; ++k)
        expected.push_back(std::string(size_t{1} << 20, static_cast<char>('a' + k % 26)) +
                           std::to_string(k));
    expected.push_back(std::string(size_t{40} << 20, 'z'));
    expected.push_back("tail");
    for (const std::string& t : expected)
        views.push_back(arena.add(t));
    CHECK(arena.add("").empty());
    REQUIRE(views.size() == expected.size());
    for (size_t k = 0; k < views.size(); ++k) {
        CHECK(views[k] == expected[k]);
        CHECK(views[k].data() != expected[k].data());
    }
    util::TextArena moved(std::move(arena));
    CHECK(views.back() == "tail"); // the chunks moved with the arena, not the bytes
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

namespace {

/// A temporary directory, removed with its plain files at the end of the test.
struct TempDir {
    std::string path;
    TempDir() {
        char dir[] = "/tmp/phc-unit-XXXXXX";
        REQUIRE(::mkdtemp(dir) != nullptr);
        path = dir;
    }
    ~TempDir() { std::filesystem::remove_all(path); }
    std::string operator/(const std::string& name) const { return path + "/" + name; }
};

/// Many pieces of varied lengths, empty ones included (first and last too),
/// more than IOV_MAX of them, as views of `storage`.
std::vector<std::string_view> many_pieces(std::vector<std::string>& storage, size_t count) {
    storage.clear();
    for (size_t i = 0; i < count; ++i) {
        size_t len = i % 5 == 0 ? 0 : (i * 37) % 301;
        std::string s;
        for (size_t k = 0; k < len; ++k)
            s += static_cast<char>('a' + (i + k) % 26);
        storage.push_back(s);
    }
    storage.push_back("");
    return {storage.begin(), storage.end()};
}

std::string concat(const std::vector<std::string_view>& pieces) {
    std::string out;
    for (std::string_view p : pieces)
        out += p;
    return out;
}

} // namespace

TEST_CASE("atomic write of pieces: exact bytes past IOV_MAX, mode kept, symlink target replaced") {
    TempDir dir;
    std::vector<std::string> storage;
    auto pieces = many_pieces(storage, 3 * IOV_MAX + 7);
    const std::string want = concat(pieces);
    REQUIRE(want.size() > 100000);
    const std::string path = dir / "f.ninja";
    REQUIRE(util::write_file_atomic(path, "old").ok());
    REQUIRE(::chmod(path.c_str(), 0640) == 0);
    REQUIRE(util::write_file_atomic(path, pieces).ok());
    CHECK(*util::read_file(path) == want);
    struct stat st {};
    REQUIRE(::stat(path.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0640);

    // Through a symlink: the target gets the bytes, the link stays a link.
    const std::string link = dir / "link";
    REQUIRE(::symlink(path.c_str(), link.c_str()) == 0);
    std::vector<std::string_view> two = {"", "new ", "", "text\n", ""};
    REQUIRE(util::write_file_atomic(link, two).ok());
    struct stat lst {};
    REQUIRE(::lstat(link.c_str(), &lst) == 0);
    CHECK(S_ISLNK(lst.st_mode));
    CHECK(*util::read_file(path) == "new text\n");

    // No pieces, or only empty ones, give an empty file.
    REQUIRE(util::write_file_atomic(path, std::vector<std::string_view>{"", ""}).ok());
    CHECK(util::read_file(path)->empty());
    REQUIRE(util::write_file_atomic(dir / "none", std::vector<std::string_view>{}).ok());
    CHECK(util::read_file(dir / "none")->empty());
    CHECK_FALSE(util::write_file_atomic(dir / "no/such/dir/f", pieces).ok());
}

namespace {
std::atomic<int> interruptions{0};
void count_signal(int) {
    interruptions.fetch_add(1);
}
} // namespace

TEST_CASE("write_all of pieces resumes correctly after short writes and EINTR") {
    // A slow reader and signals without SA_RESTART make writev(2) to a pipe
    // return early, part way through a piece or between pieces.
    struct sigaction sa {
    }, old{};
    sa.sa_handler = count_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;
    REQUIRE(::sigaction(SIGUSR1, &sa, &old) == 0);
    std::vector<std::string> storage;
    auto pieces = many_pieces(storage, 4 * IOV_MAX);
    for (int i = 0; i < 8; ++i) // a few pieces larger than the pipe's buffer
        storage.push_back(std::string(100000 + i, static_cast<char>('A' + i)));
    pieces.assign(storage.begin(), storage.end()); // the strings may have moved
    const std::string want = concat(pieces);
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    std::atomic<bool> done{false};
    bool ok = false;
    std::thread writer([&] {
        ok = util::write_all(fds[1], pieces);
        ::close(fds[1]);
        done = true;
    });
    std::string got;
    char buf[4096];
    interruptions = 0;
    for (;;) {
        ssize_t n = ::read(fds[0], buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got.append(buf, static_cast<size_t>(n));
        if (!done) ::pthread_kill(writer.native_handle(), SIGUSR1);
    }
    writer.join();
    ::close(fds[0]);
    ::sigaction(SIGUSR1, &old, nullptr);
    CHECK(ok);
    CHECK(interruptions.load() > 10);
    CHECK(got.size() == want.size());
    CHECK(got == want);
}

TEST_CASE("file_holds: equal, other size, same size other bytes, missing, not a file") {
    TempDir dir;
    std::vector<std::string> storage;
    auto pieces = many_pieces(storage, 2 * IOV_MAX); // larger than the compare buffer
    std::string want = concat(pieces);
    REQUIRE(want.size() > 3 * 65536);
    const std::string path = dir / "f";
    REQUIRE(util::write_file_atomic(path, want).ok());
    CHECK(util::file_holds(path, pieces));
    CHECK(util::file_holds(path, std::vector<std::string_view>{want}));

    auto holds_text = [&](const std::string& text) {
        REQUIRE(util::write_file_atomic(path, text).ok());
        return util::file_holds(path, pieces);
    };
    CHECK_FALSE(holds_text(want + "x"));
    CHECK_FALSE(holds_text(want.substr(0, want.size() - 1)));
    for (size_t at : {size_t{0}, size_t{65536}, size_t{65537}, want.size() / 2, want.size() - 1}) {
        std::string other = want;
        other[at] = other[at] == 'z' ? 'y' : 'z';
        CHECK_MESSAGE(!holds_text(other), "byte " << at << " differs");
    }
    CHECK(holds_text(want));

    CHECK_FALSE(util::file_holds(dir / "missing", pieces));
    REQUIRE(util::write_file_atomic(dir / "empty", "").ok());
    CHECK(util::file_holds(dir / "empty", std::vector<std::string_view>{}));
    CHECK(util::file_holds(dir / "empty", std::vector<std::string_view>{"", ""}));
    CHECK_FALSE(util::file_holds(dir / "empty", pieces));
    CHECK_FALSE(util::file_holds(dir.path, std::vector<std::string_view>{}));
    // Files whose size from stat is not what reading gives: compare what is read.
    CHECK_FALSE(util::file_holds("/proc/self/status", std::vector<std::string_view>{}));
    const std::string sys = "/sys/kernel/mm/transparent_hugepage/enabled";
    struct stat st {};
    if (::stat(sys.c_str(), &st) == 0 && st.st_size > 0) { // sysfs: 4096, content shorter
        auto content = util::read_file(sys);
        REQUIRE(content.ok());
        REQUIRE(content->size() < static_cast<size_t>(st.st_size));
        std::string pad(static_cast<size_t>(st.st_size) - content->size(), '\n');
        CHECK_FALSE(util::file_holds(sys, std::vector<std::string_view>{*content, pad}));
    }
    // A fifo is never opened (opening one for reading would wait for a writer).
    REQUIRE(::mkfifo((dir / "fifo").c_str(), 0600) == 0);
    CHECK_FALSE(util::file_holds(dir / "fifo", std::vector<std::string_view>{}));
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
