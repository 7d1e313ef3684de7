// The build-time plan of a new-driver RDC link (split/wrapper_plan.h) and the
// readers it stands on: archives (util/archive.h) and offload binaries, on
// files made here byte by byte; the wrapper's dry run is given as text.
#include "elf_builder.h"
#include "scratch.h"
#include "split/link.h"
#include "split/wrapper_link.h"
#include "split/wrapper_plan.h"
#include "util/archive.h"
#include "util/elf.h"
#include "util/file.h"

#include <algorithm>
#include <doctest/doctest.h>
#include <string>
#include <vector>

using namespace phc;
using Strings = std::vector<std::string>;

namespace {

/// One offload binary (version `version`) holding `image` for triple and arch.
std::string offload_binary(const std::string& triple, const std::string& arch,
                           const std::string& image, uint32_t version = 1) {
    // header 32, entry 40, two string entries 32, then the strings, then the image
    std::string strings =
        std::string(1, '\0') + "triple" + '\0' + triple + '\0' + "arch" + '\0' + arch + '\0';
    const uint64_t str_at = 32 + 40 + 32, image_at = str_at + strings.size();
    std::string b(str_at, '\0');
    b += strings;
    b += image;
    while (b.size() % 8)
        b += '\0';
    b.replace(0, 4, "\x10\xff\x10\xad");
    test::put(b, 4, version, 4);
    test::put(b, 8, b.size(), 8);
    test::put(b, 16, 32, 8); // entry offset
    test::put(b, 24, 40, 8); // entry size
    test::put(b, 32, 2, 2);  // image kind: bitcode
    test::put(b, 34, 4, 2);  // offload kind: HIP
    test::put(b, 40, 72, 8); // string table
    test::put(b, 48, 2, 8);  // two strings
    test::put(b, 56, image_at, 8);
    test::put(b, 64, image.size(), 8);
    const uint64_t t = str_at + 1, tv = t + 7, a = tv + triple.size() + 1, av = a + 5;
    test::put(b, 72, t, 8);
    test::put(b, 80, tv, 8);
    test::put(b, 88, a, 8);
    test::put(b, 96, av, 8);
    return b;
}

const std::string kTriple = "amdgcn-amd-amdhsa";

/// An object whose .llvm.offloading holds `tag`'s device code for each of `archs`.
std::string device_object(const std::string& tag, const Strings& archs) {
    std::string section;
    for (const std::string& a : archs)
        section += offload_binary(kTriple, a, "BC:" + tag + ":" + a);
    return test::object({{".text", "host code"}, {".llvm.offloading", section}});
}

/// A GNU archive of `members` (name, bytes), with a symbol table and, for
/// names longer than 15 characters, the long-name table.
std::string archive(const std::vector<std::pair<std::string, std::string>>& members) {
    auto header = [](std::string name, size_t size) {
        std::string h = name;
        h.resize(16, ' ');
        h += std::string("0").append(11, ' ') + std::string("0").append(5, ' ') +
             std::string("0").append(5, ' ') + std::string("644").append(5, ' ');
        std::string sz = std::to_string(size);
        sz.resize(10, ' ');
        return h + sz + "`\n";
    };
    auto padded = [](std::string data) {
        if (data.size() % 2) data += '\n';
        return data;
    };
    std::string out = "!<arch>\n" + header("/", 4) + std::string(4, '\0');
    std::string long_names;
    std::vector<std::string> names;
    for (const auto& [name, data] : members) {
        if (name.size() > 15) {
            names.push_back("/" + std::to_string(long_names.size()));
            long_names += name + "/\n";
        } else {
            names.push_back(name + "/");
        }
    }
    if (!long_names.empty()) out += header("//", long_names.size()) + padded(long_names);
    for (size_t i = 0; i < members.size(); ++i)
        out += header(names[i], members[i].second.size()) + padded(members[i].second);
    return out;
}

/// The wrapper's dry run of a link of app, linking `inputs` (temporary names) for each arch.
std::string dry_run(const std::string& temp, const std::vector<Strings>& inputs,
                    const Strings& archs) {
    std::string text;
    for (size_t k = 0; k < archs.size(); ++k) {
        text += " \"/usr/lib/llvm-22/bin/clang\" --no-default-config -o " + temp + "/app.amdgcn." +
                archs[k] + "-1a2b3c.img -dumpdir app.amdgcn." + archs[k] +
                ".img. --target=amdgcn-amd-amdhsa -mcpu=" + archs[k] + " -flto -Wl,--no-undefined";
        for (const std::string& in : inputs[k])
            text += " " + temp + "/" + in;
        text += " -flto-partitions=8\n";
    }
    text += " \"/usr/lib/llvm-22/bin/clang-offload-bundler\" -type=o -output=" + temp +
            "/app-1.hipfb\n";
    text += " \"/usr/bin/ld\" -o app " + temp + "/app.hip.image.wrapper-1.o a.o libx.a\n";
    return text;
}

const Strings kArchs = {"gfx906", "gfx90a"};
const Strings kJob = {"/usr/lib/llvm-22/bin/clang-linker-wrapper",
                      "--should-extract=gfx906",
                      "--should-extract=gfx90a",
                      "-o",
                      "app",
                      "a.o",
                      "libx.a",
                      "-L",
                      "lib",
                      "-ly"};

} // namespace

