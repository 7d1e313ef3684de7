// Fuzzes the ninja manifest parser: it must never crash or hang; whatever
// parses must write back byte for byte and evaluate without crashing; literal
// values and paths must survive escape -> parse.
#include "fuzz_check.h"
#include "ninja/manifest.h"
#include "ninja/paths.h"
#include "ninja/writer.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

using namespace phc;
using phc::fuzz::check;
using namespace phc::ninja;

namespace {

/// Serves one small include so include/subninja paths get exercised.
Result<std::string> reader(const std::string& path) {
    if (path == "inc.ninja") return std::string("v = inc\nrule ri\n  command = ri $in\n");
    return make_error("No such file or directory");
}

std::vector<std::string> strings(const std::vector<std::string_view>& v) {
    return {v.begin(), v.end()};
}

/// Replaces every edge with a BuildStatement made of its evaluated parts; the
/// result must parse to the same edges with the same commands.
void check_rewrite(Manifest& m) {
    std::vector<std::string> before;
    for (size_t i = 0; i < m.edge_count(); ++i) {
        EdgeRef e = m.edge(i);
        auto command = e.evaluate("command");
        before.push_back(command ? *command : command.error().message);
        BuildStatement b{strings(e.outputs()),         strings(e.implicit_outputs()),
                         std::string(e.rule().name),   strings(e.inputs()),
                         strings(e.implicit_inputs()), strings(e.order_only()),
                         strings(e.validations()),     {}};
        for (const EdgeBinding& eb : e.bindings())
            b.bindings.push_back({std::string(eb.name), std::string(eb.value), true});
        if (!m.replace(e.statement(), {b})) return; // e.g. a '|' in a path: not writable
    }
    auto again = reparse(m);
    check(again.ok() && again->edge_count() == m.edge_count());
    for (size_t i = 0; i < again->edge_count(); ++i) {
        auto command = again->edge(i).evaluate("command");
        std::string text = command ? *command : command.error().message;
        if (command || text.find("cycle") == std::string::npos) check(text == before[i]);
    }
}

void check_manifest(const std::string& text) {
    auto m = parse_manifest(text, "fuzz.ninja", reader);
    if (!m) {
        check(!m.error().message.empty());
        return;
    }
    check(m->write_file(0) == text);
    for (size_t i = 0; i < m->edge_count(); ++i) {
        EdgeRef e = m->edge(i);
        for (const char* var : {"command", "description", "depfile", "rspfile_content"})
            (void)e.evaluate(var);
        (void)e.evaluate_unescaped("in_newline");
    }
    auto again = reparse(*m);
    check(again.ok() && again->edge_count() == m->edge_count());
    check_rewrite(*m);
}

void check_escapes(const std::string& s) {
    if (value_error(s).empty()) {
        auto m = parse_manifest("v = " + escape_value(s) + "\n");
        check(m.ok() && m->variable("v").value_or("") == s);
    }
    if (path_error(s).empty()) {
        auto m = parse_manifest("build " + escape_path(s) + ": phony\n");
        check(m.ok() && m->edge_count() == 1 && m->edge(0).outputs()[0] == canonicalize_path(s));
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string text(reinterpret_cast<const char*>(data), size);
    check_manifest(text);
    if (size < 256) check_escapes(text);
    return 0;
}
