#include "report/build.h"

#include <algorithm>
#include <array>
#include <limits>

namespace phc::report {

namespace {

constexpr std::array<std::string_view, 11> kKindNames = {
    "HIP device",      "HIP bundle",     "HIP host compile",
    "HIP device link", "HIP fatbin",     "HIP fatbin object",
    "HIP unbundle",    "HIP host link",  "HIP compile (all architectures in one step)",
    "other compile",   "link and other",
};

/// True when `s` ends in `suffix`.
bool ends(std::string_view s, std::string_view suffix) {
    return s.ends_with(suffix);
}

/// The object a split step belongs to: what precedes ".phc/" in its output
/// ("x.o.phc/gfx906.o" -> "x.o"), else the output itself.
std::string_view object_of(std::string_view output) {
    size_t at = output.rfind(".phc/");
    return at == std::string_view::npos ? output : output.substr(0, at);
}

/// The word after `prefix` in `text` ("HIP link gfx906 app" after "HIP link " -> "gfx906").
std::string_view word_after(std::string_view text, std::string_view prefix) {
    std::string_view rest = text.substr(prefix.size());
    return rest.substr(0, rest.find(' '));
}

/// Classifies a PHC_HIP_STEP edge (an RDC link's steps) from its description.
void classify_link_step(Step& s, std::string_view d) {
    if (d.starts_with("HIP link ")) {
        s.kind = Kind::DeviceLink;
        s.arch = word_after(d, "HIP link ");
    } else if (d.starts_with("HIP fatbin object")) {
        s.kind = Kind::FatbinObject;
    } else if (d.starts_with("HIP fatbin")) {
        s.kind = Kind::Fatbin;
    } else if (d.starts_with("HIP unbundle")) {
        s.kind = Kind::Unbundle;
    } else if (d.starts_with("HIP host link")) {
        s.kind = Kind::HostLink;
    } else {
        s.kind = Kind::Other;
    }
    // Every link step's description ends in the linked file's name.
    size_t sp = d.rfind(' ');
    s.object = sp == std::string_view::npos ? object_of(s.output) : d.substr(sp + 1);
}

/// Classifies an edge that is no split step, from its output (as the script did).
void classify_plain(Step& s, int offload_archs) {
    std::string_view o = s.output;
    s.object = o;
    s.offload_archs = offload_archs;
    if (offload_archs >= 2 || ends(o, ".hip.o") || ends(o, ".hip.obj"))
        s.kind = Kind::HipCompile;
    else if (ends(o, ".o") || ends(o, ".obj"))
        s.kind = Kind::Compile;
    else
        s.kind = Kind::Other;
}

/// The short word for a kind in labels ("" for links and others).
std::string_view short_kind(Kind k) {
    switch (k) {
    case Kind::Device:
        return "device";
    case Kind::Bundle:
        return "bundle";
    case Kind::Host:
        return "host";
    case Kind::DeviceLink:
        return "device link";
    case Kind::Fatbin:
        return "fatbin";
    case Kind::FatbinObject:
        return "fatbin object";
    case Kind::Unbundle:
        return "unbundle";
    case Kind::HostLink:
        return "host link";
    case Kind::HipCompile:
        return "HIP";
    case Kind::Compile:
        return "compile";
    case Kind::Other:
        break;
    }
    return "";
}

} // namespace

std::string short_label(const Step& s) {
    if (s.kind == Kind::Device) return s.arch;
    if (s.kind == Kind::DeviceLink) return "link " + s.arch;
    return std::string(short_kind(s.kind));
}

std::string_view kind_name(Kind k) {
    return kKindNames[static_cast<size_t>(k)];
}

std::string kind_key(Kind k, std::string_view arch) {
    std::string key(kind_name(k));
    if ((k == Kind::Device || k == Kind::DeviceLink) && !arch.empty()) {
        key += ' ';
        key += arch;
    }
    return key;
}

int count_offload_archs(std::string_view command) {
    int n = 0;
    for (std::string_view flag : {"--offload-arch", "--cuda-gpu-arch"}) {
        for (size_t at = command.find(flag); at != std::string_view::npos;
             at = command.find(flag, at + flag.size())) {
            char next = at + flag.size() < command.size() ? command[at + flag.size()] : ' ';
            if (next == '=' || next == ' ') ++n;
        }
    }
    return n;
}

void classify(Step& s, std::string_view rule, std::string_view description, int offload_archs) {
    if (rule.starts_with("PHC_HIP_DEVICE")) {
        s.kind = Kind::Device;
        s.object = object_of(s.output);
        if (s.arch.empty() && description.starts_with("HIP "))
            s.arch = word_after(description, "HIP ");
        if (s.arch.empty()) { // x.o.phc/gfx906.o
            std::string_view file = std::string_view(s.output).substr(s.output.rfind('/') + 1);
            s.arch = file.substr(0, file.rfind('.'));
        }
    } else if (rule.starts_with("PHC_HIP_BUNDLE")) {
        s.kind = Kind::Bundle;
        s.object = object_of(s.output);
    } else if (rule == "PHC_HIP_HOST") {
        s.kind = Kind::Host;
        s.object = object_of(s.output);
    } else if (rule.starts_with("PHC_HIP_STEP")) {
        classify_link_step(s, description);
    } else {
        classify_plain(s, offload_archs);
    }
}

namespace {

/// The step index of each manifest edge (-1: not measured), and the steps
/// made from the log's entries.
struct Joined {
    std::vector<int32_t> step_of_edge;
    Build build;
};

/// One step per measured edge, with its times.
Joined join_entries(const ninja::Manifest& m, const ninja::BuildLog& log) {
    Joined j;
    j.step_of_edge.assign(m.edge_count(), -1);
    int64_t first = std::numeric_limits<int64_t>::max(), last = 0;
    for (const ninja::LogEntry& e : log.entries) {
        first = std::min(first, e.start);
        last = std::max(last, e.end);
        auto node = m.find_node(e.output);
        int32_t edge = node ? m.producer(*node) : -1;
        int32_t* slot = edge >= 0 ? &j.step_of_edge[static_cast<size_t>(edge)] : nullptr;
        if (slot && *slot >= 0) {
            Step& s = j.build.steps[static_cast<size_t>(*slot)];
            s.time = std::max(s.time, e.end - e.start);
            s.end = s.start + s.time;
            continue;
        }
        if (slot) *slot = static_cast<int32_t>(j.build.steps.size());
        Step s;
        s.start = e.start;
        s.time = e.end - e.start;
        s.end = e.end;
        s.output = e.output;
        s.edge = edge;
        j.build.steps.push_back(std::move(s));
    }
    j.build.first_start = log.entries.empty() ? 0 : first;
    j.build.wall_ms = log.entries.empty() ? 0 : last - first;
    j.build.runs = log.runs;
    return j;
}

/// The measured producers of an edge's inputs, each once, never the step itself.
std::vector<uint32_t> measured_deps(const ninja::Manifest& m, const ninja::EdgeRef& e,
                                    const std::vector<int32_t>& step_of_edge, uint32_t self) {
    std::vector<uint32_t> deps;
    auto add = [&](const std::vector<std::string_view>& paths) {
        for (std::string_view p : paths) {
            auto node = m.find_node(p);
            int32_t producer = node ? m.producer(*node) : -1;
            int32_t step = producer >= 0 ? step_of_edge[static_cast<size_t>(producer)] : -1;
            if (step < 0 || static_cast<uint32_t>(step) == self) continue;
            if (std::find(deps.begin(), deps.end(), static_cast<uint32_t>(step)) == deps.end())
                deps.push_back(static_cast<uint32_t>(step));
        }
    };
    add(e.inputs());
    add(e.implicit_inputs());
    add(e.order_only());
    return deps;
}

/// Classifies a step of a manifest edge (descriptions and commands are
/// evaluated only when the rule or output needs them).
void classify_edge(Step& s, const ninja::EdgeRef& e) {
    std::string_view rule = e.rule().name;
    std::string description;
    if (const auto* arch = e.binding("PHC_ARCH")) s.arch = arch->value;
    if (rule.starts_with("PHC_HIP_STEP")) {
        const auto* desc = e.binding("PHC_DESC");
        if (desc) {
            description = desc->value;
        } else if (auto d = e.evaluate("description")) {
            description = *d;
        }
    } else if (rule.starts_with("PHC_HIP_DEVICE") && s.arch.empty()) {
        if (auto d = e.evaluate("description")) description = *d;
    }
    int archs = 0;
    if (!rule.starts_with("PHC_HIP_") && (ends(s.output, ".o") || ends(s.output, ".obj")))
        if (auto cmd = e.evaluate("command")) archs = count_offload_archs(*cmd);
    classify(s, rule, description, archs);
}

} // namespace

Build make_build(const ninja::Manifest& m, const ninja::BuildLog& log) {
    Joined j = join_entries(m, log);
    for (uint32_t i = 0; i < j.build.steps.size(); ++i) {
        Step& s = j.build.steps[i];
        if (s.edge < 0) {
            classify(s, "", "", 0);
            continue;
        }
        ninja::EdgeRef e = m.edge(static_cast<size_t>(s.edge));
        s.deps = measured_deps(m, e, j.step_of_edge, i);
        classify_edge(s, e);
    }
    return std::move(j.build);
}

std::vector<std::pair<int64_t, int64_t>> level_steps(const Build& b,
                                                     uint64_t (*bytes)(const Step&)) {
    std::vector<std::pair<int64_t, int64_t>> change; // (time, +/- bytes)
    for (const Step& s : b.steps) {
        const auto n = static_cast<int64_t>(bytes(s));
        if (n == 0 || s.end <= s.start) continue;
        change.emplace_back(s.start - b.first_start, n);
        change.emplace_back(s.end - b.first_start, -n);
    }
    std::sort(change.begin(), change.end());
    std::vector<std::pair<int64_t, int64_t>> level;
    int64_t now = 0;
    for (size_t i = 0; i < change.size(); ++i) {
        now += change[i].second;
        if (i + 1 < change.size() && change[i + 1].first == change[i].first) continue;
        level.emplace_back(change[i].first, now);
    }
    return level;
}

MemoryLevels memory_levels(const Build& b) {
    MemoryLevels m;
    for (auto [t, n] : level_steps(b, [](const Step& s) { return s.peak; }))
        if (static_cast<uint64_t>(n) > m.most_measured)
            m.most_measured = static_cast<uint64_t>(n), m.most_measured_at = t;
    for (auto [t, n] : level_steps(b, [](const Step& s) { return s.reserved; }))
        m.most_reserved = std::max(m.most_reserved, static_cast<uint64_t>(n));
    for (const Step& s : b.steps)
        m.waited_ms += s.wait_ms;
    return m;
}

} // namespace phc::report
