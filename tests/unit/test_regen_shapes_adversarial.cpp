// Adversarial cases for plan reuse per edge shape (src/regen/shapes.h): edges
// that share a shape but where a program planned on sentinels could go wrong.
// Every case runs regen three ways (each edge planned on its own; shapes; shapes
// verified edge by edge) and requires the same bytes and decisions. Cases that
// found bugs say so above them.
// The probe answers as clang-15 does (fake_probe.h: recorded results, no
// compiler runs); all cases share one directory.
#include "compile/analysis.h"
#include "regen/regen.h"
#include "regen_run.h"
#include "scratch.h"
#include "split/plan.h"
#include "util/file.h"
#include "util/hash.h"

#include <doctest/doctest.h>
#include <filesystem>
#include <initializer_list>
#include <string>
#include <string_view>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>
#include <vector>

using namespace phc;

namespace {

constexpr std::string_view kClang = "/usr/bin/clang++-15";
constexpr std::string_view kRocm = "--rocm-path=/usr "
                                   "--hip-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode";
constexpr std::string_view kArchs = "--offload-arch=gfx906 --offload-arch=gfx90a";

/// The shared directory, removed when the test binary exits.
const std::string& work_dir() {
    static test::ScratchDir dir("phc-shapes-adv");
    return dir.path();
}

/// Runs the enclosing scope in the work directory (regen works in the current one).
class InWorkDir : public test::InDir {
public:
    InWorkDir() : test::InDir(work_dir()) {}
};

std::string replace_all(std::string s, std::string_view from, std::string_view to) {
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
    return s;
}

/// `text` with {CC} (clang-15), {ROCM} (its ROCm paths), {HIP} (-x hip, the ROCm
/// paths and two architectures) and {DIR} (the work directory) filled in.
std::string fill(std::string text) {
    text = replace_all(std::move(text), "{HIP}", "-x hip {ROCM} " + std::string(kArchs));
    text = replace_all(std::move(text), "{ROCM}", kRocm);
    text = replace_all(std::move(text), "{CC}", kClang);
    return replace_all(std::move(text), "{DIR}", work_dir());
}

using test::run_regen;
using Run = test::RegenRun;

/// The first line where `a` and `b` differ, from both (for failure messages).
std::string first_difference(const std::string& a, const std::string& b) {
    size_t at = 0;
    while (at < a.size() && at < b.size() && a[at] == b[at])
        ++at;
    auto line = [&](const std::string& s) {
        size_t from = s.rfind('\n', at == 0 ? 0 : at - 1);
        from = from == std::string::npos ? 0 : from + 1;
        size_t to = s.find('\n', at);
        return s.substr(from, to == std::string::npos ? std::string::npos : to - from);
    };
    return "each edge planned: " + line(a) + "\nreused:            " + line(b);
}

/// The rewritten copies ("<file>.phc") of `included`, one after the other.
std::string included_text(const std::vector<std::string>& included) {
    std::string out;
    for (const std::string& f : included) {
        auto t = util::read_file(f + ".phc");
        REQUIRE(t.ok());
        out += *t;
    }
    return out;
}

/// Regen of `manifest` (after fill()) planned edge by edge, with shapes, and with
/// shapes verified against each edge's own plan, with each of `device_jobs_list`
/// (device_jobs > 0 moves device edges to a pool): the three must write the
/// same bytes (also in the rewritten `included` files) and decide the same.
/// Returns the summary with shapes for the first, for checks on what was reused.
regen::Summary check_same(const std::string& name, const std::string& manifest,
                          const std::vector<std::string>& included = {},
                          std::initializer_list<int> device_jobs_list = {0}) {
    InWorkDir in_dir;
    const std::string file = name + ".ninja";
    REQUIRE(util::write_file_atomic(file, fill(manifest)).ok());
    regen::Summary first;
    bool have_first = false;
    for (int device_jobs : device_jobs_list) {
        CAPTURE(device_jobs);
        Run each = run_regen(file, name + ".each", false, false, device_jobs);
        each.text += included_text(included);
        Run shaped = run_regen(file, name + ".shaped", true, false, device_jobs);
        shaped.text += included_text(included);
        CHECK(each.summary.reused == 0);
        const bool same_bytes = shaped.text == each.text; // (doctest would print both)
        CHECK_MESSAGE(same_bytes, first_difference(each.text, shaped.text));
        CHECK(shaped.summary.objects_split == each.summary.objects_split);
        CHECK(shaped.summary.left == each.summary.left);
        REQUIRE(shaped.summary.decisions.size() == each.summary.decisions.size());
        for (size_t k = 0; k < each.summary.decisions.size(); ++k) {
            const auto& x = each.summary.decisions[k];
            const auto& y = shaped.summary.decisions[k];
            CAPTURE(x.object);
            CHECK(x.object == y.object);
            CHECK(x.split == y.split);
            CHECK(x.code == y.code);
            CHECK(x.text == y.text);
            CHECK(x.archs == y.archs);
        }
        if (manifest.find("PHCSNTL") == std::string::npos)
            CHECK(shaped.text.find("PHCSNTL") == std::string::npos);
        Run verified = run_regen(file, name + ".verified", true, true, device_jobs);
        verified.text += included_text(included);
        const bool verified_same = verified.text == each.text;
        CHECK(verified_same);
        CHECK(verified.summary.reused == shaped.summary.reused);
        if (!have_first) first = shaped.summary;
        have_first = true;
    }
    return first;
}

} // namespace

