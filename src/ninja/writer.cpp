#include "ninja/writer.h"

#include "ninja/lexer.h"

#include <cstring>
#include <fmt/format.h>

namespace phc::ninja {

namespace {

/// Appends `text` to `out` with a '$' before every character for which `special`
/// is true, copying the runs between them whole.
template <typename Special>
void append_escaped(std::string& out, std::string_view text, Special special) {
    size_t from = 0;
    for (size_t at = 0; at < text.size(); ++at) {
        if (!special(text[at])) continue;
        out.append(text, from, at - from);
        out += '$';
        from = at;
    }
    out.append(text, from, text.size() - from);
}

/// Appends escape_value(value) to `out`.
void append_escaped_value(std::string& out, std::string_view value) {
    size_t lead = value.find_first_not_of(' ');
    if (lead == std::string_view::npos) lead = value.size();
    for (size_t k = 0; k < lead; ++k) // ninja drops unescaped leading blanks
        out += "$ ";
    std::string_view rest = value.substr(lead);
    for (size_t at = rest.find('$'); at != std::string_view::npos; at = rest.find('$')) {
        out.append(rest.substr(0, at + 1));
        out += '$';
        rest.remove_prefix(at + 1);
    }
    out.append(rest);
}

} // namespace

bool needs_path_escape(std::string_view path) {
    auto has = [&](char c) { return std::memchr(path.data(), c, path.size()) != nullptr; };
    return has('$') || has(' ') || has(':');
}

void append_escaped_path(std::string& out, std::string_view path) {
    if (!needs_path_escape(path)) {
        out += path; // the usual case
        return;
    }
    append_escaped(out, path, [](char c) { return c == '$' || c == ' ' || c == ':'; });
}

std::string escape_path(std::string_view path) {
    std::string out;
    out.reserve(path.size() + 8);
    append_escaped_path(out, path);
    return out;
}

std::string escape_value(std::string_view value) {
    std::string out;
    out.reserve(value.size() + 8);
    append_escaped_value(out, value);
    return out;
}

std::string to_ninja_text(const EvalString& s) {
    std::string out;
    bool leading = true; // the lexer drops blanks before a value's first character
    for (const EvalPart& p : s.parts) {
        if (p.variable) {
            out += "${";
            out += p.text;
            out += '}';
            leading = false;
            continue;
        }
        for (char c : p.text) {
            if (c != ' ') leading = false;
            if (c == '$' || (c == ' ' && leading)) out += '$';
            out += c;
        }
    }
    return out;
}

namespace {

/// True when `text` holds any of `chars` (one memchr each: fast on long text).
bool has_any(std::string_view text, std::string_view chars) {
    for (char c : chars)
        if (text.find(c) != std::string_view::npos) return true;
    return false;
}

constexpr std::string_view kBreaks("\n\r\0", 3);

} // namespace

std::string path_error(std::string_view path) {
    if (path.empty()) return "empty path";
    if (!has_any(path, kBreaks) && path.find('|') == std::string_view::npos) return {};
    for (char c : path) {
        if (c == '\n' || c == '\r' || c == '\0')
            return fmt::format("path '{}' contains a line break or NUL, which ninja cannot express",
                               path);
        if (c == '|')
            return fmt::format("path '{}' contains '|', which ninja cannot express in a path",
                               path);
    }
    return {};
}

std::string value_error(std::string_view value) {
    if (!has_any(value, kBreaks)) return {};
    for (char c : value)
        if (c == '\n' || c == '\r' || c == '\0')
            return fmt::format(
                "value '{}' contains a line break or NUL, which ninja cannot express", value);
    return {};
}

namespace {

bool is_name(std::string_view name) {
    if (name.empty()) return false;
    for (char c : name)
        if (!is_varname_char(c)) return false;
    return true;
}

bool is_keyword(std::string_view n) {
    return n == "build" || n == "rule" || n == "pool" || n == "default" || n == "include" ||
           n == "subninja";
}

/// True when `text` is plainly one valid value: no line break or NUL, and every
/// '$' starts a well-formed escape or variable. Anything else goes to the lexer.
bool plainly_valid(std::string_view t) {
    for (size_t i = 0; i < t.size(); ++i) {
        char c = t[i];
        if (c == '\n' || c == '\r' || c == '\0') return false;
        if (c != '$') continue;
        char n = i + 1 < t.size() ? t[i + 1] : '\0';
        if (n == '$' || n == ' ' || n == ':' || is_simple_varname_char(n)) {
            ++i;
        } else if (n == '{') {
            size_t j = i + 2;
            while (j < t.size() && is_varname_char(t[j]))
                ++j;
            if (j == i + 2 || j >= t.size() || t[j] != '}') return false;
            i = j;
        } else {
            return false;
        }
    }
    return true;
}

/// Checks that raw ninja value text lexes as exactly one value.
std::string raw_value_error(std::string_view text) {
    if (plainly_valid(text)) return {};
    std::string buf(text);
    buf += '\n';
    const size_t size = buf.size();
    buf.append(kTextPadding, '\0');
    Lexer lex("value", std::string_view(buf).substr(0, size));
    EvalString e;
    if (auto s = lex.read_var_value(&e); !s)
        return fmt::format("value '{}' is not valid ninja text", text);
    if (lex.offset() != size)
        return fmt::format("value '{}' contains an unescaped line break", text);
    return {};
}

Status append_binding(std::string& out, const Binding& b, std::string_view indent) {
    if (!is_name(b.name)) return make_error(fmt::format("invalid variable name '{}'", b.name));
    std::string problem = b.literal ? value_error(b.value) : raw_value_error(b.value);
    if (!problem.empty()) return make_error(fmt::format("binding '{}': {}", b.name, problem));
    out += indent;
    out += b.name;
    out += " = ";
    if (b.literal)
        append_escaped_value(out, b.value);
    else
        out += b.value;
    out += '\n';
    return Ok{};
}

Status append_bindings(std::string& out, const std::vector<Binding>& bindings) {
    for (const Binding& b : bindings)
        if (auto s = append_binding(out, b, "  "); !s) return s;
    return Ok{};
}

Status append_paths(std::string& out, std::string_view sep, const std::vector<std::string>& paths) {
    for (size_t i = 0; i < paths.size(); ++i) {
        if (auto e = path_error(paths[i]); !e.empty()) return make_error(e);
        out += i == 0 ? sep : " ";
        append_escaped(out, paths[i], [](char c) { return c == '$' || c == ' ' || c == ':'; });
    }
    return Ok{};
}

Status render_one(std::string& out, const Binding& b) {
    if (is_keyword(b.name))
        return make_error(fmt::format("'{}' cannot be a top-level variable name", b.name));
    return append_binding(out, b, "");
}

Status render_one(std::string& out, const RuleStatement& r) {
    if (!is_name(r.name)) return make_error(fmt::format("invalid rule name '{}'", r.name));
    out += "rule ";
    out += r.name;
    out += '\n';
    return append_bindings(out, r.bindings);
}

Status render_one(std::string& out, const BuildStatement& b) {
    if (b.outputs.empty() && b.implicit_outputs.empty())
        return make_error("build statement has no outputs");
    if (!is_name(b.rule)) return make_error(fmt::format("invalid rule name '{}'", b.rule));
    out += "build";
    Status s = append_paths(out, " ", b.outputs);
    if (s) s = append_paths(out, " | ", b.implicit_outputs);
    if (s) {
        out += ": ";
        out += b.rule;
    }
    if (s) s = append_paths(out, " ", b.inputs);
    if (s) s = append_paths(out, " | ", b.implicit);
    if (s) s = append_paths(out, " || ", b.order_only);
    if (s) s = append_paths(out, " |@ ", b.validations);
    if (!s) return s;
    out += '\n';
    return append_bindings(out, b.bindings);
}

Status render_one(std::string& out, const PoolStatement& p) {
    if (!is_name(p.name)) return make_error(fmt::format("invalid pool name '{}'", p.name));
    if (p.depth < 0) return make_error(fmt::format("pool '{}': negative depth", p.name));
    out += fmt::format("pool {}\n  depth = {}\n", p.name, p.depth);
    return Ok{};
}

Status render_one(std::string& out, const DefaultStatement& d) {
    if (d.targets.empty()) return make_error("default statement has no targets");
    out += "default";
    if (auto s = append_paths(out, " ", d.targets); !s) return s;
    out += '\n';
    return Ok{};
}

Status render_one(std::string& out, const IncludeStatement& i) {
    out += i.subninja ? "subninja" : "include";
    if (auto s = append_paths(out, " ", {i.path}); !s) return s;
    out += '\n';
    return Ok{};
}

Status render_one(std::string& out, const RawStatement& r) {
    if (!r.text.empty() && r.text.back() != '\n')
        return make_error("raw statement text must end in a newline");
    out += r.text;
    return Ok{};
}

} // namespace

Status render_to(std::string& out, const NewStatement& statement) {
    const size_t size = out.size();
    Status s = std::visit([&](const auto& st) { return render_one(out, st); }, statement);
    if (!s) out.resize(size);
    return s;
}

Result<std::string> render(const NewStatement& statement) {
    std::string out;
    if (auto s = render_to(out, statement); !s) return s.error();
    return out;
}

} // namespace phc::ninja
