// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to core, built with cfitsio only: the one owner of an open fitsfile and the one way a
// cfitsio failure becomes text, shared by the FITS catalog reader, the FITS result table and
// the FITS count files.
#include <fitsio.h>

#include <cstring>
#include <memory>
#include <string>

namespace tpacf::io {

struct FitsCloser {
    void operator()(fitsfile* file) const noexcept {
        int status = 0;
        fits_close_file(file, &status);
    }
};
using FitsPtr = std::unique_ptr<fitsfile, FitsCloser>;

/// cfitsio's own account of the last failure: the oldest message on its error stack, which names
/// the problem ("NAXIS1 = 32 is not equal to the sum of column widths: 16"), else the generic
/// text of the status, with the status number. Empties the stack, so that the next failure
/// starts afresh.
inline std::string fitsStatusText(int status) {
    char text[FLEN_ERRMSG] = {};
    std::string detail;
    if (fits_read_errmsg(text))
        detail.assign(text, strnlen(text, FLEN_ERRMSG));
    fits_clear_errmsg();
    if (detail.empty()) {
        char generic[FLEN_STATUS] = {};
        fits_get_errstatus(status, generic);
        detail.assign(generic, strnlen(generic, FLEN_STATUS));
    }
    return detail + " (cfitsio status " + std::to_string(status) + ")";
}

} // namespace tpacf::io
