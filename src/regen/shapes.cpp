#include "regen/shapes.h"

#include "compile/shell.h"
#include "ninja/writer.h"
#include "probe/probe.h"
#include "split/plan.h"
#include "util/hash.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <tuple>

namespace phc::regen {

namespace {

/// Starts every sentinel. A command or path holding it is never abstracted.
constexpr std::string_view kMark = "PHCSNTL";

/// Architecture names hold this; abstracted values never do (see shapes.h).
constexpr std::string_view kArchMark = "gfx";

/// Letters, digits and `extra`, less `without`.
constexpr std::array<bool, 256> char_set(std::string_view extra, char without = '\0') {
    std::array<bool, 256> t{};
    for (int c = 0; c < 256; ++c)
        t[c] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    for (char c : extra)
        t[static_cast<unsigned char>(c)] = true;
    t[static_cast<unsigned char>(without)] = false;
    return t;
}

/// Characters of a command word that the shell takes literally (compile::quote_word
/// leaves such words bare): a command of these and spaces splits at its spaces.
constexpr std::array<bool, 256> kWordChars = char_set(compile::kBarePunctuation);
enum class CharClass : uint8_t { Other, Word, Separator, Space, Colon, G };

/// kWordChars, with '=' and ',' (where a path may start inside a word) and ' ' told apart.
constexpr std::array<CharClass, 256> kCommandClass = [] {
    std::array<CharClass, 256> t{};
    for (int c = 0; c < 256; ++c)
        t[c] = kWordChars[c] ? CharClass::Word : CharClass::Other;
    t['='] = t[','] = CharClass::Separator;
    t[' '] = CharClass::Space;
    t[':'] = CharClass::Colon; // a word char, but not a value char
    t['g'] = CharClass::G;     // may start kArchMark
    return t;
}();

/// Characters of an abstracted value: bare for the shell, unescaped for ninja in
/// both paths and values.
constexpr std::array<bool, 256> kValueChars = char_set(compile::kBarePunctuation, ':');
/// Characters of an architecture name (no separator the abstraction uses).
constexpr std::array<bool, 256> kArchChars = char_set("_-:+");

bool all_of(std::string_view s, const std::array<bool, 256>& set) {
    for (char c : s)
        if (!set[static_cast<unsigned char>(c)]) return false;
    return true;
}

bool contains(std::string_view s, std::string_view part) {
    return s.find(part) != std::string_view::npos;
}

/// A path (object or source) the cache may abstract.
bool abstractable_path(std::string_view p) {
    // '-' starts an option, '@' a response file: such words mean something else.
    return !p.empty() && p[0] != '-' && p[0] != '@' && all_of(p, kValueChars) &&
           !contains(p, "=") && !contains(p, ",") && !contains(p, kArchMark);
}

/// The extension a decision may read: from the last '.' of the last component.
std::string_view extension(std::string_view path) {
    size_t dot = path.rfind('.');
    size_t slash = path.rfind('/');
    if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash))
        return {};
    return path.substr(dot);
}

/// True when `word` holds `v` at `at`, followed by its end or a '.'.
bool fits_at(std::string_view word, size_t at, std::string_view v) {
    return word.size() >= at + v.size() && word[at] == v[0] && word.compare(at, v.size(), v) == 0 &&
           (word.size() == at + v.size() || word[at + v.size()] == '.');
}

/// Where `word` holds `v` (non-empty): all of it or its start followed by '.',
/// or the same after its last '=' or ',' (at `sep`, npos for none). npos when nowhere.
size_t slot_at(std::string_view word, std::string_view v, size_t sep) {
    if (fits_at(word, 0, v)) return 0;
    if (sep != std::string_view::npos && fits_at(word, sep + 1, v)) return sep + 1;
    return std::string_view::npos;
}

/// Where `text`'s last '=' or ',' is (npos for none), as slot_at() wants it.
size_t last_separator(std::string_view text) {
    for (size_t at = text.size(); at > 0; --at)
        if (text[at - 1] == '=' || text[at - 1] == ',') return at - 1;
    return std::string_view::npos;
}

