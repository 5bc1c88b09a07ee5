// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A .fits.gz read as cfitsio reads a plain file: decompressed to a private temporary file first
// (fits_table.cpp opens that).
#include "tpacf/catalog_reader.h"

#include <cstdint>
#include <string>

#include <unistd.h>

namespace tpacf::detail {

// A decompressed copy of a .fits.gz in a private temporary directory; both go with the object.
struct TemporaryCopy {
    std::string dir, file;
    std::uint64_t size = 0;

    TemporaryCopy() = default;
    TemporaryCopy(const TemporaryCopy&) = delete;
    TemporaryCopy& operator=(const TemporaryCopy&) = delete;
    ~TemporaryCopy() {
        if (!file.empty())
            ::unlink(file.c_str());
        if (!dir.empty())
            ::rmdir(dir.c_str());
    }
};

/// Decompresses the gzip file behind `fd` into `copy`, in chunks between which a cancel request
/// is honoured. cfitsio would decompress it into memory, all of it, however few of its bytes the
/// table uses: a .fits.gz that expands to 1 GiB would take 1 GiB of memory. Throws InputError
/// naming `path` (damaged data, no room, no temporary folder).
void decompressToTemporary(const std::string& path, int fd, const ReadOptions& options,
                           TemporaryCopy& copy);

} // namespace tpacf::detail
