// Manifest::pieces(): a file's edited text as views, checked against a model of the edits.
#include "test_ninja_util.h"

#include <random>

using namespace phc;
using namespace phc::ninja;
using phc::ninja::test::parse_ok;

namespace {

std::string concat(const std::vector<std::string_view>& pieces) {
    std::string out;
    for (std::string_view p : pieces)
        out += p;
    return out;
}

bool has_empty(const std::vector<std::string_view>& pieces) {
    for (std::string_view p : pieces)
        if (p.empty()) return true;
    return false;
}

} // namespace

TEST_CASE("manifest pieces: an unedited file is one view of its loaded text") {
    std::string text = "# head\n\nrule r\n  command = c $in\n\nbuild a: r x\nbuild b: r y\n";
    auto m = parse_ok(text);
    auto pieces = m.pieces(0);
    REQUIRE(pieces.size() == 1);
    CHECK(pieces[0] == text);
    CHECK(pieces[0].data() == m.statement({0, 0}).text.data());
    CHECK(m.write_file(0) == text);
    CHECK(parse_ok("").pieces(0).empty());
}

TEST_CASE("manifest pieces: unedited runs stay whole around an edit") {
    std::string text = "rule r\n  command = c $in\nbuild a: r x\nbuild b: r y\nbuild c: r z\n";
    auto m = parse_ok(text);
    REQUIRE(m.edge_count() == 3);
    m.replace_text(m.edge(1).statement(), "build b2: r y\n");
    auto pieces = m.pieces(0);
    REQUIRE(pieces.size() == 3);
    CHECK(pieces[0] == "rule r\n  command = c $in\nbuild a: r x\n");
    CHECK(pieces[1] == "build b2: r y\n");
    CHECK(pieces[2] == "build c: r z\n");
    CHECK(m.write_file(0) == concat(pieces));
    // Removing a statement leaves no empty piece; both sides stay separate views.
    m.remove(m.edge(1).statement());
    pieces = m.pieces(0);
    CHECK(pieces.size() == 2);
    CHECK_FALSE(has_empty(pieces));
    CHECK(concat(pieces) == "rule r\n  command = c $in\nbuild a: r x\nbuild c: r z\n");
}

TEST_CASE("manifest pieces: every kind of edit, against a model, in the top and an included "
          "file") {
    // A top file of many statements including a file; random edits of every
    // kind, mirrored in a plain model: per statement, before + text + after.
    std::string top = "include inc.ninja\nrule r\n  command = c $in\n\n";
    for (int i = 0; i < 200; ++i)
        top += "build o" + std::to_string(i) + ": r i" + std::to_string(i) + "\n" +
               (i % 7 == 0 ? "# note\n\n" : "");
    std::string inc;
    for (int i = 0; i < 50; ++i)
        inc += "v" + std::to_string(i) + " = " + std::to_string(i) + "\n";
    auto m = parse_ok(top, {{"inc.ninja", inc}});
    REQUIRE(m.files().size() == 2);

    struct Model {
        std::string before, text, after;
    };
    std::vector<std::vector<Model>> model(2);
    std::vector<std::string> appended(2);
    for (uint32_t f = 0; f < 2; ++f)
        for (const Statement& s : m.files()[f].statements)
            model[f].push_back({"", std::string(s.text), ""});

    std::mt19937 rng(12345);
    auto raw = [&](const std::string& what) {
        return "# " + what + " " + std::to_string(rng() % 1000) + "\n";
    };
    for (int k = 0; k < 400; ++k) {
        uint32_t f = rng() % 4 == 0 ? 1 : 0;
        auto n = static_cast<uint32_t>(model[f].size());
        // Edits at the first and last statement are the likeliest to go wrong.
        uint32_t i = k % 10 == 0 ? 0 : k % 10 == 1 ? n - 1 : static_cast<uint32_t>(rng() % n);
        StatementRef at{f, i};
        std::string t;
        switch (rng() % 6) {
        case 0:
            t = raw("replaced");
            REQUIRE(m.replace(at, {RawStatement{t}}).ok());
            model[f][i].text = t;
            break;
        case 1:
            t = raw("text");
            m.replace_text(at, t);
            model[f][i].text = t;
            break;
        case 2:
            t = raw("before");
            REQUIRE(m.insert_before(at, {RawStatement{t}}).ok());
            model[f][i].before += t;
            break;
        case 3:
            t = raw("after");
            REQUIRE(m.insert_after(at, {RawStatement{t}}).ok());
            model[f][i].after += t;
            break;
        case 4:
            m.remove(at);
            model[f][i].text.clear();
            break;
        default:
            t = raw("appended");
            REQUIRE(m.append(f, {RawStatement{t}}).ok());
            appended[f] += t;
        }
        if (k % 50 != 49) continue;
        for (uint32_t g = 0; g < 2; ++g) {
            std::string want;
            for (const Model& s : model[g])
                want += s.before + s.text + s.after;
            want += appended[g];
            auto pieces = m.pieces(g);
            CHECK_FALSE(has_empty(pieces));
            CHECK(concat(pieces) == want);
            CHECK(m.write_file(g) == want);
        }
    }
}