/// An opaque -D or -I word: its value is copied through by the planner and
/// never read (options.cpp: -D and -I are the only options so spelled).
/// `plain`: the word holds only kValueChars and not kArchMark.
bool opaque_value_word(std::string_view w, bool plain) {
    if (!plain || w.size() < 3 || w[0] != '-' || (w[1] != 'D' && w[1] != 'I')) return false;
    char c = w[2];
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '/' || c == '.';
}

enum class Slot : uint8_t { None, Object, Source, Value };

/// The key separates its parts with the bytes 0 to kKeyMax; no literal holds them.
constexpr char kKeyMax = 2;

/// The carry-over lists copied as paths, and the letter of their sentinels.
constexpr std::array<char, 4> kListLetters = {'a', 'b', 'c', 'd'};

template <typename C> auto& carry_list(C& c, size_t which) {
    switch (which) {
    case 0:
        return c.implicit_outputs;
    case 1:
        return c.implicit;
    case 2:
        return c.order_only;
    default:
        return c.validations;
    }
}

} // namespace

/// One step of a shape's program.
struct Op {
    enum Kind : uint8_t { Text, Object, Source, Value, CarryPath, Cuid, ObjectHash } kind;
    uint32_t a = 0; ///< Text: offset in ShapeProgram::text; Value: index; CarryPath: list
    uint32_t b = 0; ///< Text: length; CarryPath: index in the list
};

struct ShapeProgram {
    bool reusable = false;
    std::string text; ///< the literal pieces
    std::vector<Op> ops;
    bool hash_cuid = false;
    std::vector<size_t> cuid_words; ///< command word positions make_cuid() hashes
    size_t argv0 = 0;               ///< command word position of the compiler
    std::string code, why;          ///< the decision
    std::vector<std::string> archs;
    bool rdc = false;                         ///< EdgeDecision::rdc
    std::shared_ptr<const SharedRules> rules; ///< Rendered::rules, null for none
};

struct ShapeCache::Word {
    std::string_view text;
    Slot slot = Slot::None;
    uint32_t at = 0; ///< where its slot starts
};

struct ShapeCache::Edge {
    std::string_view object, source;
    std::vector<Word> words;
    std::vector<std::string_view> values; ///< Value slots' values, in word order
    Slot depfile_slot = Slot::None;
    size_t depfile_at = 0;
    const Carry* carry = nullptr;
    std::string key;

    /// The object's slot in `text`, else the source's (slot_at(); `sep` as there).
    std::pair<Slot, size_t> path_slot(std::string_view text, size_t sep) const {
        if (size_t at = slot_at(text, object, sep); at != std::string_view::npos)
            return {Slot::Object, at};
        if (size_t at = slot_at(text, source, sep); at != std::string_view::npos)
            return {Slot::Source, at};
        return {Slot::None, 0};
    }

    /// How long the value of a path slot is.
    size_t path_length(Slot slot) const {
        return slot == Slot::Object ? object.size() : source.size();
    }

    /// Appends `text` to the key, its slot (`len` bytes at `at`) abstracted.
    void add_to_key(std::string_view text, Slot slot, size_t at, size_t len) {
        if (slot == Slot::None) {
            key += text;
            return;
        }
        key += text.substr(0, at);
        key += '\1';
        key += static_cast<char>('0' + static_cast<int>(slot));
        key += text.substr(at + len);
    }
};

ShapeCache::ShapeCache(probe::ProbeCache& probes, const Names& names, bool device_pool)
    : probes_(probes), names_(names), device_pool_(device_pool), edge_(std::make_unique<Edge>()) {}

ShapeCache::~ShapeCache() = default;

void ShapeCache::add_word(std::string_view w, size_t sep, bool plain) {
    Edge& e = *edge_;
    auto [slot, at] = e.path_slot(w, sep);
    size_t len = slot == Slot::None ? 0 : e.path_length(slot);
    if (slot == Slot::None && opaque_value_word(w, plain)) {
        slot = Slot::Value;
        at = 2;
        len = w.size() - 2;
        e.values.push_back(w.substr(2));
    }
    e.words.push_back({w, slot, static_cast<uint32_t>(at)});
    e.add_to_key(w, slot, at, len);
    e.key += '\0';
}

