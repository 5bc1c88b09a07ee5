// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Shared by suites built with cfitsio: a catalog written as a FITS binary table (CATALOG, columns
// RA and DEC in degrees) by cfitsio directly, independent of the project's writers, by a name
// cfitsio takes literally (fits_create_diskfile), so that any character of it is allowed.
#include "tpacf/catalog.h"

#include <QFile>
#include <QString>

#include <fitsio.h>

#include <vector>

namespace tpacf::test {

/// False (with cfitsio's status left in `status`) when cfitsio failed.
inline bool writeFitsRaDec(const QString& path, const Catalog& catalog, int* status = nullptr) {
    constexpr double kDegreesPerRadian = 180.0 / 3.141592653589793;
    std::vector<double> ra, dec;
    for (std::size_t i = 0; i < catalog.size(); ++i) {
        ra.push_back(catalog.ra()[i] * kDegreesPerRadian);
        dec.push_back(catalog.dec()[i] * kDegreesPerRadian);
    }
    int code = 0;
    fitsfile* file = nullptr;
    fits_create_diskfile(&file, QFile::encodeName(path).constData(), &code);
    const char* names[] = {"RA", "DEC"};
    const char* forms[] = {"D", "D"};
    fits_create_tbl(file, BINARY_TBL, 0, 2, const_cast<char**>(names), const_cast<char**>(forms),
                    nullptr, "CATALOG", &code);
    fits_write_col(file, TDOUBLE, 1, 1, 1, LONGLONG(ra.size()), ra.data(), &code);
    fits_write_col(file, TDOUBLE, 2, 1, 1, LONGLONG(dec.size()), dec.data(), &code);
    int closing = 0;
    if (file)
        fits_close_file(file, &closing);
    if (status)
        *status = code ? code : closing;
    return code == 0 && closing == 0;
}

} // namespace tpacf::test
