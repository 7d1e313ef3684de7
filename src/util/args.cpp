#include "util/args.h"

#include "util/error.h"

#include <algorithm>
#include <charconv>
#include <cstdio>

namespace phc::util {

Option flag_option(std::vector<std::string_view> names, std::string_view help, bool& flag) {
    return {std::move(names), {}, help, [&flag](const std::string&) {
                flag = true;
                return std::string();
            }};
}

Option text_option(std::vector<std::string_view> names, std::string_view value,
                   std::string_view help, std::string& into) {
    return {std::move(names), value, help, [&into](const std::string& v) {
                into = v;
                return std::string();
            }};
}

Option positive_option(std::vector<std::string_view> names, std::string_view value,
                       std::string_view help, int& into) {
    std::string name(names.back());
    return {std::move(names), value, help, [&into, name](const std::string& v) {
                int n = 0;
                auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
                if (ec != std::errc() || end != v.data() + v.size() || n < 1)
                    return name + ": '" + v + "' is not a positive number";
                into = n;
                return std::string();
            }};
}

namespace {

const Option* find(const CommandLine& cl, std::string_view name) {
    for (const Option& o : cl.options)
        if (std::find(o.names.begin(), o.names.end(), name) != o.names.end()) return &o;
    return nullptr;
}

} // namespace

Parsed parse(const CommandLine& cl, int argc, char** argv) {
    Parsed p;
    int i = 1;
    auto fail = [&](std::string msg) {
        p.error = std::move(msg);
        return p;
    };
    for (; i < argc; ++i) {
        std::string_view a = argv[i];
        if (a == "--") {
            ++i;
            break;
        }
        if (a == "-h" || a == "--help") {
            p.help = true;
            return p;
        }
        if (a.size() < 2 || a[0] != '-') {
            if (!cl.positional) return fail("unexpected argument '" + std::string(a) + "'");
            if (cl.stop_at_word) break;
            p.positional.emplace_back(a);
            continue;
        }
        std::string_view name = a;
        size_t eq = a.starts_with("--") ? a.find('=') : std::string_view::npos;
        if (eq != std::string_view::npos) name = a.substr(0, eq);
        const Option* o = find(cl, name);
        if (!o) return fail("unknown option '" + std::string(a) + "'");
        std::string value;
        if (o->value.empty()) {
            if (eq != std::string_view::npos)
                return fail("option '" + std::string(name) + "' takes no value");
        } else if (eq != std::string_view::npos) {
            value = a.substr(eq + 1);
        } else if (i + 1 < argc) {
            value = argv[++i];
        } else {
            return fail("option '" + std::string(name) + "' needs a value (" +
                        std::string(o->value) + ")");
        }
        if (std::string err = o->take(value); !err.empty()) return fail(err);
    }
    if (i < argc && !cl.positional)
        return fail("unexpected argument '" + std::string(argv[i]) + "'");
    for (; i < argc; ++i)
        p.positional.emplace_back(argv[i]);
    return p;
}

std::optional<int> parse_or_usage(const CommandLine& cl, int argc, char** argv, Parsed& parsed) {
    parsed = parse(cl, argc, argv);
    if (!parsed.error.empty()) return usage_error(cl, parsed.error);
    if (!parsed.help) return std::nullopt;
    std::fputs(usage(cl).c_str(), stdout);
    return 0;
}

std::string usage(const CommandLine& cl) {
    std::string out = "usage: " + std::string(cl.name) + " " + std::string(cl.synopsis) + "\n";
    if (!cl.about.empty()) out += "\n" + std::string(cl.about) + "\n";
    std::vector<std::string> heads;
    size_t width = 0;
    for (const Option& o : cl.options) {
        std::string h;
        for (std::string_view n : o.names)
            h += (h.empty() ? "" : ", ") + std::string(n);
        if (!o.value.empty()) h += " " + std::string(o.value);
        width = std::max(width, h.size());
        heads.push_back(std::move(h));
    }
    if (!cl.options.empty()) out += "\noptions:\n";
    for (size_t k = 0; k < cl.options.size(); ++k) {
        std::string_view help = cl.options[k].help;
        std::string line = "  " + heads[k] + std::string(width - heads[k].size() + 2, ' ');
        for (size_t at = 0;;) {
            size_t nl = help.find('\n', at);
            out += line + std::string(help.substr(at, nl - at)) + "\n";
            if (nl == std::string_view::npos) break;
            at = nl + 1;
            line = std::string(width + 4, ' ');
        }
    }
    if (!cl.notes.empty()) out += "\n" + std::string(cl.notes) + "\n";
    return out;
}

int usage_error(const CommandLine& cl, std::string_view msg) {
    print_error(cl.name, make_error(std::string(msg) + " (see --help)"));
    return 2;
}

} // namespace phc::util
