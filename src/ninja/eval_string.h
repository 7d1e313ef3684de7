// An unevaluated ninja string: literal text and $variable references, kept as
// views into the file buffer (an escape like `$$` is a view of its second byte).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace phc::ninja {

/// One piece of an EvalString: literal text, or the name of a variable to look up.
struct EvalPart {
    std::string_view text; ///< literal bytes, or the variable name when `variable`
    bool variable = false; ///< true for `$name` / `${name}`
};

/// A string as written in a manifest, before variable expansion (ninja's EvalString).
struct EvalString {
    std::vector<EvalPart> parts;

    /// True when nothing at all was parsed (ninja's "empty" test, e.g. for `command =`).
    bool empty() const { return parts.empty(); }
    /// Forgets the parts but keeps the capacity (the parser reuses these).
    void clear() { parts.clear(); }
    /// Appends literal text.
    void add_text(std::string_view t) { parts.push_back({t, false}); }
    /// Appends a variable reference.
    void add_variable(std::string_view name) { parts.push_back({name, true}); }
    /// The text when the string is one literal piece (no allocation needed); else nullptr.
    const std::string_view* single_literal() const {
        return parts.size() == 1 && !parts[0].variable ? &parts[0].text : nullptr;
    }
};

} // namespace phc::ninja
