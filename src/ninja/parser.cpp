// The manifest parser: ninja's ManifestParser (1.11) statement by statement,
// recording each statement's source span as it goes.
#include "ninja/eval.h"
#include "ninja/lexer.h"
#include "ninja/manifest.h"
#include "ninja/paths.h"
#include "util/fd.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace phc::ninja {

namespace {

/// The newest ninja whose files we accept (for ninja_required_version).
constexpr int kMajor = 1, kMinor = 13;
/// Nesting limit for include/subninja (ninja itself would overflow its stack).
constexpr int kMaxIncludeDepth = 64;

bool is_reserved_rule_binding(std::string_view key) {
    static constexpr std::string_view kReserved[] = {
        "command", "depfile", "dyndep",          "description",     "deps", "generator", "pool",
        "restat",  "rspfile", "rspfile_content", "msvc_deps_prefix"};
    for (auto r : kReserved)
        if (key == r) return true;
    return false;
}

/// ninja's ParseVersion: "major.minor[.anything]".
std::pair<int, int> parse_version(const std::string& v) {
    int major = std::atoi(v.c_str());
    int minor = 0;
    if (auto dot = v.find('.'); dot != std::string::npos) minor = std::atoi(v.c_str() + dot + 1);
    return {major, minor};
}

} // namespace

/// Builds a Manifest: one Parser for the whole load, one call of parse_file per file.
class Parser {
public:
    /// `reader` reads included files; nullptr reads them from disk.
    Parser(Manifest& m, const FileReader* reader) : m_(m), reader_(reader) {}

    /// Adds a file with its text and parses it into `scope`.
    Status parse_file(std::string path, SourceText text, int32_t parent, uint32_t scope, int depth);

private:
    class FileParse;

    /// An included file's text; the error is the bare reason, as ninja's ReadFile gives it.
    Result<SourceText> read(const std::string& path) const;

    Manifest& m_;
    const FileReader* reader_;
    std::vector<EvalString> paths_; ///< scratch, reused across edges
    std::string tmp_;               ///< scratch for evaluated strings
    EvalString value_;              ///< scratch for edge binding values
    /// Whether any top-level variable or rule binding is named `pool` / `dyndep`
    /// so far; until then only an edge's own binding can give it one.
    bool pool_bound_ = false, dyndep_bound_ = false;
};

/// Parsing state for one file.
class Parser::FileParse {
public:
    FileParse(Parser& p, uint32_t file, uint32_t scope, int depth, std::string_view text)
        : p_(p), m_(p.m_), file_(file), scope_(scope), depth_(depth), text_(text),
          lex_(m_.files_[file].path, text) {}

    Status run();

private:
    File& file() { return m_.files_[file_]; }
    void begin(size_t start);
    void end(StatementKind kind, int32_t target, std::string_view name);
    Status expect(Token t);
    Status parse_let(std::string_view* key, EvalString* value, std::string_view* source);
    Status parse_variable();
    Status parse_rule();
    Status parse_pool();
    Status parse_edge();
    Status read_path_list(uint32_t* count);
    Status read_edge_line(Edge& e);
    Status read_edge_bindings(Edge& e);
    Status resolve_pool(Edge& e);
    Status add_edge_nodes(Edge& e, uint32_t index);
    Status check_dyndep(const Edge& e);
    void note_binding(std::string_view key);
    bool binds(const Edge& e, std::string_view key) const;
    Status parse_default();
    Status parse_include(bool subninja);
    EvalString& next_path();
    std::string_view store_value(const EvalString& s, std::span<const EdgeBinding> bindings);
    Result<uint32_t> node_for(const EvalString& s, std::span<const EdgeBinding> bindings);
    uint32_t line_at(size_t offset);

    Parser& p_;
    Manifest& m_;
    uint32_t file_, scope_;
    int depth_;
    std::string_view text_;
    Lexer lex_;
    size_t covered_ = 0; ///< end of the last statement (or trivia) recorded
    size_t stmt_start_ = 0;
    size_t stmt_end_ = 0; ///< end of the statement being parsed so far
    size_t npaths_ = 0;
    size_t line_pos_ = 0; ///< line_at() counts newlines incrementally from here
    uint32_t line_ = 1;
};