TEST_CASE("shapes: object and source paths that are prefixes or suffixes of each other") {
    // Objects named like their source plus a suffix, sources named like their
    // object plus a suffix, objects without an extension; explicit -cuid where
    // the output is not the object word as the hashed CUID needs.
    regen::Summary s = check_same("prefixes", R"(
rule HIP
  command = {CC} {HIP} $EXTRA -o $out -c $in
rule HIPC
  command = {CC} {HIP} -cuid=c1 $EXTRA -o $out -c $in
build src/a: HIPC src/a.hip
build src/b: HIPC src/b.hip
build obj/a.o: HIPC obj/a.o.hip
build obj/b.o: HIPC obj/b.o.hip
build src/c.hip.o: HIP src/c.hip
build src/d.hip.o: HIP src/d.hip
build o1/g: HIPC s1/g.hip
  EXTRA = -DA=o1/g.o -MF o1/g.d -MT o1/g.o -MD
build o1/h: HIPC s1/h.hip
  EXTRA = -DA=o1/h.o -MF o1/h.d -MT o1/h.o -MD
build o2/i.o: HIP o2/i.o.d/i.hip
build o2/j.o: HIP o2/j.o.d/j.hip
)",
                                  {}, {0, 2});
    CHECK(s.objects_split == 10);
    CHECK(s.reused >= 8);
}

TEST_CASE("shapes: the object path inside -D/-I values and other words") {
    regen::Summary s = check_same("inside", R"(
rule HIP
  command = {CC} {HIP} $EXTRA -o $out -c $in
build o1/e.o: HIP s1/e.hip
  EXTRA = -DOBJ=o1/e.o -DDIR=o1/e -DSRC=s1/e.hip.x -Io1/e.o.dir -DX=xo1/e.o -Wl,o1/e.o.map -DA=o1/e.o -DB=o1/e.o -Wp,-MD,o1/e.o.d -Io1/e.o
build o1/f.o: HIP s1/f.hip
  EXTRA = -DOBJ=o1/f.o -DDIR=o1/f -DSRC=s1/f.hip.x -Io1/f.o.dir -DX=xo1/f.o -Wl,o1/f.o.map -DA=o1/f.o -DB=o1/f.o -Wp,-MD,o1/f.o.d -Io1/f.o
build o1/g.o: HIP s1/g.hip
  EXTRA = -DOBJ=o1/g.o -DDIR=o1/g -DSRC=s1/g.hip.x -Io1/g.o.dir -DX=xo1/g.o -Wl,o1/g.o.map -DA=o1/g.o -DB=o1/g.o -Wp,-MD,o1/g.o.d -Io1/g.o
build o2/x.o: HIP s2/x.hip
  EXTRA = -DOBJ=o2/y.o
build o2/y.o: HIP s2/y.hip
  EXTRA = -DOBJ=o2/y.o
build o2/z.o: HIP s2/z.hip
  EXTRA = -DOBJ=o2/x.o
)");
    CHECK(s.objects_split == 6);
    CHECK(s.reused >= 6);
}

TEST_CASE("shapes: -D/-I values with '=', ',', arch-like text and other characters") {
    regen::Summary s = check_same("values", R"(
rule HIP
  command = {CC} {HIP} $EXTRA -o $out -c $in
build v/a.o: HIP v/a.hip
  EXTRA = -DY=a=b,c -DZ=1,2 -DARCH=gfx906 -DT=906 -DX=xnack+ -DG=GFX906 -DP=a+b%c@d -I../inc -DE= -DF=x. -D_=.
build v/b.o: HIP v/b.hip
  EXTRA = -DY=a=b,d -DZ=3,4 -DARCH=gfx906 -DT=90a -DX=xnack- -DG=GFX90A -DP=e+f%g@h -I../inc2 -DE= -DF=y. -D_=..
build v/c.o: HIP v/c.hip
  EXTRA = -DY=a=b,e -DZ=5,6 -DARCH=gfx90a -DT=907 -DX=sramecc+ -DG=Gfx906 -DP=, -I/abs -DE= -DF=z. -D_=/
build v/d.o: HIP v/d.hip
  EXTRA = -DY=a -DZ=, -DARCH=gfx90a -DT=9 -DX=a:b -DG=g -DP== -I. -DE= -DF=. -D_=-
build v/e.o: HIP v/e.hip
  EXTRA = -DA0=0 -DA1=1 -DA2=2 -DA3=3 -DA4=4 -DA5=5 -DA6=6 -DA7=7 -DA8=8 -DA9=9 -DA10=10 -DA11=11 -DA12=12
build v/f.o: HIP v/f.hip
  EXTRA = -DB0=0 -DB1=1 -DB2=2 -DB3=3 -DB4=4 -DB5=5 -DB6=6 -DB7=7 -DB8=8 -DB9=9 -DB10=10 -DB11=11 -DB12=12
build v/g.o: HIP v/g.hip
  EXTRA = -DQ='"1"' -DS='a$$b' -DT=a\ b
build v/h.o: HIP v/h.hip
  EXTRA = -DQ='"2"' -DS='a$$c' -DT=a\ c
)");
    CHECK(s.objects_split == 8);
    CHECK(s.reused >= 6);
}

