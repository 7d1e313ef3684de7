// Planning once per shape of compile edge instead of once per edge.
//
// The compile edges of a build differ mostly in their paths (object, source,
// depfile, inputs) and in opaque -D/-I values; their flags and so their split
// are the same. The shape of an edge is its command and carry-over with those
// parts abstracted. The first edge of a shape is planned the full way, but with
// every abstracted part replaced by a unique sentinel string; the rendered text
// is then compiled into a program: literal text and "insert this edge's object,
// source, -D/-I value, input path, CUID or object hash". Later edges of the
// shape only run the program.
//
// Why that is exact: the program only copies an edge's own strings into the
// places its sentinel was copied to. A sentinel keeps what decisions may read of
// a path (absolute or not, in a folder or not, its extension; the key holds the
// same), every other word is in the key verbatim, and a shape is refused (its
// edges take the full way) when the full way did anything else with a sentinel:
// derived text from part of it (a fragment with a mark is left over; folder and
// base name each carry a mark), took the output from elsewhere than the object's
// own slot, keyed the driver probe on it (a -B folder, an environment value),
// or when values could meet architecture names (device_template() in edges.cpp
// rewrites those). Values that need quoting or ninja escaping, or that start
// with '-' or '@', are never abstracted. `Options::verify_shapes`
// (PHC_REGEN_VERIFY=1) checks the claim edge by edge against the full way;
// tests/unit/test_regen_shapes*.cpp try to break it.
#pragma once

#include "probe/probe.h"
#include "regen/edges.h"
#include "regen/regen.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace phc::regen {

/// Split edges of one shape as a program over an edge's own strings.
struct ShapeProgram;

/// The shapes one thread has seen. Not thread-safe: one per planning thread.
class ShapeCache {
public:
    ShapeCache(probe::ProbeCache& probes, const Names& names, bool device_pool);
    ~ShapeCache();
    ShapeCache(const ShapeCache&) = delete;
    ShapeCache& operator=(const ShapeCache&) = delete;

    /// When `command` (evaluated, no rspfile) with `carry` has a shape whose edges
    /// split, appends the edge's split edges to `out`, fills `d` and returns
    /// true: exactly what render_split() gives for it. False when the caller must
    /// take the full way (a shape that is not split, or parts this cache cannot
    /// abstract); `out` and `d` are then unchanged.
    bool render(std::string_view command, const Carry& carry, std::string& out,
                std::shared_ptr<const SharedRules>& rules, EdgeDecision& d);

    size_t shapes() const { return shapes_.size(); }

private:
    struct Word; // one word of a command and its abstracted part
    struct Edge; // one edge's words and abstracted parts

    bool abstract(std::string_view command, const Carry& carry);
    void add_word(std::string_view word, size_t sep, bool plain);
    std::unique_ptr<ShapeProgram> build() const;
    void run(const ShapeProgram& p, std::string& out) const;

    probe::ProbeCache& probes_;
    const Names& names_;
    bool device_pool_;
    std::unique_ptr<Edge> edge_; ///< scratch, reused between calls
    size_t edges_ = 0;           ///< render() calls
    std::unordered_map<std::string, std::unique_ptr<ShapeProgram>> shapes_;
};

} // namespace phc::regen
