#include "report/model.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <unordered_map>

namespace phc::report {

namespace {

/// Records from the steps' clock within this of the log's are the last build's.
constexpr int64_t kRecordSlackMs = 1000;
/// The records' clock within this of the log's last write is the last build's.
constexpr int64_t kLogSlackMs = 3000;

/// The distinct starts and ends of the steps, sorted.
std::vector<int64_t> breakpoints(const Build& b) {
    std::vector<int64_t> t;
    t.reserve(2 * b.steps.size());
    for (const Step& s : b.steps) {
        t.push_back(s.start);
        t.push_back(s.end);
    }
    std::sort(t.begin(), t.end());
    t.erase(std::unique(t.begin(), t.end()), t.end());
    return t;
}

/// The index of `x` in the sorted `t` (x is one of them).
size_t index_of(const std::vector<int64_t>& t, int64_t x) {
    return static_cast<size_t>(std::lower_bound(t.begin(), t.end(), x) - t.begin());
}

/// How many steps run in each interval [t[i], t[i + 1]).
std::vector<int> running_counts(const Build& b, const std::vector<int64_t>& t) {
    std::vector<int> delta(t.size() + 1, 0);
    for (const Step& s : b.steps) {
        if (s.end <= s.start) continue;
        ++delta[index_of(t, s.start)];
        --delta[index_of(t, s.end)];
    }
    std::vector<int> k(t.empty() ? 0 : t.size() - 1, 0);
    int now = 0;
    for (size_t i = 0; i + 1 < t.size(); ++i) {
        now += delta[i];
        k[i] = now;
    }
    return k;
}

/// The offset most others agree with: the middle of the largest group of
/// offsets within `slack` of each other (the newest such group on ties: the
/// last build's records are the newest). `v` is not empty; it is sorted.
int64_t agreed_offset(std::vector<int64_t>& v, int64_t slack) {
    std::sort(v.begin(), v.end());
    size_t best_first = 0, best_count = 0;
    for (size_t first = 0, last = 0; first < v.size(); ++first) {
        last = std::max(last, first);
        while (last + 1 < v.size() && v[last + 1] - v[first] <= slack)
            ++last;
        if (last - first + 1 >= best_count) best_first = first, best_count = last - first + 1;
    }
    return v[best_first + best_count / 2];
}

/// The group of each step: a split object's (or RDC link's) steps share one.
std::vector<uint32_t> unsplit_groups(const Build& b, bool& any) {
    std::unordered_map<std::string_view, bool> split;
    for (const Step& s : b.steps)
        if (s.kind == Kind::Device || s.kind == Kind::DeviceLink) split[s.object] = true;
    any = !split.empty();
    std::unordered_map<std::string_view, uint32_t> group_of_object;
    std::vector<uint32_t> group(b.steps.size());
    uint32_t groups = 0;
    for (uint32_t i = 0; i < b.steps.size(); ++i) {
        const Step& s = b.steps[i];
        if (!split.contains(s.object)) {
            group[i] = groups++;
            continue;
        }
        auto [it, fresh] = group_of_object.try_emplace(s.object, groups);
        if (fresh) ++groups;
        group[i] = it->second;
    }
    return group;
}

} // namespace

void measure_concurrency(Build& b) {
    std::vector<int64_t> t = breakpoints(b);
    std::vector<int> k = running_counts(b, t);
    b.max_running = k.empty() ? 0 : *std::max_element(k.begin(), k.end());
    double busy = 0;
    for (size_t i = 0; i < k.size(); ++i)
        busy += static_cast<double>(k[i]) * static_cast<double>(t[i + 1] - t[i]);
    b.mean_running = b.wall_ms > 0 ? busy / static_cast<double>(b.wall_ms) : 0;
}

std::vector<int64_t> core_shares(const Build& b, int cores) {
    std::vector<int64_t> t = breakpoints(b);
    std::vector<int> k = running_counts(b, t);
    std::vector<double> at(t.size(), 0); // the share of one step from t[0] to t[i]
    for (size_t i = 0; i < k.size(); ++i) {
        double f = k[i] > cores ? static_cast<double>(cores) / k[i] : 1.0;
        at[i + 1] = at[i] + f * static_cast<double>(t[i + 1] - t[i]);
    }
    std::vector<int64_t> share;
    share.reserve(b.steps.size());
    for (const Step& s : b.steps) {
        if (s.end <= s.start) {
            share.push_back(0);
            continue;
        }
        share.push_back(std::llround(at[index_of(t, s.end)] - at[index_of(t, s.start)]));
    }
    return share;
}

size_t attach_records(Build& b, const std::vector<sched::StepRecord>& records,
                      int64_t log_written_ms) {
    std::unordered_map<std::string_view, uint32_t> step_of;
    for (uint32_t i = 0; i < b.steps.size(); ++i)
        step_of.try_emplace(b.steps[i].output, i);
    std::vector<const sched::StepRecord*> last(b.steps.size(), nullptr);
    for (const sched::StepRecord& r : records)
        if (auto it = step_of.find(r.output); it != step_of.end()) last[it->second] = &r;
    // The records' clock is Unix time, the log's the build's: one offset between them.
    std::vector<int64_t> offsets;
    auto offset = [&](uint32_t i) {
        return last[i]->start_ms - last[i]->wait_ms - b.steps[i].start;
    };
    for (uint32_t i = 0; i < b.steps.size(); ++i)
        if (last[i] && last[i]->exit_code == 0) offsets.push_back(offset(i));
    if (offsets.empty()) return 0;
    int64_t clock = agreed_offset(offsets, kRecordSlackMs);
    // ninja wrote the log's last line when the last step ended.
    int64_t last_end = b.first_start + b.wall_ms;
    if (log_written_ms > 0 && std::llabs(log_written_ms - last_end - clock) > kLogSlackMs) return 0;
    size_t matched = 0;
    for (uint32_t i = 0; i < b.steps.size(); ++i) {
        const sched::StepRecord* r = last[i];
        Step& s = b.steps[i];
        if (!r || r->exit_code != 0 || std::llabs(offset(i) - clock) > kRecordSlackMs ||
            r->wall_ms + r->wait_ms > s.time + kRecordSlackMs)
            continue;
        s.cpu_ms = r->cpu_ms;
        s.wait_ms = r->wait_ms;
        s.peak = r->peak;
        s.reserved = r->reserved;
        s.remote = r->kind == sched::Kind::Remote;
        b.remote_steps += s.remote ? 1 : 0;
        ++matched;
    }
    b.cpu_steps = matched;
    return matched;
}

void set_costs(Build& b, int cores) {
    std::vector<int64_t> share = core_shares(b, std::max(cores, 1));
    for (size_t i = 0; i < b.steps.size(); ++i) {
        Step& s = b.steps[i];
        // A farm's work is not the workstation's CPU time: it counts by its wall time.
        s.cost = s.remote ? s.time : s.cpu_ms >= 0 ? s.cpu_ms : share[i];
    }
}

Dag cost_dag(const Build& b) {
    Dag d;
    d.time.reserve(b.steps.size());
    d.deps.reserve(b.steps.size());
    for (const Step& s : b.steps) {
        d.time.push_back(s.cost);
        d.deps.push_back(s.deps);
    }
    if (b.remote_steps > 0)
        for (const Step& s : b.steps)
            d.remote.push_back(s.remote ? 1 : 0);
    return d;
}

int64_t unsplit_schedule_ms(const Build& b, int cores) {
    bool any = false;
    std::vector<uint32_t> group = unsplit_groups(b, any);
    if (!any) return 0;
    uint32_t groups = group.empty() ? 0 : *std::max_element(group.begin(), group.end()) + 1;
    Dag d;
    d.time.assign(groups, 0);
    d.deps.resize(groups);
    for (uint32_t i = 0; i < b.steps.size(); ++i) {
        uint32_t g = group[i];
        d.time[g] += b.steps[i].cost;
        for (uint32_t dep : b.steps[i].deps) {
            uint32_t h = group[dep];
            if (h != g && std::find(d.deps[g].begin(), d.deps[g].end(), h) == d.deps[g].end())
                d.deps[g].push_back(h);
        }
    }
    return list_schedule_ms(d, cores);
}

std::vector<SplitGuess> split_guesses(const Build& b) {
    std::vector<SplitGuess> out;
    for (uint32_t i = 0; i < b.steps.size(); ++i) {
        const Step& s = b.steps[i];
        if (s.kind != Kind::HipCompile || s.offload_archs < 2) continue;
        out.push_back({i, s.offload_archs, s.cost, 2 * s.cost / (s.offload_archs + 1)});
    }
    std::stable_sort(out.begin(), out.end(), [](const SplitGuess& x, const SplitGuess& y) {
        return x.whole_ms - x.split_ms > y.whole_ms - y.split_ms;
    });
    return out;
}

int64_t split_schedule_ms(const Build& b, int cores) {
    std::vector<SplitGuess> guesses = split_guesses(b);
    if (guesses.empty()) return 0;
    Dag d = cost_dag(b);
    for (const SplitGuess& g : guesses) {
        // The step stays as the host compile; its users wait for it as before.
        int64_t part = g.whole_ms / (g.archs + 1);
        std::vector<uint32_t> devices;
        for (int k = 0; k < g.archs; ++k) {
            devices.push_back(static_cast<uint32_t>(d.time.size()));
            d.time.push_back(part);
            d.deps.push_back(b.steps[g.step].deps);
        }
        d.time[g.step] = part;
        d.deps[g.step] = devices;
    }
    return list_schedule_ms(d, cores);
}

} // namespace phc::report
