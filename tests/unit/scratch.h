// Test helpers: scratch folders, and a current directory that is restored when
// the test leaves the scope, also when an assertion fails (REQUIRE throws).
#pragma once

#include <doctest/doctest.h>
#include <filesystem>
#include <string>
#include <system_error>
#include <unistd.h>

namespace phc::test {

/// A fresh folder under /tmp, removed with its content when this is destroyed.
class ScratchDir {
public:
    explicit ScratchDir(const std::string& prefix = "phc-unit") {
        std::string tmpl = "/tmp/" + prefix + "-XXXXXX";
        REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
        path_ = tmpl;
    }
    ~ScratchDir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;
    const std::string& path() const { return path_; }
    /// `name` inside the folder.
    std::string file(const std::string& name) const { return path_ + "/" + name; }

private:
    std::string path_;
};

/// `dir` is the current directory while this lives; the previous one again
/// afterwards, however the scope is left.
class InDir {
public:
    explicit InDir(const std::string& dir) : old_(std::filesystem::current_path()) {
        REQUIRE(::chdir(dir.c_str()) == 0);
    }
    ~InDir() {
        std::error_code ec;
        std::filesystem::current_path(old_, ec);
    }
    InDir(const InDir&) = delete;
    InDir& operator=(const InDir&) = delete;

private:
    std::filesystem::path old_;
};

/// A fresh scratch folder that is the current directory while this lives
/// (regen works in the current directory), removed afterwards.
class InScratch {
public:
    explicit InScratch(const std::string& prefix = "phc-unit") : scratch_(prefix), in_(dir()) {}
    const std::string& dir() const { return scratch_.path(); }

private:
    ScratchDir scratch_; ///< destroyed after in_: the folder goes once it is left
    InDir in_;
};

} // namespace phc::test