TEST_CASE("archive: members by name, long names and BSD names; tables left out") {
    const std::string a =
        archive({{"b.o", "BBBB"}, {"a_rather_long_member_name.hip.o", "LONG1"}, {"c.o", "C"}});
    auto m = util::ar::members(a);
    REQUIRE_MESSAGE(m, m.error().message);
    REQUIRE(m->size() == 3);
    CHECK((*m)[0].name == "b.o");
    CHECK((*m)[0].data == "BBBB");
    CHECK((*m)[1].name == "a_rather_long_member_name.hip.o");
    CHECK((*m)[1].data == "LONG1"); // odd size: the padding is not its data
    CHECK((*m)[2].data == "C");
    std::string bsd = "!<arch>\n#1/8            0           0     0     644     12        `\n";
    bsd += std::string("long.o\0\0", 8) + "DATA";
    auto b = util::ar::members(bsd);
    REQUIRE_MESSAGE(b, b.error().message);
    CHECK((*b)[0].name == "long.o");
    CHECK((*b)[0].data == "DATA");
    CHECK(util::ar::is_archive("!<thin>\nrest"));
    CHECK_FALSE(util::ar::members("!<thin>\nrest"));
    CHECK_FALSE(util::ar::members("not an archive"));
    for (size_t cut = 9; cut < a.size(); cut += 7) // cut anywhere: an error or fewer members
        if (auto r = util::ar::members(a.substr(0, cut)); r) CHECK(r->size() < 3);
}

TEST_CASE("offload images: each binary's triple, arch and image; other versions refused") {
    std::string s = offload_binary(kTriple, "gfx906", "IMAGE-1") +
                    offload_binary(kTriple, "gfx90a", "IMAGE-two");
    auto images = split::offload_images(s);
    REQUIRE_MESSAGE(images, images.error().message);
    REQUIRE(images->size() == 2);
    CHECK((*images)[0].triple == kTriple);
    CHECK((*images)[0].arch == "gfx906");
    CHECK((*images)[0].image == "IMAGE-1");
    CHECK((*images)[1].arch == "gfx90a");
    CHECK((*images)[1].image == "IMAGE-two");
    auto v2 = split::offload_images(offload_binary(kTriple, "gfx906", "X", 2));
    REQUIRE_FALSE(v2);
    CHECK(v2.error().message.find("version 2") != std::string::npos);
    for (size_t cut = 1; cut < s.size(); cut += 5) {
        auto r = split::offload_images(s.substr(0, cut));
        CHECK((!r || r->size() < 2));
    }
    std::string bad = s;
    test::put(bad, 56, 1u << 30, 8); // the image offset past the end
    CHECK_FALSE(split::offload_images(bad));
}

