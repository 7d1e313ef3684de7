// report: the model behind the numbers: concurrency from the log, each
// step's core share when more steps ran than cores, CPU times from phc-ninja
// step's records, the bound never beaten by the build, the split build
// against its steps one object after another, and a plain build split.
// Expected values are worked out by hand in the comments.
#include "ninja/build_log.h"
#include "ninja/manifest.h"
#include "report/report.h"
#include "report/summary.h"
#include "sched/steps.h"
#include "scratch.h"
#include "util/file.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>
#include <random>
#include <sys/stat.h>

using namespace phc;
using namespace phc::report;

namespace {

/// A step from `start` to `end` (ms), of `kind`, of `object`, after `deps`.
Step make_step(int64_t start, int64_t end, Kind kind, std::string output, std::string object,
               std::vector<uint32_t> deps = {}) {
    Step s;
    s.start = start;
    s.end = end;
    s.time = end - start;
    s.kind = kind;
    s.output = std::move(output);
    s.object = std::move(object);
    s.deps = std::move(deps);
    return s;
}

/// A build of `steps` (first start 0, wall the last end).
Build make(std::vector<Step> steps) {
    Build b;
    b.steps = std::move(steps);
    for (const Step& s : b.steps)
        b.wall_ms = std::max(b.wall_ms, s.end);
    b.runs = 1;
    return b;
}

/// One split object: two device compiles at once, the bundle, the host compile.
std::vector<Step> split_object(int64_t device_end) {
    Step a = make_step(0, device_end, Kind::Device, "k.o.phc/gfx906.o", "k.o");
    a.arch = "gfx906";
    Step b = make_step(0, device_end, Kind::Device, "k.o.phc/gfx90a.o", "k.o");
    b.arch = "gfx90a";
    return {
        a, b,
        make_step(device_end, device_end + 5, Kind::Bundle, "k.o.phc/bundle.hipfb", "k.o", {0, 1}),
        make_step(device_end + 5, device_end + 55, Kind::Host, "k.o", "k.o", {2})};
}

} // namespace

TEST_CASE("report model: four steps at once on 2 cores: shares, not wall times, and a bound the "
          "build does not beat") {
    // Each of four CPU-bound steps had half a core for 100 ms: 50 ms each.
    std::vector<Step> steps;
    for (int i = 0; i < 4; ++i)
        steps.push_back(
            make_step(0, 100, Kind::Compile, "o" + std::to_string(i), "o" + std::to_string(i)));
    Analysis a = analyse(make(steps), 2);
    CHECK(a.build.max_running == 4);
    CHECK(a.build.mean_running == doctest::Approx(4.0));
    for (const Step& s : a.build.steps)
        CHECK(s.cost == 50);
    CHECK(a.wall_work_ms == 400);
    CHECK(a.bound.work_ms == 200);
    // Before: 400 / 2 = 200 ms, twice what the build took.
    CHECK(a.bound.bound_ms == 100.0);
    CHECK_FALSE(a.bound_beaten);
    std::string text = text_summary(a, "b");
    CHECK(text.find("up to 4 steps at once, 4.0 on average, on 2 cores: more than the cores") !=
          std::string::npos);
    CHECK(text.find("best any schedule could reach on 2 cores: 0.1 s") != std::string::npos);
}

TEST_CASE("report model: shares where the count of running steps changes") {
    // A, B, C run 0-100, D 50-150, on 2 cores. 0-50: three run (2/3 each);
    // 50-100: four (1/2 each); 100-150: D alone (all of a core).
    std::vector<Step> steps;
    for (const char* o : {"a", "b", "c"})
        steps.push_back(make_step(0, 100, Kind::Compile, o, o));
    steps.push_back(make_step(50, 150, Kind::Compile, "d", "d"));
    Build b = make(steps);
    std::vector<int64_t> share = core_shares(b, 2);
    CHECK(share == std::vector<int64_t>{58, 58, 58, 75}); // 33.3 + 25, and 25 + 50
    measure_concurrency(b);
    CHECK(b.max_running == 4);
    CHECK(b.mean_running == doctest::Approx((3 * 50 + 4 * 50 + 50) / 150.0));
    // No more at once than cores: shares are the wall times.
    CHECK(core_shares(b, 4) == std::vector<int64_t>{100, 100, 100, 100});
}

