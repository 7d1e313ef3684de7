#include "report/bound.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <queue>
#include <utility>

namespace phc::report {

namespace {

/// A topological order (dependencies first) and the dependencies it honours:
/// those that close a cycle are dropped.
struct Order {
    std::vector<uint32_t> order;
    std::vector<std::vector<uint32_t>> deps;  ///< honoured dependencies per step
    std::vector<std::vector<uint32_t>> users; ///< reverse of deps
};

/// Kahn's algorithm; when only steps on cycles are left, the lowest-numbered
/// one loses its unfinished dependencies.
Order topological(const Dag& dag) {
    size_t n = dag.time.size();
    Order o;
    o.deps = dag.deps;
    o.users.resize(n);
    std::vector<uint32_t> waiting(n);
    for (uint32_t v = 0; v < n; ++v) {
        waiting[v] = static_cast<uint32_t>(o.deps[v].size());
        for (uint32_t d : o.deps[v])
            o.users[d].push_back(v);
    }
    std::vector<uint32_t> ready;
    for (uint32_t v = 0; v < n; ++v)
        if (waiting[v] == 0) ready.push_back(v);
    std::vector<char> done(n, 0);
    uint32_t next_stuck = 0;
    while (o.order.size() < n) {
        if (ready.empty()) { // a cycle: release the first unfinished step
            while (done[next_stuck] || waiting[next_stuck] == 0)
                ++next_stuck;
            uint32_t v = next_stuck;
            std::erase_if(o.deps[v], [&](uint32_t d) { return !done[d]; });
            for (auto& u : o.users)
                std::erase(u, v);
            for (uint32_t d : o.deps[v])
                o.users[d].push_back(v);
            waiting[v] = 0;
            ready.push_back(v);
        }
        uint32_t v = ready.back();
        ready.pop_back();
        done[v] = 1;
        o.order.push_back(v);
        for (uint32_t u : o.users[v])
            if (--waiting[u] == 0) ready.push_back(u);
    }
    return o;
}

/// The longest chain ending at each step (its own time included).
std::vector<int64_t> finish_times(const Dag& dag, const Order& o) {
    std::vector<int64_t> finish(dag.time.size(), 0);
    for (uint32_t v : o.order) {
        int64_t best = 0;
        for (uint32_t d : o.deps[v])
            best = std::max(best, finish[d]);
        finish[v] = best + dag.time[v];
    }
    return finish;
}

/// The longest chain starting at each step (its own time included).
std::vector<int64_t> rest_times(const Dag& dag, const Order& o) {
    std::vector<int64_t> rest(dag.time.size(), 0);
    for (auto it = o.order.rbegin(); it != o.order.rend(); ++it) {
        int64_t best = 0;
        for (uint32_t u : o.users[*it])
            best = std::max(best, rest[u]);
        rest[*it] = best + dag.time[*it];
    }
    return rest;
}

/// One longest chain, first step to last.
std::vector<uint32_t> critical_chain(const Order& o, const std::vector<int64_t>& finish) {
    std::vector<uint32_t> chain;
    if (finish.empty()) return chain;
    uint32_t v =
        static_cast<uint32_t>(std::max_element(finish.begin(), finish.end()) - finish.begin());
    for (;;) {
        chain.push_back(v);
        if (o.deps[v].empty()) break;
        v = *std::max_element(o.deps[v].begin(), o.deps[v].end(),
                              [&](uint32_t a, uint32_t b) { return finish[a] < finish[b]; });
    }
    std::reverse(chain.begin(), chain.end());
    return chain;
}

/// The time step `v` takes a worker: none when its work runs on a farm.
int64_t local_time(const Dag& dag, uint32_t v) {
    return !dag.remote.empty() && dag.remote[v] ? 0 : dag.time[v];
}

/// The local work of all ancestors of `v` (a walk marking steps with `stamp`).
int64_t ancestor_work(const Dag& dag, const Order& o, uint32_t v, std::vector<uint32_t>& seen,
                      uint32_t stamp, std::vector<uint32_t>& stack) {
    int64_t sum = 0;
    stack.assign(1, v);
    while (!stack.empty()) {
        uint32_t x = stack.back();
        stack.pop_back();
        for (uint32_t d : o.deps[x]) {
            if (seen[d] == stamp) continue;
            seen[d] = stamp;
            sum += local_time(dag, d);
            stack.push_back(d);
        }
    }
    return sum;
}

/// max over v of ancestor_work(v) / cores + rest[v] (`total`: the local work).
/// Exact walks are costly
/// (quadratic on deep graphs), so steps are tried in decreasing order of an
/// upper bound (the ancestors' work counted once per path, at most all the
/// other work) and the search stops when no bound can beat the best found.
double per_step_bound(const Dag& dag, const Order& o, const std::vector<int64_t>& rest,
                      int64_t total, int cores) {
    size_t n = dag.time.size();
    std::vector<int64_t> upper(n, 0);
    for (uint32_t v : o.order) {
        int64_t sum = 0;
        for (uint32_t d : o.deps[v])
            sum = std::min(total, sum + upper[d] + local_time(dag, d));
        upper[v] = std::min(sum, total - local_time(dag, v));
    }
    auto value = [&](int64_t anc, uint32_t v) {
        return static_cast<double>(anc) / cores + static_cast<double>(rest[v]);
    };
    std::vector<uint32_t> candidates(n);
    std::iota(candidates.begin(), candidates.end(), 0u);
    std::sort(candidates.begin(), candidates.end(),
              [&](uint32_t a, uint32_t b) { return value(upper[a], a) > value(upper[b], b); });
    double best = 0;
    std::vector<uint32_t> seen(n, 0), stack;
    uint32_t stamp = 0;
    for (uint32_t v : candidates) {
        if (value(upper[v], v) <= best) break;
        int64_t anc = upper[v] == 0 ? 0 : ancestor_work(dag, o, v, seen, ++stamp, stack);
        best = std::max(best, value(anc, v));
    }
    return best;
}

/// Runs the steps on `cores` workers, always starting the ready step with the
/// longest chain ahead of it (lowest index on ties); a step on a farm starts
/// when it is ready, without a worker. Returns the makespan.
int64_t list_schedule(const Dag& dag, const Order& o, const std::vector<int64_t>& rest, int cores) {
    using Ready = std::pair<int64_t, uint32_t>;   // (-rest, step)
    using Running = std::pair<int64_t, uint32_t>; // (end, step)
    std::priority_queue<Ready, std::vector<Ready>, std::greater<>> ready;
    std::priority_queue<Running, std::vector<Running>, std::greater<>> running;
    std::vector<uint32_t> waiting(dag.time.size());
    auto on_farm = [&](uint32_t v) { return !dag.remote.empty() && dag.remote[v]; };
    int64_t now = 0;
    int free = cores;
    auto start = [&](uint32_t v) {
        running.emplace(now + dag.time[v], v);
        if (!on_farm(v)) --free;
    };
    for (uint32_t v = 0; v < dag.time.size(); ++v) {
        waiting[v] = static_cast<uint32_t>(o.deps[v].size());
        if (waiting[v] == 0 && on_farm(v))
            start(v);
        else if (waiting[v] == 0)
            ready.emplace(-rest[v], v);
    }
    while (!ready.empty() || !running.empty()) {
        while (!ready.empty() && free > 0) {
            uint32_t v = ready.top().second;
            ready.pop();
            start(v);
        }
        auto [end, v] = running.top();
        running.pop();
        now = end;
        if (!on_farm(v)) ++free;
        for (uint32_t u : o.users[v])
            if (--waiting[u] == 0) {
                if (on_farm(u))
                    start(u);
                else
                    ready.emplace(-rest[u], u);
            }
    }
    return now;
}

} // namespace

Bound compute_bound(const Dag& dag, int cores) {
    cores = std::max(cores, 1);
    Order o = topological(dag);
    Bound b;
    b.work_ms = std::accumulate(dag.time.begin(), dag.time.end(), int64_t{0});
    for (uint32_t v = 0; v < dag.time.size(); ++v)
        b.local_ms += local_time(dag, v);
    std::vector<int64_t> finish = finish_times(dag, o);
    std::vector<int64_t> rest = rest_times(dag, o);
    b.critical_ms = finish.empty() ? 0 : *std::max_element(finish.begin(), finish.end());
    b.critical_path = critical_chain(o, finish);
    // As Python's max(critical, total / cores, per_edge): the first largest wins.
    b.bound_ms = static_cast<double>(b.critical_ms);
    double share = static_cast<double>(b.local_ms) / cores;
    double per_step = per_step_bound(dag, o, rest, b.local_ms, cores);
    for (double candidate : {share, per_step}) {
        if (candidate > b.bound_ms) {
            b.bound_ms = candidate;
            b.bound_is_critical = false;
        }
    }
    if (!dag.remote.empty()) {
        // Local work that cannot start before t (its chain of steps, the
        // farm's among them, takes t) needs t + that work / cores at least.
        std::vector<std::pair<int64_t, int64_t>> released; // (earliest start, time)
        for (uint32_t v = 0; v < dag.time.size(); ++v)
            if (local_time(dag, v) > 0) released.emplace_back(finish[v] - dag.time[v], dag.time[v]);
        std::sort(released.begin(), released.end(), std::greater<>());
        int64_t later = 0;
        for (auto [at, time] : released) {
            later += time;
            double candidate = static_cast<double>(at) + static_cast<double>(later) / cores;
            if (candidate > b.bound_ms) b.bound_ms = candidate, b.bound_is_critical = false;
        }
    }
    b.list_schedule_ms = list_schedule(dag, o, rest, cores);
    return b;
}

int64_t list_schedule_ms(const Dag& dag, int cores) {
    Order o = topological(dag);
    return list_schedule(dag, o, rest_times(dag, o), std::max(cores, 1));
}

std::vector<uint32_t> assign_lanes(const std::vector<int64_t>& start,
                                   const std::vector<int64_t>& end) {
    size_t n = start.size();
    std::vector<uint32_t> order(n), lane(n, 0);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        return start[a] != start[b] ? start[a] < start[b] : end[a] > end[b];
    });
    using Busy = std::pair<int64_t, uint32_t>; // (end, lane)
    std::priority_queue<Busy, std::vector<Busy>, std::greater<>> busy;
    std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> free;
    uint32_t lanes = 0;
    for (uint32_t v : order) {
        while (!busy.empty() && busy.top().first <= start[v]) {
            free.push(busy.top().second);
            busy.pop();
        }
        uint32_t l = lanes;
        if (free.empty()) {
            ++lanes;
        } else {
            l = free.top();
            free.pop();
        }
        lane[v] = l;
        busy.emplace(std::max(end[v], start[v]), l);
    }
    return lane;
}

} // namespace phc::report
