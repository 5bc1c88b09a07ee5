#pragma once
// Private to core's readers: the FITS entry points and the pieces the ASCII and FITS readers
// share (unit conversion, Dec checks, number formatting), so both report errors alike.
#include "tpacf/catalog_reader.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tpacf::detail {

/// .fits/.fit/.fts (any case), also with a trailing .gz, which cfitsio opens transparently.
inline bool hasFitsExtension(std::string_view path) {
    std::string lower(path);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    auto endsWith = [&lower](std::string_view suffix) {
        return lower.size() >= suffix.size() &&
               std::string_view(lower).substr(lower.size() - suffix.size()) == suffix;
    };
    if (endsWith(".gz"))
        lower.resize(lower.size() - 3);
    return endsWith(".fits") || endsWith(".fit") || endsWith(".fts");
}

/// Shortest round-trip text of a double.
std::string formatNumber(double value);

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

/// FITS binary tables (defined only where built with cfitsio).
Catalog readFitsCatalog(const std::string& path, const ReadOptions& options);
TablePreview previewFitsFile(const std::string& path, std::size_t maxRows);

/// The ASCII preview, kept next to the ASCII parser so both read lines alike.
TablePreview previewAsciiFile(const std::string& path, std::size_t maxRows);

} // namespace tpacf::detail
