// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to the FITS reader: a binary table opened through cfitsio (the HDU chosen by number,
// name or the path's extended syntax, row and column selections applied, a .fits.gz
// decompressed to a private temporary file first), and its columns. fits_table.cpp opens it;
// fits_reader.cpp reads columns and previews from it.
#include "catalog/fits_reader.h"
#include "base/fits_handle.h"

#include <algorithm>
#include <cctype>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace tpacf::detail {

inline bool equalsIgnoringCase(std::string_view a, std::string_view b) noexcept {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y));
           });
}

/// Throws InputError naming `path` when `selection` (the brackets after a FITS file's name)
/// uses a cfitsio feature that reads another file: '@file', regfilter(), gtifilter(),
/// gtioverlap(), gtifind() (fits_selection_check.cpp).
void refuseFileReadingSelection(const std::string& path, const std::string& selection);

struct FitsColumn {
    std::string name;
    int typecode = 0;
    long long repeat = 0;
    bool numericScalar() const noexcept {
        return repeat == 1 && typecode != TSTRING && typecode != TLOGICAL && typecode != TBIT &&
               typecode > 0 && typecode != TCOMPLEX && typecode != TDBLCOMPLEX;
    }
};

// An open binary table: the file positioned at the chosen HDU (or cfitsio's filtered copy of
// it), with its columns, and how it was chosen for messages and the catalog's origin.
struct FitsTable {
    // The descriptor behind the name cfitsio opened ("/proc/self/fd/N"), held until cfitsio has
    // closed the file (members are destroyed in reverse order): were N closed earlier, another
    // thread's catalog could open as N too, and cfitsio, which knows its open files by name,
    // would take that name for the file it already has open (wrong rows, or its lock left held).
    FileDescriptor nameHolder;
    io::FitsPtr file;
    int hdu = 0;              // absolute (cfitsio's movabs numbering: the primary HDU is 1)
    std::string hduLabel;     // "HDU 1 (CATALOG)": extension numbers, as in d.fits[1] and --hdu
    long long rows = 0;       // after the row filter
    long long rowsInFile = 0; // NAXIS2 of the HDU in the file
    std::string rowFilter;    // cfitsio's row filter, "" without
    std::string columnSpec;   // cfitsio's column list ("col RA;DEC;W=WEIGHT*WFKP"), "" without
    std::vector<std::string> hdus; // every extension, for previews
    std::vector<FitsColumn> columns;
};

/// The one lock every use of cfitsio in the catalog room holds, from before a table is opened
/// until it is closed (fits_reader.cpp says why).
std::mutex& cfitsioUse();

/// Opens the table `path` (and options.hdu) names. wantListing: also list every extension
/// (previews). Throws InputError naming the file, the HDU and what is wrong.
FitsTable openTable(const std::string& path, const ReadOptions& options, bool wantListing);

} // namespace tpacf::detail