TEST_CASE("shapes: -D and -I words after options that take a separate value") {
    regen::Summary s = check_same("separate", R"(
rule HIP
  command = {CC} {HIP} $EXTRA -c $in
rule HIPC
  command = {CC} {HIP} -cuid=c1 $EXTRA -c $in
build o/a.o: HIP s/a.hip
  EXTRA = -Xclang -DA=1 -include -Ifoo1.h -MD -MT -DT1 -MF o/a.o.d -mllvm -Dx1 -o o/a.o -I- -Xarch_gfx906 -DG=1 -Xarch_device -DD=1 -isystem -Isys1 -MQ -Iq1
build o/b.o: HIP s/b.hip
  EXTRA = -Xclang -DA=1 -include -Ifoo2.h -MD -MT -DT2 -MF o/b.o.d -mllvm -Dx1 -o o/b.o -I- -Xarch_gfx906 -DG=1 -Xarch_device -DD=1 -isystem -Isys2 -MQ -Iq2
build o/c.o: HIPC s/c.hip
  EXTRA = -o -DX1
build o/d.o: HIPC s/d.hip
  EXTRA = -o -DX2
build o/e.o: HIPC s/e.hip
  EXTRA = -o o/e.o -MF -DM1 -MD
build o/f.o: HIPC s/f.hip
  EXTRA = -o o/f.o -MF -DM2 -MD
build o/g.o: HIP s/g.hip
  EXTRA = -o o/g.o -x -Dhip
build o/h.o: HIP s/h.hip
  EXTRA = -o o/h.o -x -Dhip
build o/i.o: HIP s/i.hip
  EXTRA = -o o/i.o -D I1 -I I2
build o/j.o: HIP s/j.hip
  EXTRA = -o o/j.o -D J1 -I J2
)");
    CHECK(s.objects_split == 8);
    CHECK(s.left.at("not-hip") == 2);
    // o/c.o and o/d.o write "-DX1"/"-DX2", not their objects: those shapes are refused.
    CHECK(s.reused >= 4);
}

TEST_CASE("shapes: explicit -cuid= and -fuse-cuid=none") {
    regen::Summary s = check_same("cuid", R"(
rule HIP
  command = {CC} {HIP} $EXTRA -o $out -c $in
build c/a.o: HIP c/a.hip
  EXTRA = -cuid=fixed
build c/b.o: HIP c/b.hip
  EXTRA = -cuid=fixed
build c/c.o: HIP c/c.hip
  EXTRA = -cuid=$out
build c/d.o: HIP c/d.hip
  EXTRA = -cuid=$out
build c/e.o: HIP c/e.hip
  EXTRA = -fuse-cuid=none
build c/f.o: HIP c/f.hip
  EXTRA = -fuse-cuid=none
build c/g.o: HIP c/g.hip
  EXTRA = -fuse-cuid=hash -DK=c/g.o
build c/h.o: HIP c/h.hip
  EXTRA = -fuse-cuid=hash -DK=c/h.o
build c/i.o: HIP c/i.hip
  EXTRA = -cuid=x -cuid=c/i.o
build c/j.o: HIP c/j.hip
  EXTRA = -cuid=x -cuid=c/j.o
)");
    CHECK(s.objects_split == 10);
    CHECK(s.reused >= 10);
}

TEST_CASE("shapes: launchers and environment assignments") {
    regen::Summary s = check_same("launchers", R"(
rule HIP
  command = $PRE{CC} {HIP} -o $out -c $in
build l/a.o: HIP l/a.hip
  PRE = ccache$ 
build l/b.o: HIP l/b.hip
  PRE = ccache$ 
build l/c.o: HIP l/c.hip
  PRE = sccache$ 
build l/d.o: HIP l/d.hip
  PRE = sccache$ 
build l/i.o: HIP l/i.hip
  PRE = CCACHE_EXTRAFILES=l/i.o.extra FOO=bar BAR=l/i.hip env X=l/i.o ccache CCACHE_SLOPPINESS=l/i.o$ 
build l/j.o: HIP l/j.hip
  PRE = CCACHE_EXTRAFILES=l/j.o.extra FOO=bar BAR=l/j.hip env X=l/j.o ccache CCACHE_SLOPPINESS=l/j.o$ 
build l/k.o: HIP l/k.hip
  PRE = distcc$ 
build l/m.o: HIP l/m.hip
  PRE = distcc$ 
build l/n.o: HIP l/n.hip
  PRE = cd . && 
build l/p.o: HIP l/p.hip
  PRE = cd . && 
)",
                                  {}, {0, 2});
    CHECK(s.objects_split == 10);
    CHECK(s.reused >= 6);
}