TEST_CASE("link plan at build time: each architecture's device inputs, extracted, and the host "
          "link given their images") {
    test::InScratch here("phc-wplan");
    REQUIRE(util::make_dirs("lib"));
    REQUIRE(util::write_file_atomic("a.o", device_object("a", kArchs)));
    REQUIRE(util::write_file_atomic(
        "libx.a", archive({{"b.hip.o", device_object("b", kArchs)},
                           {"plain.o", test::object({{".text", "no device code"}})}})));
    REQUIRE(
        util::write_file_atomic("lib/liby.a", archive({{"y.o", device_object("y", {"gfx906"})}})));
    const std::string temp = "/tmp/phc-link-plan-T";
    std::vector<Strings> inputs = {
        {"a-amdgcn-amd-amdhsa-gfx906-111111.o", "b.hip-amdgcn-amd-amdhsa-gfx906-222222.o",
         "y-amdgcn-amd-amdhsa-gfx906-333333.o"},
        {"a-amdgcn-amd-amdhsa-gfx90a-444444.o", "b.hip-amdgcn-amd-amdhsa-gfx90a-555555.o"}};
    auto r = split::decide_link_plan(kJob, kArchs, "app.phc", dry_run(temp, inputs, kArchs), temp);
    REQUIRE_MESSAGE(r, r.error().message);
    REQUIRE_MESSAGE(r->why.empty(), r->why);
    REQUIRE(r->device.size() == 2);
    const Strings& d = r->device[0];
    auto has = [](const Strings& argv, const std::string& w) {
        return std::find(argv.begin(), argv.end(), w) != argv.end();
    };
    CHECK(has(d, "app.phc/gfx906.img"));
    CHECK(has(d, "-mcpu=gfx906"));
    for (const std::string& w : d)
        CHECK(w.find(temp) == std::string::npos);
    CHECK(has(d, "app.phc/x/gfx906-0.o"));
    CHECK(util::read_file("app.phc/x/gfx906-0.o").value() == "BC:a:gfx906");
    CHECK(util::read_file("app.phc/x/gfx906-1.o").value() == "BC:b:gfx906");
    CHECK(util::read_file("app.phc/x/gfx906-2.o").value() == "BC:y:gfx906");
    CHECK(util::read_file("app.phc/x/gfx90a-1.o").value() == "BC:b:gfx90a");
    CHECK(r->device[1].size() == d.size() - 1);
    REQUIRE(r->host.size() == 1);
    CHECK(r->host[0].size() == kJob.size() + 2);
    CHECK(r->host[0].back() == "--override-image=hip=app.phc/gfx90a.img");
    CHECK(r->device_inputs_hash[0] != r->device_inputs_hash[1]);

    SUBCASE("the same inputs give the same plan; new device code changes only its architecture") {
        auto again =
            split::decide_link_plan(kJob, kArchs, "app.phc", dry_run(temp, inputs, kArchs), temp);
        REQUIRE(again);
        CHECK(again->device == r->device);
        CHECK(again->device_inputs_hash == r->device_inputs_hash);
        REQUIRE(util::write_file_atomic("lib/liby.a",
                                        archive({{"y.o", device_object("y2", {"gfx906"})}})));
        auto changed =
            split::decide_link_plan(kJob, kArchs, "app.phc", dry_run(temp, inputs, kArchs), temp);
        REQUIRE(changed);
        CHECK(changed->device_inputs_hash[0] != r->device_inputs_hash[0]);
        CHECK(changed->device_inputs_hash[1] == r->device_inputs_hash[1]);
    }
    // What the step cannot know leaves the device code to the wrapper: no
    // device link runs, and the host link is the driver's own job.
    auto alone = [&](const Strings& job, const std::vector<Strings>& ins, const Strings& archs,
                     const std::string& text = {}) {
        auto q = split::decide_link_plan(job, archs, "app.phc",
                                         text.empty() ? dry_run(temp, ins, archs) : text, temp);
        REQUIRE_MESSAGE(q, q.error().message);
        for (const Strings& dev : q->device)
            CHECK(dev.empty());
        CHECK(q->host == std::vector<Strings>{job});
        return q->why;
    };
    SUBCASE("two inputs may hold a name: left to the wrapper") {
        REQUIRE(util::write_file_atomic("liby.a",
                                        archive({{"y.o", device_object("other", {"gfx906"})}})));
        Strings job = kJob;
        job.insert(job.end(), {"-L", "."});
        CHECK(alone(job, inputs, kArchs).find("may come from") != std::string::npos);
    }
    SUBCASE("a name no input holds") {
        std::vector<Strings> ins = inputs;
        ins[1].push_back("zz-amdgcn-amd-amdhsa-gfx90a-666666.o");
        CHECK(alone(kJob, ins, kArchs).find("no input of the link holds") != std::string::npos);
    }
    SUBCASE("an architecture the wrapper does not link (clang 19 links in its own process)") {
        std::string text = dry_run(temp, {inputs[0]}, {"gfx906"});
        CHECK(alone(kJob, inputs, kArchs, text).find("no device code for gfx90a") !=
              std::string::npos);
    }
    SUBCASE("an architecture the link does not name") {
        CHECK(alone(kJob, inputs, {"gfx906", "gfx1030"}, dry_run(temp, inputs, kArchs))
                  .find("gfx90a, which the link does not") != std::string::npos);
    }
    SUBCASE("a response file or a sysroot") {
        Strings job = kJob;
        job.push_back("@more.rsp");
        CHECK(alone(job, inputs, kArchs).find("response file") != std::string::npos);
        job.back() = "-L=/usr/lib";
        CHECK(alone(job, inputs, kArchs).find("sysroot") != std::string::npos);
    }
    SUBCASE("an input of that name the step cannot read") {
        REQUIRE(util::write_file_atomic("libx.a", archive({{"b.hip.o", "not ELF at all"}})));
        CHECK(alone(kJob, inputs, kArchs).find("b.hip.o") != std::string::npos);
    }
}

