// SPDX-License-Identifier: GPL-3.0-or-later
// Outputs written through a temporary file and a rename: a crash, a full disk or a cancelled
// write leaves the previous file (or none) in place, never a truncated result.
#include "tpacf/output_file.h"

#include "tpacf/errors.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <system_error>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tpacf {

namespace fs = std::filesystem;

namespace {

// Linux's own limit on links followed in one lookup (ELOOP after that).
constexpr int kMaxLinkHops = 40;

std::string quotedPath(const std::string& path) {
    return "\"" + path + "\"";
}

std::string systemMessage(int error) {
    return std::error_code(error, std::generic_category()).message();
}

/// The file a write to `path` lands in: symbolic links followed, one hop at a time, so that a
/// dangling link resolves to the file it would create.
std::string resolveLinks(const std::string& path) {
    fs::path current(path);
    for (int hop = 0; hop < kMaxLinkHops; ++hop) {
        std::error_code error;
        if (!fs::is_symlink(fs::symlink_status(current, error)))
            return current.string();
        const fs::path link = fs::read_symlink(current, error);
        if (error)
            return current.string();
        current = link.is_absolute() ? link : current.parent_path() / link;
    }
    throw InputError(path, 0, 0, "cannot write here: a loop of symbolic links");
}

fs::path folderOf(const std::string& path) {
    const fs::path parent = fs::path(path).parent_path();
    return parent.empty() ? fs::path(".") : parent;
}

/// The permission bits a new file gets from open(2): 0666 less the umask. Read from
/// /proc/self/status, since umask(2) can only be read by changing it, which races with other
/// threads creating files.
mode_t newFileMode() {
    mode_t mask = 022;
    if (std::FILE* status = std::fopen("/proc/self/status", "re")) {
        char line[256];
        while (std::fgets(line, sizeof line, status))
            if (std::strncmp(line, "Umask:", 6) == 0) {
                mask = static_cast<mode_t>(std::strtoul(line + 6, nullptr, 8));
                break;
            }
        std::fclose(status);
    }
    return 0666 & ~mask;
}

/// Creates an empty, uniquely named file in `folder` from the `stem` and returns its path;
/// throws InputError naming `target` when the folder does not let us.
std::string createTemporaryIn(const fs::path& folder, const std::string& stem,
                              const std::string& target, mode_t mode) {
    std::string pattern = (folder / stem).string() + ".XXXXXX";
    const int fd = mkostemp(pattern.data(), O_CLOEXEC);
    if (fd < 0) {
        const int error = errno;
        throw InputError(target, 0, 0,
                         "cannot write here: creating a file in the folder " +
                             quotedPath(folder.string()) + " failed: " + systemMessage(error));
    }
    fchmod(fd, mode);
    close(fd);
    return pattern;
}

/// Hidden, beside the target, named after it so that a stray one (power cut) says what it was.
std::string temporaryStem(const std::string& target) {
    const std::string name = fs::path(target).filename().string();
    // Leave room in NAME_MAX (255) for the dot and the suffixes.
    return name.size() <= 200 ? "." + name + ".tpacf-tmp" : ".tpacf-output.tpacf-tmp";
}

void syncFile(const std::string& path, const std::string& target) {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return; // renaming still gives a complete file, only not yet a durable one
    const int result = fsync(fd);
    const int error = errno;
    close(fd);
    // EINVAL: a file system without fsync (some FUSE mounts); the data was still written.
    if (result != 0 && error != EINVAL)
        throw InputError(target, 0, 0,
                         "could not write the file completely: " + systemMessage(error) +
                             "; the earlier file, if any, was left as it was");
}

} // namespace

StagedOutputFile::StagedOutputFile(const std::string& target)
    : m_requested(target), m_target(resolveLinks(target)) {
    if (target.empty())
        throw InputError("output: the file name is empty");
    struct stat existing {};
    const bool exists = stat(m_target.c_str(), &existing) == 0;
    if (exists && S_ISDIR(existing.st_mode))
        throw InputError(target, 0, 0, "cannot write here: it is a folder");
    if (exists && !S_ISREG(existing.st_mode)) {
        // A device or FIFO: a rename would replace the node itself (as root, /dev/null).
        m_direct = true;
        m_temporary = m_target;
        return;
    }
    const mode_t mode = exists ? (existing.st_mode & 07777) : newFileMode();
    m_temporary = createTemporaryIn(folderOf(m_target), temporaryStem(m_target), target, mode);
}

StagedOutputFile::~StagedOutputFile() {
    if (!m_done && !m_direct)
        std::remove(m_temporary.c_str());
}

