// Plans reused per edge shape (src/regen/shapes.h) must give exactly the edges
// that planning each edge on its own gives. The probe answers as clang-15 does
// (fake_probe.h: recorded results, no compiler runs).
#include "regen/regen.h"
#include "regen_run.h"
#include "scratch.h"
#include "util/file.h"

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <string>
#include <unistd.h>

using namespace phc;

namespace {

constexpr const char* kHip = "-x hip --rocm-path=/usr "
                             "--hip-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode";

/// A manifest with compile edges of many shapes, three edges each. Returns the
/// number of edges whose plan must be reused (the others must not be).
size_t write_manifest(const std::string& dir) {
    std::string t = fmt::format(R"(pool p
  depth = 1
rule HIP
  command = $LAUNCHER/usr/bin/clang++-15 $DEFINES $INCLUDES $FLAGS -MD -MT $out -MF $DEP_FILE -o $out -c $in
  depfile = $DEP_FILE
  deps = gcc
rule HIPWP
  command = /usr/bin/clang++-15 $FLAGS -Wp,-MD,$out.d -c $in -o $out
  depfile = $out.d
  deps = gcc
rule HIPNOO
  command = /usr/bin/clang++-15 $FLAGS -MD -c $in
rule HIPENV
  command = FOO=1 /usr/bin/clang++-15 $FLAGS -o $out -c $in -MD -MF $out.d -MT $out
  depfile = $out.d
rule HIPCUID
  command = /usr/bin/clang++-15 $FLAGS -cuid=fixed123 -o $out -c $in
rule HIPSRC
  command = /usr/bin/clang++-15 $FLAGS -DSRC=$in -o $out -c $in
  description = HIP $out
)");
    const std::string two = std::string(kHip) + " --offload-arch=gfx906 --offload-arch=gfx90a";
    size_t reused = 0;
    auto add = [&](bool reuse, const std::string& text) {
        t += text;
        reused += reuse ? 1 : 0;
    };
    for (int i = 0; i < 3; ++i) {
        // CMake's layout: per-edge -D/-I values, one holding an architecture name,
        // one the object path; order-only and implicit inputs; a pool.
        add(true, fmt::format("build obj/v1_{0}.o: HIP /abs/src/v1_{0}.hip | gen{0}.h || order1\n"
                              "  DEFINES = -DLIB_EXPORTS -DN={0} -DARCH=gfx906 -DOBJ=obj/v1_{0}.o\n"
                              "  INCLUDES = -I/abs/inc{0} -Irel/inc.d -I../up\n"
                              "  DEP_FILE = obj/v1_{0}.o.d\n  FLAGS = {1} -O2\n  pool = p\n",
                              i, two));
        // An absolute object, ccache, restat, an implicit output and a validation.
        add(true, fmt::format("build {0}/abs/v2_{1}.o | obj/v2_{1}.extra: HIP src/v2_{1}.hip "
                              "|@ check{1}\n  LAUNCHER = ccache \n  DEP_FILE = {0}/abs/v2_{1}.d\n"
                              "  FLAGS = {2}\n  restat = 1\n",
                              dir, i, two));
        add(true, fmt::format("build obj/v3_{0}.o: HIPWP src/v3_{0}.hip\n  FLAGS = {1}\n", i, two));
        // No -o: the object's name is derived from the source, not copied.
        add(false, fmt::format("build v4_{0}.o: HIPNOO src/v4_{0}.hip\n  FLAGS = {1}\n", i, two));
        add(true,
            fmt::format("build obj/v5_{0}.o: HIPENV src/v5_{0}.hip\n  FLAGS = {1}\n", i, two));
        add(true,
            fmt::format("build obj/v6_{0}.o: HIPCUID src/v6_{0}.hip\n  FLAGS = {1}\n", i, two));
        // An architecture name in the object's path.
        add(false, fmt::format("build obj/gfx906/v7_{0}.o: HIP src/v7_{0}.hip\n"
                               "  DEP_FILE = obj/gfx906/v7_{0}.o.d\n  FLAGS = {1}\n",
                               i, two));
        add(true, fmt::format("build obj/v8_{0}: HIP src/v8_{0}.hip\n  DEP_FILE = obj/v8_{0}.d\n"
                              "  FLAGS = {1}\n",
                              i, two));
        // A space in the path: ninja quotes it in the command.
        add(false, fmt::format("build obj/v9$ {0}.o: HIP src/v9_{0}.hip\n  DEP_FILE = obj/v9.d\n"
                               "  FLAGS = {1}\n",
                               i, two));
        // One architecture: left alone.
        add(false, fmt::format("build obj/v10_{0}.o: HIP src/v10_{0}.hip\n  DEP_FILE = x{0}.d\n"
                               "  FLAGS = {1} --offload-arch=gfx906\n",
                               i, kHip));
        // Order-only inputs that need escaping in a build line.
        add(true, fmt::format("build obj/v11_{0}.o: HIP src/v11_{0}.hip || c$:d{0} sp$ ace\n"
                              "  DEP_FILE = obj/v11_{0}.o.d\n  FLAGS = {1}\n",
                              i, two));
        add(true, fmt::format("build obj/v12_{0}.o: HIP src/v12_{0}.cu\n"
                              "  DEP_FILE = obj/v12_{0}.o.d\n  FLAGS = {1}\n",
                              i, two));
        add(true, fmt::format("build obj/v13_{0}.o: HIPSRC /abs/src/v13_{0}.hip\n  FLAGS = {1}\n",
                              i, two));
        // Not a HIP compile at all.
        t +=
            fmt::format("build obj/c{0}.o: HIP src/c{0}.cpp\n  DEP_FILE = c.d\n  FLAGS = -O2\n", i);
    }
    REQUIRE(util::write_file_atomic(dir + "/build.ninja", t).ok());
    return reused;
}

} // namespace

TEST_CASE("plans reused per edge shape give exactly the edges planned one by one") {
    test::InScratch in("phc-shapes");
    const size_t reusable = write_manifest(in.dir());
    for (int device_jobs : {0, 2}) {
        CAPTURE(device_jobs);
        auto each = test::run_regen("build.ninja", "each.ninja", false, false, device_jobs);
        auto shaped = test::run_regen("build.ninja", "shaped.ninja", true, false, device_jobs);
        auto verified = test::run_regen("build.ninja", "verified.ninja", true, true, device_jobs);
        CHECK(each.summary.reused == 0);
        CHECK(shaped.summary.reused == reusable);
        CHECK(verified.summary.reused == reusable);
        CHECK(each.summary.objects_split == 12 * 3);
        CHECK(shaped.summary.objects_split == each.summary.objects_split);
        CHECK(shaped.summary.left == each.summary.left);
        REQUIRE(each.text.size() > 10000);
        CHECK(shaped.text == each.text);
        CHECK(verified.text == each.text);
        REQUIRE(shaped.summary.decisions.size() == each.summary.decisions.size());
        for (size_t k = 0; k < each.summary.decisions.size(); ++k) {
            const auto& x = each.summary.decisions[k];
            const auto& y = shaped.summary.decisions[k];
            CHECK(x.object == y.object);
            CHECK(x.code == y.code);
            CHECK(x.text == y.text);
            CHECK(x.archs == y.archs);
        }
        // The object path is copied where it belongs, not the sentinel.
        CHECK(shaped.text.find("PHCSNTL") == std::string::npos);
        CHECK(shaped.text.find("-DOBJ=obj/v1_2.o ") != std::string::npos);
        CHECK(shaped.text.find("build obj/v8_1.phc/gfx90a.o: ") != std::string::npos);
    }
}
