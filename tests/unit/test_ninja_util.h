// Helpers shared by the test_ninja_*.cpp unit tests.
#pragma once

#include "ninja/manifest.h"

#include <doctest/doctest.h>
#include <map>
#include <string>

namespace phc::ninja::test {

/// Parses `text` (as build.ninja) with `files` as the only includable files.
inline Result<Manifest> parse(const std::string& text,
                              std::map<std::string, std::string> files = {}) {
    return parse_manifest(text, "build.ninja",
                          [files](const std::string& p) -> Result<std::string> {
                              auto it = files.find(p);
                              if (it == files.end()) return make_error("No such file or directory");
                              return it->second;
                          });
}

/// Parses `text`, which must succeed, and returns the manifest.
inline Manifest parse_ok(const std::string& text, std::map<std::string, std::string> files = {}) {
    auto m = parse(text, std::move(files));
    if (!m) FAIL(m.error().text());
    return std::move(*m);
}

/// The error as a command prints it, for `text`, which must fail to parse.
inline std::string parse_error(const std::string& text,
                               std::map<std::string, std::string> files = {}) {
    auto m = parse(text, std::move(files));
    if (m) FAIL("expected a parse error for:\n" << text);
    return format_error("", m.error());
}

/// The evaluated `var` of the edge producing output `out` (explicit or implicit).
inline std::string eval(const Manifest& m, std::string_view out, std::string_view var) {
    for (size_t i = 0; i < m.edge_count(); ++i) {
        auto outs = m.edge(i).outputs();
        auto implicit = m.edge(i).implicit_outputs();
        outs.insert(outs.end(), implicit.begin(), implicit.end());
        for (auto o : outs)
            if (o == out) {
                auto r = m.edge(i).evaluate(var);
                if (!r) FAIL(r.error().text());
                return *r;
            }
    }
    FAIL("no edge produces " << out);
    return {};
}

} // namespace phc::ninja::test
