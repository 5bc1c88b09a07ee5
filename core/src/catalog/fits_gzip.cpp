// SPDX-License-Identifier: GPL-3.0-or-later
#include "catalog/fits_gzip.h"

#include "catalog/fits_reader.h"
#include "tpacf/errors.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <system_error>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

namespace tpacf::detail {

namespace {

struct GzCloser {
    void operator()(gzFile_s* file) const noexcept { gzclose(file); }
};

} // namespace

void decompressToTemporary(const std::string& path, int fd, const ReadOptions& options,
                           TemporaryCopy& copy) {
    std::error_code ec;
    const std::filesystem::path base = std::filesystem::temp_directory_path(ec);
    std::string pattern = (ec ? std::filesystem::path("/tmp") : base) / "tpacf-XXXXXX";
    if (!::mkdtemp(pattern.data()))
        throw InputError(path, 0, 0,
                         "cannot make a temporary folder to decompress into (" + pattern +
                             "): " + std::strerror(errno) + "; set TMPDIR to a writable folder");
    copy.dir = pattern;
    copy.file = copy.dir + "/catalog.fits";
    const FileDescriptor out(
        ::open(copy.file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
    if (out.get() < 0)
        throw InputError(path, 0, 0,
                         "cannot create a temporary file to decompress into (" + copy.file +
                             "): " + std::strerror(errno));
    const int input = ::dup(fd); // gzclose closes what it was given
    std::unique_ptr<gzFile_s, GzCloser> gz(input >= 0 ? gzdopen(input, "rb") : nullptr);
    if (!gz) {
        if (input >= 0)
            ::close(input);
        throw InputError(path, 0, 0, "cannot read the gzip data: out of memory or descriptors");
    }
    gzbuffer(gz.get(), 1 << 17);
    std::vector<char> buffer(std::size_t(1) << 20);
    auto gzipProblem = [&]() -> std::optional<std::string> {
        int code = Z_OK;
        const char* message = gzerror(gz.get(), &code);
        if (code == Z_OK || code == Z_STREAM_END)
            return std::nullopt;
        std::string text = message ? message : "unknown zlib error";
        // zlib names the descriptor ("<fd:5>: unexpected end of file"), which says nothing here.
        if (text.starts_with("<fd:"))
            if (const auto colon = text.find(": "); colon != std::string::npos)
                text.erase(0, colon + 2);
        return text;
    };
    while (true) {
        throwIfCancelled(options);
        const int got = gzread(gz.get(), buffer.data(), static_cast<unsigned>(buffer.size()));
        if (got <= 0) {
            // 0 is the end, or a truncated stream that gzerror reports.
            if (const auto problem = gzipProblem())
                throw InputError(path, 0, 0,
                                 "the gzip data is damaged or cut short after " +
                                     std::to_string(copy.size) + " bytes (zlib: " + *problem + ")");
            break;
        }
        for (std::size_t done = 0; done < static_cast<std::size_t>(got);) {
            const ssize_t wrote =
                ::write(out.get(), buffer.data() + done, static_cast<std::size_t>(got) - done);
            if (wrote < 0 && errno == EINTR)
                continue;
            if (wrote <= 0)
                throw InputError(path, 0, 0,
                                 "cannot decompress into " + copy.dir + ": " +
                                     std::strerror(errno) +
                                     " (set TMPDIR to a folder with room for the table)");
            done += static_cast<std::size_t>(wrote);
        }
        copy.size += static_cast<std::uint64_t>(got);
    }
}

} // namespace tpacf::detail
