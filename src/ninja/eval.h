// Variable lookup and evaluation with ninja's scoping rules (eval_env.cc and
// EdgeEnv in graph.cc), over a Manifest's scopes and edges.
#pragma once

#include "ninja/manifest.h"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace phc::ninja {

/// A variable in a scope chain (BindingEnv::LookupVariable); empty when unbound.
std::string_view lookup_in_scopes(const std::vector<Scope>& scopes, int32_t scope,
                                  std::string_view name);

/// Appends `s` evaluated in a BindingEnv: `edge_bindings` first (if any), then
/// the scope chain from `scope`. Used for top-level values and paths.
void evaluate_plain(const std::vector<Scope>& scopes, int32_t scope,
                    std::span<const EdgeBinding> edge_bindings, const EvalString& s,
                    std::string& out);

/// Evaluates variables for one edge as ninja's EdgeEnv does, including its
/// cycle check. Like ninja >= 1.12 a rule variable counts as "being evaluated"
/// only while it is (ninja 1.11 never forgot one, so it also rejected
/// `command = $description $depfile` with `depfile = $description`).
class EdgeEnv {
public:
    EdgeEnv(const Manifest& m, const Edge& e, bool shell_escape)
        : m_(m), e_(e), escape_(shell_escape) {}

    /// Appends the value of `name` to `out`; false (and error()) on a cycle.
    bool lookup(std::string_view name, std::string& out);
    /// Appends `s` evaluated in this edge's environment; false on a cycle.
    bool evaluate(const EvalString& s, std::string& out);
    /// The cycle message after a failed lookup.
    const std::string& error() const { return error_; }

private:
    void path_list(uint32_t first, uint32_t count, char sep, std::string& out) const;

    const Manifest& m_;
    const Edge& e_;
    bool escape_;
    bool recursive_ = false;
    std::vector<std::string_view> lookups_;
    std::string error_;
};

} // namespace phc::ninja
