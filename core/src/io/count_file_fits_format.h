// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Count files as FITS: the same CountStore as the JSON form, in binary tables that astropy or
// TOPCAT open, read back bit for bit (doubles as IEEE 64-bit, counts as unsigned 64-bit).
//
// Layout (format version CountStore::kFormatVersion):
//   HDU 1, the primary (no data): TPFORMAT = 'tpacf-counts', TPVERS (format version), TOOL,
//     BINDESC (BinSpec::describe), BINUNIT, NBINS, NREGION (jackknife K, 0 without), BACKEND,
//     PRECISN, CULLING, CULLED (T/F), SHPARTS (N of --share K/N), SHHELD (the parts held,
//     1-based, comma-separated: '1,3'); long strings continued (the CONTINUE convention).
//   BINS: NBINS + 1 rows: EDGE (D, TUNIT the bin unit), CHORD2 (D, c² = 4 sin²(θ/2)).
//   CATALOGS: a row per catalog: NAME (A), NAMELEN (J), FINGERPR (32A), REGIONFP (32A, blank
//     without jackknife), SIZE (uint64), WEIGHTED (L), SUM_W (D), SUM_W2 (D).
//   COUNTS: a row per count: LABEL (A), LABELLEN (J), FIRST (K, 0-based CATALOGS row), SECOND
//     (K, -1 for an auto-correlation), WEIGHTED (L), RAW (NBINS × uint64), WSUM (NBINS × D,
//     NaN where WEIGHTED is F).
//   REGIONS, EXTVER = i (jackknife files only), one per COUNTS row i: NREGION rows (region k in
//     row k + 1): TOUCHING and WITHIN (NBINS × uint64), for a weighted count W_TOUCH and
//     W_WITHIN (NBINS × D). Their totals are the COUNTS row (RAW, WSUM). A table per count keeps
//     K = 10^4 regions by 10^4 bins at rows of 10^4 values instead of one row of 10^8.
// uint64 is the standard FITS unsigned form: TFORM K with TZERO = 9223372036854775808.
// Text columns lose trailing blanks in FITS; NAMELEN and LABELLEN give them back.
// Internal to count_file_fits_write.cpp and count_file_fits_read.cpp: the layout above and what
// both sides of it share.
#include "base/fits_handle.h"

#include <cstddef>

namespace tpacf::io::count_fits {

inline constexpr const char* kFormatName = "tpacf-counts";
inline constexpr std::size_t kBlockBytes = std::size_t(8) << 20; // rows written or read at a time

inline std::size_t elementSize(int datatype) {
    switch (datatype) {
    case TLOGICAL:
        return 1;
    case TINT:
        return sizeof(int);
    case TLONGLONG:
        return sizeof(LONGLONG);
    case TULONGLONG:
        return sizeof(ULONGLONG);
    case TDOUBLE:
        return sizeof(double);
    default:
        return 0;
    }
}

} // namespace tpacf::io::count_fits
