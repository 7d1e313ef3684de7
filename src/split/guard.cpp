#include "split/guard.h"

#include "compile/command.h"
#include "compile/shell.h"
#include "probe/objcopy.h"
#include "util/file.h"
#include "util/hash.h"
#include "util/subprocess.h"
#include "util/temp_dir.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace phc::split {

using compile::base_name;

namespace {

/// Options of a device compile job that only name its depfile and what goes
/// into it (side outputs: no object byte depends on them), with how many
/// words each takes.
std::optional<size_t> depfile_option(std::string_view w) {
    if (w == "-dependency-file" || w == "-MT" || w == "-MQ") return 2;
    if (w == "-sys-header-deps" || w == "-MP" || w == "-module-file-deps") return 1;
    return std::nullopt;
}

bool is_device_cc1(const Job& job) {
    return job.size() > 1 && job[1] == "-cc1" &&
           probe::job_word_after(job, "-triple").starts_with("amdgcn");
}

/// The job with what the split changes on purpose taken out: a device
/// compile's depfile options, the wrapper compile's -dumpdir value.
Job without_purposeful(const Job& job) {
    Job out;
    const bool device = is_device_cc1(job);
    for (size_t i = 0; i < job.size(); ++i) {
        if (device)
            if (auto n = depfile_option(job[i])) {
                i += *n - 1;
                continue;
            }
        out.push_back(job[i]);
        if (job[i] == "-dumpdir" && i + 1 < job.size()) {
            out.push_back("@DUMPDIR");
            ++i;
        }
    }
    return out;
}

/// The parts of a word that can name a file: split at '=' and ','
/// ("--image=file=X,arch=Y", "-input=X", "-fembed-offload-object=X").
std::vector<std::string_view> pieces(std::string_view w) {
    std::vector<std::string_view> out;
    size_t from = 0;
    for (size_t i = 0; i <= w.size(); ++i)
        if (i == w.size() || w[i] == '=' || w[i] == ',') {
            out.push_back(w.substr(from, i - from));
            from = i + 1;
        }
    return out;
}

/// Is `piece` a file the set's jobs share (a temporary or intermediate file)?
bool is_shared_file(const JobSet& set, std::string_view piece) {
    if (piece.empty()) return false;
    for (const std::string& d : set.temp_dirs)
        if (!d.empty() && piece.size() > d.size() && piece.starts_with(d) && piece[d.size()] == '/')
            return true;
    return std::find(set.files.begin(), set.files.end(), piece) != set.files.end();
}

/// Calls `f(piece)` for each shared-file piece of `w` and returns `w` with each
/// replaced by what `f` returns.
template <typename F> std::string map_files(const JobSet& set, std::string_view w, F f) {
    std::string out;
    bool first = true;
    size_t at = 0;
    for (std::string_view p : pieces(w)) {
        if (!first) out += w[at - 1];
        first = false;
        out += is_shared_file(set, p) ? f(p) : std::string(p);
        at += p.size() + 1;
    }
    return out;
}

std::vector<std::string> words_of(const std::string& canonical_job);
std::map<std::string, std::vector<std::string>> occurrences(const std::vector<std::string>& w);

/// canonical_jobs, with shared files as "@F" when `deep` is false (a job's
/// own words, for messages) or named by their writer when true.
std::vector<std::string> canonical(const JobSet& set, bool deep) {
    std::vector<Job> jobs;
    for (const Job& j : set.jobs)
        jobs.push_back(without_purposeful(j));
    std::map<std::string, size_t, std::less<>> writer; // file -> the first job naming it
    for (size_t k = 0; k < jobs.size(); ++k)
        for (const std::string& w : jobs[k])
            map_files(set, w, [&](std::string_view p) {
                writer.emplace(std::string(p), k);
                return std::string();
            });
    std::vector<std::string> out(jobs.size());
    for (size_t k = 0; k < jobs.size(); ++k) {
        std::string line;
        for (const std::string& w : jobs[k]) {
            line += map_files(set, w, [&](std::string_view p) -> std::string {
                if (!deep) return "@F";
                const size_t by = writer.find(p)->second;
                if (by == k) return "@OUT";
                // The writer as same_job() sees it (its options' occurrences,
                // not their order): a job hipcc orders otherwise names the
                // same files. Written before: jobs run in order.
                util::Hasher h;
                for (const auto& [key, units] : occurrences(words_of(out[by]))) {
                    h.add(key);
                    for (const std::string& u : units)
                        h.add(u);
                }
                return "@IN<" + h.hex128().substr(0, 12) + ">";
            });
            line += '\x1f';
        }
        out[k] = std::move(line);
    }
    return out;
}

std::vector<std::string> words_of(const std::string& canonical_job) {
    std::vector<std::string> out;
    size_t from = 0;
    for (size_t i = 0; i < canonical_job.size(); ++i)
        if (canonical_job[i] == '\x1f') {
            out.push_back(canonical_job.substr(from, i - from));
            from = i + 1;
        }
    return out;
}

/// The occurrences of each option of a job, in order: an option word with its
/// value (the next word when that does not start with '-', or always after
/// -mllvm and -target-feature), keyed by the option's name up to '=' with a
/// negation ("-fno-", "-mno-") taken off, so a flag and its negation share a
/// key. The program and the words no option takes are one more key.
std::map<std::string, std::vector<std::string>> occurrences(const std::vector<std::string>& w) {
    std::map<std::string, std::vector<std::string>> out;
    for (size_t i = 0; i < w.size(); ++i) {
        if (i == 0 || !w[i].starts_with('-')) {
            out[""].push_back(w[i]);
            continue;
        }
        std::string key = w[i].substr(0, w[i].find('='));
        for (std::string_view neg : {"-fno-", "-mno-"})
            if (key.starts_with(neg)) key = key.substr(0, 2) + key.substr(neg.size());
        std::string unit = w[i];
        if (i + 1 < w.size() &&
            (!w[i + 1].starts_with('-') || w[i] == "-mllvm" || w[i] == "-target-feature"))
            unit += '\x1f' + w[++i];
        out[key].push_back(std::move(unit));
    }
    return out;
}

/// Two jobs are the same when their words are, or differ only in the order of
/// different options: clang reads each option's occurrences in order (the
/// last wins, or they add up in order), never one option's against another's
/// (hipcc appends its own options after the split's).
bool same_job(const std::string& a, const std::string& b) {
    return a == b || (a.size() == b.size() && occurrences(words_of(a)) == occurrences(words_of(b)));
}

/// How a job is named in a reason: its program, and for a compile or a device
/// link the architecture (or "host").
std::string job_name(const Job& job) {
    std::string name(base_name(job.empty() ? std::string() : job[0]));
    if (job.size() > 1 && job[1] == "-cc1") {
        std::string cpu = probe::job_word_after(job, "-target-cpu");
        return name + " -cc1 (" + (is_device_cc1(job) && !cpu.empty() ? cpu : "host") + ")";
    }
    for (std::string_view prefix : {"-mcpu=", "-plugin-opt=mcpu="})
        if (std::string v = probe::job_value(job, prefix); !v.empty()) return name + " (" + v + ")";
    return name;
}

/// Words of `a` not in `b`, as a multiset difference, in `a`'s order.
std::vector<std::string> missing(const std::vector<std::string>& a,
                                 const std::vector<std::string>& b) {
    std::multiset<std::string> have(b.begin(), b.end());
    std::vector<std::string> out;
    for (const std::string& w : a)
        if (auto it = have.find(w); it != have.end())
            have.erase(it);
        else
            out.push_back(w);
    return out;
}

std::string listed(const std::vector<std::string>& words) {
    std::string out;
    for (const std::string& w : words) {
        if (out.size() > 160) return out + " ...";
        out += (out.empty() ? "" : " ") + w;
    }
    return out;
}

/// The words of `original` that `split` lacks ("... not carried") and those it
/// adds ("... added"), or "" when they are the same multiset.
std::string words_differ(const std::vector<std::string>& original,
                         const std::vector<std::string>& split) {
    const auto gone = missing(original, split), added = missing(split, original);
    std::string why;
    if (!gone.empty()) why = listed(gone) + " not carried";
    if (!added.empty()) why += (why.empty() ? "" : "; ") + listed(added) + " added";
    return why;
}

/// Why the original's job `o` has no equal among the split's unmatched jobs.
std::string why_unmatched(const Job& o, const std::vector<std::string>& o_shallow,
                          const std::vector<const Job*>& candidates,
                          const std::vector<std::vector<std::string>>& c_shallow) {
    const std::string name = job_name(o);
    size_t best = candidates.size(), best_cost = SIZE_MAX;
    for (size_t k = 0; k < candidates.size(); ++k) {
        if (job_name(*candidates[k]) != name) continue;
        size_t cost =
            missing(o_shallow, c_shallow[k]).size() + missing(c_shallow[k], o_shallow).size();
        if (cost < best_cost) best = k, best_cost = cost;
    }
    if (best == candidates.size()) return name + ": a job the split does not run";
    std::string why = words_differ(o_shallow, c_shallow[best]);
    if (why.empty())
        why = o_shallow != c_shallow[best] ? "the same arguments in another order"
                                           : "reads another job's output";
    return name + ": " + why;
}

} // namespace