uint32_t Parser::FileParse::line_at(size_t offset) {
    const char* p = text_.data() + line_pos_;
    const char* end = text_.data() + offset;
    while (p < end) {
        const void* nl = std::memchr(p, '\n', static_cast<size_t>(end - p));
        if (!nl) break;
        ++line_;
        p = static_cast<const char*>(nl) + 1;
    }
    line_pos_ = offset;
    return line_;
}

void Parser::FileParse::begin(size_t start) {
    if (start > covered_) {
        Statement t;
        t.text = text_.substr(covered_, start - covered_);
        t.line = line_at(covered_);
        file().statements.push_back(t);
    }
    covered_ = start;
    stmt_start_ = start;
    stmt_end_ = start;
    npaths_ = 0;
}

void Parser::FileParse::end(StatementKind kind, int32_t target, std::string_view name) {
    Statement s;
    s.kind = kind;
    s.text = text_.substr(stmt_start_, stmt_end_ - stmt_start_);
    s.line = line_at(stmt_start_);
    s.target = target;
    s.name = name;
    file().statements.push_back(s);
    covered_ = stmt_end_;
}

Status Parser::FileParse::expect(Token t) {
    Token got = lex_.read_token();
    if (got != t) {
        std::string msg = fmt::format("expected {}, got {}", token_name(t), token_name(got));
        if (t == Token::Colon) msg += " ($ also escapes ':')";
        return lex_.error(msg);
    }
    if (t == Token::Newline) stmt_end_ = lex_.offset();
    return Ok{};
}

Status Parser::FileParse::parse_let(std::string_view* key, EvalString* value,
                                    std::string_view* source) {
    if (!lex_.read_ident(key)) return lex_.error("expected variable name");
    if (auto s = expect(Token::Equals); !s) return s;
    size_t begin = lex_.offset();
    value->clear();
    if (auto s = lex_.read_var_value(value); !s) return s;
    stmt_end_ = lex_.offset();
    size_t stop = stmt_end_;
    if (stop > begin && text_[stop - 1] == '\n') --stop;
    if (stop > begin && text_[stop - 1] == '\r') --stop;
    *source = text_.substr(begin, stop - begin);
    return Ok{};
}

EvalString& Parser::FileParse::next_path() {
    if (npaths_ == p_.paths_.size()) p_.paths_.emplace_back();
    EvalString& e = p_.paths_[npaths_++];
    e.clear();
    return e;
}

std::string_view Parser::FileParse::store_value(const EvalString& s,
                                                std::span<const EdgeBinding> bindings) {
    if (s.empty()) return {};
    if (const std::string_view* lit = s.single_literal()) return *lit;
    p_.tmp_.clear();
    evaluate_plain(m_.scopes_, static_cast<int32_t>(scope_), bindings, s, p_.tmp_);
    return m_.arena_.store(p_.tmp_);
}

Result<uint32_t> Parser::FileParse::node_for(const EvalString& s,
                                             std::span<const EdgeBinding> bindings) {
    std::string_view path;
    bool owned = false;
    if (const std::string_view* lit = s.single_literal()) {
        path = *lit;
    } else {
        p_.tmp_.clear();
        evaluate_plain(m_.scopes_, static_cast<int32_t>(scope_), bindings, s, p_.tmp_);
        path = p_.tmp_;
        owned = true;
    }
    if (path.empty()) return lex_.error("empty path");
    std::string canonical;
    if (needs_canonicalization(path)) {
        canonical = canonicalize_path(path);
        path = canonical;
        owned = true;
    }
    uint64_t h = PathTable::hash(path);
    if (auto id = m_.node_ids_.find(path, h, m_.node_paths_)) return *id;
    if (owned) path = m_.arena_.store(path);
    auto id = static_cast<uint32_t>(m_.node_paths_.size());
    m_.node_paths_.push_back(path);
    m_.node_producer_.push_back(-1);
    m_.node_ids_.insert(id, h, m_.node_paths_);
    return id;
}

Status Parser::FileParse::parse_variable() {
    std::string_view key, source;
    EvalString& value = next_path();
    if (auto s = parse_let(&key, &value, &source); !s) return s;
    std::string_view v = store_value(value, {});
    if (key == "ninja_required_version") {
        std::string version(v);
        auto [major, minor] = parse_version(version);
        if (major > kMajor || (major == kMajor && minor > kMinor))
            return lex_.error(fmt::format("ninja version ({}.{}) incompatible with build file "
                                          "ninja_required_version version ({})",
                                          kMajor, kMinor, version));
    }
    note_binding(key);
    m_.scopes_[scope_].vars.insert_or_assign(key, v);
    end(StatementKind::Variable, -1, key);
    return Ok{};
}

