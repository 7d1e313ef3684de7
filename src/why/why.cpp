#include "why/why.h"

#include "ninja/paths.h"
#include "regen/depsets.h"
#include "util/file.h"

#include <algorithm>
#include <fmt/format.h>
#include <optional>
#include <set>

namespace phc::why {

namespace {

/// Walks the graph below one output as ninja's dependency scan does.
class Walker {
public:
    Walker(const ninja::Manifest& m, const History& h, Stat stat) : m_(m), h_(h), stat_(stat) {}

    /// The reasons the edge writing `node` runs, indented by `indent`.
    std::vector<std::string> reasons(uint32_t node, int indent) {
        std::vector<std::string> out;
        explain(node, indent, out, true);
        return out;
    }

private:
    struct State {
        int64_t mtime = 0;  ///< ninja's time of the node (a phony's: its newest input's)
        bool dirty = false; ///< it will be rebuilt (a phony: something below it)
        bool busy = false;  ///< being visited (a cycle, which ninja refuses, stays clean)
        bool done = false;
    };

    /// The node's path as ninja stores it.
    std::string path(uint32_t node) const { return std::string(m_.node_path(node)); }

    /// Every input of `e` ninja compares times with: explicit, implicit, and
    /// the dependencies of its deps record or depfile; a reason in `why`
    /// when they cannot be known (which makes the edge dirty).
    std::vector<uint32_t> inputs(const ninja::EdgeRef& e, std::string_view output,
                                 std::vector<std::string>& why) const {
        std::vector<uint32_t> in;
        auto add = [&](std::string_view p) {
            if (auto n = m_.find_node(ninja::canonicalize_path(p))) in.push_back(*n);
        };
        for (auto p : e.inputs())
            add(p);
        for (auto p : e.implicit_inputs())
            add(p);
        auto deps = e.evaluate("deps");
        auto depfile = e.evaluate_unescaped("depfile");
        if (deps && !deps->empty()) {
            auto rec = ninja::record_of(h_.deps_text, h_.deps, output);
            if (!rec)
                why.push_back(fmt::format("{} has no record in .ninja_deps (its headers are "
                                          "not known)",
                                          output));
            else if (rec->mtime < stat_(std::string(output)))
                why.push_back(fmt::format("its record in .ninja_deps is older than {}", output));
            else
                for (const auto& d : rec->deps)
                    add(d);
        } else if (depfile && !depfile->empty()) {
            auto text = util::read_file(*depfile);
            auto parsed = text ? regen::parse_depfile(*text) : std::nullopt;
            if (!parsed)
                why.push_back(fmt::format("its depfile {} is {}", *depfile,
                                          text ? "not one why can read" : "missing"));
            else
                for (const auto& d : parsed->deps)
                    add(d);
        }
        return in;
    }

    /// ninja's time and dirtiness of `node`.
    const State& visit(uint32_t node) {
        State& s = states_[node];
        if (s.done || s.busy) return s;
        s.busy = true;
        const int32_t p = m_.producer(node);
        if (p < 0) {
            s.mtime = stat_(path(node));
            s.dirty = s.mtime <= 0; // missing and no edge makes it
        } else if (ninja::EdgeRef e = m_.edge(static_cast<size_t>(p)); e.is_phony()) {
            std::vector<std::string> ignored;
            std::vector<uint32_t> in = inputs(e, m_.node_path(node), ignored);
            if (in.empty()) {
                s.mtime = stat_(path(node));
                s.dirty = s.mtime <= 0;
            }
            for (uint32_t i : in) {
                const State& t = visit(i);
                s.mtime = std::max(s.mtime, t.mtime);
                s.dirty = s.dirty || t.dirty;
            }
        } else {
            s.mtime = stat_(path(node));
            std::vector<std::string> why;
            explain(node, 0, why, false);
            s.dirty = !why.empty();
        }
        s.busy = false;
        s.done = true;
        return states_[node];
    }

    /// The files below `node` (through phony edges) newer than `than`, or
    /// missing, as "newer: PATH" lines; `via` names the phony they were
    /// reached through.
    void newer(uint32_t node, int64_t than, const std::string& via, std::set<std::string>& seen,
               std::vector<std::string>& out, int indent) {
        const int32_t p = m_.producer(node);
        if (p >= 0 && m_.edge(static_cast<size_t>(p)).is_phony()) {
            std::vector<std::string> ignored;
            auto in = inputs(m_.edge(static_cast<size_t>(p)), m_.node_path(node), ignored);
            const std::string through = via.empty() ? path(node) : via;
            for (uint32_t i : in)
                newer(i, than, through, seen, out, indent);
            if (!in.empty()) return;
        }
        const State& s = visit(node);
        if (p >= 0 && !m_.edge(static_cast<size_t>(p)).is_phony() && s.dirty) return;
        if ((s.mtime > than || s.mtime <= 0) && seen.insert(path(node)).second)
            out.push_back(fmt::format("{:{}}{}: {}{}", "", indent,
                                      s.mtime <= 0 ? "missing" : "newer", path(node),
                                      via.empty() ? "" : " (in " + via + ")"));
    }

