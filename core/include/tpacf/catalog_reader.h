// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Readers that turn files into Catalogs. Every failure is an InputError naming file, line, column.
#include "tpacf/catalog.h"
#include "tpacf/units.h"

#include <atomic>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace tpacf {

/// A column chosen by header name or by 1-based index; unset means "the default".
struct ColumnRef {
    std::string name;
    int index = 0; // 1-based; 0 = not given by index

    bool isSet() const noexcept { return index > 0 || !name.empty(); }
    /// "3" → index 3, anything else → name. Throws ConfigError for "0", negative numbers or "".
    static ColumnRef parse(std::string_view text);
    /// "column 3" or "column 'dec'", for messages.
    std::string describe() const;
};

struct ReadOptions {
    /// Unset RA/Dec: where the columns have names (ASCII header, FITS), the column named ra
    /// (dec), any case, else the only one whose name starts with such a word (RA_J2000,
    /// "RA (deg)", ALPHA_J2000, RAJ2000; DE_ICRS, DELTA_J2000, DEJ2000); no such column, or two,
    /// is an InputError asking for the column. Without names: the first (next) numeric column.
    ColumnRef raColumn;
    ColumnRef decColumn;
    ColumnRef weightColumn; // unset: no weights
    /// Jackknife region labels (integers, any values; the job maps them onto 0..K−1 in sorted
    /// order over all catalogs). Unset: no regions. A non-integer is an InputError.
    ColumnRef regionColumn;
    AngleUnit coordUnit = AngleUnit::Degree;
    bool raInHours = false; // RA given in hours (Dec still in coordUnit)
    /// FITS: the table's HDU, by 1-based extension number ("1": the first extension) or
    /// EXTNAME (any case; "NAME,2" for EXTVER 2). Empty: the first binary table. An HDU named
    /// in the path ("d.fits[CATALOG]") overrides it for that file. Ignored for ASCII files.
    std::string hdu;
    /// Polled while reading (every few MB of a file, every chunk of rows); once it reads true
    /// the reader throws Cancelled, so a Ctrl-C does not wait for a 10^8-row file to be read.
    /// nullptr: the read cannot be cancelled.
    const std::atomic<bool>* cancelRequested = nullptr;
    /// Threads that parse an ASCII file's rows and compute the catalog's unit vectors (0: every
    /// hardware thread). The catalog and any error are the same for every value; only the speed
    /// differs.
    int threads = 0;
};

/// Reads a catalog file in the format formatFor (catalog_formats.h) picks: FITS binary tables
/// (where built with cfitsio) by name (.fits, .fit, .fts, also .gz, any case) or by content
/// (except under .txt and .csv names), anything else ASCII. A FITS path may end in cfitsio's
/// selection syntax: "d.fits[CATALOG]", "d.fits[1][Z>0.4 && Z<0.8]",
/// "d.fits[1][col RA;DEC;W=WEIGHT*WFKP]", "d.fits[1][col RA=POS[1];DEC=POS[2]]" (the column list
/// is applied before the row filter); the file is the part before the first '[' (unless the
/// whole path names a file). Reads only regular files: a directory, FIFO, device or socket is an
/// InputError (a FIFO without writer would block forever, /dev/zero never ends). Throws Cancelled
/// when options.cancelRequested is set during the read.
Catalog readCatalog(const std::string& path, const ReadOptions& options = {});

/// A catalog from coordinates in memory (a numpy array, a pipeline's columns), converted and
/// checked as the file readers convert a row: RA and Dec in options.coordUnit (RA in hours with
/// options.raInHours), Dec checked in its own unit first (90 deg, 5400 arcmin and pi/2 rad are
/// accepted exactly) with the readers' words ("Dec 5460 arcmin is outside [-5400, 5400] (91 deg)
/// (row 7)"); lengths, non-finite values and weights as Catalog::fromRadians reports them, all
/// naming `name` and the 1-based row. Built on options.threads threads; the columns of options
/// are not used.
Catalog catalogFromCoordinates(std::string name, std::vector<double> ra, std::vector<double> dec,
                               std::vector<double> weight, std::vector<std::int32_t> region,
                               const ReadOptions& options);

/// Whether this build reads FITS tables (built with cfitsio): whether the format table has them.
bool fitsSupported() noexcept;
/// The cfitsio this build reads and writes FITS with, e.g. "cfitsio 4.2"; "" without FITS.
std::string fitsLibraryVersion();
/// "libhdf5 1.10.8" where HDF5 catalogs are read (built with libhdf5); "" otherwise.
std::string hdf5LibraryVersion();

/// ASCII: whitespace (spaces, tabs) or comma separated; '#' comments; LF, CRLF or lone CR line
/// ends; an optional header line naming columns; an optional first line holding only the row
/// count (checked against the rows read).
Catalog readAsciiCatalog(const std::string& path, const ReadOptions& options = {});
/// The same on text in memory; `sourceName` stands for the file in messages.
Catalog parseAsciiCatalog(std::string_view text, const std::string& sourceName,
                          const ReadOptions& options = {});

/// First rows of a table, for a column-mapping dialog.
struct TablePreview {
    std::vector<std::string> columnNames; // from the header; empty when there is none
    std::vector<std::vector<std::string>> rows; // raw fields of the first data rows
    std::size_t columnCount = 0;
    bool hasHeader = false;
    bool hasCountLine = false;
    /// FITS: every extension, "1: CATALOG (5000 rows, 4 columns)", "2: MASK (image)"; the
    /// preview shows the one readCatalog would read. Empty for ASCII.
    std::vector<std::string> hdus;
};
/// Reads at most `maxRows` data rows, in the format readCatalog would use (a FITS path may carry
/// a selection, as for readCatalog). Throws InputError when the file cannot be read.
TablePreview previewCatalogFile(const std::string& path, std::size_t maxRows = 20);

/// The rows of a FITS table that a selection keeps ('d.fits[2][Z>0.4 && Z<0.8]'), and the rows
/// of the table, as readCatalog would find them: the row filter is evaluated by cfitsio over the
/// whole table (what a column dialog shows before the catalog is read).
struct FitsRowCount {
    std::uint64_t passing = 0;
    std::uint64_t total = 0;
};
/// Throws InputError naming the path and what is wrong: the file, the HDU, the filter (cfitsio's
/// word on it), or a build without FITS support.
FitsRowCount countFitsRows(const std::string& path);

} // namespace tpacf