Status Parser::FileParse::parse_rule() {
    std::string_view name;
    if (!lex_.read_ident(&name)) return lex_.error("expected rule name");
    if (auto s = expect(Token::Newline); !s) return s;
    if (m_.scopes_[scope_].rules.count(name))
        return lex_.error(fmt::format("duplicate rule '{}'", name));
    Rule rule;
    rule.name = name;
    rule.scope = scope_;
    rule.where = StatementRef{file_, static_cast<uint32_t>(file().statements.size())};
    while (lex_.peek_token(Token::Indent)) {
        std::string_view key, source;
        EvalString value;
        if (auto s = parse_let(&key, &value, &source); !s) return s;
        if (!is_reserved_rule_binding(key))
            return lex_.error(fmt::format("unexpected variable '{}'", key));
        auto same = std::find_if(rule.bindings.begin(), rule.bindings.end(),
                                 [&](const RuleBinding& b) { return b.name == key; });
        if (same == rule.bindings.end()) {
            rule.bindings.push_back(RuleBinding{key, std::move(value), source});
        } else { // a binding given again replaces the first
            same->value = std::move(value);
            same->source = source;
        }
        note_binding(key);
    }
    auto empty = [&](std::string_view k) {
        const EvalString* b = rule.binding(k);
        return !b || b->empty();
    };
    if (empty("rspfile") != empty("rspfile_content"))
        return lex_.error("rspfile and rspfile_content need to be both specified");
    if (empty("command")) return lex_.error("expected 'command =' line");
    auto index = static_cast<uint32_t>(m_.rules_.size());
    m_.rules_.push_back(std::move(rule));
    m_.scopes_[scope_].rules.emplace(name, index);
    end(StatementKind::Rule, static_cast<int32_t>(index), name);
    return Ok{};
}

Status Parser::FileParse::parse_pool() {
    std::string_view name;
    if (!lex_.read_ident(&name)) return lex_.error("expected pool name");
    if (auto s = expect(Token::Newline); !s) return s;
    if (m_.find_pool(name)) return lex_.error(fmt::format("duplicate pool '{}'", name));
    long depth = -1;
    while (lex_.peek_token(Token::Indent)) {
        std::string_view key, source;
        EvalString& value = next_path();
        if (auto s = parse_let(&key, &value, &source); !s) return s;
        if (key != "depth") return lex_.error(fmt::format("unexpected variable '{}'", key));
        std::string text(store_value(value, {}));
        depth = std::strtol(text.c_str(), nullptr, 10);
        if (depth < 0) return lex_.error("invalid pool depth");
    }
    if (depth < 0) return lex_.error("expected 'depth =' line");
    auto index = static_cast<int32_t>(m_.pools_.size());
    m_.pools_.push_back(Pool{name, static_cast<int>(depth > INT32_MAX ? INT32_MAX : depth),
                             StatementRef{file_, static_cast<uint32_t>(file().statements.size())}});
    end(StatementKind::Pool, index, name);
    return Ok{};
}

Status Parser::FileParse::read_path_list(uint32_t* count) {
    for (;;) {
        EvalString& e = next_path();
        if (auto s = lex_.read_path(&e); !s) return s;
        if (e.empty()) {
            --npaths_;
            return Ok{};
        }
        ++*count;
    }
}

Status Parser::FileParse::read_edge_line(Edge& e) {
    // Paths are only read here; they are evaluated once the bindings are known.
    if (auto s = read_path_list(&e.outputs); !s) return s;
    if (lex_.peek_token(Token::Pipe))
        if (auto s = read_path_list(&e.implicit_outputs); !s) return s;
    if (e.outputs + e.implicit_outputs == 0) return lex_.error("expected path");
    if (auto s = expect(Token::Colon); !s) return s;
    std::string_view rule_name;
    if (!lex_.read_ident(&rule_name)) return lex_.error("expected build command name");
    const Rule* rule = m_.find_rule(rule_name, scope_);
    if (!rule) return lex_.error(fmt::format("unknown build rule '{}'", rule_name));
    e.rule = static_cast<uint32_t>(rule - m_.rules_.data());
    if (auto s = read_path_list(&e.inputs); !s) return s;
    if (lex_.peek_token(Token::Pipe))
        if (auto s = read_path_list(&e.implicit_inputs); !s) return s;
    if (lex_.peek_token(Token::Pipe2))
        if (auto s = read_path_list(&e.order_only); !s) return s;
    if (lex_.peek_token(Token::PipeAt))
        if (auto s = read_path_list(&e.validations); !s) return s;
    return expect(Token::Newline);
}

