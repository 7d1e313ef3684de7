#include "util/subprocess.h"

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace phc::util {

std::string find_program(const std::string& name) {
    if (name.find('/') != std::string::npos) return name;
    const char* path = std::getenv("PATH");
    std::string_view rest = path ? path : "/usr/local/bin:/usr/bin:/bin";
    while (true) {
        size_t colon = rest.find(':');
        std::string dir(rest.substr(0, colon));
        std::string cand = (dir.empty() ? std::string(".") : dir) + "/" + name;
        if (::access(cand.c_str(), X_OK) == 0) {
            struct stat st {};
            if (::stat(cand.c_str(), &st) == 0 && S_ISREG(st.st_mode)) return cand;
        }
        if (colon == std::string_view::npos) break;
        rest.remove_prefix(colon + 1);
    }
    return {};
}

namespace {

/// Reads both pipes until both are closed.
void drain(int out_fd, int err_fd, std::string& out, std::string& err) {
    pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
    std::string* sinks[2] = {&out, &err};
    int open_count = 2;
    char buf[1 << 15];
    while (open_count > 0) {
        if (::poll(fds, 2, -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
            if (n > 0) {
                sinks[i]->append(buf, static_cast<size_t>(n));
            } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
                fds[i].fd = -1; // the caller closes it
                --open_count;
            }
        }
    }
}

/// The environment for a child: ours with `env` assignments replacing or adding.
std::vector<std::string>
child_environment(const std::vector<std::pair<std::string, std::string>>& env) {
    std::vector<std::string> envs;
    for (char** e = environ; *e; ++e) {
        std::string_view kv = *e;
        bool replaced = false;
        for (const auto& [k, v] : env)
            if (kv.size() > k.size() && kv.starts_with(k) && kv[k.size()] == '=') replaced = true;
        if (!replaced) envs.emplace_back(kv);
    }
    for (const auto& [k, v] : env)
        envs.push_back(k + "=" + v);
    return envs;
}

/// A pipe (both ends close-on-exec, the read end non-blocking).
Status make_pipe(Fd& read, Fd& write) {
    int p[2];
    if (::pipe2(p, O_CLOEXEC) != 0)
        return make_error(fmt::format("pipe: {}", std::strerror(errno)));
    read.reset(p[0]);
    write.reset(p[1]);
    set_nonblocking(p[0]);
    return Ok{};
}

/// posix_spawnp() with the pipes' write ends as stdout and stderr; an errno value.
int spawn_with(pid_t& pid, const std::vector<std::string>& argv, const SpawnOptions& o, int out,
               int err) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (!o.inherit_stdio) {
        posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_adddup2(&fa, out, 1);
        posix_spawn_file_actions_adddup2(&fa, err, 2);
    }
    for (const auto& [fd, path] : o.files)
        posix_spawn_file_actions_addopen(&fa, fd, path.c_str(), O_RDONLY, 0);
    if (!o.cwd.empty()) posix_spawn_file_actions_addchdir_np(&fa, o.cwd.c_str());
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    if (o.default_signals) {
        sigset_t none, defaults;
        sigemptyset(&none);
        sigemptyset(&defaults);
        for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGPIPE})
            sigaddset(&defaults, s);
        posix_spawnattr_setsigmask(&attr, &none);
        posix_spawnattr_setsigdefault(&attr, &defaults);
        posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    }
    std::vector<std::string> envs =
        o.env.empty() ? std::vector<std::string>() : child_environment(o.env);
    std::vector<char*> cargv, envp;
    for (const auto& a : argv)
        cargv.push_back(const_cast<char*>(a.c_str()));
    cargv.push_back(nullptr);
    for (auto& e : envs)
        envp.push_back(e.data());
    envp.push_back(nullptr);
    int rc = ::posix_spawnp(&pid, cargv[0], &fa, &attr, cargv.data(),
                            o.env.empty() ? environ : envp.data());
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    return rc;
}

} // namespace

std::vector<std::pair<std::string, std::string>> env_pairs(const std::vector<std::string>& env) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const std::string& a : env) {
        size_t eq = a.find('=');
        out.emplace_back(a.substr(0, eq), eq == std::string::npos ? "" : a.substr(eq + 1));
    }
    return out;
}

Result<Child> spawn(const std::vector<std::string>& argv, const SpawnOptions& options) {
    if (argv.empty()) return make_error("empty command");
    Child child;
    Fd out_w, err_w;
    if (!options.inherit_stdio) {
        if (auto st = make_pipe(child.out, out_w); !st) return st.error();
        if (auto st = make_pipe(child.err, err_w); !st) return st.error();
    }
    if (int rc = spawn_with(child.pid, argv, options, out_w.get(), err_w.get()); rc != 0)
        return make_error(fmt::format("cannot run '{}': {}", argv[0], std::strerror(rc)));
    return child;
}

Result<Completed> run_capture(const std::vector<std::string>& argv, const std::string& cwd) {
    SpawnOptions options;
    options.cwd = cwd;
    return run_capture(argv, options);
}

Result<int> run_inheriting(const std::vector<std::string>& argv) {
    SpawnOptions options;
    options.inherit_stdio = true;
    auto child = spawn(argv, options);
    if (!child) return child.error();
    int status = 0;
    while (::waitpid(child->pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

Error exec_program(const std::vector<std::string>& argv, int* exit_code) {
    std::vector<char*> words;
    for (const std::string& w : argv)
        words.push_back(const_cast<char*>(w.c_str()));
    words.push_back(nullptr);
    ::execvp(words[0], words.data());
    const int e = errno;
    if (exit_code) *exit_code = e == ENOENT ? 127 : 126;
    return make_error(fmt::format("cannot run '{}': {}", argv[0], std::strerror(e)));
}

Result<Completed> run_capture_tmp(const std::vector<std::string>& argv, const std::string& tmpdir) {
    SpawnOptions options;
    options.env = {{"TMPDIR", tmpdir}};
    return run_capture(argv, options);
}

Result<Completed> run_capture(const std::vector<std::string>& argv, const SpawnOptions& options) {
    auto child = spawn(argv, options);
    if (!child) return child.error();
    Completed done;
    drain(child->out.get(), child->err.get(), done.out, done.err);
    int status = 0;
    while (::waitpid(child->pid, &status, 0) < 0 && errno == EINTR) {
    }
    done.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return done;
}

std::string self_exe() {
    char buf[PATH_MAX];
    ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

} // namespace phc::util