void StagedOutputFile::commit() {
    if (m_done)
        return;
    if (m_direct) {
        m_done = true;
        return;
    }
    syncFile(m_temporary, m_requested);
    if (std::rename(m_temporary.c_str(), m_target.c_str()) != 0) {
        const int error = errno;
        throw InputError(m_requested, 0, 0,
                         "could not replace the file: " + systemMessage(error) +
                             "; the earlier file, if any, was left as it was");
    }
    m_done = true;
    // Make the rename itself durable; a failure here loses nothing that was there before.
    const int folder = open(folderOf(m_target).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (folder >= 0) {
        fsync(folder);
        close(folder);
    }
}

void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
    StagedOutputFile staged(path);
    {
        std::ofstream out(staged.temporaryPath(),
                          std::ios::out | std::ios::trunc | std::ios::binary);
        if (!out) {
            const int error = errno;
            throw InputError(path, 0, 0, "cannot create the file: " + systemMessage(error));
        }
        write(out);
        out.flush();
        if (out)
            out.close();
        if (!out) {
            const int error = errno;
            throw InputError(path, 0, 0,
                             "could not write the file completely: " +
                                 (error != 0 ? systemMessage(error) : std::string("I/O error")) +
                                 "; the earlier file, if any, was left as it was");
        }
    }
    staged.commit();
}

void writeFileAtomically(const std::string& path, std::string_view content) {
    writeFileAtomically(path, [content](std::ostream& out) {
        out.write(content.data(), static_cast<std::streamsize>(content.size()));
    });
}

void checkOutputWritable(const std::string& path, std::string_view role) {
    const std::string flag(role);
    if (path.empty())
        throw InputError(flag + ": the file name is empty");
    std::string target;
    try {
        target = resolveLinks(path);
    } catch (const InputError& failure) {
        throw InputError(path, 0, 0, failure.problem() + " (" + flag + ")");
    }
    struct stat existing {};
    if (stat(target.c_str(), &existing) == 0) {
        if (S_ISDIR(existing.st_mode))
            throw InputError(path, 0, 0, "cannot write here: it is a folder (" + flag + ")");
        if (!S_ISREG(existing.st_mode)) {
            // Opened without blocking: a FIFO with no reader says so (ENXIO) instead of hanging.
            const int fd = open(target.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
            if (fd < 0) {
                const int error = errno;
                throw InputError(path, 0, 0,
                                 "cannot write here: " +
                                     (error == ENXIO ? std::string("a FIFO with no reader")
                                                     : systemMessage(error)) +
                                     " (" + flag + ")");
            }
            close(fd);
            return;
        }
    }
    const fs::path folder = folderOf(target);
    std::error_code error;
    const fs::file_status folderStatus = fs::status(folder, error);
    if (!fs::exists(folderStatus))
        throw InputError(path, 0, 0,
                         "cannot write here: the folder " + quotedPath(folder.string()) +
                             " does not exist (" + flag + ")");
    if (!fs::is_directory(folderStatus))
        throw InputError(path, 0, 0,
                         "cannot write here: " + quotedPath(folder.string()) +
                             " is not a folder (" + flag + ")");
    // The only sure test of a folder (read-only mounts, /proc, quotas, ACLs) is to create a file.
    try {
        const std::string probe = createTemporaryIn(folder, ".tpacf-probe", path, 0600);
        std::remove(probe.c_str());
    } catch (const InputError& failure) {
        throw InputError(path, 0, 0, failure.problem() + " (" + flag + ")");
    }
}

bool sameFile(const std::string& first, const std::string& second) {
    struct stat a {
    }, b{};
    const bool firstExists = stat(first.c_str(), &a) == 0;
    const bool secondExists = stat(second.c_str(), &b) == 0;
    if (firstExists && secondExists)
        return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
    if (firstExists || secondExists)
        return false;
    // Neither exists yet: the same place once links (of the folders, and dangling ones) resolve.
    std::error_code error;
    const auto place = [&error](const std::string& path) {
        std::string resolved;
        try {
            resolved = resolveLinks(path);
        } catch (const InputError&) {
            resolved = path;
        }
        return fs::weakly_canonical(fs::absolute(resolved, error), error);
    };
    return place(first) == place(second);
}

void checkOutputsDistinct(std::span<const NamedPath> inputs, std::span<const NamedPath> outputs) {
    for (std::size_t o = 0; o < outputs.size(); ++o) {
        const NamedPath& output = outputs[o];
        if (output.path.empty())
            continue; // checkOutputWritable names an empty output
        for (const NamedPath& input : inputs)
            if (!input.path.empty() && sameFile(output.path, input.path))
                throw InputError(output.path, 0, 0,
                                 output.role + " is the same file as the input " + input.role +
                                     " " + quotedPath(input.path) +
                                     ": writing it would destroy the input; choose another name");
        for (std::size_t other = o + 1; other < outputs.size(); ++other) {
            const NamedPath& second = outputs[other];
            if (second.path.empty() || !sameFile(output.path, second.path))
                continue;
            struct stat node {};
            // Several outputs may go to /dev/null; two results in one regular file may not.
            if (stat(output.path.c_str(), &node) == 0 && !S_ISREG(node.st_mode))
                continue;
            throw InputError(output.path, 0, 0,
                             output.role + " and " + second.role + " " + quotedPath(second.path) +
                                 " name the same file: each output needs its own file");
        }
    }
}

} // namespace tpacf
