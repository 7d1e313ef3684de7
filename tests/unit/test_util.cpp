#include "scratch.h"
#include "util/file.h"
#include "util/hash.h"
#include "util/settings.h"
#include "util/subprocess.h"

#include <algorithm>
#include <atomic>
#include <climits>
#include <csignal>
#include <cstring>
#include <ctime>
#include <doctest/doctest.h>
#include <fcntl.h>
#include <filesystem>
#include <pthread.h>
#include <stdexcept>
#include <string>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
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
    CHECK(util::Hasher().add("x").hex128() == util::Hasher().add("x").hex128());
    CHECK(util::Hasher().add("x").hex128() != util::Hasher().add("y").hex128());
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
    CHECK(format_error("", missing.error()) ==
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
    // Small reads: a signal after each of about 2,000 (signals that meet one
    // pending coalesce; under load many do, so the check below asks for few).
    char buf[512];
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

namespace {

/// The file type of `path` itself (lstat): 'f' regular, 'l' link, 'c' char device,
/// 'b' block device, 'p' fifo, 's' socket, 'd' directory, '-' missing.
char kind_of(const std::string& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) return '-';
    if (S_ISREG(st.st_mode)) return 'f';
    if (S_ISLNK(st.st_mode)) return 'l';
    if (S_ISCHR(st.st_mode)) return 'c';
    if (S_ISBLK(st.st_mode)) return 'b';
    if (S_ISFIFO(st.st_mode)) return 'p';
    if (S_ISSOCK(st.st_mode)) return 's';
    if (S_ISDIR(st.st_mode)) return 'd';
    return '?';
}

/// Names in `dir` that contain ".phc-tmp-".
std::vector<std::string> temporaries(const std::string& dir) {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
        std::string name = e.path().filename().string();
        if (name.find(".phc-tmp-") != std::string::npos) out.push_back(name);
    }
    return out;
}

/// Holds a fifo's read end open (without waiting for a writer), so that a
/// write to the fifo can open it; read() gives what was written since.
struct FifoReader {
    int fd;
    explicit FifoReader(const std::string& path)
        : fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)) {
        REQUIRE(fd >= 0);
    }
    ~FifoReader() { ::close(fd); }
    std::string read() {
        std::string got;
        char buf[4096];
        for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;)
            got.append(buf, static_cast<size_t>(n));
        return got;
    }
};

} // namespace

TEST_CASE("atomic write: devices and fifos are written through, never replaced") {
    TempDir dir;
    const std::string null = dir / "null"; // a private /dev/null
    REQUIRE(::mknod(null.c_str(), S_IFCHR | 0666, ::makedev(1, 3)) == 0);
    REQUIRE(util::write_file_atomic(null, "discarded").ok());
    std::vector<std::string_view> pieces = {"a", "", "b"};
    REQUIRE(util::write_file_atomic(null, pieces, util::Sync::None).ok());
    CHECK(kind_of(null) == 'c');
    // Through a link, and a link to a link: both links and the node stay.
    const std::string link = dir / "link", link2 = dir / "link2";
    REQUIRE(::symlink(null.c_str(), link.c_str()) == 0);
    REQUIRE(::symlink("link", link2.c_str()) == 0);
    REQUIRE(util::write_file_atomic(link2, "x").ok());
    CHECK(kind_of(link) == 'l');
    CHECK(kind_of(link2) == 'l');
    CHECK(kind_of(null) == 'c');

    // A fifo gets the bytes, and stays a fifo; through a link too.
    const std::string fifo = dir / "fifo", fifo_link = dir / "fifo-link";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    REQUIRE(::symlink(fifo.c_str(), fifo_link.c_str()) == 0);
    for (const std::string& target : {fifo, fifo_link}) {
        FifoReader r(fifo);
        std::vector<std::string_view> text = {"hello ", "", "fifo\n"};
        CHECK(util::write_file_atomic(target, text).ok());
        CHECK(r.read() == "hello fifo\n");
        CHECK(kind_of(fifo) == 'p');
    }
    CHECK(kind_of(fifo_link) == 'l');

    // /proc/self/fd/N of a pipe (what /dev/stdout is when piped): written through.
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    const std::string pipe_link = dir / "stdout";
    REQUIRE(::symlink(("/proc/self/fd/" + std::to_string(fds[1])).c_str(), pipe_link.c_str()) == 0);
    REQUIRE(util::write_file_atomic(pipe_link, "through the pipe").ok());
    ::close(fds[1]);
    char buf[64] = {};
    CHECK(::read(fds[0], buf, sizeof buf) == 16);
    CHECK(std::string(buf) == "through the pipe");
    ::close(fds[0]);
    CHECK(kind_of(pipe_link) == 'l');
    CHECK(temporaries(dir.path).empty());
}

