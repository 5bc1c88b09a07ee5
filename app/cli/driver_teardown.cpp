// SPDX-License-Identifier: GPL-3.0-or-later
// Why: after a count, the NVIDIA driver takes 0.1-0.17 s (an H200; BENCHMARKS.md, "The traversal
// on the device, and the driver's teardown left to a child") to release what it holds for a
// process, and it does so when the last file descriptor of its device files closes: in the
// kernel's exit of the process, after main has returned and every atexit handler has run (they
// take 3-5 ms). A shell, a pipeline or a job script waits for that exit: 0.1-0.17 s of the
// standard job's 0.55-0.66 s wall. A child that holds copies of those descriptors until the
// process is gone makes the process's own close a mere decrement; the teardown then runs when the
// child ends, while the caller goes on.
//
// How: the parent lists its descriptors (/proc/self/fd) before fork(). The child, a copy of one
// thread of a possibly multithreaded process, calls only async-signal-safe functions: it closes
// every descriptor but the driver's (stdout and stderr among them, so that a pipeline reading
// the command's output sees its end when the command ends, not when the child does), waits on a
// pidfd of its parent until the parent's last thread has ended (so every copy of the parent's
// descriptors is closed), and ends. Nothing it holds is written, so the outputs, the exit status
// and the files are the command's alone; GPU memory is released about 0.1 s after the command
// returns, as it was released during its exit before.
#include "cli/driver_teardown.h"

#include <string>

#if defined(__linux__)
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <string>
#include <vector>

#include <dirent.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace tpacf::cli {

TeardownChoice teardownChoice(const char* value, std::string& problem) {
    problem.clear();
    const std::string_view text = value == nullptr ? std::string_view() : std::string_view(value);
    if (text.empty() || text == "child")
        return TeardownChoice::Child;
    if (text == "wait")
        return TeardownChoice::Wait;
    problem = std::string(kGpuTeardownVariable) + "='" + std::string(text) +
              "' is neither 'child' nor 'wait'; the GPU driver's teardown was left to a child "
              "process, as when it is unset";
    return TeardownChoice::Child;
}

#if defined(__linux__)
namespace {

struct Descriptors {
    std::vector<int> driver, others;
};

// This process's open descriptors, split by whether they name a path under driverFiles.
Descriptors listDescriptors(std::string_view driverFiles) {
    Descriptors out;
    DIR* directory = opendir("/proc/self/fd");
    if (directory == nullptr)
        return out;
    const int own = dirfd(directory);
    while (const dirent* entry = readdir(directory)) {
        char* end = nullptr;
        const long fd = std::strtol(entry->d_name, &end, 10);
        if (end == entry->d_name || *end != '\0' || fd == own)
            continue;
        const std::string link = "/proc/self/fd/" + std::string(entry->d_name);
        char target[4096];
        const ssize_t length = readlink(link.c_str(), target, sizeof target);
        const bool named = length > 0 && static_cast<std::size_t>(length) < sizeof target;
        if (named &&
            std::string_view(target, static_cast<std::size_t>(length)).starts_with(driverFiles))
            out.driver.push_back(static_cast<int>(fd));
        else
            out.others.push_back(static_cast<int>(fd));
    }
    closedir(directory);
    return out;
}

// Longest the child waits: the parent forks at the end of main, so it is gone in milliseconds.
constexpr int kLongestWaitMs = 10000;

[[noreturn]] void holdUntilParentEnds(const std::vector<int>& others, pid_t parent) {
    for (const int fd : others)
        close(fd);
#ifdef SYS_pidfd_open
    // A pidfd of the parent turns readable once its last thread has ended, so after every
    // thread's share of the descriptors is gone. While getppid() is the parent, the pid is its.
    const int process = static_cast<int>(syscall(SYS_pidfd_open, parent, 0));
    if (process >= 0) {
        if (getppid() == parent) {
            pollfd watched{process, POLLIN, 0};
            while (poll(&watched, 1, kLongestWaitMs) < 0 && errno == EINTR) {
            }
        }
        _exit(0);
    }
#endif
    // No pidfd (Linux before 5.3): SIGKILL as the thread that forked ends (with the process's
    // other threads possibly still ending: the parent may then release the driver itself).
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
        _exit(0);
    for (;;)
        pause();
}

} // namespace

int leaveDriverTeardownToChild(std::string_view driverFiles) noexcept {
    try {
        const Descriptors descriptors = listDescriptors(driverFiles);
        if (descriptors.driver.empty())
            return 0;
        const pid_t parent = getpid();
        const pid_t child = fork();
        if (child == 0)
            holdUntilParentEnds(descriptors.others, parent);
        return child > 0 ? static_cast<int>(child) : 0;
    } catch (...) { // no memory for the list: end as before
        return 0;
    }
}

#else

int leaveDriverTeardownToChild(std::string_view) noexcept {
    return 0;
}

#endif

} // namespace tpacf::cli
