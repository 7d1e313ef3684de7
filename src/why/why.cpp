#include "why/why.h"

#include "depsets/depsets.h"
#include "ninja/paths.h"
#include "util/file.h"

#include <algorithm>
#include <fmt/format.h>
#include <optional>
#include <set>

namespace phc::why {

namespace {

/// The largest depfile why reads (as deps-set does).
constexpr size_t kMaxDepfileBytes = 64u << 20;

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
            // A regular file of a bounded size only: a fifo there never hangs why.
            const bool there = util::file_exists(*depfile);
            auto text = util::read_regular_file(*depfile, kMaxDepfileBytes);
            auto parsed = text ? depsets::parse_depfile(*text) : std::nullopt;
            if (!parsed)
                why.push_back(fmt::format("its depfile {} is {}", *depfile,
                                          text    ? "not one why can read"
                                          : there ? "not read (" + text.error().message + ")"
                                                  : std::string("missing")));
            else
                for (const auto& d : parsed->deps)
                    add(d);
        }
        return in;
    }

    /// The nodes whose times `node`'s depend on: a phony's inputs, a real
    /// edge's inputs (with its deps); none for a source.
    std::vector<uint32_t> below(uint32_t node) const {
        const int32_t p = m_.producer(node);
        if (p < 0) return {};
        std::vector<std::string> ignored;
        return inputs(m_.edge(static_cast<size_t>(p)), m_.node_path(node), ignored);
    }

    /// ninja's time and dirtiness of `root`. Without recursion (an explicit
    /// stack, each node finished once everything below it is): a chain of
    /// 50,000 phony edges, which ninja walks, takes no 50,000 frames here.
    const State& visit(uint32_t root) {
        std::vector<std::pair<uint32_t, bool>> stack{{root, false}}; // node, expanded
        while (!stack.empty()) {
            auto [node, expanded] = stack.back();
            State& s = states_[node]; // references stay valid as the map grows
            if (!expanded) {
                if (s.done || s.busy) { // a cycle, which ninja refuses, stays as it is
                    stack.pop_back();
                    continue;
                }
                s.busy = true;
                stack.back().second = true;
                for (uint32_t i : below(node)) {
                    const State& t = states_[i];
                    if (!t.done && !t.busy) stack.emplace_back(i, false);
                }
                continue;
            }
            stack.pop_back();
            finish(node, s);
        }
        return states_[root];
    }

    /// Computes `s`, the state of `node`, from the finished states below it.
    void finish(uint32_t node, State& s) {
        const int32_t p = m_.producer(node);
        if (p < 0) {
            s.mtime = stat_(path(node));
            s.dirty = s.mtime <= 0; // missing and no edge makes it
        } else if (ninja::EdgeRef e = m_.edge(static_cast<size_t>(p)); e.is_phony()) {
            std::vector<uint32_t> in = below(node);
            if (in.empty()) {
                s.mtime = stat_(path(node));
                s.dirty = s.mtime <= 0;
            }
            for (uint32_t i : in) {
                const State& t = states_[i];
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
    }

    /// True when `node` is written by a phony edge.
    bool phony(uint32_t node) const {
        const int32_t p = m_.producer(node);
        return p >= 0 && m_.edge(static_cast<size_t>(p)).is_phony();
    }

    /// The files below `root` (through phony edges, each expanded once) newer
    /// than `than`, or missing, as "newer: PATH" lines, naming the phony they
    /// were reached through; in the order of a depth-first walk, made without
    /// recursion.
    void newer(uint32_t root, int64_t than, std::set<std::string>& seen,
               std::vector<std::string>& out, int indent) {
        std::vector<std::pair<uint32_t, std::string>> todo{{root, ""}}; // node, via
        std::set<uint32_t> expanded;
        while (!todo.empty()) {
            auto [node, via] = std::move(todo.back());
            todo.pop_back();
            if (phony(node)) {
                std::vector<uint32_t> in = below(node);
                if (!in.empty()) {
                    if (!expanded.insert(node).second) continue;
                    const std::string through = via.empty() ? path(node) : via;
                    for (auto i = in.rbegin(); i != in.rend(); ++i)
                        todo.emplace_back(*i, through);
                    continue;
                }
            }
            const State& s = visit(node);
            if (m_.producer(node) >= 0 && !phony(node) && s.dirty) continue;
            if ((s.mtime > than || s.mtime <= 0) && seen.insert(path(node)).second)
                out.push_back(fmt::format("{:{}}{}: {}{}", "", indent,
                                          s.mtime <= 0 ? "missing" : "newer", path(node),
                                          via.empty() ? "" : " (in " + via + ")"));
        }
    }

    /// The edges below `root` (through phony edges, each once) that will be
    /// rebuilt, depth first, without recursion.
    void dirty_edges(uint32_t root, std::vector<uint32_t>& out) {
        std::vector<uint32_t> todo{root};
        std::set<uint32_t> expanded;
        while (!todo.empty()) {
            const uint32_t node = todo.back();
            todo.pop_back();
            if (!visit(node).dirty) continue;
            if (!phony(node)) {
                out.push_back(node);
                continue;
            }
            if (!expanded.insert(node).second) continue;
            std::vector<uint32_t> in = below(node);
            todo.insert(todo.end(), in.rbegin(), in.rend());
        }
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
            newer(i, than, seen, out, indent);
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
    if (m.producer(*node) < 0)
        return make_error(fmt::format("'{}' is a source file: no edge writes it", output));
    // A phony target (all, a header set): why each edge below it runs, a
    // phony below it nested in turn. Without recursion: an explicit stack of
    // the phony targets being explained (a chain of them may be 50,000 long).
    struct Frame {
        uint32_t node;
        size_t next = 0;                ///< the next input to explain
        std::vector<std::string> lines; ///< what it says so far
        std::string name;               ///< as its parent names it
    };
    auto phony = [&](uint32_t n) { return m.edge(static_cast<size_t>(m.producer(n))).is_phony(); };
    if (!phony(*node)) return Walker(m, h, mtime).reasons(*node, 0);
    std::vector<Frame> stack;
    std::set<uint32_t> open; // the phony targets on the stack (a cycle is not entered)
    stack.push_back({*node, 0, {}, std::string(output)});
    open.insert(*node);
    // Adds child `lines` (the reasons of `name`) to the frame below.
    auto add = [](std::vector<std::string>& to, const std::string& name,
                  const std::vector<std::string>& lines) {
        if (lines.empty()) return;
        to.push_back(name + " will be rebuilt:");
        for (const auto& line : lines)
            to.push_back("  " + line);
    };
    for (;;) {
        Frame& f = stack.back();
        const auto inputs = m.edge(static_cast<size_t>(m.producer(f.node))).inputs();
        if (f.next == inputs.size()) {
            Frame done = std::move(f);
            stack.pop_back();
            open.erase(done.node);
            if (stack.empty()) return std::move(done.lines);
            add(stack.back().lines, done.name, done.lines);
            continue;
        }
        const std::string_view in = inputs[f.next++];
        auto n = m.find_node(ninja::canonicalize_path(in));
        if (!n || m.producer(*n) < 0) continue;
        if (!phony(*n)) {
            add(f.lines, std::string(in), Walker(m, h, mtime).reasons(*n, 0));
        } else if (open.insert(*n).second) {
            stack.push_back({*n, 0, {}, std::string(in)});
        }
    }
}

} // namespace phc::why
