#include "ninja/eval.h"

#include "ninja/paths.h"

namespace phc::ninja {

namespace {

/// a == b for variable names: most names differ in length or first letter, so
/// those are compared before calling memcmp.
bool same_name(std::string_view a, std::string_view b) {
    return a.size() == b.size() && (a.empty() || (a[0] == b[0] && a == b));
}

/// The last binding named `name` among an edge's bindings, or nullptr.
const EdgeBinding* find_binding(std::span<const EdgeBinding> bindings, std::string_view name) {
    for (size_t i = bindings.size(); i-- > 0;)
        if (same_name(bindings[i].name, name)) return &bindings[i];
    return nullptr;
}

/// The rule's binding `name`, or nullptr (Rule::binding with the cheap compare).
const EvalString* rule_binding(const Rule& rule, std::string_view name) {
    for (const RuleBinding& b : rule.bindings)
        if (same_name(b.name, name)) return &b.value;
    return nullptr;
}

} // namespace

std::string_view lookup_in_scopes(const std::vector<Scope>& scopes, int32_t scope,
                                  std::string_view name) {
    for (int32_t s = scope; s >= 0; s = scopes[s].parent) {
        auto it = scopes[s].vars.find(name);
        if (it != scopes[s].vars.end()) return it->second;
    }
    return {};
}

void evaluate_plain(const std::vector<Scope>& scopes, int32_t scope,
                    std::span<const EdgeBinding> edge_bindings, const EvalString& s,
                    std::string& out) {
    for (const EvalPart& part : s.parts) {
        if (!part.variable) {
            out += part.text;
        } else if (const EdgeBinding* b = find_binding(edge_bindings, part.text)) {
            out += b->value;
        } else {
            out += lookup_in_scopes(scopes, scope, part.text);
        }
    }
}

void EdgeEnv::path_list(uint32_t first, uint32_t count, char sep, std::string& out) const {
    for (uint32_t i = 0; i < count; ++i) {
        if (i > 0) out += sep;
        std::string_view path = m_.node_paths_[m_.edge_nodes_[first + i]];
        if (escape_)
            append_shell_escaped(out, path);
        else
            out += path;
    }
}

bool EdgeEnv::lookup(std::string_view name, std::string& out) {
    if (name == "in" || name == "in_newline") {
        path_list(e_.nodes + e_.outputs + e_.implicit_outputs, e_.inputs, name == "in" ? ' ' : '\n',
                  out);
        return true;
    }
    if (name == "out") {
        path_list(e_.nodes, e_.outputs, ' ', out);
        return true;
    }
    // BindingEnv::LookupWithFallback on the edge's env comes first, before the
    // cycle check and the rule's binding: a name being evaluated is never bound
    // there (else its rule binding would not be evaluated), so the order cannot
    // change a result. An edge without bindings uses its file scope as its env,
    // so that scope's own variables come before the rule's (a ninja quirk we keep).
    bool recursive = recursive_;
    recursive_ = true;
    const Scope& file_scope = m_.scopes_[e_.scope];
    if (e_.binding_count > 0) {
        std::span<const EdgeBinding> own(m_.edge_bindings_.data() + e_.bindings, e_.binding_count);
        if (const EdgeBinding* b = find_binding(own, name)) {
            out += b->value;
            return true;
        }
    } else if (auto it = file_scope.vars.find(name); it != file_scope.vars.end()) {
        out += it->second;
        return true;
    }
    if (recursive) {
        for (size_t i = 0; i < lookups_.size(); ++i) {
            if (lookups_[i] != name) continue;
            error_ = "cycle in rule variables: ";
            for (size_t j = i; j < lookups_.size(); ++j) {
                error_ += lookups_[j];
                error_ += " -> ";
            }
            error_ += name;
            return false;
        }
    }
    if (const EvalString* eval = rule_binding(m_.rules_[e_.rule], name)) {
        if (recursive) lookups_.push_back(name);
        bool ok = evaluate(*eval, out);
        if (recursive) lookups_.pop_back();
        return ok;
    }
    int32_t parent = e_.binding_count > 0 ? static_cast<int32_t>(e_.scope) : file_scope.parent;
    out += lookup_in_scopes(m_.scopes_, parent, name);
    return true;
}

bool EdgeEnv::evaluate(const EvalString& s, std::string& out) {
    for (const EvalPart& part : s.parts) {
        if (!part.variable)
            out += part.text;
        else if (!lookup(part.text, out))
            return false;
    }
    return true;
}

} // namespace phc::ninja