TEST_CASE("report model: on random builds the shares' bound never exceeds the wall time") {
    std::mt19937 rng(27);
    for (int round = 0; round < 300; ++round) {
        std::vector<Step> steps;
        size_t n = 1 + rng() % 30;
        for (uint32_t i = 0; i < n; ++i) {
            std::vector<uint32_t> deps;
            int64_t start = static_cast<int64_t>(rng() % 200);
            for (uint32_t p = 0; p < i; ++p)
                if (rng() % 5 == 0) {
                    deps.push_back(p);
                    start = std::max(start, steps[p].end); // ninja starts it after its inputs
                }
            int64_t end = start + static_cast<int64_t>(rng() % 100);
            steps.push_back(
                make_step(start, end, Kind::Compile, "o" + std::to_string(i), "x", deps));
        }
        int cores = 1 + static_cast<int>(rng() % 4);
        Analysis a = analyse(make(steps), cores);
        // The shares are rounded to whole ms: one ms per step of slack.
        CHECK(a.bound.bound_ms <= static_cast<double>(a.build.wall_ms) + static_cast<double>(n));
        CHECK(static_cast<double>(a.bound.work_ms) <=
              cores * static_cast<double>(a.build.wall_ms) + static_cast<double>(n));
    }
}

TEST_CASE("report model: the split build against its steps one object after another") {
    // On 2 cores, no more at once than cores: two 100 ms device compiles side
    // by side, bundle 5, host 50: split 155 ms; the driver runs all four in
    // turn: 255 ms.
    Analysis a = analyse(make(split_object(100)), 2);
    CHECK(a.build.wall_ms == 155);
    CHECK(a.unsplit_ms == 255);
    CHECK(a.bound.list_schedule_ms == 155);
    CHECK(a.objects.front().total_ms == 255);
    // On 1 core the two device compiles were time-sliced: 200 ms each on the
    // wall, 100 ms each of the core. Summing wall times said unsplit 455 ms.
    Analysis one = analyse(make(split_object(200)), 1);
    CHECK(one.build.wall_ms == 255);
    CHECK(one.wall_work_ms == 455);
    CHECK(one.unsplit_ms == 255);
    CHECK(one.objects.front().total_ms == 255);
    CHECK_FALSE(one.bound_beaten);
    std::string text = text_summary(one, "b");
    CHECK(text.find("the split build took 0.3 s; its steps, one object after another as the "
                    "driver runs them, would have taken about 0.3 s on the same 1 cores") !=
          std::string::npos);
}

TEST_CASE("report model: a plain build's whole HIP compiles, split by estimate") {
    // A 400 ms compile of 3 architectures: 3 device compiles and a host
    // compile of 100 ms each; with a core per architecture 100 + 100 ms.
    Step w = make_step(0, 400, Kind::HipCompile, "w.hip.o", "w.hip.o");
    w.offload_archs = 3;
    Step link = make_step(400, 420, Kind::Other, "app", "app", {0});
    Analysis a = analyse(make({w, link}), 4);
    REQUIRE(a.guesses.size() == 1);
    CHECK(a.guesses[0].whole_ms == 400);
    CHECK(a.guesses[0].split_ms == 200);
    CHECK(a.unsplit_ms == 0);
    CHECK(a.bound.list_schedule_ms == 420);
    CHECK(a.split_guess_ms == 220); // the link still waits for the host compile
    std::string text = text_summary(a, "b");
    CHECK(text.find("splitting its 1 whole HIP compiles would save about 0.2 s of the 0.4 s it "
                    "took, on the same 4 cores") != std::string::npos);
    // On one core nothing runs side by side: no saving.
    Analysis one = analyse(make({w, link}), 1);
    CHECK(one.split_guess_ms == 420);
    CHECK(text_summary(one, "b").find("splitting its 1 whole HIP compiles would not make it "
                                      "faster") != std::string::npos);
}

