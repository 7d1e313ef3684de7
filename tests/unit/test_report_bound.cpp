// report: the bound on any schedule of the measured steps, against hand-made
// graphs with a known optimum and against the script's algorithm done naively.
#include "report/bound.h"

#include <algorithm>
#include <doctest/doctest.h>
#include <random>
#include <set>

using namespace phc::report;

namespace {

/// The former scripts/ninja-timing's per-edge bound, done the slow way (ancestor sets).
double naive_bound(const Dag& d, int cores) {
    size_t n = d.time.size();
    std::vector<std::set<uint32_t>> anc(n);
    std::vector<int64_t> finish(n, 0), rest(n, 0);
    // Steps are numbered after their dependencies in these tests.
    for (uint32_t v = 0; v < n; ++v) {
        for (uint32_t p : d.deps[v]) {
            anc[v].insert(p);
            anc[v].insert(anc[p].begin(), anc[p].end());
            finish[v] = std::max(finish[v], finish[p]);
        }
        finish[v] += d.time[v];
    }
    for (uint32_t v = static_cast<uint32_t>(n); v-- > 0;) {
        rest[v] += d.time[v];
        for (uint32_t p : d.deps[v])
            rest[p] = std::max(rest[p], rest[v]);
    }
    int64_t total = 0, critical = 0;
    for (uint32_t v = 0; v < n; ++v) {
        total += d.time[v];
        critical = std::max(critical, finish[v]);
    }
    double best = std::max(static_cast<double>(critical), static_cast<double>(total) / cores);
    for (uint32_t v = 0; v < n; ++v) {
        int64_t w = 0;
        for (uint32_t a : anc[v])
            w += d.time[a];
        best = std::max(best, static_cast<double>(w) / cores + static_cast<double>(rest[v]));
    }
    return best;
}

} // namespace

TEST_CASE("report bound: independent steps, the work shared by the cores") {
    Dag d{{3, 3, 2, 2, 2}, {{}, {}, {}, {}, {}}};
    Bound b = compute_bound(d, 2);
    CHECK(b.work_ms == 12);
    CHECK(b.critical_ms == 3);
    CHECK(b.bound_ms == 6.0); // optimum: {3,3} and {2,2,2}
    CHECK_FALSE(b.bound_is_critical);
    CHECK(b.list_schedule_ms == 7); // longest first: 3,3 then 2,2 then 2
}

TEST_CASE("report bound: a chain is the bound, an integer") {
    Dag d{{5, 5, 1, 1}, {{}, {0}, {}, {}}};
    Bound b = compute_bound(d, 2);
    CHECK(b.critical_ms == 10);
    CHECK(b.bound_ms == 10.0);
    CHECK(b.bound_is_critical);
    CHECK(b.list_schedule_ms == 10);
    CHECK(b.critical_path == std::vector<uint32_t>{0, 1});
}

TEST_CASE("report bound: fork-join, the join waits for all the work before it") {
    // Four 4 ms compiles then a 4 ms link on 2 cores: 16 / 2 + 4 = 12, the optimum.
    Dag d{{4, 4, 4, 4, 4}, {{}, {}, {}, {}, {0, 1, 2, 3}}};
    Bound b = compute_bound(d, 2);
    CHECK(b.critical_ms == 8);
    CHECK(b.bound_ms == 12.0);
    CHECK(b.list_schedule_ms == 12);
}

TEST_CASE("report bound: shared ancestors count once") {
    // s0..s3 (4 ms) -> x, y (1 ms) -> z (1 ms), on 4 cores: the optimum is 6.
    // Counted per path z's ancestors would be 34 ms (34/4 + 1 = 9.5 > 6).
    Dag d{{4, 4, 4, 4, 1, 1, 1}, {{}, {}, {}, {}, {0, 1, 2, 3}, {0, 1, 2, 3}, {4, 5}}};
    Bound b = compute_bound(d, 4);
    CHECK(b.bound_ms == 6.0);
    CHECK(b.list_schedule_ms == 6);
    Bound one = compute_bound(d, 1);
    CHECK(one.bound_ms == 19.0);
    CHECK(one.list_schedule_ms == 19);
}

TEST_CASE("report bound: steps on a farm take no core, but their chains count") {
    // Eight 10 ms device compiles on the farm, each followed by a 1 ms local
    // step, on 1 core: the farm's work never queues for the core.
    Dag d;
    for (uint32_t i = 0; i < 8; ++i) {
        d.time.push_back(10);
        d.deps.emplace_back();
        d.remote.push_back(1);
    }
    for (uint32_t i = 0; i < 8; ++i) {
        d.time.push_back(1);
        d.deps.push_back({i});
        d.remote.push_back(0);
    }
    Bound b = compute_bound(d, 1);
    CHECK(b.work_ms == 88);
    CHECK(b.local_ms == 8);
    CHECK(b.critical_ms == 11);
    CHECK(b.bound_ms == 18.0); // all remote work is done by 10; then 8 local ms at best
    CHECK(b.list_schedule_ms == 18);
    // The same steps all local: the single core does all the work.
    d.remote.assign(16, 0);
    Bound local = compute_bound(d, 1);
    CHECK(local.local_ms == 88);
    CHECK(local.bound_ms == 88.0);
    CHECK(local.list_schedule_ms == 88);
}

TEST_CASE("report bound: equals the script's algorithm on random graphs") {
    std::mt19937 rng(7);
    for (int round = 0; round < 200; ++round) {
        size_t n = 1 + rng() % 40;
        Dag d;
        for (uint32_t v = 0; v < n; ++v) {
            d.time.push_back(static_cast<int64_t>(rng() % 50));
            std::vector<uint32_t> deps;
            for (uint32_t p = 0; p < v; ++p)
                if (rng() % 6 == 0) deps.push_back(p);
            d.deps.push_back(deps);
        }
        int cores = 1 + static_cast<int>(rng() % 5);
        Bound b = compute_bound(d, cores);
        CHECK(b.bound_ms == naive_bound(d, cores));
        CHECK(static_cast<double>(b.list_schedule_ms) >= b.bound_ms);
        CHECK(list_schedule_ms(d, cores) == b.list_schedule_ms);
    }
}

TEST_CASE("report bound: no steps, and a dependency cycle does not hang") {
    Bound none = compute_bound(Dag{}, 4);
    CHECK(none.bound_ms == 0.0);
    CHECK(none.list_schedule_ms == 0);
    Dag cycle{{2, 3, 4}, {{1}, {0}, {1}}};
    Bound b = compute_bound(cycle, 1);
    CHECK(b.work_ms == 9);
    CHECK(b.list_schedule_ms == 9);
}

TEST_CASE("report lanes: steps in one lane never overlap; lanes = most running at once") {
    std::vector<int64_t> start{0, 0, 5, 10, 10, 12, 30}, end{10, 5, 12, 20, 30, 13, 31};
    auto lane = assign_lanes(start, end);
    for (size_t i = 0; i < start.size(); ++i)
        for (size_t j = i + 1; j < start.size(); ++j)
            if (lane[i] == lane[j]) CHECK((end[i] <= start[j] || end[j] <= start[i]));
    CHECK(*std::max_element(lane.begin(), lane.end()) == 2); // 10..12: three at once
}