std::vector<std::string> canonical_jobs(const JobSet& set) {
    return canonical(set, true);
}

std::string compare_jobs(const JobSet& original, const JobSet& split) {
    const auto o = canonical(original, true), s = canonical(split, true);
    const auto os = canonical(original, false), ss = canonical(split, false);
    std::vector<bool> used(s.size(), false);
    std::vector<size_t> unmatched;
    for (size_t i = 0; i < o.size(); ++i) {
        size_t k = 0;
        while (k < s.size() && (used[k] || s[k] != o[i]))
            ++k;
        if (k == s.size()) { // none with the same words: one in another order?
            k = 0;
            while (k < s.size() && (used[k] || !same_job(s[k], o[i])))
                ++k;
        }
        if (k < s.size())
            used[k] = true;
        else
            unmatched.push_back(i);
    }
    std::vector<const Job*> rest;
    std::vector<std::vector<std::string>> rest_words;
    for (size_t k = 0; k < s.size(); ++k)
        if (!used[k]) {
            rest.push_back(&split.jobs[k]);
            rest_words.push_back(words_of(ss[k]));
        }
    if (!unmatched.empty())
        return why_unmatched(original.jobs[unmatched[0]], words_of(os[unmatched[0]]), rest,
                             rest_words);
    if (!rest.empty()) return job_name(*rest[0]) + ": a job the driver does not run";
    return {};
}

