// SPDX-License-Identifier: GPL-3.0-or-later
#include "io/fits_memory_file.h"

#include "tpacf/errors.h"
#include "tpacf/output_file.h"

#include <cstdlib>
#include <string_view>

namespace tpacf::io {

MemoryFitsFile::MemoryFitsFile(std::string path, std::string_view what, std::size_t sizeHint)
    : m_path(std::move(path)), m_what(what) {
    // cfitsio allocates the buffer itself (a buffer handed to it would be read as content) and
    // grows it with realloc where the hint is too small.
    int status = 0;
    fitsfile* raw = nullptr;
    fits_create_memfile(&raw, &m_buffer, &m_size, sizeHint, &std::realloc, &status);
    m_file.reset(raw);
    check(status, "create");
}

MemoryFitsFile::~MemoryFitsFile() {
    m_file.reset(); // closes the memory file before its buffer goes
    std::free(m_buffer);
}

void MemoryFitsFile::check(int status, std::string_view step) const {
    if (status != 0)
        throw InputError(m_path, 0, 0,
                         "cannot write the " + m_what + " (" + std::string(step) +
                             "): " + fitsStatusText(status));
}

void MemoryFitsFile::commit() {
    int status = 0;
    LONGLONG headStart = 0, dataStart = 0, dataEnd = 0;
    // The end of the last HDU is the file's size: the buffer may be larger.
    fits_get_hduaddrll(m_file.get(), &headStart, &dataStart, &dataEnd, &status);
    check(status, "size");
    fits_close_file(m_file.release(), &status);
    check(status, "close");
    if (dataEnd < 0 || std::size_t(dataEnd) > m_size)
        throw InputError(m_path, 0, 0, "cannot write the " + m_what + ": its size is unknown");
    writeFileAtomically(m_path,
                        std::string_view(static_cast<const char*>(m_buffer), std::size_t(dataEnd)));
}

} // namespace tpacf::io
