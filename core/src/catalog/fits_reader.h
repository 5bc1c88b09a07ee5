// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Private to core's readers: the FITS entry points and the pieces the ASCII and FITS readers
// share (unit conversion, Dec checks, number formatting), so both report errors alike.
#include "tpacf/catalog_reader.h"

#include "tpacf/errors.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tpacf::detail {

/// Throws Cancelled once the read's cancel token is set; readers call it every few MB or rows.
inline void throwIfCancelled(const ReadOptions& options) {
    if (options.cancelRequested && options.cancelRequested->load(std::memory_order_relaxed))
        throw Cancelled();
}

/// A field as messages show it: at most ~40 characters, control and invalid UTF-8 bytes as
/// \xNN, "..." where cut. A 10 MB field must not become a 10 MB line on stderr.
std::string shortText(std::string_view text, std::size_t maxBytes = 40);
/// shortText in quotes, with the length where it was cut: '12345...' (10485760 bytes).
std::string quoteField(std::string_view text);
/// Column names for "available: ..." lists, each shortened, at most ~10 of them.
std::string joinNames(const std::vector<std::string>& names);

/// A file descriptor closed when it goes out of scope.
class FileDescriptor {
public:
    FileDescriptor() = default;
    explicit FileDescriptor(int fd) noexcept : m_fd(fd) {}
    FileDescriptor(FileDescriptor&& other) noexcept : m_fd(std::exchange(other.m_fd, -1)) {}
    FileDescriptor& operator=(FileDescriptor&& other) noexcept;
    ~FileDescriptor();
    int get() const noexcept { return m_fd; }

private:
    int m_fd = -1;
};

/// A catalog file opened for reading, and its size when it was opened.
struct OpenedFile {
    FileDescriptor fd;
    std::uint64_t size = 0;
};

/// Opens `path` for reading only if it is a regular file (or a link to one): the type is
/// checked before opening, because opening a FIFO without writer blocks forever, and again on
/// the descriptor (opened non-blocking), so a file swapped in between is caught too. Every
/// refusal is an InputError saying what the path is: missing, a dangling link, a link loop, a
/// directory, a FIFO, a device, a socket, unreadable.
OpenedFile openRegularFile(const std::string& path);

enum class Axis { Ra, Dec };

/// The default RA or Dec column among named columns (see ReadOptions::raColumn): a 0-based
/// index, or nullopt when no column has a name (the caller then takes the first numeric one).
/// Only columns `isFree` says are free count. Throws InputError naming `source` and `line`
/// when the columns have names but none, or several, fit.
std::optional<std::size_t> defaultColumnByName(const std::vector<std::string>& names, Axis axis,
                                               const std::function<bool(std::size_t)>& isFree,
                                               const std::string& source, long line);

/// Turns the values of a row into radians as ReadOptions says, and checks Dec in the unit
/// the file uses (so that 90 deg, 5400 arcmin or pi/2 rad are accepted exactly).
class CoordinateConverter {
  public:
    explicit CoordinateConverter(const ReadOptions& options);

    /// RA in radians, not yet wrapped (Catalog wraps).
    double raRadians(double value) const noexcept { return value * m_raRadiansPer; }
    /// Dec in radians, or nullopt when outside [-90°, 90°].
    std::optional<double> decRadians(double value) const noexcept;
    /// "Dec 95.3 deg is outside [-90, 90]", quoting the value as it was written.
    std::string decRangeProblem(std::string_view writtenValue, double value) const;

  private:
    AngleUnit m_unit;
    double m_raRadiansPer;
    double m_decLimit; // 90° in m_unit
};

/// A jackknife region label read as a number: an integer within int32, else InputError naming
/// the place ("region label '2.5' is not an integer"). Labels are remapped to 0..K−1 by the job.
std::int32_t regionLabel(double value, const std::string& source, long line, int column,
                         std::string_view written);

/// A catalog path split into the file and a cfitsio selection after it: "d.fits[1][Z>0.5]" →
/// {"d.fits", "[1][Z>0.5]"}. The selection starts at the first '[' whose prefix exists (else at
/// the first '['); a path that names an existing file has none.
struct CatalogPath {
    std::string file;
    std::string selection; // "" or "[...]..."
};
CatalogPath splitCatalogPath(const std::string& path);

/// FITS binary tables (defined only where built with cfitsio): the HDU the path's selection or
/// ReadOptions::hdu names, else the first BINTABLE; its NAXIS2 checked against the file before
/// anything is allocated (and before cfitsio filters it); then the selection's column list and
/// row filter applied by cfitsio. gzip data (by its magic bytes, whatever the name) decompressed
/// to a private temporary file, removed afterwards.
Catalog readFitsCatalog(const std::string& path, const ReadOptions& options);
TablePreview previewFitsFile(const std::string& path, std::size_t maxRows);

/// The ASCII preview, kept next to the ASCII parser so both read lines alike.
TablePreview previewAsciiFile(const std::string& path, std::size_t maxRows);

} // namespace tpacf::detail
