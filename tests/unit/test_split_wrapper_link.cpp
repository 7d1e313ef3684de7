// The new driver's RDC link of target IDs with features (wrapper_link.h): the
// bundle reader, the swap of the wrapper's bundle for the split's fat binary
// and what it refuses, and the jobs the plan and its guard compare.
#include "elf_builder.h"
#include "split/wrapper_link.h"

#include <doctest/doctest.h>
#include <utility>

using phc::split::bundle_entries;
using phc::split::bundle_job;
using phc::split::bundle_jobs_differ;
using phc::split::fatbin_swapped;
using Strings = std::vector<std::string>;

namespace {

/// An uncompressed offload bundle of `entries` (name, image), each image at
/// the next multiple of `align`, as clang-offload-bundler -bundle-align lays them.
std::string bundle(const std::vector<std::pair<std::string, std::string>>& entries,
                   uint64_t align = 256) {
    std::string header = "__CLANG_OFFLOAD_BUNDLE__";
    auto u64 = [](uint64_t v) {
        std::string b(8, '\0');
        phc::test::put(b, 0, v, 8);
        return b;
    };
    header += u64(entries.size());
    uint64_t at = align;
    std::string body;
    for (const auto& [name, image] : entries) {
        header += u64(image.empty() ? 0 : at) + u64(image.size()) + u64(name.size()) + name;
        if (!image.empty()) {
            body.resize(at - align, '\0');
            body += image;
            at = align * ((align + body.size() + align - 1) / align);
        }
    }
    REQUIRE(header.size() <= align);
    header.resize(align, '\0');
    return header + body;
}

const std::string kHost = "host-x86_64-unknown-linux-gnu";
const std::string kA = "hip-amdgcn-amd-amdhsa--gfx90a";
const std::string kB = "hip-amdgcn-amd-amdhsa--gfx906";

/// The wrapper's bundle (names by processor) and the split's (by target ID).
std::string theirs() {
    return bundle({{kHost, ""}, {kA, "IMAGE-A"}, {kB, "IMAGE-B-LONGER"}});
}
std::string ours() {
    return bundle({{kHost, ""}, {kA + ":xnack+", "IMAGE-A"}, {kB + ":xnack-", "IMAGE-B-LONGER"}});
}

/// The wrapper's registration object: code, its bundle in .hip_fatbin, data after.
std::string object(const std::string& fatbin) {
    return phc::test::object({{".text", "\x55\x48\x89\xe5"},
                              {".hip_fatbin", fatbin},
                              {".hipFatBinSegment", std::string(24, '\x01')}});
}

} // namespace

TEST_CASE("bundle entries: names, offsets and sizes; compressed or cut short refused") {
    auto e = bundle_entries(ours());
    REQUIRE_MESSAGE(e, e.error().message);
    REQUIRE(e->size() == 3);
    CHECK((*e)[0].triple == kHost);
    CHECK((*e)[1].triple == kA + ":xnack+");
    CHECK((*e)[1].offset == 256);
    CHECK((*e)[1].size == 7);
    CHECK(ours().substr((*e)[2].offset, (*e)[2].size) == "IMAGE-B-LONGER");
    CHECK_FALSE(bundle_entries("CCOB\x01\x00\x01\x00rest"));
    CHECK_FALSE(bundle_entries("not a bundle"));
    CHECK_FALSE(bundle_entries(ours().substr(0, 60)));
    std::string far = ours();
    phc::test::put(far, 32 + 24 + kHost.size(), 1u << 20, 8); // entry 1's offset
    auto out = bundle_entries(far);
    REQUIRE_FALSE(out);
    CHECK(out.error().message.find("outside the bundle") != std::string::npos);
}

TEST_CASE("the wrapper's bundle swapped for the fat binary named by target ID") {
    const std::string before = object(theirs());
    auto swapped = fatbin_swapped(before, theirs(), ours());
    REQUIRE_MESSAGE(swapped, swapped.error().message);
    CHECK(swapped->size() == before.size());
    CHECK(*swapped == object(ours()));

    auto refused = [&](const std::string& object_bytes, const std::string& wrapper,
                       const std::string& right) {
        auto r = fatbin_swapped(object_bytes, wrapper, right);
        REQUIRE(!r);
        return r.error().message;
    };
    SUBCASE("the object's .hip_fatbin is not the wrapper's bundle") {
        std::string other = theirs();
        other.back() = 'x';
        CHECK(refused(object(other), theirs(), ours()).find("byte for byte") != std::string::npos);
        CHECK(
            refused(phc::test::object({{".text", "x"}}), theirs(), ours()).find("no .hip_fatbin") !=
            std::string::npos);
        const std::string two =
            phc::test::object({{".hip_fatbin", theirs()}, {".hip_fatbin", theirs()}});
        CHECK(refused(two, theirs(), ours()).find("two .hip_fatbin") != std::string::npos);
    }
    SUBCASE("another processor, not the same one with features") {
        std::string other =
            bundle({{kHost, ""}, {kA + ":xnack+", "IMAGE-A"}, {kA + ":xnack-", "IMAGE-B-LONGER"}});
        CHECK(refused(object(theirs()), theirs(), other).find("not it with features") !=
              std::string::npos);
    }
    SUBCASE("other images, or the same at other places") {
        std::string other =
            bundle({{kHost, ""}, {kA + ":xnack+", "IMAGE-X"}, {kB + ":xnack-", "IMAGE-B-LONGER"}});
        CHECK(refused(object(theirs()), theirs(), other).find("images are not") !=
              std::string::npos);
        std::string moved = ours(); // entry 2's offset moved back by one
        phc::test::put(moved, 32 + 24 + kHost.size() + 24 + kA.size() + 7, 511, 8);
        CHECK(refused(object(theirs()), theirs(), moved).find("elsewhere") != std::string::npos);
    }
    SUBCASE("another size, another count, a compressed fat binary") {
        CHECK(refused(object(theirs()), theirs(), ours() + "x").find("bytes") != std::string::npos);
        std::string fewer =
            bundle({{kA + ":xnack+", "IMAGE-A"}, {kB + ":xnack-", "IMAGE-B-LONGER"}});
        fewer.resize(theirs().size(), '\0');
        CHECK(refused(object(theirs()), theirs(), fewer).find("entries") != std::string::npos);
        std::string compressed = "CCOB" + std::string(theirs().size() - 4, '\0');
        CHECK(refused(object(theirs()), theirs(), compressed).find("compressed") !=
              std::string::npos);
    }
}

