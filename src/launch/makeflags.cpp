#include "launch/makeflags.h"

#include <charconv>

namespace phc::launch {

namespace {

/// Parses a whole non-negative decimal number.
std::optional<int> parse_int(std::string_view s) {
    int v = 0;
    if (s.empty()) return std::nullopt;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || v < 0) return std::nullopt;
    return v;
}

/// Parses the value of --jobserver-auth= / --jobserver-fds=.
JobserverAuth parse_auth(std::string_view word, std::string_view value) {
    JobserverAuth a;
    a.text = std::string(word);
    if (value.starts_with("fifo:")) {
        a.path = std::string(value.substr(5));
        a.kind = a.path.empty() ? JobserverAuth::Kind::Invalid : JobserverAuth::Kind::Fifo;
        return a;
    }
    size_t comma = value.find(',');
    auto r = comma == std::string_view::npos ? std::nullopt : parse_int(value.substr(0, comma));
    auto w = comma == std::string_view::npos ? std::nullopt : parse_int(value.substr(comma + 1));
    if (r && w) {
        a.kind = JobserverAuth::Kind::Pipe;
        a.read_fd = *r;
        a.write_fd = *w;
    } else {
        a.kind = JobserverAuth::Kind::Invalid; // e.g. a Windows semaphore name
    }
    return a;
}

} // namespace

std::vector<std::string> split_makeflags(std::string_view flags) {
    std::vector<std::string> words;
    std::string cur;
    bool in_word = false;
    for (size_t i = 0; i < flags.size(); ++i) {
        char c = flags[i];
        if (c == '\\' && i + 1 < flags.size()) {
            cur += flags[++i];
            in_word = true;
        } else if (c == ' ' || c == '\t' || c == '\n') {
            if (in_word) words.push_back(std::move(cur));
            cur.clear();
            in_word = false;
        } else {
            cur += c;
            in_word = true;
        }
    }
    if (in_word) words.push_back(std::move(cur));
    for (size_t i = 0; i < words.size(); ++i) {
        if (words[i] == "--") {
            words.resize(i);
            break;
        }
    }
    return words;
}

Makeflags parse_makeflags(std::string_view flags) {
    Makeflags m;
    auto words = split_makeflags(flags);
    for (size_t i = 0; i < words.size(); ++i) {
        std::string_view w = words[i];
        if (w.starts_with("--jobserver-auth=")) {
            m.auth = parse_auth(w, w.substr(17));
        } else if (w.starts_with("--jobserver-fds=")) {
            m.auth = parse_auth(w, w.substr(16));
        } else if (w == "-j" || w == "--jobs") {
            auto n = i + 1 < words.size() ? parse_int(words[i + 1]) : std::nullopt;
            m.jobs = n ? *n : 0;
            if (n) ++i;
        } else if (w.starts_with("--jobs=")) {
            m.jobs = parse_int(w.substr(7)).value_or(0);
        } else if (w.starts_with("-j")) {
            if (auto n = parse_int(w.substr(2))) m.jobs = *n;
        }
    }
    return m;
}

Makeflags makeflags_from_env(const char* makeflags, const char* cargo_makeflags) {
    Makeflags make = parse_makeflags(makeflags ? makeflags : "");
    if (make.auth.kind != JobserverAuth::Kind::None || !cargo_makeflags) return make;
    Makeflags cargo = parse_makeflags(cargo_makeflags);
    if (cargo.auth.kind != JobserverAuth::Kind::None) return cargo;
    if (!makeflags) return cargo;
    return make;
}

} // namespace phc::launch
