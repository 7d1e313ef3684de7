#include "util/archive.h"

#include <fmt/format.h>

namespace phc::util::ar {

namespace {

constexpr std::string_view kMagic = "!<arch>\n";
constexpr std::string_view kThin = "!<thin>\n";
constexpr size_t kHeader = 60;

/// The header field as text, trailing spaces removed.
std::string_view field(std::string_view header, size_t at, size_t size) {
    std::string_view f = header.substr(at, size);
    while (!f.empty() && f.back() == ' ')
        f.remove_suffix(1);
    return f;
}

/// A decimal field, or -1 when it is not one.
long long decimal(std::string_view f) {
    if (f.empty() || f.size() > 18) return -1;
    long long v = 0;
    for (char c : f) {
        if (c < '0' || c > '9') return -1;
        v = v * 10 + (c - '0');
    }
    return v;
}

} // namespace

bool is_archive(std::string_view bytes) {
    return bytes.starts_with(kMagic) || bytes.starts_with(kThin);
}

Result<std::vector<Member>> members(std::string_view bytes) {
    if (bytes.starts_with(kThin)) return make_error("a thin archive (its members are other files)");
    if (!bytes.starts_with(kMagic)) return make_error("not an archive");
    std::vector<Member> out;
    std::string_view long_names;
    for (size_t at = kMagic.size(); at < bytes.size();) {
        if (bytes.size() - at < kHeader)
            return make_error(fmt::format("the member header at offset {} is cut short", at));
        std::string_view header = bytes.substr(at, kHeader);
        if (header.substr(58, 2) != "`\n")
            return make_error(fmt::format("no member header at offset {}", at));
        long long size = decimal(field(header, 48, 10));
        if (size < 0 || static_cast<unsigned long long>(size) > bytes.size() - at - kHeader)
            return make_error(fmt::format("the member at offset {} is cut short", at));
        std::string_view data = bytes.substr(at + kHeader, static_cast<size_t>(size));
        std::string_view name = field(header, 0, 16);
        const size_t here = at;
        at += kHeader + static_cast<size_t>(size) + static_cast<size_t>(size % 2);
        if (name == "/" || name == "/SYM64/" || name == "__.SYMDEF" || name == "__.SYMDEF SORTED")
            continue;
        if (name == "//") {
            long_names = data;
            continue;
        }
        Member m;
        if (name.starts_with("#1/")) {
            long long n = decimal(name.substr(3));
            if (n < 0 || static_cast<size_t>(n) > data.size())
                return make_error(fmt::format("a BSD member name at offset {} is cut short", here));
            m.name = std::string(data.substr(0, static_cast<size_t>(n)));
            while (!m.name.empty() && m.name.back() == '\0')
                m.name.pop_back();
            data.remove_prefix(static_cast<size_t>(n));
        } else if (name.size() > 1 && name[0] == '/') {
            long long off = decimal(name.substr(1));
            if (off < 0 || static_cast<size_t>(off) >= long_names.size())
                return make_error(
                    fmt::format("member name '{}' is not in the long-name table", name));
            std::string_view rest = long_names.substr(static_cast<size_t>(off));
            size_t end = rest.find("/\n");
            if (end == std::string_view::npos) end = rest.find('\n');
            if (end == std::string_view::npos)
                return make_error(fmt::format("member name '{}' has no end", name));
            m.name = std::string(rest.substr(0, end));
        } else {
            if (name.ends_with('/')) name.remove_suffix(1);
            m.name = std::string(name);
        }
        m.data = data;
        out.push_back(std::move(m));
    }
    return out;
}

} // namespace phc::util::ar
