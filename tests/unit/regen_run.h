// Test helper: one regen run on the current directory, with its output text.
#pragma once

#include "fake_probe.h"
#include "regen/regen.h"
#include "util/file.h"

#include <doctest/doctest.h>
#include <string>

namespace phc::test {

/// What a regen run gave.
struct RegenRun {
    regen::Summary summary;
    std::string text; ///< the written top manifest
};

/// Runs regen on `manifest` into `out` on one thread, with plan reuse per shape
/// on or off and verified or not; a failed run fails the test.
inline RegenRun run_regen(const std::string& manifest, const std::string& out, bool shapes,
                          bool verify, int device_jobs) {
    regen::Options o;
    o.prober = fake_prober();
    o.manifest = manifest;
    o.output = out;
    o.shapes = shapes;
    o.verify_shapes = verify;
    o.device_jobs = device_jobs;
    o.threads = 1;
    auto r = regen::run(o);
    REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
    auto t = util::read_file(out);
    REQUIRE(t.ok());
    return {*r, *t};
}

} // namespace phc::test