TEST_CASE("report model: recorded CPU times of the last build are used, stale ones not") {
    // Three steps on 1 core, two at once: shares 50 ms each for d0 and d1.
    Build b = make({make_step(0, 100, Kind::Compile, "d0", "d0"),
                    make_step(0, 100, Kind::Compile, "d1", "d1"),
                    make_step(100, 130, Kind::Other, "app", "app", {0, 1})});
    const int64_t t0 = 1'790'000'000'000; // the build's start on the records' clock
    auto rec = [](int64_t start, int64_t wall, int64_t cpu, std::string out, uint64_t peak) {
        sched::StepRecord r;
        r.start_ms = start, r.wall_ms = wall, r.cpu_ms = cpu, r.peak = peak,
        r.output = std::move(out);
        return r;
    };
    std::vector<sched::StepRecord> records = {
        rec(t0 - 3'600'000, 100, 999, "d0", 1), // an hour older: replaced by the next
        rec(t0 + 3, 97, 70, "d0", 300u << 20),  // 3 ms after ninja started it
        rec(t0 - 3'600'000, 30, 999, "app", 1), // an earlier build's, the last of app: stale
        rec(t0 + 2, 98, 40, "elsewhere", 1),    // no step of this build
    };
    sched::StepRecord failed = rec(t0 + 1, 90, 555, "d1", 1);
    failed.exit_code = 1;
    records.push_back(failed);
    // Through the file format phc-ninja step writes, a torn line at its end.
    std::string text;
    for (const auto& r : records)
        text += sched::record_line(r);
    text += "v1\t1790000000000\t5";
    CHECK(attach_records(b, sched::parse_records(text)) == 1);
    Analysis a = analyse(std::move(b), 1);
    CHECK(a.build.steps[0].cost == 70);
    CHECK(a.build.steps[0].peak == 300u << 20);
    CHECK(a.build.steps[1].cost == 50); // its share
    CHECK(a.build.steps[2].cost == 30);
    CHECK(a.build.cpu_steps == 1);
    CHECK(cost_basis(a).starts_with("CPU time (recorded by phc-ninja step) for 1 of 3 steps; for "
                                    "the others, wall time counted as a share"));
}

TEST_CASE("report model: a farm's steps count by their wall time, never against the cores") {
    // Four device compiles of 1 s that ran on a farm (the engine's client used
    // 5 ms of CPU each), then a local link of 100 ms, on 1 core.
    Build b = make({make_step(0, 1000, Kind::Device, "d0", "x.o"),
                    make_step(0, 1000, Kind::Device, "d1", "x.o"),
                    make_step(0, 1000, Kind::Device, "d2", "y.o"),
                    make_step(0, 1000, Kind::Device, "d3", "y.o"),
                    make_step(1000, 1100, Kind::Other, "app", "app", {0, 1, 2, 3})});
    const int64_t t0 = 1'790'000'000'000;
    std::string text;
    for (int i = 0; i < 4; ++i) {
        sched::StepRecord r;
        r.start_ms = t0, r.wall_ms = 1000, r.cpu_ms = 5, r.kind = sched::Kind::Remote;
        r.output = "d" + std::to_string(i);
        text += sched::record_line(r);
    }
    sched::StepRecord link;
    link.start_ms = t0 + 1000, link.wall_ms = 100, link.cpu_ms = 100, link.output = "app";
    text += sched::record_line(link);
    CHECK(attach_records(b, sched::parse_records(text)) == 5);
    Analysis a = analyse(std::move(b), 1);
    CHECK(a.build.remote_steps == 4);
    CHECK(a.build.steps[0].cost == 1000); // its wall time, not the client's 5 ms
    CHECK(a.bound.local_ms == 100);
    CHECK(a.bound.bound_ms == 1100.0); // four 1 s compiles on one core would be 4.1 s
    CHECK_FALSE(a.bound_beaten);
    CHECK(farm_words(a).starts_with("4 of 5 steps ran on a farm, 4.0 s of their wall time"));
    CHECK(farm_words(a).find("used 0.1 s of its 1 cores × 1.1 s (9% busy)") != std::string::npos);
    CHECK(cost_basis(a) == "CPU time (recorded by phc-ninja step) for 1 of 5 steps; wall time "
                           "for the 4 whose work ran on a farm");
    auto json = nlohmann::json::parse(json_summary(a));
    CHECK(json["farm"]["steps"] == 4);
    CHECK(json["farm"]["wall_ms"] == 4000);
    CHECK(json["farm"]["local_work_ms"] == 100);
    CHECK(text_summary(a, "b").find("\nfarm: 4 of 5 steps ran on a farm") != std::string::npos);
}