Status Parser::FileParse::read_edge_bindings(Edge& e) {
    // Evaluated now, in the file scope: they see neither $in nor each other.
    e.bindings = static_cast<uint32_t>(m_.edge_bindings_.size());
    while (lex_.peek_token(Token::Indent)) {
        std::string_view key, source;
        if (auto s = parse_let(&key, &p_.value_, &source); !s) return s;
        m_.edge_bindings_.push_back(EdgeBinding{key, store_value(p_.value_, {}), source});
    }
    e.binding_count = static_cast<uint32_t>(m_.edge_bindings_.size()) - e.bindings;
    return Ok{};
}

void Parser::FileParse::note_binding(std::string_view key) {
    if (key == "pool") p_.pool_bound_ = true;
    if (key == "dyndep") p_.dyndep_bound_ = true;
}

bool Parser::FileParse::binds(const Edge& e, std::string_view key) const {
    for (uint32_t i = 0; i < e.binding_count; ++i)
        if (m_.edge_bindings_[e.bindings + i].name == key) return true;
    return false;
}

Status Parser::FileParse::resolve_pool(Edge& e) {
    if (!p_.pool_bound_ && !binds(e, "pool")) return Ok{}; // nothing can name a pool
    // ninja looks the pool up before the edge has nodes, so $in/$out are empty.
    Edge bare = e;
    bare.outputs = bare.implicit_outputs = bare.inputs = 0;
    std::string name;
    EdgeEnv env(m_, bare, true);
    if (!env.lookup("pool", name)) return lex_.error(env.error());
    if (name.empty()) return Ok{};
    const Pool* pool = m_.find_pool(name);
    if (!pool) return lex_.error(fmt::format("unknown pool name '{}'", name));
    e.pool = static_cast<int32_t>(pool - m_.pools_.data());
    return Ok{};
}

Status Parser::FileParse::add_edge_nodes(Edge& e, uint32_t index) {
    std::span<const EdgeBinding> own(m_.edge_bindings_.data() + e.bindings, e.binding_count);
    e.nodes = static_cast<uint32_t>(m_.edge_nodes_.size());
    uint32_t nouts = e.outputs + e.implicit_outputs;
    for (uint32_t i = 0; i < npaths_; ++i) {
        auto node = node_for(p_.paths_[i], own);
        if (!node) return node.error();
        if (i < nouts) {
            if (m_.node_producer_[*node] >= 0)
                return lex_.error(fmt::format("multiple rules generate {}", m_.node_paths_[*node]));
            m_.node_producer_[*node] = static_cast<int32_t>(index);
        }
        m_.edge_nodes_.push_back(*node);
    }
    return Ok{};
}

Status Parser::FileParse::check_dyndep(const Edge& e) {
    if (!p_.dyndep_bound_ && !binds(e, "dyndep")) return Ok{}; // nothing can name one
    std::string dyndep;
    EdgeEnv raw(m_, e, false);
    if (!raw.lookup("dyndep", dyndep)) return lex_.error(raw.error());
    if (dyndep.empty()) return Ok{};
    std::string canonical = canonicalize_path(dyndep);
    auto node = m_.find_node(canonical);
    uint32_t first = e.nodes + e.outputs + e.implicit_outputs;
    for (uint32_t i = 0; node && i < e.inputs + e.implicit_inputs + e.order_only; ++i)
        if (m_.edge_nodes_[first + i] == *node) return Ok{};
    return lex_.error(fmt::format("dyndep '{}' is not an input", canonical));
}

Status Parser::FileParse::parse_edge() {
    Edge e;
    e.scope = scope_;
    e.where = StatementRef{file_, static_cast<uint32_t>(file().statements.size())};
    auto index = static_cast<uint32_t>(m_.edges_.size());
    Status s = read_edge_line(e);
    if (s) s = read_edge_bindings(e);
    if (s) s = resolve_pool(e);
    if (s) s = add_edge_nodes(e, index);
    if (!s) return s;
    m_.edges_.push_back(e);
    if (s = check_dyndep(m_.edges_.back()); !s) return s;
    end(StatementKind::Build, static_cast<int32_t>(index), {});
    return Ok{};
}

