#include "ninja/writer.h"

#include "ninja/lexer.h"

#include <fmt/format.h>

namespace phc::ninja {

std::string escape_path(std::string_view path) {
    std::string out;
    out.reserve(path.size());
    for (char c : path) {
        if (c == '$' || c == ' ' || c == ':') out += '$';
        out += c;
    }
    return out;
}

std::string escape_value(std::string_view value) {
    std::string out;
    out.reserve(value.size());
    bool leading = true;
    for (char c : value) {
        if (c != ' ') leading = false;
        if (c == '$' || (c == ' ' && leading)) out += '$';
        out += c;
    }
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

std::string path_error(std::string_view path) {
    if (path.empty()) return "empty path";
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

/// Checks that raw ninja value text lexes as exactly one value.
std::string raw_value_error(std::string_view text) {
    std::string buf(text);
    buf += '\n';
    Lexer lex("value", buf);
    EvalString e;
    if (auto s = lex.read_var_value(&e); !s)
        return fmt::format("value '{}' is not valid ninja text", text);
    if (lex.offset() != buf.size())
        return fmt::format("value '{}' contains an unescaped line break", text);
    return {};
}

Result<std::string> binding_text(const Binding& b, std::string_view indent) {
    if (!is_name(b.name)) return make_error(fmt::format("invalid variable name '{}'", b.name));
    std::string problem = b.literal ? value_error(b.value) : raw_value_error(b.value);
    if (!problem.empty()) return make_error(fmt::format("binding '{}': {}", b.name, problem));
    return fmt::format("{}{} = {}\n", indent, b.name, b.literal ? escape_value(b.value) : b.value);
}

Status append_bindings(std::string& out, const std::vector<Binding>& bindings) {
    for (const Binding& b : bindings) {
        auto t = binding_text(b, "  ");
        if (!t) return t.error();
        out += *t;
    }
    return Ok{};
}

Status append_paths(std::string& out, std::string_view sep, const std::vector<std::string>& paths) {
    for (size_t i = 0; i < paths.size(); ++i) {
        if (auto e = path_error(paths[i]); !e.empty()) return make_error(e);
        out += i == 0 ? sep : " ";
        out += escape_path(paths[i]);
    }
    return Ok{};
}

Result<std::string> render_one(const Binding& b) {
    if (is_keyword(b.name))
        return make_error(fmt::format("'{}' cannot be a top-level variable name", b.name));
    return binding_text(b, "");
}

Result<std::string> render_one(const RuleStatement& r) {
    if (!is_name(r.name)) return make_error(fmt::format("invalid rule name '{}'", r.name));
    std::string out = fmt::format("rule {}\n", r.name);
    if (auto s = append_bindings(out, r.bindings); !s) return s.error();
    return out;
}

Result<std::string> render_one(const BuildStatement& b) {
    if (b.outputs.empty() && b.implicit_outputs.empty())
        return make_error("build statement has no outputs");
    if (!is_name(b.rule)) return make_error(fmt::format("invalid rule name '{}'", b.rule));
    std::string out = "build";
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
    if (!s) return s.error();
    out += '\n';
    if (auto t = append_bindings(out, b.bindings); !t) return t.error();
    return out;
}

Result<std::string> render_one(const PoolStatement& p) {
    if (!is_name(p.name)) return make_error(fmt::format("invalid pool name '{}'", p.name));
    if (p.depth < 0) return make_error(fmt::format("pool '{}': negative depth", p.name));
    return fmt::format("pool {}\n  depth = {}\n", p.name, p.depth);
}

Result<std::string> render_one(const DefaultStatement& d) {
    if (d.targets.empty()) return make_error("default statement has no targets");
    std::string out = "default";
    if (auto s = append_paths(out, " ", d.targets); !s) return s.error();
    out += '\n';
    return out;
}

Result<std::string> render_one(const IncludeStatement& i) {
    std::string out = i.subninja ? "subninja" : "include";
    if (auto s = append_paths(out, " ", {i.path}); !s) return s.error();
    out += '\n';
    return out;
}

Result<std::string> render_one(const RawStatement& r) {
    if (!r.text.empty() && r.text.back() != '\n')
        return make_error("raw statement text must end in a newline");
    return r.text;
}

} // namespace

Result<std::string> render(const NewStatement& statement) {
    return std::visit([](const auto& s) { return render_one(s); }, statement);
}

} // namespace phc::ninja