TEST_CASE("shapes: hipcc") {
    regen::Summary s = check_same("hipcc", R"(
rule HIP
  command = /usr/bin/hipcc {ROCM} --offload-arch=gfx906 --offload-arch=gfx90a -DOBJ=$out -o $out -c $in
build h/a.o: HIP h/a.hip
build h/b.o: HIP h/b.hip
build h/c.o: HIP /abs/h/c.hip
)");
    CHECK(s.objects_split == 3);
    CHECK(s.reused >= 3);
}

TEST_CASE("shapes: target IDs and architecture lists") {
    regen::Summary s = check_same("targets", R"(
rule HIP
  command = {CC} -x hip {ROCM} $ARCHS -DOBJ=$out -o $out -c $in
build t/c.o: HIP t/c.hip
  ARCHS = --offload-arch=gfx90a:xnack- --offload-arch=gfx90a:xnack+
build t/d.o: HIP t/d.hip
  ARCHS = --offload-arch=gfx90a:xnack- --offload-arch=gfx90a:xnack+
build t/e.o: HIP t/e.hip
  ARCHS = --offload-arch=gfx906,gfx90a --offload-arch=gfx1030 --no-offload-arch=gfx1030
build t/f.o: HIP t/f.hip
  ARCHS = --offload-arch=gfx906,gfx90a --offload-arch=gfx1030 --no-offload-arch=gfx1030
)");
    CHECK(s.objects_split == 4);
    CHECK(s.reused >= 4);
}

TEST_CASE("shapes: implicit outputs, validations, pools, restat, depfile and deps variants") {
    regen::Summary s = check_same("carry", R"(
pool p
  depth = 2
pool phc_hip_device
  depth = 1
rule PHC_HIP_DEVICE
  command = true
rule PHC_HIP_HOST_2
  command = true
rule RSP
  command = {CC} {HIP} -o $out -c @$out.rsp
  rspfile = $out.rsp
  rspfile_content = $in
rule HIP
  command = {CC} {HIP} -MD -MF $DF -o $out -c $in
  depfile = $DF
  deps = $DEPS
rule HIPD
  command = {CC} {HIP} -MD -o $out -c $in
  depfile = $DF
rule HIPN
  command = {CC} {HIP} -o $out -c $in
build k/a.o | k/a.extra k/a.o.json: HIP k/a.hip | k/a.hip k/a.h || k/a.o.dir |@ k/a.check
  DF = k/a.o.d
  DEPS = gcc
  pool = p
  restat = 1
build k/b.o | k/b.extra k/b.o.json: HIP k/b.hip | k/b.hip k/b.h || k/b.o.dir |@ k/b.check
  DF = k/b.o.d
  DEPS = gcc
  pool = p
  restat = 1
build k/c.o: HIP k/c.hip
  DF = k/c.o.dep
  DEPS = msvc
build k/d.o: HIP k/d.hip
  DF = k/d.o.dep
  DEPS = msvc
build k/e.o: HIP k/e.hip
  DF = deps/k/e.o.d
build k/f.o: HIP k/f.hip
  DF = deps/k/f.o.d
build k/g.o: HIP k/g.hip
  DF = k/g.hip.d
build k/h.o: HIP k/h.hip
  DF = k/h.hip.d
build k/i.o: HIPD k/i.hip
  DF = k/i.d
build k/j.o: HIPD k/j.hip
  DF = k/j.d
build k/k.o: HIPD k/k.hip
  DF = $out
build k/l.o: HIPD k/l.hip
  DF = $out
build k/m.o: HIPN k/m.hip | gfx906.stamp || k/gfx90a/dir
build k/n.o: HIPN k/n.hip | gfx906.stamp || k/gfx90a/dir
build k/p.o: HIPN k/p.hip | a$:b$$c$ d
  pool = p
build k/q.o: HIPN k/q.hip | a$:b$$c$ e
  pool = console
build k/r.o: HIPD k/r.hip
  DF = x=k/r.o
build k/s.o: HIPD k/s.hip
  DF = x=k/s.o
build k/t.o: HIPD k/t.hip
  DF = $in
build k/u.o: HIPD k/u.hip
  DF = $in
build k/v.o: HIPN k/v.hip | a$:b$$c$ f
  pool = p
build k/w.o: RSP k/w.hip
build k/x.o: RSP k/x.hip
)",
                                  {}, {0, 2});
    CHECK(s.objects_split == 23); // the two rspfile edges are split, planned the full way
    CHECK(s.left.count("ninja-rspfile") == 0);
    CHECK(s.reused >= 21);
}