Status Parser::FileParse::parse_default() {
    EvalString& eval = next_path();
    if (auto s = lex_.read_path(&eval); !s) return s;
    if (eval.empty()) return lex_.error("expected target name");
    do {
        std::string path;
        evaluate_plain(m_.scopes_, static_cast<int32_t>(scope_), {}, eval, path);
        if (path.empty()) return lex_.error("empty path");
        path = canonicalize_path(path);
        auto node = m_.find_node(path);
        if (!node) return lex_.error(fmt::format("unknown target '{}'", path));
        m_.defaults_.push_back(m_.node_paths_[*node]);
        eval.clear();
        if (auto s = lex_.read_path(&eval); !s) return s;
    } while (!eval.empty());
    if (auto s = expect(Token::Newline); !s) return s;
    end(StatementKind::Default, -1, {});
    return Ok{};
}

Status Parser::FileParse::parse_include(bool subninja) {
    EvalString& eval = next_path();
    if (auto s = lex_.read_path(&eval); !s) return s;
    std::string path;
    evaluate_plain(m_.scopes_, static_cast<int32_t>(scope_), {}, eval, path);
    uint32_t scope = scope_;
    if (subninja) {
        scope = static_cast<uint32_t>(m_.scopes_.size());
        m_.scopes_.push_back(Scope{static_cast<int32_t>(scope_), {}, {}});
    }
    if (depth_ >= kMaxIncludeDepth)
        return lex_.error(fmt::format("loading '{}': too many nested includes", path));
    Result<SourceText> text = p_.read(path);
    if (!text) return lex_.error(fmt::format("loading '{}': {}", path, text.error().message));
    auto index = static_cast<int32_t>(m_.files_.size());
    if (auto s =
            p_.parse_file(path, std::move(*text), static_cast<int32_t>(file_), scope, depth_ + 1);
        !s)
        return s;
    if (auto s = expect(Token::Newline); !s) return s;
    end(subninja ? StatementKind::Subninja : StatementKind::Include, index, {});
    return Ok{};
}

Status Parser::FileParse::run() {
    for (;;) {
        Token t = lex_.read_token();
        size_t start = lex_.last_token_offset();
        Status s = Ok{};
        switch (t) {
        case Token::Pool:
            begin(start), s = parse_pool();
            break;
        case Token::Build:
            begin(start), s = parse_edge();
            break;
        case Token::Rule:
            begin(start), s = parse_rule();
            break;
        case Token::Default:
            begin(start), s = parse_default();
            break;
        case Token::Include:
            begin(start), s = parse_include(false);
            break;
        case Token::Subninja:
            begin(start), s = parse_include(true);
            break;
        case Token::Ident:
            lex_.unread_token();
            begin(start);
            s = parse_variable();
            break;
        case Token::Newline:
            break;
        case Token::Error:
            return lex_.error(lex_.describe_last_error());
        case Token::Eof:
            begin(text_.size()); // whatever follows is trivia (even bytes after a NUL)
            return Ok{};
        default:
            return lex_.error(fmt::format("unexpected {}", token_name(t)));
        }
        if (!s) return s;
    }
}

namespace {

/// Makes room for `extra` more elements, at least doubling when it must grow.
template <class T> void reserve_more(std::vector<T>& v, size_t extra) {
    size_t want = v.size() + extra;
    if (want > v.capacity()) v.reserve(std::max(want, v.capacity() * 2));
}

} // namespace

Status Parser::parse_file(std::string path, SourceText text, int32_t parent, uint32_t scope,
                          int depth) {
    auto file = static_cast<uint32_t>(m_.files_.size());
    m_.buffers_.push_back(std::make_unique<SourceText>(std::move(text)));
    std::string_view buf = m_.buffers_.back()->text();
    // Size the big arrays once from the text (a CMake manifest has about one
    // edge per 600 bytes, a node per 300, a binding per 100): growing them step
    // by step would copy them and touch twice the memory.
    size_t size = buf.size();
    reserve_more(m_.edges_, size / 256);
    reserve_more(m_.edge_bindings_, size / 64);
    reserve_more(m_.edge_nodes_, size / 64);
    reserve_more(m_.node_paths_, size / 128);
    reserve_more(m_.node_producer_, size / 128);
    // The index is written whole when it is sized (the rest only as used): size it closer.
    m_.node_ids_.reserve(m_.node_paths_.size() + size / 256, m_.node_paths_);
    File f;
    f.path = std::move(path);
    f.parent = parent;
    f.scope = scope;
    f.statements.reserve(size / 128);
    m_.files_.push_back(std::move(f));
    m_.edits_.emplace_back();
    m_.appended_.emplace_back();
    FileParse fp(*this, file, scope, depth, buf);
    return fp.run();
}