TEST_CASE("report model: CPU times over the wall time: no bound is printed") {
    // A link that used 4 cores: 400 ms of CPU in 100 ms; the build beat any
    // "bound" made from CPU times on 2 cores.
    Build b = make({make_step(0, 100, Kind::Other, "app", "app")});
    b.steps[0].cpu_ms = 400;
    b.cpu_steps = 1;
    Analysis a = analyse(std::move(b), 2);
    CHECK(a.bound.bound_ms == 400.0);
    CHECK(a.bound_beaten);
    std::string text = text_summary(a, "b");
    CHECK(text.find("best any schedule") == std::string::npos);
    CHECK(text.find("no bound on 2 cores") != std::string::npos);
    auto json = nlohmann::json::parse(json_summary(a));
    CHECK(json["bound_beaten"] == true);
    CHECK(json["bound_ms"].is_null());
}

TEST_CASE("report model: run_report reads .phc-ninja/steps beside the log, and works without it") {
    test::ScratchDir dir;
    test::InDir in(dir.path());
    REQUIRE(util::write_file_atomic("build.ninja", "rule cc\n  command = cc -c $in -o $out\n"
                                                   "build a.o: cc a.c\nbuild b.o: cc b.c\n"));
    REQUIRE(util::write_file_atomic(".ninja_log",
                                    "# ninja log v5\n0\t200\t1\ta.o\th\n0\t200\t1\tb.o\th\n"));
    Request r;
    r.cores = 1;
    r.json = true;
    auto plain = run_report(r);
    REQUIRE(plain);
    auto j = nlohmann::json::parse(*plain);
    CHECK(j["work_ms"] == 200); // two steps sharing one core
    CHECK(j["cpu_steps"] == 0);
    std::filesystem::create_directory(".phc-ninja");
    // The records' clock: the log was last written when its last step ended (200 ms).
    struct stat st {};
    REQUIRE(::stat(".ninja_log", &st) == 0);
    int64_t t0 =
        static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1'000'000 - 200;
    sched::StepRecord x;
    x.start_ms = t0, x.wall_ms = 199, x.cpu_ms = 60, x.peak = 1u << 20, x.output = "a.o";
    std::string lines = sched::record_line(x);
    x.cpu_ms = 90, x.output = "b.o";
    lines += sched::record_line(x);
    REQUIRE(util::write_file_atomic(".phc-ninja/steps", lines));
    auto recorded = run_report(r);
    REQUIRE(recorded);
    j = nlohmann::json::parse(*recorded);
    CHECK(j["work_ms"] == 150);
    CHECK(j["cpu_steps"] == 2);
    CHECK(j["max_running"] == 2);
    // The same records a minute older than the log: an earlier build's.
    x.start_ms = t0 - 60'000, x.output = "a.o";
    lines = sched::record_line(x);
    x.output = "b.o";
    lines += sched::record_line(x);
    REQUIRE(util::write_file_atomic(".phc-ninja/steps", lines));
    auto stale = run_report(r);
    REQUIRE(stale);
    CHECK(nlohmann::json::parse(*stale)["cpu_steps"] == 0);
}