TEST_CASE("shapes: how the output, source and depfile are spelled") {
    regen::Summary s = check_same("spelling", R"(
rule NOO
  command = {CC} {HIP} -MD -c $in
rule NOOC
  command = {CC} {HIP} -cuid=c2 -MD -c $in
rule AFTER
  command = {CC} {HIP} -c $in -o $out
rule JOINED
  command = {CC} {HIP} -c $in -o$out
rule MQ
  command = {CC} {HIP} -MD -MQ $out -MT x -MF $out.d -c $in -o $out
rule WP
  command = {CC} {HIP} -Wp,-MD,$out.d -c $in -o $out
rule WPM
  command = {CC} {HIP} -Wp,-MMD,$out.d,-MP -c $in -o $out
rule MDONLY
  command = {CC} {HIP} -MD -o $out -c $in
rule TWICE
  command = {CC} {HIP} -o x.o -MF x.d -MD -MF $out.d -o $out -c $in
rule DASHES
  command = {CC} {HIP} -o $out -c -- $in
build a.o: NOO sp/a.hip
build b.o: NOO sp/b.hip
build c.o: NOOC sp/c.hip
build d.o: NOOC sp/d.hip
build sp/e.o: AFTER sp/e.hip
build sp/f.o: AFTER sp/f.hip
build sp/g.o: JOINED sp/g.hip
build sp/h.o: JOINED sp/h.hip
build sp/i.o: MQ sp/i.hip
build sp/j.o: MQ sp/j.hip
build sp/k.o: WP sp/k.hip
build sp/l.o: WP sp/l.hip
build sp/m.o: WPM sp/m.hip
build sp/n.o: WPM sp/n.hip
build sp/p: MDONLY sp/p.hip
build sp/q: MDONLY sp/q.hip
build sp.d/r: MDONLY sp/r.hip
build sp.d/s: MDONLY sp/s.hip
build sp/t.o: TWICE sp/t.hip
build sp/u.o: TWICE sp/u.hip
build sp/v.o: DASHES sp/v.hip
build sp/w.o: DASHES sp/w.hip
)");
    CHECK(s.objects_split == 22);
    CHECK(s.reused >= 14);
}

TEST_CASE("shapes: several outputs or inputs, and object names that are odd") {
    regen::Summary s = check_same("odd", R"(
rule HIP
  command = {CC} {HIP} -o $out -c $in
rule HIPV
  command = {CC} {HIP} -o $OBJ -c $SRC
build od/a.o od/a.extra: HIPV od/a.hip
  OBJ = od/a.o
  SRC = od/a.hip
build od/b.o od/b.extra: HIPV od/b.hip
  OBJ = od/b.o
  SRC = od/b.hip
build od/c.o: HIPV od/c.hip od/c.h
  OBJ = od/c.o
  SRC = od/c.hip
build od/d.o: HIPV od/d.hip od/d.h
  OBJ = od/d.o
  SRC = od/d.hip
build od/e.b.c.o: HIP od/e.hip
build od/f.b.c.o: HIP od/f.hip
build od/.g: HIP od/g.hip
build od/.h: HIP od/h.hip
build od/i+x%y: HIPV od/i.hip
  OBJ = od/i+x%y
  SRC = od/i.hip
build od/j+x%y: HIPV od/j.hip
  OBJ = od/j+x%y
  SRC = od/j.hip
build od/k=1,2.o: HIPV od/k.hip
  OBJ = od/k=1,2.o
  SRC = od/k.hip
build od/l=1,2.o: HIPV od/l.hip
  OBJ = od/l=1,2.o
  SRC = od/l.hip
build od/m$:n.o: HIP od/m.hip
build od/o$:p.o: HIP od/o.hip
build od/q$ r.o: HIP od/q.hip
build od/s$ t.o: HIP od/s.hip
build od/gfx906/u.o: HIP od/u.hip
build od/v.o: HIP od/gfx906/v.hip
build od/w.o: HIP od/w.hip
build od/x.o: HIP od/x.hip
build od/z.o: HIP hip
build od/z2.o: HIP od/z2.hip
)");
    CHECK(s.objects_split == 22);
    CHECK(s.reused >= 9);
}

