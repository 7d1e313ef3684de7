#include "ninja/manifest.h"

#include "ninja/eval.h"
#include "ninja/writer.h"

#include <fmt/format.h>

namespace phc::ninja {

Manifest::Manifest() {
    // The root scope holds the built-in phony rule; console is the built-in pool.
    scopes_.emplace_back();
    rules_.push_back(Rule{"phony", 0, std::nullopt, {}});
    scopes_[0].rules.emplace("phony", 0);
    pools_.push_back(Pool{"console", 1, std::nullopt});
}
Manifest::Manifest(Manifest&&) noexcept = default;
Manifest& Manifest::operator=(Manifest&&) noexcept = default;
Manifest::~Manifest() = default;

const EvalString* Rule::binding(std::string_view key) const {
    for (const RuleBinding& b : bindings)
        if (b.name == key) return &b.value;
    return nullptr;
}

std::optional<std::string_view> Rule::source(std::string_view key) const {
    for (const RuleBinding& b : bindings)
        if (b.name == key) return b.source;
    return std::nullopt;
}

const Rule* Manifest::find_rule(std::string_view name, uint32_t scope) const {
    for (int32_t s = static_cast<int32_t>(scope); s >= 0; s = scopes_[s].parent) {
        auto it = scopes_[s].rules.find(name);
        if (it != scopes_[s].rules.end()) return &rules_[it->second];
    }
    return nullptr;
}

const Pool* Manifest::find_pool(std::string_view name) const {
    for (const Pool& p : pools_)
        if (p.name == name) return &p;
    return nullptr;
}

std::optional<std::string_view> Manifest::variable(std::string_view name, uint32_t scope) const {
    for (int32_t s = static_cast<int32_t>(scope); s >= 0; s = scopes_[s].parent) {
        auto it = scopes_[s].vars.find(name);
        if (it != scopes_[s].vars.end()) return it->second;
    }
    return std::nullopt;
}

std::optional<uint32_t> Manifest::find_node(std::string_view path) const {
    return node_ids_.find(path, PathTable::hash(path), node_paths_);
}

// ---- EdgeRef

const Edge& EdgeRef::data() const {
    return m_->edges_[i_];
}
const Rule& EdgeRef::rule() const {
    return m_->rules_[data().rule];
}

std::vector<std::string_view> EdgeRef::nodes(uint32_t first, uint32_t count) const {
    std::vector<std::string_view> out;
    out.reserve(count);
    for (uint32_t i = 0; i < count; ++i)
        out.push_back(m_->node_paths_[m_->edge_nodes_[first + i]]);
    return out;
}

std::vector<std::string_view> EdgeRef::outputs() const {
    return nodes(data().nodes, data().outputs);
}
std::vector<std::string_view> EdgeRef::implicit_outputs() const {
    const Edge& e = data();
    return nodes(e.nodes + e.outputs, e.implicit_outputs);
}
std::vector<std::string_view> EdgeRef::inputs() const {
    const Edge& e = data();
    return nodes(e.nodes + e.outputs + e.implicit_outputs, e.inputs);
}
std::vector<std::string_view> EdgeRef::implicit_inputs() const {
    const Edge& e = data();
    return nodes(e.nodes + e.outputs + e.implicit_outputs + e.inputs, e.implicit_inputs);
}
std::vector<std::string_view> EdgeRef::order_only() const {
    const Edge& e = data();
    return nodes(e.nodes + e.outputs + e.implicit_outputs + e.inputs + e.implicit_inputs,
                 e.order_only);
}
std::vector<std::string_view> EdgeRef::validations() const {
    const Edge& e = data();
    return nodes(e.nodes + e.outputs + e.implicit_outputs + e.inputs + e.implicit_inputs +
                     e.order_only,
                 e.validations);
}

std::span<const EdgeBinding> EdgeRef::bindings() const {
    return {m_->edge_bindings_.data() + data().bindings, data().binding_count};
}

const EdgeBinding* EdgeRef::binding(std::string_view name) const {
    auto all = bindings();
    for (size_t i = all.size(); i-- > 0;)
        if (all[i].name == name) return &all[i];
    return nullptr;
}

namespace {

Result<std::string> evaluate_edge(const Manifest& m, const Edge& e, std::string_view name,
                                  bool escape) {
    // Evaluate into a buffer that keeps its capacity, then copy once: appending
    // to a fresh string would reallocate it several times on a long command.
    thread_local std::string scratch;
    scratch.clear();
    EdgeEnv env(m, e, escape);
    if (!env.lookup(name, scratch)) {
        const Statement& s = m.statement(e.where);
        return error_at(fmt::format("{}:{}", m.files()[e.where.file].path, s.line), env.error());
    }
    return std::string(scratch);
}

} // namespace

Result<std::string> EdgeRef::evaluate(std::string_view name) const {
    return evaluate_edge(*m_, data(), name, true);
}

Result<std::string> EdgeRef::evaluate_unescaped(std::string_view name) const {
    return evaluate_edge(*m_, data(), name, false);
}

// ---- editing

namespace {

Result<std::string> render_all(const std::vector<NewStatement>& what) {
    std::string out;
    for (const auto& s : what)
        if (auto st = render_to(out, s); !st) return st.error();
    return out;
}

} // namespace

Status Manifest::replace(StatementRef at, const std::vector<NewStatement>& with) {
    auto text = render_all(with);
    if (!text) return text.error();
    edits_[at.file][at.index].replacement = std::move(*text);
    return Ok{};
}

void Manifest::replace_text(StatementRef at, std::string text) {
    edits_[at.file][at.index].replacement = std::move(text);
}

Status Manifest::insert_before(StatementRef at, const std::vector<NewStatement>& what) {
    auto text = render_all(what);
    if (!text) return text.error();
    edits_[at.file][at.index].before += *text;
    return Ok{};
}

Status Manifest::insert_after(StatementRef at, const std::vector<NewStatement>& what) {
    auto text = render_all(what);
    if (!text) return text.error();
    edits_[at.file][at.index].after += *text;
    return Ok{};
}

Status Manifest::append(uint32_t file, const std::vector<NewStatement>& what) {
    auto text = render_all(what);
    if (!text) return text.error();
    appended_[file] += *text;
    return Ok{};
}

void Manifest::remove(StatementRef at) {
    edits_[at.file][at.index].replacement = std::string();
}

bool Manifest::edited(uint32_t file) const {
    return !edits_[file].empty() || !appended_[file].empty();
}

std::string Manifest::write_file(uint32_t file) const {
    const std::vector<std::string_view> parts = pieces(file);
    size_t size = 0;
    for (std::string_view p : parts)
        size += p.size();
    std::string out;
    out.reserve(size);
    for (std::string_view p : parts)
        out += p;
    return out;
}

std::vector<std::string_view> Manifest::pieces(uint32_t file) const {
    const auto& statements = files_[file].statements;
    // Each statement's edits, if any; edits at no statement are ignored, as always.
    std::vector<const Edits*> edits_of(statements.size(), nullptr);
    for (const auto& [index, e] : edits_[file])
        if (index < statements.size()) edits_of[index] = &e;

    std::vector<std::string_view> out;
    out.reserve(4 * edits_[file].size() + 2);
    bool last_is_source = false; // out.back() is loaded text of this file
    auto add = [&](std::string_view text) {
        if (text.empty()) return;
        out.push_back(text);
        last_is_source = false;
    };
    // Adjacent statements are adjacent in the file's buffer: extend the last view.
    auto add_source = [&](std::string_view text) {
        if (text.empty()) return;
        if (last_is_source && out.back().data() + out.back().size() == text.data())
            out.back() = std::string_view(out.back().data(), out.back().size() + text.size());
        else
            out.push_back(text);
        last_is_source = true;
    };
    for (uint32_t i = 0; i < statements.size(); ++i) {
        if (!edits_of[i]) {
            add_source(statements[i].text);
            continue;
        }
        const Edits& e = *edits_of[i];
        add(e.before);
        if (e.replacement)
            add(*e.replacement);
        else
            add_source(statements[i].text);
        add(e.after);
    }
    add(appended_[file]);
    return out;
}

} // namespace phc::ninja
