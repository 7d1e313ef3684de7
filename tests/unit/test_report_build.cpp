// report: log entries joined with the manifest (kinds, architectures,
// objects, multi-output edges), the JSON summary and the trace.
#include "ninja/build_log.h"
#include "ninja/manifest.h"
#include "report/summary.h"
#include "report/trace.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

using namespace phc;
using namespace phc::report;

namespace {

/// A split object as regen writes it, a plain compile, an RDC link's steps and a link.
constexpr const char* kManifest = R"(rule PHC_HIP_DEVICE_1
  command = clang++ --offload-arch=$PHC_ARCH -c $in -o $out
  description = HIP $PHC_ARCH k.o
rule PHC_HIP_BUNDLE
  command = bundler $in -output=$out
  description = HIP bundle $PHC_OBJECT
rule PHC_HIP_HOST
  command = $PHC_COMMAND
  description = HIP host $PHC_OBJECT
rule PHC_HIP_STEP
  command = $PHC_COMMAND
  description = $PHC_DESC
rule CXX
  command = g++ -c $in -o $out
rule HIP
  command = clang++ -x hip --offload-arch=gfx906 --offload-arch=gfx90a -c $in -o $out
rule LINK
  command = g++ $in -o $out
build k.o.phc/gfx906.o: PHC_HIP_DEVICE_1 k.hip
  PHC_ARCH = gfx906
build k.o.phc/gfx90a.o: PHC_HIP_DEVICE_1 k.hip
  PHC_ARCH = gfx90a
build k.o.phc/bundle.hipfb: PHC_HIP_BUNDLE k.o.phc/gfx906.o k.o.phc/gfx90a.o
  PHC_OBJECT = k.o
build k.o | k.o.d: PHC_HIP_HOST k.hip | k.o.phc/bundle.hipfb
  PHC_COMMAND = clang++ -c k.hip -o k.o
build app.phc/gfx906.out: PHC_HIP_STEP k.o.phc/gfx906.o
  PHC_COMMAND = lld gfx906
  PHC_DESC = HIP link gfx906 app
build app.phc/fatbin.hipfb: PHC_HIP_STEP app.phc/gfx906.out
  PHC_COMMAND = bundler
  PHC_DESC = HIP fatbin app
build app.phc/fatbin.o: PHC_HIP_STEP app.phc/fatbin.hipfb
  PHC_COMMAND = llvm-mc
  PHC_DESC = HIP fatbin object app
build app: PHC_HIP_STEP k.o app.phc/fatbin.o
  PHC_COMMAND = ld
  PHC_DESC = HIP host link app
build m.o: CXX m.cpp
build w.hip.o: HIP w.hip
build tool: LINK m.o || w.hip.o
)";

/// The log of one build of kManifest, in the order ninja writes it (by end
/// time); k.o's host edge logs both its outputs.
constexpr const char* kLog = "# ninja log v5\n"
                             "0\t40\t1\tm.o\th\n"
                             "0\t90\t1\tk.o.phc/gfx906.o\th\n"
                             "40\t100\t1\tw.hip.o\th\n"
                             "100\t120\t1\ttool\th\n"
                             "90\t200\t1\tk.o.phc/gfx90a.o\th\n"
                             "200\t205\t1\tk.o.phc/bundle.hipfb\th\n"
                             "90\t210\t1\tapp.phc/gfx906.out\th\n"
                             "205\t260\t1\tk.o\th\n"
                             "205\t260\t1\tk.o.d\th\n"
                             "260\t262\t1\tapp.phc/fatbin.hipfb\th\n"
                             "262\t263\t1\tapp.phc/fatbin.o\th\n"
                             "263\t300\t1\tapp\th\n"
                             "300\t305\t1\tnot-in-manifest.o\th\n";

/// The analysis of kLog against kManifest on `cores`.
Analysis analysed(int cores) {
    auto m = ninja::parse_manifest(kManifest);
    REQUIRE(m);
    auto log = ninja::parse_log(kLog, ".ninja_log");
    REQUIRE(log);
    return analyse(make_build(*m, *log), cores);
}

/// The step whose first output is `output`.
const Step& step(const Analysis& a, std::string_view output) {
    for (const Step& s : a.build.steps)
        if (s.output == output) return s;
    FAIL("no step " << output);
    return a.build.steps.front();
}

} // namespace

TEST_CASE("report build: kinds, architectures and objects from regen's rules and descriptions") {
    Analysis a = analysed(2);
    CHECK(a.build.steps.size() == 12); // k.o and k.o.d: one edge
    auto is = [&](std::string_view out, Kind k, std::string_view arch, std::string_view obj) {
        const Step& s = step(a, out);
        CHECK(s.kind == k);
        CHECK(s.arch == arch);
        CHECK(s.object == obj);
    };
    is("k.o.phc/gfx906.o", Kind::Device, "gfx906", "k.o");
    is("k.o.phc/gfx90a.o", Kind::Device, "gfx90a", "k.o");
    is("k.o.phc/bundle.hipfb", Kind::Bundle, "", "k.o");
    is("k.o", Kind::Host, "", "k.o");
    is("app.phc/gfx906.out", Kind::DeviceLink, "gfx906", "app");
    is("app.phc/fatbin.hipfb", Kind::Fatbin, "", "app");
    is("app.phc/fatbin.o", Kind::FatbinObject, "", "app");
    is("app", Kind::HostLink, "", "app");
    is("m.o", Kind::Compile, "", "m.o");
    is("w.hip.o", Kind::HipCompile, "", "w.hip.o");
    is("tool", Kind::Other, "", "tool");
    is("not-in-manifest.o", Kind::Compile, "", "not-in-manifest.o");
    CHECK(step(a, "w.hip.o").offload_archs == 2);
    CHECK(step(a, "k.o").time == 55);
}

