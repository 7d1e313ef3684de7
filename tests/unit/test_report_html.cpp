// report: the page: the kinds by size with percentages, a legend of the
// kinds present only, the zoom, memory per step and over time only when
// recorded, a plain build's estimate, no bound the build beat.
#include "report/html.h"
#include "report/summary.h"

#include <doctest/doctest.h>
#include <regex>

using namespace phc::report;

namespace {

Step make_step(int64_t start, int64_t end, Kind kind, std::string output, std::string arch = "") {
    Step s;
    s.start = start;
    s.end = end;
    s.time = end - start;
    s.kind = kind;
    s.object = output;
    s.output = std::move(output);
    s.arch = std::move(arch);
    return s;
}

Build make(std::vector<Step> steps) {
    Build b;
    b.steps = std::move(steps);
    for (const Step& s : b.steps)
        b.wall_ms = std::max(b.wall_ms, s.end);
    b.runs = 1;
    return b;
}

std::string page(const Analysis& a) {
    return html_page(a, "b", [](uint32_t) { return std::string("cc"); });
}

/// The rows of the kinds table: (kind, seconds, percent).
std::vector<std::tuple<std::string, double, double>> kind_rows(const std::string& html) {
    std::vector<std::tuple<std::string, double, double>> rows;
    std::regex row(
        R"(<tr><td>([^<]*)</td><td class="n">([0-9.]+) s</td><td class="n pct">([0-9.]+)%</td></tr>)");
    for (std::sregex_iterator it(html.begin(), html.end(), row), end; it != end; ++it)
        rows.emplace_back((*it)[1], std::stod((*it)[2]), std::stod((*it)[3]));
    return rows;
}

/// The legend's text.
std::string legend_of(const std::string& html) {
    size_t at = html.find("<div class=\"legend\" id=\"legend\">");
    REQUIRE(at != std::string::npos);
    return html.substr(at, html.find("</div>", at) - at);
}

} // namespace

TEST_CASE(
    "report html: kinds largest first with their share; the legend has only the kinds present") {
    // A compile of 3 s, a link of 1 s after it, a HIP compile of 4 s beside both: 8 s in all.
    Step hip = make_step(0, 4000, Kind::HipCompile, "w.hip.o");
    hip.offload_archs = 2;
    Analysis a = analyse(make({make_step(0, 3000, Kind::Compile, "m.o"),
                               make_step(3000, 4000, Kind::Other, "app"), hip}),
                         2);
    std::string html = page(a);
    auto rows = kind_rows(html);
    REQUIRE(rows.size() == 3);
    CHECK(std::get<0>(rows[0]) == "HIP compile (all architectures in one step)");
    CHECK(std::get<2>(rows[0]) == doctest::Approx(50.0));
    CHECK(std::get<0>(rows[1]) == "other compile");
    CHECK(std::get<2>(rows[1]) == doctest::Approx(37.5));
    CHECK(std::get<2>(rows[2]) == doctest::Approx(12.5));
    std::string legend = legend_of(html);
    CHECK(legend.find("other compile") != std::string::npos);
    CHECK(legend.find("link and other") != std::string::npos);
    CHECK(legend.find("HIP bundle") == std::string::npos);
    CHECK(legend.find("HIP host compile") == std::string::npos);
    CHECK(legend.find("device link") == std::string::npos);
    // The plain build's estimate: 4 s of 2 architectures, split 2 × 4 / 3 = 2.7 s, saving 1.3 s.
    CHECK(html.find(
              "<tr class=\"whole\"><td>w.hip.o</td><td class=\"n\">4.0 s</td><td class=\"n\">2</td>"
              "<td class=\"n\">2.7 s</td><td class=\"n\">1.3 s</td></tr>") != std::string::npos);
    CHECK(html.find("id=\"split-total\"") != std::string::npos);
    // Nothing recorded: no memory chart, no peaks table.
    CHECK(html.find("<svg id=\"memory\"") == std::string::npos);
    CHECK(html.find("<table id=\"peaks\">") == std::string::npos);
    // The zoom and the axis it redraws.
    CHECK(html.find("<input type=\"range\" id=\"zoom\" min=\"1\" max=\"64\"") != std::string::npos);
    CHECK(html.find("id=\"axis\" data-wall=\"4000\"") != std::string::npos);
}

TEST_CASE("report html: recorded peaks give memory per step and over time") {
    Step d0 = make_step(0, 1000, Kind::Device, "k.o.phc/gfx906.o", "gfx906");
    Step d1 = make_step(0, 500, Kind::Device, "k.o.phc/gfx90a.o", "gfx90a");
    d0.cpu_ms = 900, d0.peak = 300ull << 20;
    d1.cpu_ms = 400, d1.peak = 200ull << 20, d1.wait_ms = 250;
    Build b = make({d0, d1});
    b.cpu_steps = 2;
    std::string html = page(analyse(std::move(b), 2));
    // Both run 0-0.5 s: 500 MiB; then 300 MiB. The chart's most is their sum.
    CHECK(html.find("data-most=\"" + std::to_string(500ull << 20) + "\"") != std::string::npos);
    CHECK(html.find("the most 500 MiB at 0.0 s") != std::string::npos);
    // Without reservations or a budget: neither drawn.
    CHECK(html.find("<polyline id=\"reserved\"") == std::string::npos);
    CHECK(html.find("<line id=\"budget\"") == std::string::npos);
    CHECK(html.find("Steps waited 0.2 s for memory in all") != std::string::npos);
    // With them: the reserved line and the budget, on one scale with the peaks.
    Step r0 = d0, r1 = d1;
    r0.reserved = 1ull << 30, r1.reserved = 1ull << 30;
    Build rb = make({r0, r1});
    rb.cpu_steps = 2;
    rb.budget = 4ull << 30;
    rb.budget_from = "PHC_MEMORY";
    std::string rhtml = page(analyse(std::move(rb), 2));
    CHECK(rhtml.find("data-reserved=\"" + std::to_string(2ull << 30) + "\"") != std::string::npos);
    CHECK(rhtml.find("<polyline id=\"reserved\"") != std::string::npos);
    // The budget, the largest, is drawn at 95% of the height.
    CHECK(rhtml.find("<line id=\"budget\" x1=\"0\" x2=\"1000\" y1=\"5.00\"") != std::string::npos);
    CHECK(rhtml.find("at most 2.00 GiB; red, the budget, 4.00 GiB (PHC_MEMORY") !=
          std::string::npos);
    size_t peaks = html.find("<table id=\"peaks\">");
    REQUIRE(peaks != std::string::npos);
    size_t big = html.find("<td class=\"n\">300 MiB</td>", peaks),
           small = html.find("<td class=\"n\">200 MiB</td>", peaks);
    REQUIRE(big != std::string::npos);
    CHECK(big < small); // largest first
    CHECK(html.find("<td>k.o.phc/gfx906.o</td>", peaks) < small);
    CHECK(html.find("CPU 0.400 s, peak 200 MiB, waited 0.250 s for memory") != std::string::npos);
    // The device kinds are drawn in their architectures' colours: no kind legend entry.
    std::string legend = legend_of(html);
    CHECK(legend.find("gfx906") != std::string::npos);
    CHECK(legend.find("other compile") == std::string::npos);
}

TEST_CASE("report html: no bound the build beat") {
    Build b = make({make_step(0, 100, Kind::Other, "app")});
    b.steps[0].cpu_ms = 400;
    b.cpu_steps = 1;
    std::string html = page(analyse(std::move(b), 2));
    CHECK(html.find("best any schedule") == std::string::npos);
    CHECK(html.find("No bound on 2 cores") != std::string::npos);
}
