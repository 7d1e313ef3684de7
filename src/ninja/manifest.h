// The loaded manifest: every file's statements with their exact source text
// (so unchanged statements are written back byte for byte), the build graph
// (rules, pools, edges, nodes, defaults, variables) and edits to write out.
//
// Semantics follow ninja 1.11 (manifest_parser.cc, eval_env.cc, graph.cc):
// top-level variables and edge bindings are evaluated when parsed, in the
// file's scope; rule bindings are evaluated on demand in the edge's scope.
// The graph describes the text as loaded; edits change only what
// write_file() produces (call reparse() to see the edited graph).
#pragma once

#include "ninja/arena.h"
#include "ninja/eval_string.h"
#include "ninja/path_table.h"
#include "ninja/statements.h"
#include "util/error.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace phc::ninja {

/// Names one statement: a file index and a position in that file's statements.
/// Stays valid across edits (edits never renumber the loaded statements).
struct StatementRef {
    uint32_t file = 0;
    uint32_t index = 0;
    friend bool operator==(const StatementRef&, const StatementRef&) = default;
};

/// What a statement is. Trivia is everything between statements (blank lines,
/// comment lines, and any bytes after an embedded NUL).
enum class StatementKind : uint8_t {
    Trivia,
    Variable,
    Rule,
    Build,
    Pool,
    Default,
    Include,
    Subninja
};

/// One statement of a file as loaded.
struct Statement {
    StatementKind kind = StatementKind::Trivia;
    std::string_view text; ///< exact source bytes, through its last newline
    uint32_t line = 1;     ///< 1-based line of its first byte
    /// Rule: index into rules(); Build: edge index; Pool: pool index;
    /// Include/Subninja: index of the loaded file; otherwise -1.
    int32_t target = -1;
    std::string_view name; ///< Variable, Rule, Pool: the name bound
};

/// One loaded file (the top file is index 0, then includes in load order).
struct File {
    std::string path;    ///< as given to load_manifest or written in include/subninja
    int32_t parent = -1; ///< index of the including file; -1 for the top file
    uint32_t scope = 0;  ///< the variable scope its statements bind into
    std::vector<Statement> statements;
};

/// One binding of a rule, unevaluated.
struct RuleBinding {
    std::string_view name;
    EvalString value;        ///< parsed, for evaluation
    std::string_view source; ///< the text after '=' (without the newline), for copying
};

/// A rule and its reserved bindings, unevaluated.
struct Rule {
    std::string_view name;
    uint32_t scope = 0;                ///< the scope it was declared in
    std::optional<StatementRef> where; ///< none for the built-in `phony`
    std::vector<RuleBinding> bindings;

    /// The binding named `key`, or nullptr.
    const EvalString* binding(std::string_view key) const;
    /// The source text of binding `key` (ninja text), or nullopt.
    std::optional<std::string_view> source(std::string_view key) const;
    /// True for ninja's built-in `phony` rule.
    bool is_phony() const { return !where && name == "phony"; }
};

/// A pool; `console` (depth 1) is built in.
struct Pool {
    std::string_view name;
    int depth = 0;
    std::optional<StatementRef> where; ///< none for the built-in `console`
};

/// One indented binding of a build statement.
struct EdgeBinding {
    std::string_view name;
    std::string_view value;  ///< as ninja evaluated it when parsing (in the file scope)
    std::string_view source; ///< the unevaluated text after '=' (without the newline)
};

/// Storage of one edge; read it through EdgeRef.
struct Edge {
    uint32_t rule = 0;
    uint32_t scope = 0;
    StatementRef where;
    int32_t pool = -1;  ///< index into pools(), -1 when the edge names none
    uint32_t nodes = 0; ///< first of its node ids in the manifest's edge-node list
    uint32_t outputs = 0, implicit_outputs = 0;
    uint32_t inputs = 0, implicit_inputs = 0, order_only = 0, validations = 0;
    uint32_t bindings = 0, binding_count = 0;
};

class Manifest;

/// A cheap handle to one edge. Valid while its Manifest lives (and is not moved).
class EdgeRef {
public:
    EdgeRef(const Manifest& m, uint32_t index) : m_(&m), i_(index) {}

    uint32_t index() const { return i_; }
    const Edge& data() const;
    const Rule& rule() const;
    StatementRef statement() const { return data().where; }
    bool is_phony() const { return rule().is_phony(); }

    /// Canonical node paths, as ninja stores them.
    std::vector<std::string_view> outputs() const;
    std::vector<std::string_view> implicit_outputs() const;
    std::vector<std::string_view> inputs() const; ///< explicit inputs ($in)
    std::vector<std::string_view> implicit_inputs() const;
    std::vector<std::string_view> order_only() const;
    std::vector<std::string_view> validations() const;

    /// The edge's own indented bindings, in source order.
    std::span<const EdgeBinding> bindings() const;
    /// The last binding named `name` on the edge itself, or nullptr.
    const EdgeBinding* binding(std::string_view name) const;

    /// Evaluates a variable as ninja's Edge::GetBinding: $in/$out/$in_newline
    /// (shell-quoted paths), then edge bindings, the rule's binding, and the
    /// file scopes. Errors only on a cycle in rule variables.
    Result<std::string> evaluate(std::string_view name) const;
    /// Like evaluate() but with $in/$out unquoted (ninja's GetUnescapedDepfile etc.).
    Result<std::string> evaluate_unescaped(std::string_view name) const;

private:
    std::vector<std::string_view> nodes(uint32_t first, uint32_t count) const;
    const Manifest* m_;
    uint32_t i_;
};