TEST_CASE("report build: dependencies are the measured producers of all inputs") {
    Analysis a = analysed(2);
    auto deps = [&](std::string_view out) {
        std::vector<std::string> names;
        for (uint32_t d : step(a, out).deps)
            names.push_back(a.build.steps[d].output);
        std::sort(names.begin(), names.end());
        return names;
    };
    CHECK(deps("k.o.phc/bundle.hipfb") ==
          std::vector<std::string>{"k.o.phc/gfx906.o", "k.o.phc/gfx90a.o"});
    CHECK(deps("k.o") == std::vector<std::string>{"k.o.phc/bundle.hipfb"});
    CHECK(deps("app") == std::vector<std::string>{"app.phc/fatbin.o", "k.o"});
    CHECK(deps("tool") == std::vector<std::string>{"m.o", "w.hip.o"}); // order-only too
    // The chain: gfx906 90, its link 110 (120 on the wall, but 90-120 ms
    // three steps shared the 2 cores: 30 ms × 2/3 = 20), fatbin 2, its
    // object 1, host link 37.
    CHECK(step(a, "app.phc/gfx906.out").cost == 110);
    CHECK(a.bound.critical_ms == 240);
    // One object after another: k.o's four steps as one (90 + 100 + 5 + 55 =
    // 250), app's link steps as one (110 + 2 + 1 + 37 = 150) after it; on 2
    // cores k.o and then app on one core (400), w.hip.o 57, m.o 40, tool 13
    // and the last 5 on the other.
    CHECK(a.unsplit_ms == 400);
    // w.hip.o was left whole: both lines.
    std::vector<std::string> lines = split_lines(a);
    REQUIRE(lines.size() == 2);
    CHECK(lines[0].starts_with("the split build took 0.3 s; its steps, one object after another"));
    CHECK(lines[1].starts_with("splitting its 1 whole HIP compiles"));
}

TEST_CASE("report summary: the JSON has the script's keys, order and number spellings") {
    Analysis a = analysed(2);
    std::string json = json_summary(a);
    // The wall times sum to 545 ms; from 90 to 120 ms three steps ran on 2
    // cores, each counted 2/3 of the time: w.hip.o 50 + 6.7, tool 13.3,
    // gfx90a 20 + 80, the link 20 + 90; 30 ms less in all: 515 ms, 257.5 per core.
    CHECK(json.starts_with("{\"wall_ms\": 305, \"work_ms\": 515, \"critical_path_ms\": 240, "
                           "\"bound_ms\": 257.5, \"list_schedule_ms\": "));
    CHECK(json.find("\"wall_work_ms\": 545, \"max_running\": 3, ") != std::string::npos);
    CHECK(json.find("\"by_kind_ms\": {\"HIP bundle\": 5, \"HIP compile (all architectures in "
                    "one step)\": 57, \"HIP device gfx906\": 90, \"HIP device gfx90a\": 100, ") !=
          std::string::npos);
    auto parsed = nlohmann::json::parse(json);
    CHECK(parsed["cores"] == 2);
    // Numbers and strings as Python's json module spells them.
    CHECK(json_text(16000.0) == "16000.0");
    CHECK(json_text(7193.5) == "7193.5");
    CHECK(json_text(1.0 / 3) == "0.3333333333333333");
    CHECK(json_text("a\n\x01\"b") == "\"a\\n\\u0001\\\"b\"");
    CHECK(json_text("\xff.o") == "\"\xef\xbf\xbd.o\""); // not UTF-8: U+FFFD, no exception
}

TEST_CASE("report trace: one complete event per step, the log's durations, lanes never overlap") {
    Analysis a = analysed(2);
    const std::string text = trace_json(a);
    // One event a line, compact.
    CHECK(text.starts_with("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n{\"name\":\"process_"
                           "name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,\"args\":{\"name\":\"ninja "
                           "build\"}},\n{\"name\":"));
    CHECK(text.ends_with("}}\n]}\n"));
    auto trace = nlohmann::json::parse(text);
    std::vector<nlohmann::json> events;
    for (const auto& e : trace["traceEvents"])
        if (e["ph"] == "X") events.push_back(e);
    REQUIRE(events.size() == a.build.steps.size());
    for (size_t i = 0; i < events.size(); ++i) {
        CHECK(events[i]["dur"].get<int64_t>() == a.build.steps[i].time * 1000);
        CHECK(events[i]["args"]["time_ms"] == a.build.steps[i].cost);
        CHECK_FALSE(events[i]["args"].contains("cpu_ms")); // nothing recorded
        for (size_t j = i + 1; j < events.size(); ++j) {
            if (events[i]["tid"] != events[j]["tid"]) continue;
            int64_t si = events[i]["ts"], sj = events[j]["ts"];
            int64_t ei = si + events[i]["dur"].get<int64_t>();
            int64_t ej = sj + events[j]["dur"].get<int64_t>();
            CHECK((ei <= sj || ej <= si));
        }
    }
    CHECK(events[1]["args"]["arch"] == "gfx906");
    CHECK(events[1]["args"]["object"] == "k.o");
    CHECK(events[1]["args"]["kind"] == "HIP device gfx906");
    CHECK(events[1]["name"] == "gfx906 k.o");
}