namespace {

/// The driver's jobs for one step or command, by its words (a step planned in
/// both shapes runs the driver once).
class Jobs {
public:
    /// `argv -###` run with `env` in `cwd`, added to `set` (its temporary
    /// folder too); an Error when the driver refuses it.
    Status add(JobSet& set, const std::vector<std::string>& env,
               const std::vector<std::string>& argv, const std::string& cwd) {
        const std::string key = compile::join_command(env) + "\n" + compile::join_command(argv);
        auto it = ran_.find(key);
        if (it == ran_.end()) {
            auto jobs = probe::run_driver_jobs(probe::ProbeRequest{env, argv, cwd});
            if (!jobs) return jobs.error();
            it = ran_.emplace(key, std::move(*jobs)).first;
        }
        set.jobs.insert(set.jobs.end(), it->second.jobs.begin(), it->second.jobs.end());
        set.temp_dirs.push_back(it->second.temp_dir);
        return Ok{};
    }

private:
    std::map<std::string, probe::DriverJobs> ran_;
};

/// What a code generation job reads in place of the device bitcode: the
/// wrapper extracts it from the packed file, the split's step reads the device
/// step's output (the device jobs that write it are compared on their own).
constexpr const char* kExtracted = "@EXTRACTED";

bool is_wrapper_fatbin(const Job& job) {
    return !job.empty() && base_name(job[0]).starts_with("clang-linker-wrapper") &&
           std::find(job.begin(), job.end(), "--emit-fatbin-only") != job.end();
}

bool is_packer(const Job& job) {
    return !job.empty() && (base_name(job[0]).starts_with("llvm-offload-binary") ||
                            base_name(job[0]).starts_with("clang-offload-packager"));
}

/// The new driver without RDC packs the device bitcode and has
/// clang-linker-wrapper generate the code: the packer job and the wrapper job
/// of `set` replaced by what the wrapper itself says it runs (its --dry-run,
/// on stand-ins packed with the driver's own image specs; the wrapper job's
/// words otherwise as the driver wrote them). The images the wrapper extracts
/// become external files (the split's code generation reads the device
/// steps' bitcode instead), and the file the wrapper writes becomes the one
/// its bundler writes. An Error when the wrapper cannot say.
Status expand_wrapper(JobSet& set, const std::string& scratch) {
    auto w = std::find_if(set.jobs.begin(), set.jobs.end(), is_wrapper_fatbin);
    if (w == set.jobs.end()) return Ok{};
    const Job& wrapper = *w;
    const std::string packed_by_driver = [&] {
        for (const Job& j : set.jobs)
            if (is_packer(j) && std::find(wrapper.begin(), wrapper.end(),
                                          probe::job_word_after(j, "-o")) != wrapper.end())
                return probe::job_word_after(j, "-o");
        return std::string();
    }();
    if (packed_by_driver.empty())
        return make_error("the wrapper reads no packed file of the driver's");
    const Job packer = *std::find_if(set.jobs.begin(), set.jobs.end(), [&](const Job& j) {
        return is_packer(j) && probe::job_word_after(j, "-o") == packed_by_driver;
    });
    const std::string packed = scratch + "/phc-guard.pkg";
    Job pack{packer[0], "-o", packed};
    for (size_t i = 1; i < packer.size(); ++i) {
        const std::string& word = packer[i];
        const size_t file = word.find("file="), comma = word.find(',', file);
        if (!word.starts_with("--image=") || file == std::string::npos) continue;
        const std::string image = scratch + "/image" + std::to_string(pack.size());
        if (auto st = util::write_file_atomic(image, "phc guard stand-in\n"); !st) return st;
        pack.push_back(word.substr(0, file + 5) + image +
                       (comma == std::string::npos ? "" : word.substr(comma)));
    }
    auto ran = util::run_capture(pack);
    if (!ran || ran->exit_code != 0) return make_error("packing stand-in images failed");
    Job dry;
    std::string written;
    for (size_t i = 0; i < wrapper.size(); ++i) {
        if (i > 0 && wrapper[i - 1] == "-o") {
            written = wrapper[i];
            dry.push_back(scratch + "/phc-guard.hipfb");
        } else {
            dry.push_back(wrapper[i] == packed_by_driver ? packed : wrapper[i]);
        }
    }
    dry.insert(dry.end(), {"--dry-run", "--wrapper-verbose"});
    auto said = util::run_capture_tmp(dry, scratch);
    if (!said || said->exit_code != 0)
        return make_error("the wrapper's dry run failed" +
                          (said ? ": " + said->err.substr(0, said->err.find('\n')) : ""));
    std::vector<Job> expanded = probe::wrapper_jobs(said->err + said->out);
    // What its jobs write; what they read and none writes was extracted.
    std::set<std::string> outputs;
    std::string bundle;
    for (const Job& j : expanded)
        for (size_t i = 1; i < j.size(); ++i) {
            if (j[i - 1] == "-o") outputs.insert(j[i]);
            if (j[i].starts_with("-output=")) outputs.insert(bundle = j[i].substr(8));
        }
    set.temp_dirs.push_back(scratch);
    for (Job& j : expanded)
        for (std::string& word : j)
            if (word.starts_with(scratch + "/") && !outputs.contains(word) &&
                word != scratch + "/phc-guard.hipfb")
                word = kExtracted;
    std::vector<Job> jobs;
    for (const Job& j : set.jobs) {
        if (&j == &*w) {
            jobs.insert(jobs.end(), expanded.begin(), expanded.end());
        } else if (!(is_packer(j) && probe::job_word_after(j, "-o") == packed_by_driver)) {
            Job mapped = j;
            for (std::string& word : mapped)
                if (!bundle.empty() && word == written) word = bundle;
            jobs.push_back(std::move(mapped));
        }
    }
    set.jobs = std::move(jobs);
    return Ok{};
}

/// cc1 options of the preprocessor alone, each with its value: the driver
/// gives them to the preprocess job and not to the compile of a preprocessed
/// file (whose text they already shaped).
bool preprocessor_option(std::string_view w) {
    static const std::set<std::string_view> kWithValue = {"-D",
                                                          "-U",
                                                          "-I",
                                                          "-include",
                                                          "-imacros",
                                                          "-isystem",
                                                          "-iquote",
                                                          "-idirafter",
                                                          "-isysroot",
                                                          "-internal-isystem",
                                                          "-iprefix",
                                                          "-iwithprefix",
                                                          "-iwithprefixbefore",
                                                          "-internal-externc-isystem",
                                                          "-include-pch",
                                                          "-cxx-isystem"};
    return kWithValue.contains(w);
}

/// The compile job's own mode words (what it writes), which the preprocess
/// job has as -E and -dD instead.
bool mode_word(std::string_view w) {
    return w == "-emit-obj" || w == "-emit-llvm-bc" || w == "-emit-llvm-uselists" ||
           w == "-emit-llvm" || w == "-S" || w == "-E" || w == "-dD";
}

/// The device cc1 job among `jobs` (the only one of a one-architecture
/// device-only command), or nullptr.
const Job* device_cc1(const std::vector<Job>& jobs) {
    const Job* found = nullptr;
    for (const Job& j : jobs)
        if (is_device_cc1(j)) {
            if (found) return nullptr;
            found = &j;
        }
    return found;
}

/// The words after a step's "--" (`phc-ninja device-ii ... -- WORDS`), the
/// engine's words (icecc, distcc) taken off the front.
std::vector<std::string> compiler_words(const std::vector<std::string>& argv) {
    auto dash = std::find(argv.begin(), argv.end(), "--");
    std::vector<std::string> words(dash == argv.end() ? argv.begin() : dash + 1, argv.end());
    while (!words.empty() && (base_name(words[0]) == "icecc" || base_name(words[0]) == "distcc"))
        words.erase(words.begin());
    return words;
}

/// Why the preprocess job `pre` is not the driver's own preprocessing `ref`
/// (the plain device step's command with -E), or "": they may differ only in
/// the mode words, the output and the depfile options.
std::string preprocess_differs(const Job& pre, const Job& ref) {
    auto rest = [](const Job& j) {
        Job r;
        for (size_t i = 0; i < j.size(); ++i) {
            if (mode_word(j[i])) continue;
            if (auto n = depfile_option(j[i])) {
                i += *n - 1;
                continue;
            }
            if (j[i] == "-o" && i + 1 < j.size()) {
                ++i;
                continue;
            }
            r.push_back(j[i]);
        }
        return r;
    };
    const Job a = rest(ref), b = rest(pre);
    if (occurrences(a) == occurrences(b)) return {};
    const std::string why = words_differ(a, b);
    return job_name(pre) + " preprocessing for a farm: " +
           (why.empty() ? "the same arguments in another order" : why);
}

/// The distributed shape's pair for one architecture as the one device job
/// it stands for: the compile of the preprocessed file `compile` with its
/// input and -main-file-name taken from the preprocess job `pre` (which reads
/// the source) and the preprocessor options of `pre`, which shaped the text
/// it compiles. compare_jobs() then holds it against the original's job.
Result<Job> composed_device_job(const Job& pre, const Job& compile) {
    Job out;
    const std::string& pre_input = pre.back();
    const std::string pre_main = probe::job_word_after(pre, "-main-file-name");
    for (size_t i = 0; i < compile.size(); ++i) {
        if (i > 0 && compile[i - 1] == "-main-file-name") {
            out.push_back(pre_main);
        } else if (compile[i] == "-x" && i + 3 == compile.size() &&
                   compile[i + 1] == "hip-cpp-output") {
            out.insert(out.end(), {"-x", "hip", pre_input});
            break;
        } else {
            out.push_back(compile[i]);
        }
    }
    if (out.size() < 3 || out.back() != pre_input)
        return make_error("the compile of the preprocessed file reads no -x hip-cpp-output input");
    Job options;
    for (size_t i = 1; i + 1 < pre.size(); ++i)
        if (preprocessor_option(pre[i])) {
            options.insert(options.end(), {pre[i], pre[i + 1]});
            ++i;
        }
    out.insert(out.end() - 3, options.begin(), options.end());
    return out;
}

/// The split's jobs for `plan`: the driver's for each step that runs it, the
/// others as they are; --overlap-host's host object and placeholder mapped to
/// the compile's output and the bundle. An Error names the step the driver
/// refused.
/// The driver's own preprocessing of each architecture's device step (the
/// plain shape's command with -E), which the distributed shape's preprocess
/// step must run.
using PreprocessRefs = std::map<std::string, std::vector<std::string>>;

Result<JobSet> split_jobs(const Plan& plan, Jobs& jobs, const std::string& scratch = {},
                          const PreprocessRefs* refs = nullptr) {
    const compile::Analysis& a = plan.analysis;
    JobSet set;
    std::map<std::string, std::string> overlap; // host object -> output, placeholder -> bundle
    for (const Step& s : plan.steps)
        if (s.kind == StepKind::Embed) {
            auto after = [&](std::string_view flag) {
                auto it = std::find(s.argv.begin(), s.argv.end(), flag);
                return it != s.argv.end() && it + 1 != s.argv.end() ? *(it + 1) : std::string();
            };
            overlap[after("--host")] = a.output;
            overlap[after("--placeholder")] = plan.bundle;
        }
    JobSet pre; // the distributed shape: the last preprocess step's jobs
    for (const Step& s : plan.steps) {
        for (const std::string& out : s.outputs)
            if (out != a.output && s.kind != StepKind::Preprocess) set.files.push_back(out);
        if (s.kind == StepKind::Embed) continue;
        if (s.kind == StepKind::Preprocess) {
            pre = {};
            if (auto st = jobs.add(pre, s.env, compiler_words(s.argv), a.work_dir()); !st)
                return make_error("the preprocess step of " + s.arch +
                                  " is refused by the driver: " + st.error().message);
            auto ref_argv = refs ? refs->find(s.arch) : PreprocessRefs::const_iterator();
            if (!refs || ref_argv == refs->end())
                return make_error("no plain device step of " + s.arch + " to compare with");
            JobSet ref;
            if (auto st = jobs.add(ref, s.env, ref_argv->second, a.work_dir()); !st)
                return make_error("the driver's preprocessing of " + s.arch + ": " +
                                  st.error().message);
            const Job* p = device_cc1(pre.jobs);
            const Job* r = device_cc1(ref.jobs);
            if (!p || !r)
                return make_error("the preprocess step of " + s.arch + " runs no device job");
            if (std::string why = preprocess_differs(*p, *r); !why.empty()) return make_error(why);
            continue;
        }
        if (s.kind == StepKind::Device && s.argv.size() > 1 && s.argv[1] == "device-ii") {
            // The compile of the preprocessed file, read from a stand-in (the
            // preprocess step has not run): the pair must be the device job.
            std::vector<std::string> words = compiler_words(s.argv);
            const std::string input = s.inputs.empty() ? std::string() : s.inputs[0];
            const std::string stand_in = scratch + "/farm-" + safe_arch(s.arch) + ".ii";
            if (scratch.empty() || !util::write_file_atomic(stand_in, ""))
                return make_error("no stand-in for the preprocessed file of " + s.arch);
            for (std::string& w : words)
                if (w == input) w = stand_in;
            JobSet remote;
            if (auto st = jobs.add(remote, s.env, words, a.work_dir()); !st)
                return make_error("the farm's compile of " + s.arch +
                                  " is refused by the driver: " + st.error().message);
            const Job* p = device_cc1(pre.jobs);
            const Job* c = device_cc1(remote.jobs);
            if (!p || !c)
                return make_error("the distributed device compile of " + s.arch +
                                  " runs no single device job");
            auto composed = composed_device_job(*p, *c);
            if (!composed) return composed.error();
            // The compile's other jobs (the old driver's device link of the
            // code object) as they are; its unbundling of the file is the
            // shape's own (device-ii checked the section it takes).
            for (const Job& j : remote.jobs) {
                if (&j == c)
                    set.jobs.push_back(*composed);
                else if (std::find(j.begin(), j.end(), "-unbundle") == j.end())
                    set.jobs.push_back(j);
            }
            set.temp_dirs.insert(set.temp_dirs.end(), pre.temp_dirs.begin(), pre.temp_dirs.end());
            set.temp_dirs.insert(set.temp_dirs.end(), remote.temp_dirs.begin(),
                                 remote.temp_dirs.end());
            continue;
        }
        if (s.kind != StepKind::Device && s.kind != StepKind::Host) {
            set.jobs.push_back(s.argv);
            if (s.kind == StepKind::DeviceLink) // the new driver's code generation
                for (std::string& w : set.jobs.back())
                    if (std::find(s.inputs.begin(), s.inputs.end(), w) != s.inputs.end())
                        w = kExtracted;
            continue;
        }
        const size_t before = set.jobs.size();
        if (auto st = jobs.add(set, s.env, s.argv, a.work_dir()); !st)
            return make_error("the " + std::string(step_kind_name(s.kind)) + " step" +
                              (s.arch.empty() ? "" : " of " + s.arch) +
                              " is refused by the driver: " + st.error().message);
        if (s.kind != StepKind::Host || overlap.empty()) continue;
        for (size_t k = before; k < set.jobs.size(); ++k) {
            Job& job = set.jobs[k];
            for (size_t i = 0; i < job.size(); ++i) {
                const bool embeds = i > 0 && job[i - 1] == "-fcuda-include-gpubinary";
                if (auto m = overlap.find(job[i]);
                    m != overlap.end() &&
                    (embeds ? m->second == plan.bundle : m->second == a.output))
                    job[i] = m->second;
            }
        }
    }
    return set;
}

} // namespace