bool ShapeCache::abstract(std::string_view command, const Carry& carry) {
    Edge& e = *edge_;
    if (carry.outputs.size() != 1 || carry.inputs.size() != 1) return false;
    e.object = carry.outputs[0];
    e.source = carry.inputs[0];
    if (!abstractable_path(e.object) || !abstractable_path(e.source) || e.object == e.source)
        return false;
    if (contains(command, kMark)) return false;
    for (const std::string* s : {&carry.depfile, &carry.deps, &carry.restat, &carry.pool}) {
        if (contains(*s, kMark)) return false;
        for (char c : *s) // the key's own separators
            if (c >= 0 && c <= kKeyMax) return false;
    }
    for (size_t l = 0; l < kListLetters.size(); ++l)
        for (const std::string& p : carry_list(carry, l))
            if (contains(p, kMark) || !ninja::path_error(p).empty()) return false;
    e.carry = &carry;

    e.words.clear();
    e.values.clear();
    std::string& key = e.key;
    key.clear();
    // What decisions may read of the paths: absolute or not, in a folder or
    // not (the base name), the extension. Sentinels keep the same.
    for (std::string_view p : {e.object, e.source}) {
        key += p[0] == '/' ? '/' : '.';
        key += p.find('/', 1) != std::string_view::npos ? 'd' : 'f';
        key += extension(p);
        key += '\0';
    }
    // Split at spaces, checking that the shell would too, and abstract each word.
    size_t from = 0, sep = std::string_view::npos; // sep: the word's last '=' or ','
    bool plain = true; // the word holds only kValueChars and not kArchMark
    for (size_t at = 0; at < command.size(); ++at) {
        while (at < command.size() &&
               kCommandClass[static_cast<unsigned char>(command[at])] == CharClass::Word)
            ++at;
        if (at == command.size()) break;
        switch (kCommandClass[static_cast<unsigned char>(command[at])]) {
        case CharClass::Separator:
            sep = at - from;
            break;
        case CharClass::Colon:
            plain = false;
            break;
        case CharClass::G:
            if (command.substr(at, kArchMark.size()) == kArchMark) plain = false;
            break;
        case CharClass::Space:
            if (at > from) add_word(command.substr(from, at - from), sep, plain);
            from = at + 1;
            sep = std::string_view::npos;
            plain = true;
            break;
        default:
            return false;
        }
    }
    if (command.size() > from) add_word(command.substr(from), sep, plain);
    if (e.words.empty()) return false;
    key += '\2';
    const size_t dep_sep = last_separator(carry.depfile);
    std::tie(e.depfile_slot, e.depfile_at) = e.path_slot(carry.depfile, dep_sep);
    e.add_to_key(carry.depfile, e.depfile_slot, e.depfile_at,
                 e.depfile_slot == Slot::None ? 0 : e.path_length(e.depfile_slot));
    for (const std::string* s : {&carry.deps, &carry.restat, &carry.pool}) {
        key += '\0';
        key += *s;
    }
    for (size_t l = 0; l < kListLetters.size(); ++l) {
        key += '\0';
        key += std::to_string(carry_list(carry, l).size());
    }
    return true;
}

namespace {

/// The sentinel of a path like `like`: absolute or not, in a folder or not,
/// with its extension. The folder and the base name each hold a mark, so no
/// part of the path can be used without leaving a mark behind.
std::string sentinel(char kind, std::string_view like) {
    std::string s = like[0] == '/' ? "/" : "";
    if (like.find('/', 1) != std::string_view::npos) {
        s += kMark;
        s += kind;
        s += "D/";
    }
    s += kMark;
    s += kind;
    s += 'Z';
    s += extension(like);
    return s;
}

std::string value_sentinel(char kind, size_t k) {
    return std::string(kMark) + kind + std::to_string(k) + "Z";
}

/// A word with its slot's value replaced by `by`.
std::string with_slot(std::string_view word, size_t at, size_t len, std::string_view by) {
    std::string out(word.substr(0, at));
    out += by;
    out += word.substr(at + len);
    return out;
}

} // namespace

