// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to core, built with cfitsio only: every FITS file the project writes is built in
// memory and written through the staged output path. cfitsio never sees the target's name, so
// no character of it ('(', '[', '!', a leading '-') can be read as cfitsio's extended syntax
// (an output file, a template, a filter) and reach a file the user did not name.
#include "base/fits_handle.h"

#include <cstddef>
#include <string>
#include <string_view>

namespace tpacf::io {

class MemoryFitsFile {
public:
    /// `path` names the target in messages only; `sizeHint` bytes are allocated at first.
    MemoryFitsFile(std::string path, std::string_view what, std::size_t sizeHint = 2880 * 4);
    ~MemoryFitsFile();
    MemoryFitsFile(const MemoryFitsFile&) = delete;
    MemoryFitsFile& operator=(const MemoryFitsFile&) = delete;

    fitsfile* get() const noexcept { return m_file.get(); }
    /// Throws InputError naming the target and `step` when `status` is non-zero.
    void check(int status, std::string_view step) const;
    /// Closes the file and writes its bytes to the target atomically (writeFileAtomically).
    void commit();

private:
    std::string m_path, m_what;
    void* m_buffer = nullptr;
    std::size_t m_size = 0;
    FitsPtr m_file;
};

} // namespace tpacf::io