namespace {

/// The guard's verdicts: the plain shape; when it agrees and an objcopy is
/// there to overlap with, the --overlap-host shape; when it agrees and the
/// compile's device steps can go to a farm, the distributed shape (each
/// preprocess step and compile of its file together, as the device job).
struct Verdicts {
    std::string plain, overlap, distribute;
};

Verdicts verdicts(const compile::Analysis& a, const probe::ProbeResult& probe, bool farm) {
    Jobs jobs;
    PlanOptions opts;
    opts.distribute = Engine::None;
    const Plan plain = make_plan(a, probe, opts);
    util::TempDir scratch("phc-guard");
    if (scratch.path().empty()) return {"no scratch folder for the guard", {}, {}};
    JobSet original;
    const Step reference = reference_step(a, plain.cuid, a.output, a.depfile());
    if (auto st = jobs.add(original, reference.env, reference.argv, a.work_dir()); !st)
        return {"the driver's own compile: " + st.error().message, {}, {}};
    if (auto st = expand_wrapper(original, scratch.path()); !st)
        return {"clang-linker-wrapper: " + st.error().message, {}, {}};
    auto split = split_jobs(plain, jobs);
    Verdicts v;
    v.plain = split ? compare_jobs(original, *split) : split.error().message;
    if (!v.plain.empty()) return v;
    // icecc: the engine that takes any path (what it runs is the same).
    opts.distribute = Engine::Icecc;
    opts.private_dir = plain.private_dir;
    probe::ProbeResult unchecked = probe; // the shape as it would be planned, before its verdict
    unchecked.distribute_checked = true;
    unchecked.distribute_differs.clear();
    if (const Plan far_plan = farm ? make_plan(a, unchecked, opts) : Plan();
        far_plan.engine != Engine::None) {
        PreprocessRefs refs;
        for (const Step& s : plain.steps)
            if (s.kind == StepKind::Device) {
                refs[s.arch] = s.argv;
                refs[s.arch].push_back("-E");
            }
        auto far = split_jobs(far_plan, jobs, scratch.path(), &refs);
        v.distribute = far ? compare_jobs(original, *far) : far.error().message;
    }
    if (probe::objcopy().empty() || probe.rdc) return v;
    opts.distribute = Engine::None;
    opts.overlap_host = true;
    auto overlapped = split_jobs(make_plan(a, probe, opts), jobs);
    v.overlap = overlapped ? compare_jobs(original, *overlapped) : overlapped.error().message;
    return v;
}

} // namespace

std::string jobs_differ(const compile::Analysis& a, const probe::ProbeResult& probe,
                        bool overlap_host) {
    Verdicts v = verdicts(a, probe, false);
    return overlap_host && v.plain.empty() ? v.overlap : v.plain;
}

Result<probe::ProbeResult> run_guarded_probe(const probe::ProbeRequest& req) {
    auto r = probe::run_probe(req);
    if (!r) return r;
    auto recognised = compile::recognise_argv(req.argv);
    if (!recognised.command) return r;
    compile::CompileCommand command = std::move(*recognised.command);
    command.env = req.env;
    compile::Analysis a =
        compile::analyze(std::move(command), compile::AnalyzeInput{req.cwd, {}, {}});
    probe::apply_probe(a, *r);
    if (!a.decision.split()) return r;
    Verdicts v = verdicts(a, *r, req.farm);
    r->jobs_differ = std::move(v.plain);
    r->overlap_differs = std::move(v.overlap);
    r->distribute_differs = std::move(v.distribute);
    r->distribute_checked = req.farm;
    return r;
}

probe::Prober guarded_prober() {
    probe::Prober p;
    p.run = run_guarded_probe;
    return p;
}

} // namespace phc::split