TEST_CASE("atomic write: directories, block devices, sockets and dangling links are refused") {
    TempDir dir;
    auto refused = [&](const std::string& path, const std::string& why) {
        auto st = util::write_file_atomic(path, "x");
        REQUIRE_FALSE(st.ok());
        const std::string msg = format_error("", st.error());
        CHECK(msg.find('\n') == std::string::npos);
        CHECK_MESSAGE(msg.starts_with(path + ": error: "), msg);
        CHECK_MESSAGE(msg.find(why) != std::string::npos, msg);
    };
    const std::string sub = dir / "sub";
    REQUIRE(::mkdir(sub.c_str(), 0700) == 0);
    REQUIRE(util::write_file_atomic(sub + "/inside", "kept").ok());
    refused(sub, "directory");
    CHECK(kind_of(sub) == 'd');
    CHECK(*util::read_file(sub + "/inside") == "kept");

    const std::string block = dir / "block"; // never opened
    REQUIRE(::mknod(block.c_str(), S_IFBLK | 0600, ::makedev(7, 0)) == 0);
    refused(block, "block device");
    CHECK(kind_of(block) == 'b');

    const std::string sock = dir / "sock";
    int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
    REQUIRE(s >= 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    REQUIRE(sock.size() < sizeof addr.sun_path);
    std::strcpy(addr.sun_path, sock.c_str());
    REQUIRE(::bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    refused(sock, "socket");
    CHECK(kind_of(sock) == 's');
    ::close(s);

    // A link whose target is missing, or cannot be named (a pipe's /proc entry
    // of a descriptor that is not open): refused, the link stays as it was.
    const std::string dangling = dir / "dangling";
    REQUIRE(::symlink((dir / "missing").c_str(), dangling.c_str()) == 0);
    refused(dangling, "link");
    CHECK(kind_of(dangling) == 'l');
    CHECK(kind_of(dir / "missing") == '-');
    const std::string loop = dir / "loop";
    REQUIRE(::symlink("loop", loop.c_str()) == 0);
    refused(loop, "link");
    CHECK(kind_of(loop) == 'l');
    const std::string to_dir = dir / "to-dir";
    REQUIRE(::symlink(sub.c_str(), to_dir.c_str()) == 0);
    refused(to_dir, "directory");
    CHECK(kind_of(to_dir) == 'l');
    CHECK(temporaries(dir.path).empty());
    CHECK(temporaries(sub).empty());
}

TEST_CASE("atomic write: a link chain to a regular file replaces the file, the links stay") {
    TempDir dir;
    const std::string file = dir / "real";
    REQUIRE(util::write_file_atomic(file, "old").ok());
    REQUIRE(::chmod(file.c_str(), 0604) == 0);
    REQUIRE(::symlink("real", (dir / "a").c_str()) == 0);
    REQUIRE(::symlink((dir / "a").c_str(), (dir / "b").c_str()) == 0);
    REQUIRE(util::write_file_atomic(dir / "b", "new").ok());
    CHECK(kind_of(dir / "a") == 'l');
    CHECK(kind_of(dir / "b") == 'l');
    CHECK(kind_of(file) == 'f');
    CHECK(*util::read_file(file) == "new");
    struct stat st {};
    REQUIRE(::stat(file.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0604);
    CHECK(temporaries(dir.path).empty());
}

TEST_CASE("atomic write: stale temporaries of our own naming next to the target are removed") {
    TempDir dir;
    auto make = [&](const std::string& name, int age_seconds) {
        REQUIRE(util::write_file_atomic(dir / name, "tmp").ok());
        timespec times[2] = {{::time(nullptr) - age_seconds, 0},
                             {::time(nullptr) - age_seconds, 0}};
        REQUIRE(::utimensat(AT_FDCWD, (dir / name).c_str(), times, 0) == 0);
    };
    make("f.ninja.phc-tmp-Ab1XyZ", 120);  // ours, stale: removed
    make("f.ninja.phc-tmp-fresh1", 5);    // ours, young (maybe a running write): kept
    make("f.ninja.phc-tmp-Ab1XyZ7", 120); // not our naming: kept
    make("f.ninja.phc-tmp-Ab1Xy", 120);   // not our naming: kept
    make("g.ninja.phc-tmp-Ab1XyZ", 120);  // another file's: kept
    REQUIRE(::mkdir((dir / "f.ninja.phc-tmp-dir123").c_str(), 0700) == 0); // not a file: kept
    timespec old[2] = {{::time(nullptr) - 120, 0}, {::time(nullptr) - 120, 0}};
    REQUIRE(::utimensat(AT_FDCWD, (dir / "f.ninja.phc-tmp-dir123").c_str(), old, 0) == 0);
    REQUIRE(util::write_file_atomic(dir / "f.ninja", "new").ok());
    auto left = temporaries(dir.path);
    std::sort(left.begin(), left.end());
    CHECK(left == std::vector<std::string>{"f.ninja.phc-tmp-Ab1Xy", "f.ninja.phc-tmp-Ab1XyZ7",
                                           "f.ninja.phc-tmp-dir123", "f.ninja.phc-tmp-fresh1",
                                           "g.ninja.phc-tmp-Ab1XyZ"});
}

TEST_CASE("atomic write: SIGINT, SIGTERM or SIGHUP during the write leave no temporary") {
    TempDir dir;
    // 128 MiB from one 1 MiB buffer: long enough to be caught in the middle.
    static const std::string chunk(size_t{1} << 20, 'x');
    const std::vector<std::string_view> pieces(128, chunk);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
        CAPTURE(sig);
        const std::string target = dir / ("big" + std::to_string(sig));
        pid_t pid = ::fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            ::signal(sig, SIG_DFL); // doctest catches SIGINT and SIGTERM
            sigset_t none;
            sigemptyset(&none);
            ::sigprocmask(SIG_SETMASK, &none, nullptr);
            bool ok = util::write_file_atomic(target, pieces, util::Sync::None).ok();
            ::_exit(ok ? 0 : 1);
        }
        bool seen = false; // kill as soon as the temporary exists
        for (int i = 0; i < 20000 && !seen; ++i) {
            for (const auto& t : temporaries(dir.path))
                seen |= t.starts_with("big" + std::to_string(sig) + ".phc-tmp-");
            if (!seen) ::usleep(100);
        }
        CHECK(seen);
        ::kill(pid, sig);
        int status = 0;
        REQUIRE(::waitpid(pid, &status, 0) == pid);
        CHECK(WIFSIGNALED(status));
        if (WIFSIGNALED(status)) CHECK(WTERMSIG(status) == sig);
        CHECK(temporaries(dir.path).empty());
        // Either the old state (nothing) or the whole new file, never a part.
        struct stat st {};
        if (::stat(target.c_str(), &st) == 0) CHECK(st.st_size == off_t{128} << 20);
        ::unlink(target.c_str());
    }
}

TEST_CASE("write_mode, file_id and is_stdout") {
    TempDir dir;
    const std::string file = dir / "file", link = dir / "link", null = dir / "null";
    REQUIRE(util::write_file_atomic(file, "x").ok());
    REQUIRE(::symlink("file", link.c_str()) == 0);
    REQUIRE(::mknod(null.c_str(), S_IFCHR | 0666, ::makedev(1, 3)) == 0);
    REQUIRE(::mkfifo((dir / "fifo").c_str(), 0600) == 0);
    CHECK(*util::write_mode(dir / "missing") == util::WriteMode::Create);
    CHECK(*util::write_mode(file) == util::WriteMode::Replace);
    CHECK(*util::write_mode(link) == util::WriteMode::Replace);
    CHECK(*util::write_mode(null) == util::WriteMode::Through);
    CHECK(*util::write_mode(dir / "fifo") == util::WriteMode::Through);
    auto d = util::write_mode(dir.path);
    REQUIRE_FALSE(d.ok());
    CHECK(format_error("", d.error()) ==
          dir.path + ": error: refusing to write: it is a directory");

    // Existing files by identity (links, hard links, spellings), missing ones by path.
    REQUIRE(::link(file.c_str(), (dir / "hard").c_str()) == 0);
    CHECK(util::file_id(file) == util::file_id(link));
    CHECK(util::file_id(file) == util::file_id(dir / "hard"));
    CHECK(util::file_id(file) == util::file_id(dir / "./missing/../file"));
    CHECK(util::file_id(file) != util::file_id(null));
    CHECK(util::file_id(dir / "a/../b") == util::file_id(dir / "b"));
    CHECK(util::file_id(dir / "a/b/") == util::file_id(dir / "a/./b"));
    CHECK(util::file_id(dir / "a") != util::file_id(dir / "b"));
    CHECK(util::file_id(dir / "missing/../file") != util::file_id(dir / "file2"));
    std::string cwd = std::filesystem::current_path().string();
    CHECK(util::file_id("no-such-file-here") == util::file_id(cwd + "/no-such-file-here"));

    CHECK(util::is_stdout("-"));
    int saved = ::dup(1);
    REQUIRE(saved >= 0);
    int fd = ::open(file.c_str(), O_WRONLY | O_CLOEXEC);
    REQUIRE(fd >= 0);
    ::fflush(stdout);
    REQUIRE(::dup2(fd, 1) == 1);
    bool via_link = util::is_stdout(link), other = util::is_stdout(null);
    ::dup2(saved, 1);
    ::close(saved);
    ::close(fd);
    CHECK(via_link);
    CHECK_FALSE(other);
    CHECK_FALSE(util::is_stdout(dir / "missing"));
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
    CHECK(missing.error().message ==
          "cannot run 'phc-no-such-program-xyz': No such file or directory");
}

TEST_CASE("spawn: environment on top of ours, files as descriptors, signals at their defaults") {
    TempDir dir;
    const std::string file = dir / "in.txt";
    REQUIRE(util::write_file_atomic(file, "from fd 3\n").ok());
    util::SpawnOptions o;
    o.cwd = dir.path;
    o.env = {{"PHC_SPAWN_TEST", "set"}, {"HOME", "/phc-home"}};
    o.files = {{3, file}};
    auto child = util::spawn({"sh", "-c", "echo $PHC_SPAWN_TEST $HOME; cat <&3; echo e >&2"}, o);
    REQUIRE_MESSAGE(child.ok(), (child.ok() ? "" : child.error().message));
    int status = 0;
    REQUIRE(::waitpid(child->pid, &status, 0) == child->pid);
    CHECK(WIFEXITED(status));
    char buf[256];
    ssize_t n = ::read(child->out.get(), buf, sizeof buf);
    CHECK(std::string(buf, n > 0 ? static_cast<size_t>(n) : 0) == "set /phc-home\nfrom fd 3\n");
    n = ::read(child->err.get(), buf, sizeof buf);
    CHECK(std::string(buf, n > 0 ? static_cast<size_t>(n) : 0) == "e\n");
    // An ignored SIGINT stays ignored in a child, unless default_signals resets it.
    struct sigaction ignore {
    }, old{};
    ignore.sa_handler = SIG_IGN;
    ::sigaction(SIGINT, &ignore, &old);
    auto run = [](bool defaults) {
        util::SpawnOptions so;
        so.default_signals = defaults;
        auto c = util::spawn({"sh", "-c", "kill -INT $$; exit 0"}, so);
        REQUIRE(c.ok());
        int st = 0;
        ::waitpid(c->pid, &st, 0);
        return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
    };
    const int inherited = run(false), reset = run(true);
    ::sigaction(SIGINT, &old, nullptr);
    CHECK(inherited == 0);
    CHECK(reset == 128 + SIGINT);
}

TEST_CASE("test helpers: a scratch directory is left and removed however the scope ends") {
    const auto before = std::filesystem::current_path();
    std::string dir;
    CHECK_THROWS_AS(
        [&] {
            phc::test::InScratch in;
            dir = in.dir();
            CHECK(std::filesystem::current_path() == dir);
            throw std::runtime_error("as a failed REQUIRE throws");
        }(),
        std::runtime_error);
    CHECK(std::filesystem::current_path() == before);
    CHECK_FALSE(dir.empty());
    CHECK_FALSE(std::filesystem::exists(dir));
}

TEST_CASE("join_path: the one join for analysis, response files and gen") {
    CHECK(phc::util::join_path("", "a.rsp") == "a.rsp");
    CHECK(phc::util::join_path(".", "a.rsp") == "a.rsp");
    CHECK(phc::util::join_path("b", "a.rsp") == "b/a.rsp");
    CHECK(phc::util::join_path("b/", "a.rsp") == "b/a.rsp");
    CHECK(phc::util::join_path("b", "/abs/a.rsp") == "/abs/a.rsp");
    CHECK(phc::util::join_path("b", "") == "b");
    CHECK(phc::util::join_path("b", ".") == "b");
}

TEST_CASE("extension: from the last '.' of the last component") {
    CHECK(phc::util::extension("obj/x.hip") == ".hip");
    CHECK(phc::util::extension("a.b/x") == "");
    CHECK(phc::util::extension("x.tar.gz") == ".gz");
    CHECK(phc::util::extension("x") == "");
    CHECK(phc::util::extension("dir/.hidden") == ".hidden");
}

TEST_CASE("split_on: every part, empty ones too") {
    using V = std::vector<std::string>;
    CHECK(phc::util::split_on("a,,b", ',') == V{"a", "", "b"});
    CHECK(phc::util::split_on("", ',') == V{""});
    CHECK(phc::util::split_on("gfx90a:xnack+", ':') == V{"gfx90a", "xnack+"});
}

TEST_CASE("read_regular_file: a fifo is not waited on, a device not read, a limit kept") {
    test::ScratchDir t("phc-unit-read");
    const std::string file = t.file("f"), fifo = t.file("p"), link = t.file("l");
    REQUIRE(util::write_file_atomic(file, "12345").ok());
    REQUIRE(::symlink(file.c_str(), link.c_str()) == 0);
    auto whole = util::read_regular_file(link, 5); // links followed; exactly the limit
    REQUIRE(whole.ok());
    CHECK(*whole == "12345");
    auto big = util::read_regular_file(file, 4);
    REQUIRE_FALSE(big.ok());
    CHECK(big.error().text() == file + ": larger than 4 bytes");
    REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
    auto pipe = util::read_regular_file(fifo, 1 << 20); // returns at once, no writer needed
    REQUIRE_FALSE(pipe.ok());
    CHECK(pipe.error().text() == fifo + ": not a regular file");
    auto zero = util::read_regular_file("/dev/zero", 1 << 20);
    REQUIRE_FALSE(zero.ok());
    CHECK(zero.error().text() == "/dev/zero: not a regular file");
    auto missing = util::read_regular_file(t.file("none"), 10);
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error().text().starts_with(t.file("none") + ": cannot read file: "));
}