TEST_CASE("the wrapper's bundler job as a step, and compared with the wrapper's given the images") {
    const std::string temp = "/tmp/phc-link-1";
    const Strings job = {"/usr/lib/llvm-22/bin/clang-offload-bundler",
                         "-type=o",
                         "-bundle-align=4096",
                         "-targets=" + kHost + "," + kA + ":xnack+," + kB,
                         "-input=/dev/null",
                         "-input=" + temp + "/app.amdgcn.gfx90a:xnack+-1.img",
                         "-input=" + temp + "/app.amdgcn.gfx906-2.img",
                         "-output=" + temp + "/app-3.hipfb"};
    const std::vector<std::pair<std::string, std::string>> images = {
        {temp + "/app.amdgcn.gfx906-2.img", "app.phc/gfx906.img"},
        {temp + "/app.amdgcn.gfx90a:xnack+-1.img", "app.phc/gfx90a-xnack+.img"}};
    auto b = bundle_job(job, images, temp, "app.phc/fatbin.hipfb");
    REQUIRE_MESSAGE(b, b.error().message);
    const Strings want = {job[0],
                          "-type=o",
                          "-bundle-align=4096",
                          job[3],
                          "-input=/dev/null",
                          "-input=app.phc/gfx90a-xnack+.img",
                          "-input=app.phc/gfx906.img",
                          "-output=app.phc/fatbin.hipfb"};
    CHECK(*b == want);

    Strings compressing = job;
    compressing.insert(compressing.begin() + 1, "-compress");
    CHECK(bundle_job(compressing, images, temp, "f").error().message.find("compresses") !=
          std::string::npos);
    Strings compress_level = job;
    compress_level.insert(compress_level.begin() + 1, "-compression-level=9");
    CHECK_FALSE(bundle_job(compress_level, images, temp, "f"));
    // A file whose path only names the word is no option.
    CHECK(bundle_job(job, images, temp, "out/compressed/fatbin.hipfb"));
    Strings stranger = job;
    stranger[5] = "-input=" + temp + "/other.img";
    CHECK(bundle_job(stranger, images, temp, "f").error().message.find("no device link writes") !=
          std::string::npos);
    Strings twice = job;
    twice[5] = twice[6];
    CHECK_FALSE(bundle_job(twice, images, temp, "f"));

    // The wrapper given the images bundles the same files by processor alone.
    Strings processor = *b;
    processor[3] = "-targets=" + kHost + "," + kA + "," + kB;
    processor.back() = "-output=/tmp/phc-link-9/app-4.hipfb";
    CHECK(bundle_jobs_differ(processor, *b) == "");
    Strings other_arch = processor;
    other_arch[3] = "-targets=" + kHost + "," + kB + "," + kB;
    CHECK(bundle_jobs_differ(other_arch, *b).find("-targets=") != std::string::npos);
    Strings other_input = processor;
    std::swap(other_input[5], other_input[6]);
    CHECK(bundle_jobs_differ(other_input, *b) != "");
    Strings more = processor;
    more.push_back("-verbose");
    CHECK(bundle_jobs_differ(more, *b) != "");
}

TEST_CASE("the host link's command: wrapper-link around the wrapper's job, read back") {
    const Strings job = {"clang-linker-wrapper",
                         "--linker-path=/usr/bin/ld",
                         "-o",
                         "app",
                         "a.o",
                         "--override-image=hip=app.phc/gfx906.img"};
    const Strings cmd = phc::split::wrapper_link_command("app.phc/fatbin.hipfb", job);
    REQUIRE(cmd.size() == job.size() + 5);
    CHECK(cmd[1] == "wrapper-link");
    CHECK(cmd[3] == "app.phc/fatbin.hipfb");
    CHECK(phc::split::wrapped_job(cmd) == job);
    CHECK(phc::split::wrapped_job(job) == job);
    CHECK(phc::split::without_images(job) == Strings(job.begin(), job.end() - 1));
    CHECK(phc::split::has_features({"gfx906", "gfx90a:xnack+"}));
    CHECK_FALSE(phc::split::has_features({"gfx906", "gfx90a"}));
}