std::unique_ptr<ShapeProgram> ShapeCache::build() const {
    const Edge& e = *edge_;
    auto prog = std::make_unique<ShapeProgram>();
    const std::string object = sentinel('o', e.object);
    const std::string source = sentinel('s', e.source);

    // The edge with every abstracted part replaced by its sentinel.
    std::vector<std::string> words;
    size_t value = 0;
    auto path_sentinel = [&](Slot slot) -> const std::string& {
        return slot == Slot::Object ? object : source;
    };
    for (const Word& word : e.words) {
        std::string_view w = word.text;
        if (word.slot == Slot::None)
            words.emplace_back(w);
        else if (word.slot == Slot::Value)
            words.push_back(with_slot(w, 2, w.size() - 2, value_sentinel('v', value++)));
        else
            words.push_back(
                with_slot(w, word.at, e.path_length(word.slot), path_sentinel(word.slot)));
    }
    std::string command;
    for (const std::string& w : words)
        command += (command.empty() ? "" : " ") + w;
    Carry carry = *e.carry;
    carry.outputs = {object};
    carry.inputs = {source};
    if (e.depfile_slot != Slot::None)
        carry.depfile = with_slot(carry.depfile, e.depfile_at, e.path_length(e.depfile_slot),
                                  path_sentinel(e.depfile_slot));
    std::vector<std::pair<std::string, Op>> tokens = {{object, {Op::Object}},
                                                      {source, {Op::Source}}};
    for (size_t k = 0; k < value; ++k)
        tokens.push_back({value_sentinel('v', k), {Op::Value, static_cast<uint32_t>(k)}});
    for (size_t l = 0; l < kListLetters.size(); ++l) {
        std::vector<std::string> paths;
        for (size_t k = 0; k < carry_list(*e.carry, l).size(); ++k) {
            paths.push_back(value_sentinel(kListLetters[l], k));
            tokens.push_back({paths.back(),
                              {Op::CarryPath, static_cast<uint32_t>(l), static_cast<uint32_t>(k)}});
        }
        carry_list(carry, l) = std::move(paths);
    }

    split::Plan plan;
    Rendered r = render_split(command, {}, carry, probes_, names_, device_pool_, &plan);
    if (!r.error.empty() || !r.d.split) return prog;
    if (contains(r.d.text, kMark) || contains(r.d.code, kMark)) return prog;
    for (const auto& [name, text] : r.rules)
        if (contains(text, kMark)) return prog; // shared rules are the same for every edge
    for (const std::string& arch : r.d.archs) {
        std::string safe = split::safe_arch(arch);
        if (!contains(arch, kArchMark) || !all_of(arch, kArchChars) || !contains(safe, kArchMark) ||
            !all_of(safe, kArchChars))
            return prog;
    }

    // The driver's jobs must not depend on an abstracted part: none may be in
    // what the probe is keyed on (a -B folder, COMPILER_PATH=..., ...).
    const compile::Analysis& a = plan.analysis;
    for (const std::string& assignment : a.command.env)
        if (contains(assignment, kMark)) return prog;
    for (const std::string& flag : probe::probe_key_flags(a.expanded))
        if (contains(flag, kMark)) return prog;

    // The object's own files are named after the output the plan found: it must
    // be this edge's object, copied (not derived from the source, not literal).
    if (a.output != object) return prog;

    // How this edge's CUID and device rule name are made from its own strings.
    prog->hash_cuid = !plan.cuid.empty() && a.cuid.empty() && !a.cuid_none;
    if (prog->hash_cuid) {
        const auto& argv = a.command.argv;
        if (a.source != source || argv.size() > words.size()) return prog;
        const size_t off = words.size() - argv.size();
        for (size_t k = 0; k < argv.size(); ++k)
            if (argv[k] != words[off + k]) return prog;
        for (size_t k : split::cuid_word_positions(a))
            prog->cuid_words.push_back(off + k);
        prog->argv0 = off;
        tokens.push_back({plan.cuid, {Op::Cuid}});
    }
    tokens.push_back({util::Hasher().add(object).hex64(), {Op::ObjectHash}});
    // The hashes are found in the text by value: the edge itself must not hold them.
    for (const auto& [hash, op] : tokens) {
        if (op.kind != Op::Cuid && op.kind != Op::ObjectHash) continue;
        if (contains(command, hash)) return prog;
        for (const std::string* c : {&carry.depfile, &carry.deps, &carry.restat, &carry.pool})
            if (contains(*c, hash)) return prog;
        for (size_t l = 0; l < kListLetters.size(); ++l)
            for (const std::string& path : carry_list(carry, l))
                if (contains(path, hash)) return prog;
    }

    // Every copy of a sentinel becomes an instruction; nothing else may hold one.
    struct Hit {
        size_t at, len;
        Op op;
    };
    std::vector<Hit> hits;
    for (const auto& [token, op] : tokens)
        for (size_t at = r.text.find(token); at != std::string::npos;
             at = r.text.find(token, at + token.size()))
            hits.push_back({at, token.size(), op});
    std::sort(hits.begin(), hits.end(), [](const Hit& x, const Hit& y) { return x.at < y.at; });
    size_t from = 0;
    for (const Hit& h : hits) {
        if (h.at < from) return prog; // overlapping sentinels
        if (h.at > from) {
            prog->ops.push_back({Op::Text, static_cast<uint32_t>(prog->text.size()),
                                 static_cast<uint32_t>(h.at - from)});
            prog->text.append(r.text, from, h.at - from);
        }
        prog->ops.push_back(h.op);
        from = h.at + h.len;
    }
    if (from < r.text.size()) {
        prog->ops.push_back({Op::Text, static_cast<uint32_t>(prog->text.size()),
                             static_cast<uint32_t>(r.text.size() - from)});
        prog->text.append(r.text, from);
    }
    if (contains(prog->text, kMark)) return prog; // a sentinel used other than by copy
    prog->code = std::move(r.d.code);
    prog->why = std::move(r.d.text);
    prog->archs = std::move(r.d.archs);
    prog->rdc = r.d.rdc;
    if (!r.rules.empty()) prog->rules = std::make_shared<const SharedRules>(std::move(r.rules));
    prog->reusable = true;
    return prog;
}