TEST_CASE("settings: one table of the environment variables, each value with its origin") {
    ::unsetenv("PHC_REGEN_TIMING");
    CHECK_FALSE(util::get("PHC_REGEN_TIMING"));
    CHECK(util::settings_report().find("PHC_REGEN_TIMING: 0 (default)\n") != std::string::npos);
    ::setenv("PHC_REGEN_TIMING", "1", 1);
    CHECK(util::get("PHC_REGEN_TIMING") == "1");
    CHECK(util::settings_report().find("PHC_REGEN_TIMING=1 (environment)\n") != std::string::npos);
    ::unsetenv("PHC_REGEN_TIMING");
    const std::string help = util::settings_help();
    for (const util::Setting& s : util::settings())
        CHECK(help.find(std::string(s.name)) != std::string::npos);
}

TEST_CASE("settings: a command's --help lists the variables it reads, and only those") {
    const std::string regen = util::settings_help("regen");
    CHECK(regen.starts_with("environment:\n"));
    for (const char* name :
         {"PHC_MEMORY", "PHC_REGEN_STEPS", "PHC_REGEN_DEPSETS", "PHC_REGEN_TIMING"})
        CHECK(regen.find(std::string("  ") + name + " ") != std::string::npos);
    CHECK(regen.find("PHC_JOBS") == std::string::npos);
    const std::string step = util::settings_help("step");
    CHECK(step.find("  PHC_MEMORY ") != std::string::npos);
    CHECK(step.find("PHC_REGEN_STEPS") == std::string::npos);
    const std::string launch = util::settings_help("phc-launch");
    CHECK(launch.find("  PHC_JOBS ") != std::string::npos);
    CHECK(launch.find("  CCACHE_BASEDIR ") != std::string::npos);
    CHECK(launch.find("PHC_REGEN_TIMING") == std::string::npos);
    // "explain" is a reader after a comma: found; a prefix of a reader is not one.
    CHECK(util::settings_help("explain").find("  CCACHE_BASEDIR ") != std::string::npos);
    CHECK(util::settings_help("re").find("PHC_") == std::string::npos);
}
