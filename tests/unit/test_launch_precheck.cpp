#include "launch/precheck.h"

#include <doctest/doctest.h>

using namespace phc::launch;
using V = std::vector<std::string>;

TEST_CASE("precheck: multi-arch -c HIP compiles are candidates") {
    CHECK(route({"hipcc", "--offload-arch=gfx906", "--offload-arch=gfx90a", "-c", "k.hip", "-o",
                 "k.o"}) == Route::Candidate);
    CHECK(route({"clang++-19", "--offload-arch=gfx906,gfx90a", "-c", "k.hip"}) == Route::Candidate);
    CHECK(route({"cc", "@args.rsp", "-c"}) == Route::Candidate);
}

TEST_CASE("precheck: everything else passes through untouched") {
    CHECK(route({"sh", "-c", "echo x; exit 7"}) == Route::PassThrough);
    CHECK(route({"false"}) == Route::PassThrough);
    CHECK(route({"hipcc", "--offload-arch=gfx906", "-c", "k.hip"}) == Route::PassThrough);
    // The same architecture twice is still one architecture.
    CHECK(route({"hipcc", "--offload-arch=gfx906", "--offload-arch=gfx906", "-c", "k.hip"}) ==
          Route::PassThrough);
    CHECK(route({"hipcc", "--offload-arch=gfx906", "--offload-arch=gfx90a", "k.o", "-o", "app"}) ==
          Route::PassThrough); // a link
    CHECK(route({"hipcc", "--offload-arch=gfx906", "--offload-arch=gfx90a", "-c",
                 "--offload-device-only", "k.hip"}) == Route::PassThrough);
    CHECK(route({"g++", "-c", "main.cpp", "-o", "main.o"}) == Route::PassThrough);
}

TEST_CASE("precheck: -E of a HIP command gets the sccache fix-ups") {
    V cmd = {"clang++-19",
             "-x",
             "hip",
             "--offload-new-driver",
             "--offload-compress",
             "--offload-arch=gfx906",
             "-E",
             "k.hip"};
    CHECK(route(cmd) == Route::Preprocess);
    CHECK(preprocess_argv(cmd) == V{"clang++-19", "-x", "hip", "--offload-arch=gfx906", "-E",
                                    "k.hip", "--no-offload-new-driver"});
    CHECK(route({"gcc", "-E", "x.c"}) == Route::PassThrough);
}

TEST_CASE("precheck: PHC_COMPILER goes in front") {
    CHECK(command_from({"-c", "k.hip"}, "hipcc") == V{"hipcc", "-c", "k.hip"});
    CHECK(command_from({"hipcc", "-c"}, nullptr) == V{"hipcc", "-c"});
    CHECK(command_from({"hipcc", "-c"}, "") == V{"hipcc", "-c"});
}