void ShapeCache::run(const ShapeProgram& p, std::string& out) const {
    const Edge& e = *edge_;
    std::string cuid;
    if (p.hash_cuid) {
        std::vector<std::string_view> words;
        words.reserve(p.cuid_words.size());
        for (size_t k : p.cuid_words)
            words.push_back(e.words[k].text);
        cuid = split::cuid_of(e.object, e.source, words, e.words[p.argv0].text);
    }
    std::string object_hash;
    out.reserve(out.size() + p.text.size() + 32 * p.ops.size());
    for (const Op& op : p.ops) {
        switch (op.kind) {
        case Op::Text:
            out.append(p.text.data() + op.a, op.b);
            break;
        case Op::Object:
            out.append(e.object);
            break;
        case Op::Source:
            out.append(e.source);
            break;
        case Op::Value:
            out.append(e.values[op.a]);
            break;
        case Op::CarryPath:
            ninja::append_escaped_path(out, carry_list(*e.carry, op.a)[op.b]);
            break;
        case Op::Cuid:
            out.append(cuid);
            break;
        case Op::ObjectHash:
            if (object_hash.empty()) object_hash = util::Hasher().add(e.object).hex64();
            out.append(object_hash);
            break;
        }
    }
}

bool ShapeCache::render(std::string_view command, const Carry& carry, std::string& out,
                        std::shared_ptr<const SharedRules>& rules, EdgeDecision& d) {
    ++edges_;
    if (!abstract(command, carry)) return false;
    auto it = shapes_.find(edge_->key);
    if (it == shapes_.end()) {
        // Shapes that are not reused cost a planning each on top of the full
        // way: stop making new ones when most edges bring a new shape.
        if (shapes_.size() >= 64 && shapes_.size() * 2 > edges_) return false;
        it = shapes_.emplace(edge_->key, build()).first;
    }
    const ShapeProgram& p = *it->second;
    if (!p.reusable) return false;
    run(p, out);
    d.object = std::string(edge_->object);
    d.split = true;
    d.code = p.code;
    d.text = p.why;
    d.archs = p.archs;
    d.rdc = p.rdc;
    rules = p.rules;
    return true;
}

} // namespace phc::regen