/// A variable scope: the top file's, or one per subninja.
struct Scope {
    int32_t parent = -1;
    std::unordered_map<std::string_view, std::string_view> vars;
    std::unordered_map<std::string_view, uint32_t> rules;
};

/// A parsed manifest. Move-only; build one with load_manifest() or parse_manifest().
class Manifest {
public:
    Manifest();
    Manifest(Manifest&&) noexcept;
    Manifest& operator=(Manifest&&) noexcept;
    ~Manifest();

    // ---- files and statements
    const std::vector<File>& files() const { return files_; }
    const Statement& statement(StatementRef r) const { return files_[r.file].statements[r.index]; }

    // ---- graph
    size_t edge_count() const { return edges_.size(); }
    EdgeRef edge(size_t i) const { return EdgeRef(*this, static_cast<uint32_t>(i)); }
    const std::vector<Rule>& rules() const { return rules_; }
    /// The rule `name` visible from `scope` (inner scopes first), or nullptr.
    const Rule* find_rule(std::string_view name, uint32_t scope = 0) const;
    const std::vector<Pool>& pools() const { return pools_; }
    /// The pool `name` (pools are global), or nullptr.
    const Pool* find_pool(std::string_view name) const;
    /// `default` targets, canonical, in order.
    const std::vector<std::string_view>& defaults() const { return defaults_; }
    /// Final value of a variable as seen from `scope` (parents included).
    std::optional<std::string_view> variable(std::string_view name, uint32_t scope = 0) const;
    const std::vector<Scope>& scopes() const { return scopes_; }
    /// The canonical path of `node` (why walks the graph by node).
    std::string_view node_path(uint32_t node) const { return node_paths_[node]; }
    /// The node with this canonical path.
    std::optional<uint32_t> find_node(std::string_view path) const;
    /// The edge that produces `node`, or -1.
    int32_t producer(uint32_t node) const { return node_producer_[node]; }

    // ---- editing (graph unchanged; affects write_file)
    // Edits render their statements immediately (an error leaves the manifest
    // unchanged). To copy an edge's binding unchanged into a new statement, pass
    // Binding{name, std::string(binding.source)}: the source is ninja text.

    /// Replaces a statement with `with` (empty: removes it).
    Status replace(StatementRef at, const std::vector<NewStatement>& with);
    /// Replaces a statement with text already rendered (render_to()): valid ninja
    /// statements, each ending in '\n'. Lets callers render on other threads.
    void replace_text(StatementRef at, std::string text);
    /// Inserts statements just before `at` (after earlier insertions there).
    Status insert_before(StatementRef at, const std::vector<NewStatement>& what);
    /// Inserts statements just after `at` (after earlier insertions there).
    Status insert_after(StatementRef at, const std::vector<NewStatement>& what);
    /// Appends statements at the end of file `file`.
    Status append(uint32_t file, const std::vector<NewStatement>& what);
    /// Removes a statement.
    void remove(StatementRef at);
    /// True when file `file` has any edit.
    bool edited(uint32_t file) const;

    /// The text of file `file`: original statement bytes with the edits applied.
    std::string write_file(uint32_t file) const;
    /// write_file() as the pieces to concatenate, none empty, without copying:
    /// runs of unedited statements are one view of the loaded text. The views
    /// point into the manifest and are valid until it is edited or destroyed.
    std::vector<std::string_view> pieces(uint32_t file) const;

private:
    friend class Parser;
    friend class EdgeRef;
    friend class EdgeEnv;

    struct Edits {
        std::string before, after;
        std::optional<std::string> replacement;
    };

    std::vector<std::unique_ptr<SourceText>> buffers_; ///< one per file
    std::vector<File> files_;
    std::vector<Scope> scopes_;
    std::vector<Rule> rules_;
    std::vector<Pool> pools_;
    std::vector<Edge> edges_;
    std::vector<uint32_t> edge_nodes_;
    std::vector<EdgeBinding> edge_bindings_;
    std::vector<std::string_view> node_paths_;
    std::vector<int32_t> node_producer_;
    PathTable node_ids_;
    std::vector<std::string_view> defaults_;
    StringArena arena_;
    std::vector<std::unordered_map<uint32_t, Edits>> edits_; ///< per file
    std::vector<std::string> appended_;                      ///< per file
};

/// Reads a file the way ninja does; on failure the error is the bare reason
/// ("No such file or directory"), which the parser wraps in "loading 'x': ...".
using FileReader = std::function<Result<std::string>(const std::string& path)>;

/// Loads `path` and everything it includes, with paths relative to the working
/// directory as ninja does. Errors are located ("file:line:col") with context.
Result<Manifest> load_manifest(const std::string& path);

/// Parses `text` as a file named `filename`; includes are read with `reader`
/// (default: every include fails as missing).
Result<Manifest> parse_manifest(std::string text, std::string filename = "build.ninja",
                                const FileReader& reader = {});

/// Parses the written (edited) text of every file of `m` again, from memory.
Result<Manifest> reparse(const Manifest& m);

} // namespace phc::ninja
