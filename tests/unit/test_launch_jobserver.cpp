#include "launch/jobserver.h"

#include <algorithm>
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace phc::launch;

namespace {

/// A pipe holding `tokens` bytes 'a', 'b', ...; closed on destruction.
struct TokenPipe {
    int r = -1, w = -1;
    TokenPipe(int tokens, bool nonblocking) {
        int p[2];
        REQUIRE(::pipe(p) == 0);
        r = p[0];
        w = p[1];
        if (nonblocking) REQUIRE(phc::util::set_nonblocking(r));
        for (int i = 0; i < tokens; ++i) {
            char c = static_cast<char>('a' + i);
            REQUIRE(::write(w, &c, 1) == 1);
        }
    }
    ~TokenPipe() {
        ::close(r);
        ::close(w);
    }
    /// Reads back what is in the pipe without blocking.
    std::string contents() const {
        int fl = ::fcntl(r, F_GETFL);
        ::fcntl(r, F_SETFL, fl | O_NONBLOCK);
        std::string s;
        char buf[64];
        ssize_t n;
        while ((n = ::read(r, buf, sizeof buf)) > 0)
            s.append(buf, static_cast<size_t>(n));
        ::fcntl(r, F_SETFL, fl);
        return s;
    }
};

} // namespace

TEST_CASE("jobserver fd validation") {
    TokenPipe p(0, false);
    CHECK(check_pipe_fds(p.r, p.w).ok());
    auto swapped = check_pipe_fds(p.w, p.r);
    REQUIRE_FALSE(swapped.ok());
    CHECK(swapped.error().message == "fd " + std::to_string(p.w) + " is not open for reading");
    int devnull = ::open("/dev/null", O_RDWR);
    auto notpipe = check_pipe_fds(devnull, p.w);
    CHECK(notpipe.error().message == "fd " + std::to_string(devnull) + " is not a pipe");
    ::close(devnull);
    auto closed = check_pipe_fds(987, p.w);
    CHECK(closed.error().message == "fd 987 is not open");
    TokenPipe other(0, false);
    auto mixed = check_pipe_fds(p.r, other.w);
    CHECK(mixed.error().message == "fds " + std::to_string(p.r) + " and " +
                                       std::to_string(other.w) + " are not the same pipe");
}

TEST_CASE("jobserver tokens over a real pipe come back, same bytes (blocking and non-blocking)") {
    for (bool nonblocking : {false, true}) {
        CAPTURE(nonblocking);
        TokenPipe p(3, nonblocking);
        auto js = Jobserver::open_pipe(p.r, p.w);
        REQUIRE(js.ok());
        Jobserver& j = **js;
        {
            auto t1 = j.try_acquire();
            auto t2 = j.try_acquire();
            auto t3 = j.try_acquire();
            REQUIRE(t1);
            REQUIRE(t2);
            REQUIRE(t3);
            CHECK(t1->byte() == 'a');
            CHECK(t3->byte() == 'c');
            CHECK(j.held() == 3);
            // Empty now: must not block, whatever the shared pipe's mode.
            CHECK_FALSE(j.try_acquire());
            CHECK(p.contents().empty());
            t2->release();
            CHECK(j.held() == 2);
            Token moved = std::move(*t1); // moving does not give it back
            CHECK(j.held() == 2);
        }
        CHECK(j.held() == 0);
        std::string back = p.contents();
        std::sort(back.begin(), back.end());
        CHECK(back == "abc");
        // The shared descriptor's own blocking mode is left as it was.
        CHECK(((::fcntl(p.r, F_GETFL) & O_NONBLOCK) != 0) == nonblocking);
    }
}

TEST_CASE("jobserver pipe at EOF stops offering tokens") {
    int p[2];
    REQUIRE(::pipe(p) == 0);
    int w2 = ::dup(p[1]);
    auto js = Jobserver::open_pipe(p[0], w2);
    REQUIRE(js.ok());
    ::close(p[1]);
    ::close(w2); // no writer left anywhere
    CHECK_FALSE((*js)->try_acquire());
    CHECK((*js)->saw_eof());
    CHECK((*js)->wait_fd() == -1);
    ::close(p[0]);
}

TEST_CASE("jobserver fifo: open, take, give back; missing fifo is an error") {
    char dir[] = "/tmp/phc-unit-js-XXXXXX";
    REQUIRE(::mkdtemp(dir));
    std::string path = std::string(dir) + "/fifo";
    REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
    int keeper = ::open(path.c_str(), O_RDWR | O_NONBLOCK);
    REQUIRE(::write(keeper, "xy", 2) == 2);
    {
        auto js = Jobserver::open_fifo(path);
        REQUIRE(js.ok());
        auto t = (*js)->try_acquire();
        REQUIRE(t);
        auto u = (*js)->try_acquire();
        REQUIRE(u);
        CHECK_FALSE((*js)->try_acquire());
        CHECK((*js)->describe() == "fifo:" + path);
    }
    char buf[4];
    CHECK(::read(keeper, buf, sizeof buf) == 2);
    ::close(keeper);
    auto missing = Jobserver::open_fifo(std::string(dir) + "/nope");
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error().message.find("No such file") != std::string::npos);
    ::unlink(path.c_str());
    ::rmdir(dir);
}

TEST_CASE("jobserver local pool and connect() fallbacks") {
    auto pool = Jobserver::local(3);
    auto a = pool->try_acquire(), b = pool->try_acquire();
    CHECK(a);
    CHECK(b);
    CHECK_FALSE(pool->try_acquire()); // implicit slot + 2 tokens = -j3
    a->release();
    CHECK(pool->try_acquire());
    auto one = Jobserver::local(1);
    CHECK_FALSE(one->try_acquire());
    auto unlimited = Jobserver::local(0);
    for (int i = 0; i < 50; ++i)
        CHECK(unlimited->try_acquire());

    std::string warning;
    auto two = [] { return Jobserver::local(2); };
    Makeflags closed = parse_makeflags(" -j4 --jobserver-auth=900,901");
    auto js = Jobserver::connect(closed, two, &warning);
    CHECK(js->describe() == "local -j2");
    CHECK(warning ==
          "jobserver '--jobserver-auth=900,901' is unusable (fd 900 is not open); using local -j2");
    warning.clear();
    auto fifo =
        Jobserver::connect(parse_makeflags("--jobserver-auth=fifo:/nonexistent/f"), two, &warning);
    CHECK(fifo->describe() == "local -j2");
    CHECK(warning.find("'--jobserver-auth=fifo:/nonexistent/f' is unusable") != std::string::npos);
    warning.clear();
    auto none = Jobserver::connect(parse_makeflags(""), two, &warning);
    CHECK(none->describe() == "local -j2");
    CHECK(warning.empty());
}
