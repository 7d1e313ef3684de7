// ProbeCache (declared in probe.h): memory first, then the JSON file, then the compiler.
#include "compile/probe.h"
#include "util/file.h"

#include <cstdio>
#include <nlohmann/json.hpp>

namespace phc::compile {

namespace {

using nlohmann::json;

/// 2: RDC entries name the host object by kHostToken; 3: device_takes_depfile;
/// 4: codegen (the new driver's per-architecture code generation).
constexpr int kFormat = 4;

std::string_view driver_name(DriverKind d) {
    return d == DriverKind::Old ? "old" : d == DriverKind::New ? "new" : "none";
}

json to_json(const ProbeResult& r) {
    return json{{"driver", driver_name(r.driver)},
                {"rdc", r.rdc},
                {"bundler", r.bundler},
                {"bundler_args", r.bundler_args},
                {"archs", r.archs},
                {"device_compiles", r.device_compiles},
                {"host_takes_cuid", r.host_takes_cuid},
                {"device_takes_depfile", r.device_takes_depfile},
                {"codegen", r.codegen}};
}

ProbeResult from_json(const json& j) {
    ProbeResult r;
    std::string d = j.at("driver").get<std::string>();
    r.driver = d == "old" ? DriverKind::Old : d == "new" ? DriverKind::New : DriverKind::None;
    r.rdc = j.at("rdc").get<bool>();
    r.bundler = j.at("bundler").get<std::string>();
    r.bundler_args = j.at("bundler_args").get<std::vector<std::string>>();
    r.archs = j.at("archs").get<std::vector<std::string>>();
    r.device_compiles = j.at("device_compiles").get<size_t>();
    r.host_takes_cuid = j.at("host_takes_cuid").get<bool>();
    r.device_takes_depfile = j.at("device_takes_depfile").get<bool>();
    r.codegen = j.at("codegen").get<std::vector<std::vector<std::string>>>();
    return r;
}

/// The entries of a cache file; empty when it is missing, unreadable or of another format
/// (a cache must never break a build: it is rebuilt by probing again).
std::map<std::string, ProbeResult> read_entries(const std::string& path) {
    std::map<std::string, ProbeResult> out;
    if (!util::file_exists(path)) return out;
    auto text = util::read_file(path);
    if (!text) return out;
    json j = json::parse(*text, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object() || j.value("format", 0) != kFormat || !j.contains("probes") ||
        !j["probes"].is_object())
        return out;
    for (auto& [key, value] : j["probes"].items()) {
        try {
            out.emplace(key, from_json(value));
        } catch (const json::exception&) {
            // A malformed entry is dropped and probed again.
        }
    }
    return out;
}

std::string parent_dir(const std::string& path) {
    size_t slash = path.rfind('/');
    return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

} // namespace

ProbeCache::ProbeCache(std::string path) : path_(std::move(path)) {}

void ProbeCache::load() {
    if (loaded_) return;
    loaded_ = true;
    if (!path_.empty()) entries_ = read_entries(path_);
}

Status ProbeCache::save(const std::string& key, const ProbeResult& r) {
    if (path_.empty()) return Ok{};
    // Re-read first: other processes (parallel launchers) may have added entries.
    std::map<std::string, ProbeResult> all = read_entries(path_);
    all[key] = r;
    json probes = json::object();
    for (const auto& [k, v] : all)
        probes[k] = to_json(v);
    json doc{{"format", kFormat}, {"probes", probes}};
    if (std::string dir = parent_dir(path_); !dir.empty())
        if (auto s = util::make_dirs(dir); !s) return s;
    return util::write_file_atomic(path_, doc.dump(2) + "\n");
}

Result<ProbeResult> ProbeCache::get(const ProbeRequest& req) {
    std::lock_guard lock(mutex_);
    load();
    std::string who = req.cwd;
    for (const std::string& e : req.env)
        who.append(1, '\0').append(e);
    if (!req.argv.empty()) who.append(1, '\0').append(req.argv[0]);
    auto head = heads_.find(who);
    if (head == heads_.end()) head = heads_.emplace(who, probe_key_head(req)).first;
    if (!head->second) return head->second.error();
    const std::string key = probe_key_with(*head->second, req.argv);
    if (auto it = entries_.find(key); it != entries_.end()) return it->second;
    if (auto it = failures_.find(key); it != failures_.end()) return it->second;
    ++probes_run_;
    auto r = run_probe(req);
    if (!r) {
        failures_.emplace(key, r.error());
        return r;
    }
    entries_[key] = *r;
    // A cache that cannot be written must never break a build: the probe stands.
    if (auto s = save(key, *r); !s && !warned_) {
        warned_ = true;
        std::fprintf(stderr, "%s: warning: probe cache not saved (%s)\n", path_.c_str(),
                     s.error().message.c_str());
    }
    return r;
}

} // namespace phc::compile
