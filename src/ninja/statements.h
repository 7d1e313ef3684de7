// Structured statements for writing ninja text: what gen writes from scratch and
// what regen inserts into a loaded manifest. writer.h turns them into text.
#pragma once

#include <string>
#include <variant>
#include <vector>

namespace phc::ninja {

/// `name = value`, at top level (a variable) or indented under a rule/build/pool.
struct Binding {
    std::string name;
    /// Ninja value text as it should appear in the file (so "$in", "$FLAGS", "$$"
    /// keep their ninja meaning) -- unless `literal` is set.
    std::string value;
    /// When true, `value` is the exact string wanted after evaluation; the writer
    /// escapes it with escape_value() so it evaluates back to itself.
    bool literal = false;
};

/// `rule name` with its indented bindings (command, depfile, deps, ...).
struct RuleStatement {
    std::string name;
    std::vector<Binding> bindings;
};

/// `build outs | implicit_outs: rule ins | implicit || order_only |@ validations`.
/// Every path is a literal path (the writer escapes '$', ' ', ':').
struct BuildStatement {
    std::vector<std::string> outputs;
    std::vector<std::string> implicit_outputs;
    std::string rule;
    std::vector<std::string> inputs;
    std::vector<std::string> implicit;
    std::vector<std::string> order_only;
    std::vector<std::string> validations;
    std::vector<Binding> bindings;
};

/// `pool name` with `depth = N`.
struct PoolStatement {
    std::string name;
    int depth = 1;
};

/// `default a b ...` (literal paths).
struct DefaultStatement {
    std::vector<std::string> targets;
};

/// `include path` or `subninja path` (a literal path).
struct IncludeStatement {
    std::string path;
    bool subninja = false;
};

/// Text inserted verbatim (comments, blank lines). It must end in a newline and
/// be valid ninja on its own; nothing checks more than the final newline.
struct RawStatement {
    std::string text;
};

/// Any statement that can be written.
using NewStatement = std::variant<Binding, RuleStatement, BuildStatement, PoolStatement,
                                  DefaultStatement, IncludeStatement, RawStatement>;

} // namespace phc::ninja