    /// The edges below `node` (through phony edges) that will be rebuilt.
    void dirty_edges(uint32_t node, std::vector<uint32_t>& out) {
        if (!visit(node).dirty) return;
        const int32_t p = m_.producer(node);
        if (p < 0 || !m_.edge(static_cast<size_t>(p)).is_phony()) {
            out.push_back(node);
            return;
        }
        std::vector<std::string> ignored;
        for (uint32_t i : inputs(m_.edge(static_cast<size_t>(p)), m_.node_path(node), ignored))
            dirty_edges(i, out);
    }

    /// Appends why the (non-phony) edge writing `node` runs; with `deep`,
    /// why each input that will be rebuilt is (once; then "see above").
    void explain(uint32_t node, int indent, std::vector<std::string>& out, bool deep) {
        const std::string pad(static_cast<size_t>(indent), ' ');
        const ninja::EdgeRef e = m_.edge(static_cast<size_t>(m_.producer(node)));
        const std::string output = path(node);
        const int64_t out_mtime = stat_(output);
        std::vector<std::string> why;
        std::vector<uint32_t> in = inputs(e, output, why);
        auto logged = h_.log.find(output);
        auto flag = [&](const char* name) {
            auto v = e.evaluate(name);
            return v && !v->empty();
        };
        if (out_mtime <= 0) why.insert(why.begin(), output + " does not exist");
        if (logged == h_.log.end() && !flag("generator"))
            why.push_back(output + " has no line in .ninja_log (not built here yet)");
        for (auto& w : why)
            out.push_back(pad + w);
        // Inputs that will be rebuilt first.
        std::vector<uint32_t> rebuilt;
        for (uint32_t i : in)
            dirty_edges(i, rebuilt);
        for (uint32_t r : rebuilt) {
            if (m_.producer(r) < 0) {
                out.push_back(fmt::format("{}missing, and no edge makes it: {}", pad, path(r)));
                continue;
            }
            const bool first = deep && shown_.insert(r).second;
            out.push_back(fmt::format("{}{} will be rebuilt{}", pad, path(r),
                                      first  ? ":"
                                      : deep ? " (see above)"
                                             : ""));
            if (first) explain(r, indent + 2, out, true);
        }
        // Inputs newer than the output (with restat: its logged time) or its log line.
        int64_t than = out_mtime;
        if (logged != h_.log.end())
            than = flag("restat") ? logged->second : std::min(than, logged->second);
        if (out_mtime <= 0 || logged == h_.log.end()) return; // dirty anyway
        std::set<std::string> seen;
        for (uint32_t i : in)
            newer(i, than, "", seen, out, indent);
    }

    const ninja::Manifest& m_;
    const History& h_;
    Stat stat_;
    std::unordered_map<uint32_t, State> states_;
    std::set<uint32_t> shown_; ///< rebuilt inputs explained already
};

} // namespace

Result<std::vector<std::string>> why_dirty(const ninja::Manifest& m, const History& h,
                                           std::string_view output, Stat mtime) {
    const std::string canon = ninja::canonicalize_path(output);
    auto node = m.find_node(canon);
    if (!node) return make_error(fmt::format("unknown target '{}'", output));
    const int32_t p = m.producer(*node);
    if (p < 0) return make_error(fmt::format("'{}' is a source file: no edge writes it", output));
    Walker w(m, h, mtime);
    if (m.edge(static_cast<size_t>(p)).is_phony()) {
        // A phony target (all, a header set): why each edge below it runs.
        std::vector<std::string> out;
        for (auto in : m.edge(static_cast<size_t>(p)).inputs())
            if (auto n = m.find_node(ninja::canonicalize_path(in)); n && m.producer(*n) >= 0) {
                auto r = why_dirty(m, h, in, mtime);
                if (r && !r->empty()) {
                    out.push_back(std::string(in) + " will be rebuilt:");
                    for (auto& line : *r)
                        out.push_back("  " + line);
                }
            }
        return out;
    }
    return w.reasons(*node, 0);
}

} // namespace phc::why