TEST_CASE("shapes: edges that differ only in the source extension or an absolute path") {
    regen::Summary s = check_same("extensions", R"(
rule HIPX
  command = {CC} {HIP} -o $out -c $in
rule HIP
  command = {CC} {ROCM} --offload-arch=gfx906 --offload-arch=gfx90a -o $out -c $in
build e/a.o: HIPX e/a.cpp
build e/b.o: HIPX e/b.hip
build e/d.o: HIPX e/d.cpp
build e/e.o: HIPX e/e.hip
build e/f2.o: HIPX e/f2.hip
build e/g.o: HIP e/g.cpp
build e/h.o: HIP e/h.hip
build e/i.o: HIP e/i.cu
build e/j.o: HIP e/j.hip
build e/k.o: HIP e/k.cu
build e/l.o: HIP /abs/e/l.hip
build /abs/e/m.o: HIP e/m.hip
build /abs/e/n.o: HIP /abs/e/n.hip
build e/o.o: HIP /abs/e/o.hip
build /abs/e/p.o: HIP e/p.hip
build /abs/e/q.o: HIP /abs/e/q.hip
build e/t.o: HIP e/t.HIP
)");
    CHECK(s.objects_split == 13);
    CHECK(s.left.at("not-hip") == 4);
    CHECK(s.reused >= 13);
}

TEST_CASE("shapes: empty values, extra blanks and one-architecture edges") {
    regen::Summary s = check_same("empty", R"(
rule HIP
  command = {CC} {HIP} $A $B  -o $out   -c $in $C
build m/a.o: HIP m/a.hip
  A =
  B = -D X=
  C =
build m/b.o: HIP m/b.hip
  A =
  B = -D Y=
  C =
build m/c.o: HIP m/c.hip
  A = -DE=
  B =
  C = -O2$ 
build m/d.o: HIP m/d.hip
  A = -DE=
  B =
  C = -O2$ 
build m/e.o: HIP m/e.hip
  A = --offload-arch=gfx906 --no-offload-arch=gfx90a
build m/f.o: HIP m/f.hip
  A = --offload-arch=gfx906 --no-offload-arch=gfx90a
build m/g.o: HIP m/g.hip
  A = -fgpu-rdc
build m/h.o: HIP m/h.hip
  A = -fgpu-rdc
)");
    CHECK(s.objects_split == 6); // RDC objects are split too
    CHECK(s.left.at("single-arch") == 2);
    CHECK(s.left.count("rdc") == 0);
    CHECK(s.reused >= 4);
}

TEST_CASE("shapes: paths named like option values") {
    // "hip" as the language, "none" for -fuse-cuid, "-c", "-o": a sentinel in
    // their place changes what the driver reads (the probe refuses
    // "-fuse-cuid=<sentinel>"). Objects named "/usr" or "c": see the bundle rule bug.
    regen::Summary s = check_same("optnames", R"(
rule HIP
  command = {CC} {HIP} $EXTRA -o $out -c $in
build none: HIP on/a.hip
  EXTRA = -fuse-cuid=none
build on/b.o: HIP on/b.hip
  EXTRA = -fuse-cuid=none
build on/e.o: HIP hip
  EXTRA = -I.
build on/f.o: HIP on/f.hip
  EXTRA = -I.
build -c: HIP on/g.hip
build on/h.o: HIP -o
build on/k.o: HIP /usr
)");
    CHECK(s.objects_split == 6);
    CHECK(s.left.at("no-source") == 1);
    CHECK(s.reused >= 2);
}

TEST_CASE("shapes: more shapes than the cache keeps, and their later edges") {
    // 70 shapes (an -U word is kept verbatim in the shape and is not in the probe
    // key), each with a first edge, then a second edge of each.
    std::string m = "rule HIP\n  command = {CC} {HIP} $U -DOBJ=$out -o $out -c $in\n";
    for (int round = 0; round < 2; ++round)
        for (int k = 0; k < 70; ++k)
            m += "build many/" + std::to_string(round) + "_" + std::to_string(k) + ".o: HIP many/" +
                 std::to_string(round) + "_" + std::to_string(k) + ".hip\n  U = -UU" +
                 std::to_string(k) + "\n";
    regen::Summary s = check_same("many", m);
    CHECK(s.objects_split == 140);
    // The cache stops making shapes once it has 64 and most edges brought a new
    // one: some first-round edges take the full way, every kept shape is reused.
    CHECK(s.reused >= 64 * 2);
    CHECK(s.reused < 140);
}

TEST_CASE("shapes: text that looks like a sentinel") {
    // Paths and words holding the sentinels' spelling: such edges take the full way.
    regen::Summary s = check_same("lookalikes", R"(
rule HIP
  command = {CC} {HIP} $EXTRA -o $out -c $in
build lk/a.o: HIP lk/a.hip
build lk/PHCSNTLoZ.o: HIP lk/b.hip
build lk/c.o: HIP lk/PHCSNTLsZ.hip
build lk/d.o: HIP lk/d.hip
  EXTRA = -DPHCSNTLv0Z
build lk/e.o: HIP lk/e.hip | PHCSNTLb0Z || PHCSNTLc0Z
build lk/f.o: HIP lk/f.hip
  depfile = PHCSNTLoZ.o.d
build lk/g.o: HIP lk/g.hip
  EXTRA = -UPHCSNTL
build lk/h.o: HIP lk/h.hip
)");
    CHECK(s.objects_split == 8);
    CHECK(s.reused >= 2);
}

