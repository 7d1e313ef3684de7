// A folder made for one use ($TMPDIR/<prefix>-XXXXXX) and removed with
// everything in it when it goes out of scope.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>

namespace phc::util {

class TempDir {
public:
    explicit TempDir(const std::string& prefix) {
        const char* tmp = std::getenv("TMPDIR");
        std::string dir = std::string(tmp && *tmp ? tmp : "/tmp") + "/" + prefix + "-XXXXXX";
        if (::mkdtemp(dir.data())) path_ = dir;
    }
    ~TempDir() {
        std::error_code ec;
        if (!path_.empty()) std::filesystem::remove_all(path_, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    /// The folder, or "" when it could not be made.
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

} // namespace phc::util
