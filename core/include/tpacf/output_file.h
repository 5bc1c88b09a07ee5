// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Outputs that never destroy data: a result is written to a temporary file beside its target and
// renamed over it only when complete, every output is checked for writability before a long
// count, and no output may name an input or another output of the same command.
#include <functional>
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>

namespace tpacf {

/// A temporary file in the target's folder that commit() renames over the target (after the
/// data reached the disk); destroyed without commit(), it is removed and the target untouched.
/// A symbolic link as target is followed (the link's file is replaced, the link kept). A target
/// that exists and is not a regular file (/dev/null, a FIFO) cannot be replaced by a rename: it
/// is written directly, and temporaryPath() is the target itself.
class StagedOutputFile {
public:
    /// Throws InputError naming `target` when the temporary cannot be created there.
    explicit StagedOutputFile(const std::string& target);
    ~StagedOutputFile();
    StagedOutputFile(const StagedOutputFile&) = delete;
    StagedOutputFile& operator=(const StagedOutputFile&) = delete;

    /// Where to write the content (then close it before commit()).
    const std::string& temporaryPath() const noexcept { return m_temporary; }
    /// The file that will be replaced: the target with its links resolved.
    const std::string& targetPath() const noexcept { return m_target; }
    /// Flushes the temporary to the disk and renames it over the target. Throws InputError
    /// naming the target on failure (the target is then untouched, the temporary removed).
    void commit();

private:
    std::string m_requested, m_target, m_temporary;
    bool m_direct = false, m_done = false;
};

/// Writes `path` through a StagedOutputFile: `write` fills a stream, and only a complete,
/// error-free stream replaces the file. Any exception from `write` leaves the file as it was.
/// Throws InputError naming the path on a failed write (disk full, quota, I/O error).
void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write);

/// The same for content already in memory.
void writeFileAtomically(const std::string& path, std::string_view content);

/// Fails with InputError naming `path` and `role` (a flag such as "--output", or a menu item)
/// unless the file can be written there now: an empty name, a missing folder, a folder as
/// target, a read-only folder or file system, a special file system such as /proc, or a device
/// or FIFO that cannot be opened for writing. Leaves nothing behind.
void checkOutputWritable(const std::string& path, std::string_view role);

/// True when both paths name one existing file (links followed, hard links included), or, for
/// files that do not exist yet, the same place once the links of their folders are resolved.
bool sameFile(const std::string& first, const std::string& second);

/// A path of a command with the flag (or role) it was given by, for messages.
struct NamedPath {
    std::string role;
    std::string path;
};

/// Throws InputError naming both when an output is the same file as an input or as another
/// output (devices such as /dev/null may be shared by outputs). Call before any work.
void checkOutputsDistinct(std::span<const NamedPath> inputs, std::span<const NamedPath> outputs);

} // namespace tpacf