TEST_CASE("shapes: edges of one shape in included and subninja files") {
    {
        InWorkDir in_dir;
        REQUIRE(util::write_file_atomic("inc_part.ninja", fill(R"(
build in/b.o: HIP in/b.hip
  EXTRA = -DWHERE=include
build in/c.o: HIP in/c.hip
  EXTRA = -DWHERE=in/c.o
)"))
                    .ok());
        REQUIRE(util::write_file_atomic("sub_part.ninja", fill(R"(
EXTRA = -DSUB=1
build in/d.o: HIP in/d.hip
build in/e.o: HIP in/e.hip
  EXTRA = -DWHERE=subninja
)"))
                    .ok());
    }
    regen::Summary s = check_same("included", R"(
rule HIP
  command = {CC} {HIP} $EXTRA -o $out -c $in
build in/a.o: HIP in/a.hip
  EXTRA = -DWHERE=top
include inc_part.ninja
subninja sub_part.ninja
build in/f.o: HIP in/f.hip
  EXTRA = -DWHERE=top
)",
                                  {"inc_part.ninja", "sub_part.ninja"}, {0, 2});
    CHECK(s.objects_split == 6);
    CHECK(s.reused >= 6);
}

// Was a bug (fixed in c14ec2b): without -o the object is the source's base name
// with ".o" (default_output in analysis.cpp); a source sentinel without a folder
// is its own base name, so the program copied the whole source path: "src/x"
// gave "src/x.o.phc/..." instead of "x.o.phc/...", past the leftover check (the
// copy was a whole sentinel) and the CUID check (-cuid= / -fuse-cuid=none skip it).
TEST_CASE("shapes: no -o and a source without an extension in a directory") {
    regen::Summary s = check_same("default_output", R"(
rule HIPC
  command = {CC} {HIP} -cuid=fixed -MD -c $in
rule HIPN
  command = {CC} {HIP} -fuse-cuid=none -c $in
build x.o: HIPC src/x
build y.o: HIPC src/y
build z.o: HIPN src/z
)");
    CHECK(s.objects_split == 3);
}

// Was a bug (fixed in c14ec2b): a word starting with '@' is a response file to
// the analysis (expand_rsp); the sentinel that replaced an object or source path
// had no '@', so the program split an edge whose own plan leaves it alone
// ("response-file"). ninja quotes such paths in $out/$in, so the path reaches
// the command another way here.
TEST_CASE("shapes: an object or source path starting with '@'") {
    regen::Summary s = check_same("at_sign", R"(
rule HIP
  command = {CC} {HIP} -o $OBJ -c $SRC
build r/a.o: HIP r/a.hip
  OBJ = r/a.o
  SRC = r/a.hip
build @r/b.o: HIP r/b.hip
  OBJ = @r/b.o
  SRC = r/b.hip
build r/c.o: HIP @r/c.hip
  OBJ = r/c.o
  SRC = @r/c.hip
)");
    CHECK(s.left.at("response-file") == 2);
}

// Was a bug (fixed in c14ec2b): the shape key writes a slotted depfile as
// <prefix> '\1' '1' <suffix> and a verbatim one as is, so a depfile holding the
// byte 0x01 followed by '1' had the key of one holding the object: "x=\x01" "1"
// reused the program of "x=<object>" and got "x=r2/b.o".
TEST_CASE("shapes: a depfile that spells a slot in the shape key") {
    regen::Summary s = check_same("key_collision", "rule HIP\n"
                                                   "  command = {CC} {HIP} -o $out -c $in\n"
                                                   "  depfile = $DF\n"
                                                   "build r2/a.o: HIP r2/a.hip\n"
                                                   "  DF = x=r2/a.o\n"
                                                   "build r2/b.o: HIP r2/b.hip\n"
                                                   "  DF = x=\x01"
                                                   "1\n");
    CHECK(s.objects_split == 2);
}

// Was a bug (fixed in c14ec2b): the program finds the object-hash and CUID
// tokens anywhere in the text, so a literal word holding the hash of the
// object's sentinel (or the sentinel plan's CUID) became this edge's hash. Needs
// a 64-bit collision, so it can only be built on purpose, as here: the paths
// have no folder, so their sentinels are PHCSNTLoZ.o and PHCSNTLsZ.hip.
TEST_CASE("shapes: a literal word holding a hash the program substitutes") {
    const std::string object_hash = util::Hasher().add("PHCSNTLoZ.o").hex64();
    // The CUID that HIPE's shape (an object *.o, a source *.hip) is planned with.
    const std::string sentinel_argv = fill("{CC} {HIP} -o PHCSNTLoZ.o -c PHCSNTLsZ.hip");
    const std::string cuid =
        split::make_cuid(compile::analyze_string(sentinel_argv, compile::AnalyzeInput{}));
    regen::Summary s = check_same("hash_collision", R"(
rule HIPU
  command = {CC} {HIP} -UX)" + object_hash + R"( -o $out -c $in
rule HIPE
  command = TAG=)" + cuid + R"( {CC} {HIP} -o $out -c $in
build hc_a.o: HIPU hc_a.hip
build hc_b.o: HIPE hc_b.hip
)");
    CHECK(s.objects_split == 2);
}

// Was a bug (fixed in c14ec2b): a path in a driver option (in the probe key) was
// probed as its sentinel, but the driver reads the file system there:
// `-B <object>.tools` or COMPILER_PATH=<object>.tools naming a folder with a
// clang-offload-bundler makes the edge's own plan use that bundler; the program
// kept the one the driver found for the sentinel's (absent) folder.
TEST_CASE("shapes: a driver option naming a folder by the object path") {
    for (const char* tools : {"bt/a.o.tools", "bt/b.o.tools"}) {
        InWorkDir in_dir;
        REQUIRE(std::filesystem::create_directories(tools));
        const std::string bundler = std::string(tools) + "/clang-offload-bundler";
        REQUIRE(util::write_file_atomic(bundler, "#!/bin/sh\nexit 1\n").ok());
        REQUIRE(::chmod(bundler.c_str(), 0755) == 0);
    }
    regen::Summary s = check_same("driver_paths", R"(
rule HIPB
  command = {CC} {HIP} -B $out.tools -o $out -c $in
rule HIPE
  command = COMPILER_PATH=$out.tools {CC} {HIP} -o $out -c $in
build {DIR}/bt/a.o: HIPB bt/a.hip
build {DIR}/bt/b.o: HIPE bt/b.hip
)");
    CHECK(s.objects_split == 2);
}

// Was a bug (fixed in c14ec2b): the shared bundle rule (object_template() in
// edges.cpp) spelled the object ${PHC_OBJECT} wherever its text occurs in the
// bundle command, also inside other words: "a.o" in "gfx90a.o", "/usr" in the
// bundler's path, "c" in "clang". A sentinel never occurs there, so the program
// kept the rule (and its hashed name) of the sentinel.
TEST_CASE("shapes: an object path that occurs inside the bundle command") {
    regen::Summary s = check_same("bundle_rule", R"(
rule HIP
  command = {CC} {HIP} -o $out -c $in
build a.o: HIP br/a.hip
build /usr: HIP br/b.hip
build c: HIP br/c.hip
build x: HIP br/d.hip
)");
    CHECK(s.objects_split == 4);
}

// Was a bug (fixed in c14ec2b): the start the device and host commands share
// became a file variable when it was at least 64 bytes (kMinSharedPrefix in
// edges.cpp), a length that counts the -D/-I values and paths in it; a sentinel
// is rarely as long as the value it stands for, so with a short compiler path
// and few flags before --offload-arch the program shared when the edge would
// not, or the other way round.
TEST_CASE("shapes: a shared command start near 64 bytes") {
    regen::Summary s = check_same("shared_start", R"(
rule HIP
  command = {CC} $DEFS --offload-arch=gfx906 --offload-arch=gfx90a -x hip {ROCM} -o $out -c $in
build ss/a.o: HIP ss/a.hip
  DEFS = -DV=short
build ss/b.o: HIP ss/b.hip
  DEFS = -DV=a_value_long_enough_to_make_the_start_longer_than_64
build ss/c.o: HIP ss/c.hip
  DEFS = -DA -DB -DC -DD
)");
    CHECK(s.objects_split == 3);
}

// Was a bug: the bundle rule was shared when the bundle command held
// "=<object>.phc/" anywhere, found by the object's value. Without -o the output
// is derived from the source ("build x.o: ... x" gives "x.o", the object), so
// the edge's own plan shared the rule while the sentinel plan, deriving
// "<source sentinel>.o", did not. Now a shape whose output is not the object's
// slot is refused, and only the -input=/-output= folder is templated.
TEST_CASE("shapes: no -o, and the output derived from the source is the object") {
    regen::Summary s = check_same("derived_object", R"(
rule HIPC
  command = {CC} {HIP} -cuid=fixed -c $in
build x.o: HIPC x
build y.o: HIPC y
)");
    CHECK(s.objects_split == 2);
}

// Was a bug: the same search found the object where the command spells it as
// literal text, which the shape keeps verbatim: a joined "-o<object>" or an
// assignment "FOO=<object>.phc/=" in front of the compiler.
TEST_CASE("shapes: the object spelled as literal text in the command") {
    regen::Summary s = check_same("literal_object", R"(
rule JOINED
  command = {CC} {HIP} -cuid=fixed -o$out -c $in
rule ENV
  command = $PRE{CC} {HIP} -o $out -c $in
build lo/a.o: JOINED lo/a.hip
build lo/b.o: JOINED lo/b.hip
build lo/c.o: ENV lo/c.hip
  PRE = FOO=lo/c.o.phc/=$ 
)");
    CHECK(s.objects_split == 3);
}