namespace {

/// Reads a whole file into a string like ninja's ReadFile; the error is the bare strerror text.
Result<std::string> read_fd(int fd, size_t size_hint) {
    std::string out;
    out.resize(size_hint + 1);
    size_t used = 0;
    for (;;) {
        if (used == out.size()) out.resize(out.size() * 2 + 4096);
        ssize_t n = ::read(fd, out.data() + used, out.size() - used);
        if (n < 0) {
            if (errno == EINTR) continue;
            return make_error(std::strerror(errno));
        }
        if (n == 0) break;
        used += static_cast<size_t>(n);
    }
    out.resize(used);
    return out;
}

/// Reads a file from disk: mapped when it is a regular file whose last page has
/// room for the kTextPadding NULs after the text (the kernel zero-fills the rest of it),
/// else read into a string. A mapped file truncated by another process while
/// the manifest lives would fault; manifests are replaced by rename (CMake,
/// regen's write_file_atomic), not rewritten in place.
Result<SourceText> read_disk_file(const std::string& path) {
    util::Fd fd = util::open_fd(path, O_RDONLY);
    if (!fd.valid()) return make_error(std::strerror(errno));
    struct stat st {};
    size_t size =
        ::fstat(fd.get(), &st) == 0 && st.st_size > 0 ? static_cast<size_t>(st.st_size) : 0;
    auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    // size % page == 0 leaves no room at all: the next page is not the file's.
    if (S_ISREG(st.st_mode) && size % page != 0 && page - size % page >= kTextPadding) {
        void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd.get(), 0);
        // The byte after the text must be the kernel's zero fill: a file that grew
        // since fstat() is read instead.
        if (p != MAP_FAILED && static_cast<const char*>(p)[size] == '\0')
            return SourceText(static_cast<const char*>(p), size, (size / page + 1) * page);
        if (p != MAP_FAILED) ::munmap(p, size);
    }
    auto text = read_fd(fd.get(), size);
    if (!text) return text.error();
    return SourceText(std::move(*text));
}

Result<Manifest> parse_with(SourceText text, std::string filename, const FileReader* reader) {
    Manifest m;
    Parser p(m, reader);
    if (auto s = p.parse_file(std::move(filename), std::move(text), -1, 0, 0); !s) return s.error();
    return m;
}

} // namespace

SourceText::SourceText(SourceText&& o) noexcept
    : owned_(std::move(o.owned_)), mapped_(o.mapped_), size_(o.size_),
      mapped_size_(o.mapped_size_) {
    o.mapped_ = nullptr;
}

SourceText::~SourceText() {
    if (mapped_) ::munmap(const_cast<char*>(mapped_), mapped_size_);
}

Result<SourceText> Parser::read(const std::string& path) const {
    if (!reader_) return read_disk_file(path);
    if (!*reader_) return make_error("No such file or directory");
    auto text = (*reader_)(path);
    if (!text) return text.error();
    return SourceText(std::move(*text));
}

Result<Manifest> parse_manifest(std::string text, std::string filename, const FileReader& reader) {
    return parse_with(SourceText(std::move(text)), std::move(filename), &reader);
}

Result<Manifest> load_manifest(const std::string& path) {
    auto text = read_disk_file(path);
    if (!text) return error_at(path, fmt::format("loading '{}': {}", path, text.error().message));
    return parse_with(std::move(*text), path, nullptr);
}

Result<Manifest> reparse(const Manifest& m) {
    std::unordered_map<std::string, std::string> texts;
    for (uint32_t i = 1; i < m.files().size(); ++i)
        texts.emplace(m.files()[i].path, m.write_file(i));
    FileReader reader = [&texts](const std::string& path) -> Result<std::string> {
        auto it = texts.find(path);
        if (it == texts.end()) return make_error(std::strerror(ENOENT));
        return it->second;
    };
    return parse_with(SourceText(m.write_file(0)), m.files()[0].path, &reader);
}

} // namespace phc::ninja