TEST_CASE("link plan at build time, target IDs with features: the fat binary by target ID, then "
          "wrapper-link") {
    test::InScratch here("phc-wplan-tid");
    const Strings archs = {"gfx906:xnack-", "gfx90a:xnack+"};
    REQUIRE(util::write_file_atomic("a.o", device_object("a", archs)));
    REQUIRE(util::write_file_atomic("libx.a", archive({{"b.hip.o", device_object("b", archs)}})));
    const std::string temp = "/tmp/phc-link-plan-T";
    std::vector<Strings> inputs = {{"a-amdgcn-amd-amdhsa-gfx906:xnack--111111.o",
                                    "b.hip-amdgcn-amd-amdhsa-gfx906:xnack--222222.o"},
                                   {"a-amdgcn-amd-amdhsa-gfx90a:xnack+-444444.o",
                                    "b.hip-amdgcn-amd-amdhsa-gfx90a:xnack+-555555.o"}};
    Strings job = {kJob[0],
                   "--should-extract=gfx906:xnack-",
                   "--should-extract=gfx90a:xnack+",
                   "-o",
                   "app",
                   "a.o",
                   "libx.a"};
    std::string text = dry_run(temp, inputs, archs);
    const std::string bundler = "-type=o -output=";
    const std::string targets =
        "-type=o -targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a:xnack+,"
        "hip-amdgcn-amd-amdhsa--gfx906:xnack- -input=/dev/null -input=" +
        temp + "/app.amdgcn.gfx90a:xnack+-1a2b3c.img -input=" + temp +
        "/app.amdgcn.gfx906:xnack--1a2b3c.img -output=";
    text.replace(text.find(bundler), bundler.size(), targets);
    auto r = split::decide_link_plan(job, archs, "app.phc", text, temp);
    REQUIRE_MESSAGE(r, r.error().message);
    REQUIRE_MESSAGE(r->why.empty(), r->why);
    REQUIRE(r->host.size() == 2);
    const Strings& b = r->host[0];
    CHECK(b[0] == "/usr/lib/llvm-22/bin/clang-offload-bundler");
    CHECK(std::find(b.begin(), b.end(), "-input=app.phc/gfx90a-xnack+.img") != b.end());
    CHECK(std::find(b.begin(), b.end(), "-input=app.phc/gfx906-xnack-.img") != b.end());
    CHECK(b.back() == "-output=app.phc/fatbin.hipfb");
    for (const std::string& w : b)
        CHECK(w.find(temp) == std::string::npos);
    const Strings& h = r->host[1];
    CHECK(h[1] == "wrapper-link");
    CHECK(h[3] == "app.phc/fatbin.hipfb");
    CHECK(split::wrapped_job(h).front() == kJob[0]);
    CHECK(h.back() == "--override-image=hip=app.phc/gfx90a-xnack+.img");
    // The wrapper's dry run bundling nothing: the device code is left to it.
    std::string none = dry_run(temp, inputs, archs);
    none.erase(none.find(" \"/usr/lib/llvm-22/bin/clang-offload-bundler"),
               none.find(" \"/usr/bin/ld") -
                   none.find(" \"/usr/lib/llvm-22/bin/clang-offload-bundler"));
    auto q = split::decide_link_plan(job, archs, "app.phc", none, temp);
    REQUIRE(q);
    CHECK(q->why.find("bundles no fat binary") != std::string::npos);
    CHECK(q->host == std::vector<Strings>{job});
}

