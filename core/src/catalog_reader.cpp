// Format dispatch, column references and the unit handling both readers share.
#include "tpacf/catalog_reader.h"

#include "fits_reader.h"
#include "tpacf/errors.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>

namespace tpacf {

ColumnRef ColumnRef::parse(std::string_view text) {
    if (text.empty())
        throw ConfigError("empty column reference: give a column name or a 1-based index");
    const bool negative = text.front() == '-';
    const std::string_view digits = negative ? text.substr(1) : text;
    const bool allDigits = !digits.empty() && std::all_of(digits.begin(), digits.end(), [](char c) {
        return c >= '0' && c <= '9';
    });
    if (!allDigits)
        return ColumnRef{std::string(text), 0};
    if (negative)
        throw ConfigError("column index " + std::string(text) +
                          " is negative; columns count from 1");
    int index = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
    if (ec != std::errc() || end != digits.data() + digits.size())
        throw ConfigError("column index " + std::string(text) + " is too large");
    if (index == 0)
        throw ConfigError("column index 0 is not valid; columns count from 1");
    return ColumnRef{std::string(), index};
}

std::string ColumnRef::describe() const {
    if (index > 0)
        return "column " + std::to_string(index);
    if (!name.empty())
        return "column '" + name + "'";
    return "default column";
}

bool fitsSupported() noexcept {
#ifdef TPACF_HAVE_CFITSIO
    return true;
#else
    return false;
#endif
}

Catalog readCatalog(const std::string& path, const ReadOptions& options) {
#ifdef TPACF_HAVE_CFITSIO
    if (detail::hasFitsExtension(path))
        return detail::readFitsCatalog(path, options);
#endif
    return readAsciiCatalog(path, options);
}

TablePreview previewCatalogFile(const std::string& path, std::size_t maxRows) {
#ifdef TPACF_HAVE_CFITSIO
    if (detail::hasFitsExtension(path))
        return detail::previewFitsFile(path, maxRows);
#endif
    return detail::previewAsciiFile(path, maxRows);
}

namespace detail {

std::string formatNumber(double value) {
    char buffer[64];
    const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
    return ec == std::errc() ? std::string(buffer, end) : std::to_string(value);
}

namespace {
double quarterTurnIn(AngleUnit unit) {
    switch (unit) {
    case AngleUnit::Degree:
        return 90.0;
    case AngleUnit::Arcminute:
        return 90.0 * 60.0;
    case AngleUnit::Arcsecond:
        return 90.0 * 3600.0;
    case AngleUnit::Radian:
        return 0.5 * kPi;
    }
    return 90.0;
}
} // namespace

CoordinateConverter::CoordinateConverter(const ReadOptions& options)
    : m_unit(options.coordUnit),
      m_raRadiansPer(options.raInHours ? 15.0 * radiansPer(AngleUnit::Degree)
                                       : radiansPer(options.coordUnit)),
      m_decLimit(quarterTurnIn(options.coordUnit)) {}

std::optional<double> CoordinateConverter::decRadians(double value) const noexcept {
    if (!(value >= -m_decLimit && value <= m_decLimit))
        return std::nullopt;
    // The check above is exact in the file's unit; the conversion may overshoot by an ulp.
    const double halfPi = 0.5 * kPi;
    return std::clamp(value * radiansPer(m_unit), -halfPi, halfPi);
}

std::string CoordinateConverter::decRangeProblem(std::string_view writtenValue,
                                                 double value) const {
    std::string problem = "Dec " + std::string(writtenValue) + " " +
                          std::string(angleUnitName(m_unit)) + " is outside ";
    switch (m_unit) {
    case AngleUnit::Degree:
        return problem + "[-90, 90]";
    case AngleUnit::Radian:
        return problem + "[-pi/2, pi/2]";
    default:
        return problem + "[-" + formatNumber(m_decLimit) + ", " + formatNumber(m_decLimit) + "] (" +
               formatNumber(value / m_decLimit * 90.0) + " deg)";
    }
}

std::int32_t regionLabel(double value, const std::string& source, long line, int column,
                         std::string_view written) {
    if (!std::isfinite(value) || value != std::floor(value))
        throw InputError(source, line, column,
                         "jackknife region label '" + std::string(written) + "' is not an integer");
    if (value < static_cast<double>(std::numeric_limits<std::int32_t>::min()) ||
        value > static_cast<double>(std::numeric_limits<std::int32_t>::max()))
        throw InputError(source, line, column,
                         "jackknife region label '" + std::string(written) +
                             "' is out of the range of a 32-bit integer");
    return static_cast<std::int32_t>(value);
}

} // namespace detail
} // namespace tpacf
