#include "ninja/deps_log.h"

#include <cstring>
#include <fmt/format.h>
#include <sys/stat.h>

namespace phc::ninja {

namespace {

constexpr std::string_view kSignature = "# ninjadeps\n";
constexpr int32_t kVersion = 4;

uint32_t load32(std::string_view text, size_t at) {
    uint32_t v;
    std::memcpy(&v, text.data() + at, 4);
    return v;
}

void store32(std::string& out, uint32_t v) {
    char b[4];
    std::memcpy(b, &v, 4);
    out.append(b, 4);
}

} // namespace

int64_t mtime_ns(const std::string& path) {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return -1;
    return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
}

bool DepsLog::has_record(std::string_view path) const {
    auto it = ids.find(std::string(path));
    return it != ids.end() && recorded[static_cast<size_t>(it->second)];
}

Result<DepsLog> parse_deps_log(std::string_view text) {
    DepsLog log;
    if (text.size() < kSignature.size() + 4 || !text.starts_with(kSignature) ||
        static_cast<int32_t>(load32(text, kSignature.size())) != kVersion)
        return make_error("not a deps log of version 4");
    size_t at = kSignature.size() + 4;
    std::vector<std::pair<size_t, size_t>> spans;
    while (at < text.size()) {
        if (text.size() - at < 4) return make_error(fmt::format("record cut short at byte {}", at));
        const uint32_t head = load32(text, at);
        const bool is_deps = (head >> 31) != 0;
        const uint32_t size = head & 0x7fffffffu;
        if (size > kMaxDepsRecordSize || text.size() - at - 4 < size || size < 4 || size % 4 != 0)
            return make_error(fmt::format("bad record at byte {}", at));
        const size_t body = at + 4;
        if (is_deps) {
            if (size < 12) return make_error(fmt::format("bad deps record at byte {}", at));
            const auto out = static_cast<int32_t>(load32(text, body));
            for (size_t k = body + 12; k < body + size; k += 4)
                if (auto id = static_cast<int32_t>(load32(text, k));
                    id < 0 || static_cast<size_t>(id) >= spans.size())
                    return make_error(fmt::format("unknown id in record at byte {}", at));
            if (out < 0 || static_cast<size_t>(out) >= spans.size())
                return make_error(fmt::format("unknown output id in record at byte {}", at));
            log.recorded[static_cast<size_t>(out)] = true;
            log.last[static_cast<size_t>(out)] = static_cast<uint32_t>(at);
        } else {
            size_t len = size - 4;
            for (int pad = 0; pad < 3 && len > 0 && text[body + len - 1] == '\0'; ++pad)
                --len;
            if (len == 0) return make_error(fmt::format("empty path at byte {}", at));
            const uint32_t checksum = load32(text, body + size - 4);
            if (~checksum != spans.size())
                return make_error(fmt::format("path id out of order at byte {}", at));
            spans.emplace_back(body, len);
            log.recorded.push_back(false);
            log.last.push_back(0);
        }
        at = body + size;
    }
    log.paths.reserve(spans.size());
    for (auto [from, len] : spans)
        log.paths.emplace_back(text.substr(from, len));
    for (size_t i = 0; i < log.paths.size(); ++i)
        if (!log.ids.emplace(log.paths[i], static_cast<int32_t>(i)).second)
            return make_error(fmt::format("path '{}' recorded twice", log.paths[i]));
    log.size = text.size();
    return log;
}

std::optional<DepsRecord> record_of(std::string_view text, const DepsLog& log,
                                    std::string_view path) {
    auto it = log.ids.find(std::string(path));
    if (it == log.ids.end() || static_cast<size_t>(it->second) >= log.last.size()) return {};
    const uint32_t at = log.last[static_cast<size_t>(it->second)];
    if (at == 0 || at + 16 > text.size()) return {};
    const uint32_t size = load32(text, at) & 0x7fffffffu;
    DepsRecord r;
    r.output = std::string(path);
    r.mtime = static_cast<int64_t>(static_cast<uint64_t>(load32(text, at + 8)) |
                                   static_cast<uint64_t>(load32(text, at + 12)) << 32);
    for (size_t k = at + 16; k < at + 4 + size; k += 4)
        r.deps.push_back(log.paths[load32(text, k)]);
    return r;
}

std::string deps_log_append(DepsLog& log, const std::vector<DepsRecord>& records) {
    std::string out;
    auto id_of = [&](const std::string& path) {
        if (auto it = log.ids.find(path); it != log.ids.end()) return it->second;
        const auto id = static_cast<int32_t>(log.paths.size());
        const size_t padding = (4 - path.size() % 4) % 4;
        store32(out, static_cast<uint32_t>(path.size() + padding + 4));
        out += path;
        out.append(padding, '\0');
        store32(out, ~static_cast<uint32_t>(id));
        log.paths.push_back(path);
        log.recorded.push_back(false);
        log.ids.emplace(path, id);
        return id;
    };
    for (const DepsRecord& r : records) {
        const int32_t output = id_of(r.output);
        std::vector<int32_t> deps;
        for (const auto& d : r.deps)
            deps.push_back(id_of(d));
        store32(out, static_cast<uint32_t>(4 * (3 + deps.size())) | 0x80000000u);
        store32(out, static_cast<uint32_t>(output));
        store32(out, static_cast<uint32_t>(static_cast<uint64_t>(r.mtime) & 0xffffffffu));
        store32(out, static_cast<uint32_t>(static_cast<uint64_t>(r.mtime) >> 32));
        for (int32_t d : deps)
            store32(out, static_cast<uint32_t>(d));
        log.recorded[static_cast<size_t>(output)] = true;
    }
    log.size += out.size();
    return out;
}

} // namespace phc::ninja