TEST_CASE("link plan at build time, clang 19 (the wrapper links in its own process): each "
          "architecture's link is the wrapper given that architecture's device code alone") {
    test::InScratch here("phc-wplan-19");
    REQUIRE(util::write_file_atomic("a.o", device_object("a", kArchs)));
    REQUIRE(util::write_file_atomic("h.o", test::object({{".text", "host only"}})));
    const std::string temp = "/tmp/phc-link-plan-T";
    // What clang 19's wrapper prints: each device job links the output of its
    // own LTO, "<output>.<triple>.<arch>-<random>.o".
    std::string text;
    for (const std::string& a : kArchs)
        text += " \"/usr/lib/llvm-19/bin/clang\" --no-default-config -o " + temp + "/app.amdgcn." +
                a + "-1a2b3c.img --target=amdgcn-amd-amdhsa -mcpu=" + a +
                " -O2 -Wl,--no-undefined " + temp + "/app.amdgcn-amd-amdhsa." + a + "-3aef82.o\n";
    text += " \"/usr/bin/ld\" -o app " + temp + "/app.hip.image.wrapper-1.o a.o h.o\n";
    const Strings job = {"/usr/lib/llvm-19/bin/clang-linker-wrapper",
                         "--linker-path=/usr/bin/ld",
                         "-o",
                         "app",
                         "a.o",
                         "h.o"};
    auto r = split::decide_link_plan(job, kArchs, "app.phc", text, temp);
    REQUIRE_MESSAGE(r, r.error().message);
    REQUIRE_MESSAGE(r->why.empty(), r->why);
    const Strings& d = r->device[1];
    REQUIRE(d.size() == job.size() + 7);
    CHECK(d[1] == "wrapper-image");
    CHECK(d[3] == "gfx90a");
    CHECK(d[5] == "app.phc/gfx90a.img");
    const Strings wrapped(d.begin() + 7, d.end());
    CHECK(wrapped == Strings{job[0], job[1], "-o", "app", "app.phc/x/gfx90a/0/a.o", "h.o"});
    // The object given holds gfx90a's offload binary alone, byte for byte.
    auto sliced = util::read_file("app.phc/x/gfx90a/0/a.o");
    REQUIRE(sliced);
    auto obj = util::elf::parse(*sliced);
    REQUIRE_MESSAGE(obj, obj.error().message);
    const int at = obj->find(".llvm.offloading");
    REQUIRE(at > 0);
    CHECK(obj->find(".text") < 0);
    auto images = split::offload_images(obj->contents(obj->sections[static_cast<size_t>(at)]));
    REQUIRE(images);
    REQUIRE(images->size() == 1);
    CHECK((*images)[0].arch == "gfx90a");
    CHECK((*images)[0].image == "BC:a:gfx90a");
    CHECK(r->device_inputs_hash[0] != r->device_inputs_hash[1]);
    REQUIRE(r->host.size() == 1);
    CHECK(r->host[0].back() == "--override-image=hip=app.phc/gfx90a.img");

    SUBCASE("a host-only change gives the same plans") {
        REQUIRE(util::write_file_atomic("h.o", test::object({{".text", "other host code"}})));
        auto again = split::decide_link_plan(job, kArchs, "app.phc", text, temp);
        REQUIRE(again);
        CHECK(again->device == r->device);
        CHECK(again->device_inputs_hash == r->device_inputs_hash);
    }
    SUBCASE("an archive member with device code: the wrapper picks members, left to it") {
        REQUIRE(util::write_file_atomic("libx.a", archive({{"b.o", device_object("b", kArchs)}})));
        Strings with = job;
        with.push_back("libx.a");
        auto q = split::decide_link_plan(with, kArchs, "app.phc", text, temp);
        REQUIRE(q);
        CHECK(q->why.find("libx.a(b.o)") != std::string::npos);
        CHECK(q->host == std::vector<Strings>{with});
    }
}

TEST_CASE("one section alone: the ELF header and the section's header kept, the contents given") {
    const std::string in = test::object(
        {{".text", "code"}, {".llvm.offloading", "OLD", 0x6fff4c00}, {".data", "data"}});
    auto o = util::elf::parse(in);
    REQUIRE(o);
    const int at = o->find(".llvm.offloading");
    const std::string out = util::elf::only_section(*o, at, "NEW CONTENTS");
    auto p = util::elf::parse(out);
    REQUIRE_MESSAGE(p, p.error().message);
    REQUIRE(p->sections.size() == 3);
    CHECK(p->sections[1].name == ".llvm.offloading");
    CHECK(p->sections[1].type == 0x6fff4c00);
    CHECK(p->contents(p->sections[1]) == "NEW CONTENTS");
    CHECK(p->sections[2].name == ".shstrtab");
    CHECK(p->find(".text") < 0);
    CHECK(out.substr(0, 16) == in.substr(0, 16));
}

