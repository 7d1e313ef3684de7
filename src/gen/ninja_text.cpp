#include "gen/ninja_text.h"

namespace phc::gen {

std::string ninja_path(std::string_view path) {
    std::string out;
    for (char c : path) {
        if (c == '$' || c == ' ' || c == ':' || c == '\n') out += '$';
        out += c;
    }
    return out;
}

std::string ninja_value(std::string_view value) {
    std::string out;
    if (!value.empty() && value[0] == ' ') out += '$'; // ninja strips leading blanks
    for (char c : value) {
        if (c == '$' || c == '\n') out += '$';
        out += c;
    }
    return out;
}

std::string render_build(const BuildStatement& b) {
    std::string out = "build";
    for (const auto& o : b.outputs)
        out += " " + ninja_path(o);
    out += ": " + b.rule;
    for (const auto& i : b.inputs)
        out += " " + ninja_path(i);
    if (!b.implicit.empty()) {
        out += " |";
        for (const auto& i : b.implicit)
            out += " " + ninja_path(i);
    }
    out += "\n";
    for (const auto& [name, value] : b.vars)
        out += "  " + name + " = " + ninja_value(value) + "\n";
    return out;
}

} // namespace phc::gen
