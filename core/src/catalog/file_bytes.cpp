// SPDX-License-Identifier: GPL-3.0-or-later
#include "catalog/file_bytes.h"

#include "base/huge_pages.h"
#include "catalog/fits_reader.h"
#include "tpacf/errors.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include <unistd.h>

namespace tpacf::detail {

FileText readFileBytes(const std::string& path, const ReadOptions& options, std::size_t limit) {
    const OpenedFile file = openRegularFile(path);
    const bool whole = file.size <= limit;
    const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(file.size, limit));
    FileText text{std::make_unique_for_overwrite<char[]>(want), want};
    char* const data = text.bytes.get();
    adviseHugePages(data, want); // first touched by read() below
    constexpr std::size_t kChunk = std::size_t(8) << 20;
    std::size_t done = 0;
    auto readSome = [&](char* into, std::size_t bytes) {
        ssize_t got = 0;
        do
            got = ::read(file.fd.get(), into, bytes);
        while (got < 0 && errno == EINTR);
        if (got < 0)
            throw InputError(path, 0, 0,
                             std::string("error while reading the catalog: ") +
                                 std::strerror(errno));
        return static_cast<std::size_t>(got);
    };
    while (done < want) {
        throwIfCancelled(options);
        const std::size_t got = readSome(data + done, std::min(kChunk, want - done));
        if (got == 0)
            throw InputError(path, 0, 0,
                             "the file shrank while it was being read (" + std::to_string(done) +
                                 " of " + std::to_string(want) + " bytes); is it being rewritten?");
        done += got;
    }
    char extra = 0;
    if (whole && readSome(&extra, 1) > 0)
        throw InputError(path, 0, 0,
                         want == 0
                             ? std::string("the file says it is empty but has content (a "
                                           "/proc or /sys file?); copy it to a regular "
                                           "file first")
                             : "the file grew while it was being read (it had " +
                                   std::to_string(want) + " bytes); is it still being written?");
    return text;
}

} // namespace tpacf::detail