namespace {

/// An old-driver plan of app (link.h) whose unbundle step writes `unbundled` for each arch.
split::LinkPlan driver_plan(const std::string& unbundled, const Strings& archs = kArchs) {
    split::LinkPlan p;
    p.analysis = compile::analyze_link_string(
        "clang++-15 -fgpu-rdc --hip-link --offload-arch=gfx906 --offload-arch=gfx90a main.o -L. "
        "-lfoo -o app",
        {});
    p.private_dir = "app.phc";
    split::Step u;
    u.kind = split::StepKind::Unbundle;
    std::string script = "mkdir -p app.phc";
    for (size_t k = 0; k < archs.size(); ++k)
        script +=
            " && printf '" + unbundled + archs[k] + "' > app.phc/u0-" + std::to_string(k) + ".o";
    u.argv = {"/bin/sh", "-c", script};
    u.inputs = {"libfoo.a"};
    p.steps.push_back(u);
    for (size_t k = 0; k < archs.size(); ++k) {
        split::Step d;
        d.kind = split::StepKind::DeviceLink;
        d.arch = archs[k];
        d.argv = {"lld", "-plugin-opt=mcpu=" + archs[k], "-o", "app.phc/" + archs[k] + ".out",
                  "app.phc/u0-" + std::to_string(k) + ".o"};
        d.inputs = {"app.phc/u0-" + std::to_string(k) + ".o"};
        d.outputs = {"app.phc/" + archs[k] + ".out"};
        p.steps.push_back(d);
    }
    for (auto kind :
         {split::StepKind::Fatbin, split::StepKind::FatbinObject, split::StepKind::HostLink}) {
        split::Step s;
        s.kind = kind;
        s.argv = {"tool", std::string(split::step_kind_name(kind))};
        p.steps.push_back(s);
    }
    return p;
}

} // namespace

TEST_CASE("link plan at build time, old driver: unbundled now, each lld planned, then the rest") {
    test::InScratch here("phc-dplan");
    const Strings link = {"clang++-15", "-fgpu-rdc", "--hip-link", "main.o", "-lfoo", "-o", "app"};
    auto r = split::decide_driver_plan(driver_plan("one-"), link, kArchs, "app.phc");
    REQUIRE_MESSAGE(r, r.error().message);
    REQUIRE_MESSAGE(r->why.empty(), r->why);
    CHECK(util::read_file("app.phc/u0-1.o").value() == "one-gfx90a"); // the unbundling ran
    CHECK(r->device[1] ==
          Strings{"lld", "-plugin-opt=mcpu=gfx90a", "-o", "app.phc/gfx90a.out", "app.phc/u0-1.o"});
    CHECK(r->host == std::vector<Strings>{
                         {"tool", "fatbin"}, {"tool", "fatbin-object"}, {"tool", "host-link"}});
    auto same = split::decide_driver_plan(driver_plan("one-"), link, kArchs, "app.phc");
    REQUIRE(same);
    CHECK(same->device_inputs_hash == r->device_inputs_hash);
    auto other = split::decide_driver_plan(driver_plan("two-"), link, kArchs, "app.phc");
    REQUIRE(other);
    CHECK(other->device_inputs_hash[0] != r->device_inputs_hash[0]); // new device code: relink

    auto alone = [&](const split::LinkPlan& p, const Strings& archs) {
        auto q = split::decide_driver_plan(p, link, archs, "app.phc");
        REQUIRE_MESSAGE(q, q.error().message);
        for (const Strings& d : q->device)
            CHECK(d.empty());
        CHECK(q->host == std::vector<Strings>{link}); // the driver's own link
        return q->why;
    };
    CHECK(alone(driver_plan("x", {"gfx906"}), kArchs).find("no device code for gfx90a") !=
          std::string::npos);
    CHECK(alone(driver_plan("x"), {"gfx906", "gfx1030"}).find("gfx90a, which the link's edges") !=
          std::string::npos);
    split::LinkPlan failing = driver_plan("x");
    failing.steps[0].argv = {"/bin/sh", "-c", "exit 3"};
    CHECK(alone(failing, kArchs).find("unbundling libfoo.a failed (exit 3)") != std::string::npos);
    split::LinkPlan renamed = driver_plan("x");
    renamed.steps[1].outputs = {"app.phc/gfx906-1.out"};
    CHECK(alone(renamed, kArchs).find("writes another file") != std::string::npos);
    split::LinkPlan left = driver_plan("x");
    left.analysis.decision = {compile::Reason::LinkUnmodelled, "the driver's link runs 'x'"};
    CHECK(alone(left, kArchs) == "the driver's link runs 'x'");
}
