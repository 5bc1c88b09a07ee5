// SPDX-License-Identifier: GPL-3.0-or-later
// HEALPix maps and MOCs read from FITS (readSkyMask, sky_mask.h). The table is opened as a
// catalog is (fits_table.cpp: size checks, .fits.gz, no selection that reads another file);
// the header says what it holds: PIXTYPE = 'HEALPIX' with ORDERING RING/NESTED and NSIDE (a
// map, as healpy, Planck, DES and DESI write them), or ORDERING NUNIQ/RANGE (a MOC, IVOA MOC
// 1.x and 2.0, as mocpy, Aladin and TOPCAT write them).
#include "tpacf/sky_mask.h"

#include "catalog/fits_table.h"
#include "tpacf/errors.h"

#include <healpix_base.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace tpacf {

namespace {

using detail::FitsTable;

// Values are read this many at a time: a full-sky map at NSIDE 8192 is 805 million of them.
constexpr long long kChunk = 1 << 20;

// healpy's UNSEEN, the value of pixels without data (-1.6375e30), taken as completeness 0.
bool isUnseen(double value) noexcept { return value < -1.6e30 && value > -1.7e30; }

std::optional<std::string> keyword(fitsfile* file, const char* name) {
    char value[FLEN_VALUE] = {};
    int status = 0;
    if (fits_read_key(file, TSTRING, name, value, nullptr, &status)) {
        fits_clear_errmsg();
        return std::nullopt;
    }
    std::string text(value);
    text.erase(text.find_last_not_of(' ') + 1);
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return text;
}

std::optional<long long> integerKeyword(fitsfile* file, const char* name) {
    long long value = 0;
    int status = 0;
    if (fits_read_key_lnglng(file, name, &value, nullptr, &status)) {
        fits_clear_errmsg();
        return std::nullopt;
    }
    return value;
}

bool isInteger(int typecode) noexcept {
    switch (std::abs(typecode)) {
    case TBYTE: case TSBYTE: case TSHORT: case TUSHORT: case TINT: case TUINT: case TLONG:
    case TULONG: case TLONGLONG: case TULONGLONG:
        return true;
    default:
        return false;
    }
}

bool isNumeric(int typecode) noexcept {
    const int code = std::abs(typecode);
    return isInteger(code) || code == TFLOAT || code == TDOUBLE;
}

// Column index (0-based) by name, any case; -1 when none.
int columnNamed(const FitsTable& table, const std::string& name) {
    for (std::size_t i = 0; i < table.columns.size(); ++i)
        if (detail::equalsIgnoringCase(table.columns[i].name, name))
            return static_cast<int>(i);
    return -1;
}

std::string columnList(const FitsTable& table) {
    std::string names;
    for (const auto& column : table.columns)
        names += (names.empty() ? "" : ", ") + column.name;
    return names;
}

long long elementsOf(const FitsTable& table, int column) {
    return table.rows * table.columns[static_cast<std::size_t>(column)].repeat;
}

// Reads elements [first, first + count) of a column (rows × repeat, in order) as `type`.
template <typename T>
void readElements(const std::string& path, const FitsTable& table, int column, int type,
                  long long first, long long count, T* into) {
    const long long repeat = table.columns[static_cast<std::size_t>(column)].repeat;
    int status = 0, anyNull = 0;
    if (fits_read_col(table.file.get(), type, column + 1, first / repeat + 1, first % repeat + 1,
                      count, nullptr, into, &anyNull, &status))
        throw InputError(path, 0, 0,
                         "cannot read column " + table.columns[static_cast<std::size_t>(column)].name +
                             ": " + io::fitsStatusText(status));
}

std::vector<std::uint64_t> readIntegers(const std::string& path, const FitsTable& table,
                                        int column) {
    const long long n = elementsOf(table, column);
    std::vector<long long> raw(static_cast<std::size_t>(n));
    for (long long first = 0; first < n; first += kChunk)
        readElements(path, table, column, TLONGLONG, first, std::min(kChunk, n - first),
                     raw.data() + first);
    std::vector<std::uint64_t> out(raw.size());
    for (std::size_t i = 0; i < raw.size(); ++i) {
        if (raw[i] < 0)
            throw InputError(path, static_cast<long>(i + 1), 0,
                             "negative value " + std::to_string(raw[i]) + " in column " +
                                 table.columns[static_cast<std::size_t>(column)].name);
        out[i] = static_cast<std::uint64_t>(raw[i]);
    }
    return out;
}

std::string fileName(const std::string& path) {
    const auto slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

SkyMask readMoc(const std::string& path, const FitsTable& table, const std::string& ordering) {
    int column = -1;
    for (std::size_t i = 0; i < table.columns.size() && column < 0; ++i)
        if (isInteger(table.columns[i].typecode))
            column = static_cast<int>(i);
    if (column < 0)
        throw InputError(path, 0, 0,
                         "a MOC needs an integer column (UNIQ or RANGE); " + table.hduLabel +
                             " has " + columnList(table));
    const std::vector<std::uint64_t> values = readIntegers(path, table, column);
    const long long order = integerKeyword(table.file.get(), "MOCORDER")
                                .value_or(integerKeyword(table.file.get(), "MOCORD_S").value_or(29));
    try {
        if (ordering == "RANGE")
            return SkyMask::fromDeepRanges(values, static_cast<int>(order),
                                           "MOC " + fileName(path) + " (MOC 2.0 ranges, order " +
                                               std::to_string(order) + ")");
        return SkyMask::fromMocCells(values, "MOC " + fileName(path) + " (" +
                                                 std::to_string(values.size()) +
                                                 " cells, order up to " + std::to_string(order) +
                                                 ")");
    } catch (const ConfigError& error) {
        throw InputError(path, 0, 0, error.what());
    }
}

struct MapLayout {
    std::int64_t nside = 0;
    int order = 0;
    bool ring = true;
    bool explicitPixels = false;
    long long firstPixel = 0; // implicit maps: the pixel of the first value
};

MapLayout mapLayout(const std::string& path, const FitsTable& table, const std::string& ordering) {
    MapLayout layout;
    if (ordering != "RING" && ordering != "NESTED" && ordering != "NEST")
        throw InputError(path, 0, 0,
                         "ORDERING = '" + ordering +
                             "' is none of RING, NESTED (a map), NUNIQ, RANGE (a MOC)");
    layout.ring = ordering == "RING";
    const auto nside = integerKeyword(table.file.get(), "NSIDE");
    if (!nside)
        throw InputError(path, 0, 0, "a HEALPix map needs the NSIDE keyword; " + table.hduLabel +
                                         " has none");
    if (*nside < 1 || *nside > kMaxMaskNside || (*nside & (*nside - 1)) != 0)
        throw InputError(path, 0, 0,
                         "NSIDE = " + std::to_string(*nside) +
                             " is not a power of 2 from 1 to " + std::to_string(kMaxMaskNside));
    layout.nside = *nside;
    layout.order = std::countr_zero(static_cast<std::uint64_t>(*nside));
    const std::string scheme = keyword(table.file.get(), "INDXSCHM").value_or("IMPLICIT");
    const std::string object = keyword(table.file.get(), "OBJECT").value_or("");
    layout.explicitPixels =
        scheme == "EXPLICIT" || (object == "PARTIAL" && columnNamed(table, "PIXEL") >= 0);
    if (!layout.explicitPixels && object == "PARTIAL")
        layout.firstPixel = integerKeyword(table.file.get(), "FIRSTPIX").value_or(0);
    return layout;
}

int valueColumn(const std::string& path, const FitsTable& table, const MaskReadOptions& options,
                bool explicitPixels) {
    if (!options.column.empty()) {
        const int column = columnNamed(table, options.column);
        if (column < 0 || !isNumeric(table.columns[static_cast<std::size_t>(column)].typecode))
            throw InputError(path, 0, 0,
                             "no numeric column '" + options.column + "' in " + table.hduLabel +
                                 "; columns: " + columnList(table));
        return column;
    }
    for (std::size_t i = 0; i < table.columns.size(); ++i)
        if (isNumeric(table.columns[i].typecode) &&
            !(explicitPixels && detail::equalsIgnoringCase(table.columns[i].name, "PIXEL")))
            return static_cast<int>(i);
    throw InputError(path, 0, 0, "no numeric column of completeness in " + table.hduLabel);
}

SkyMask readMap(const std::string& path, const FitsTable& table, const std::string& ordering,
                const MaskReadOptions& options) {
    const MapLayout layout = mapLayout(path, table, ordering);
    const int column = valueColumn(path, table, options, layout.explicitPixels);
    const std::string columnName = table.columns[static_cast<std::size_t>(column)].name;
    const long long values = elementsOf(table, column);
    const long long npix = 12 * layout.nside * layout.nside;
    std::vector<std::uint64_t> pixelColumn;
    if (layout.explicitPixels) {
        const int pixel = columnNamed(table, "PIXEL");
        if (pixel < 0 || !isInteger(table.columns[static_cast<std::size_t>(pixel)].typecode))
            throw InputError(path, 0, 0,
                             "an explicitly indexed map needs an integer PIXEL column; columns: " +
                                 columnList(table));
        pixelColumn = readIntegers(path, table, pixel);
        if (static_cast<long long>(pixelColumn.size()) != values)
            throw InputError(path, 0, 0, "PIXEL holds " + std::to_string(pixelColumn.size()) +
                                             " values and " + columnName + " " +
                                             std::to_string(values));
    } else {
        // A run of pixels FIRSTPIX..LASTPIX short of the whole sky only where OBJECT says the
        // map is partial: elsewhere (healpy writes both keywords for every map) a short column
        // is a wrong NSIDE or a damaged file.
        const bool partial = keyword(table.file.get(), "OBJECT").value_or("") == "PARTIAL";
        const long long last =
            partial ? integerKeyword(table.file.get(), "LASTPIX").value_or(layout.firstPixel + values - 1)
                    : npix - 1;
        if (layout.firstPixel < 0 || last >= npix || last - layout.firstPixel + 1 != values)
            throw InputError(path, 0, 0,
                             "column " + columnName + " holds " + std::to_string(values) +
                                 " values, but NSIDE " + std::to_string(layout.nside) +
                                 (partial ? " with FIRSTPIX " + std::to_string(layout.firstPixel) +
                                                " and LASTPIX " + std::to_string(last)
                                          : std::string()) +
                                 " needs " +
                                 std::to_string(partial ? last - layout.firstPixel + 1 : npix));
    }
    const T_Healpix_Base<std::int64_t> base(layout.order, layout.ring ? RING : NEST);
    std::vector<std::uint64_t> nested;
    std::vector<float> completeness;
    std::vector<double> chunk;
    for (long long first = 0; first < values; first += kChunk) {
        const long long count = std::min(kChunk, values - first);
        chunk.resize(static_cast<std::size_t>(count));
        readElements(path, table, column, TDOUBLE, first, count, chunk.data());
        for (long long i = 0; i < count; ++i) {
            const long long index = first + i;
            const long long pixel = layout.explicitPixels
                                        ? static_cast<long long>(pixelColumn[static_cast<std::size_t>(index)])
                                        : layout.firstPixel + index;
            const double value = chunk[static_cast<std::size_t>(i)];
            const auto where = [&] {
                return " at pixel " + std::to_string(pixel) + " (" + columnName + ", value " +
                       std::to_string(index + 1) + ")";
            };
            if (pixel >= npix)
                throw InputError(path, 0, 0,
                                 "pixel " + std::to_string(pixel) + " is beyond NSIDE " +
                                     std::to_string(layout.nside) + "'s " + std::to_string(npix) +
                                     " pixels (" + columnName + ", value " +
                                     std::to_string(index + 1) + ")");
            if (std::isnan(value))
                throw InputError(path, 0, 0,
                                 "completeness is NaN" + where() +
                                     "; a mask needs values in [0, 1] (0 or UNSEEN outside)");
            if (isUnseen(value) || value == 0.0)
                continue;
            if (value < 0.0 || value > 1.0)
                throw InputError(path, 0, 0,
                                 "completeness " + std::to_string(value) + where() +
                                     " is not in [0, 1]");
            nested.push_back(static_cast<std::uint64_t>(layout.ring ? base.ring2nest(pixel) : pixel));
            completeness.push_back(static_cast<float>(value));
        }
    }
    const std::string description = "HEALPix map " + fileName(path) + " (NSIDE " +
                                    std::to_string(layout.nside) + ", " +
                                    (layout.ring ? "RING" : "NESTED") +
                                    (layout.explicitPixels ? ", explicit pixels" : "") +
                                    ", column " + columnName + ")";
    try {
        return SkyMask::fromNestedPixels(layout.order, nested, completeness, description);
    } catch (const ConfigError& error) {
        throw InputError(path, 0, 0, error.what());
    }
}

} // namespace

SkyMask readSkyMask(const std::string& path, const MaskReadOptions& options) {
    const std::lock_guard<std::mutex> serial(detail::cfitsioUse());
    ReadOptions tableOptions;
    tableOptions.hdu = options.hdu;
    const FitsTable table = detail::openTable(path, tableOptions, false);
    fitsfile* file = table.file.get();
    const auto pixtype = keyword(file, "PIXTYPE");
    const std::string ordering = keyword(file, "ORDERING").value_or("");
    const bool moc = ordering == "NUNIQ" || ordering == "RANGE" ||
                     integerKeyword(file, "MOCORDER") || integerKeyword(file, "MOCORD_S");
    if (pixtype != "HEALPIX" && !moc)
        throw InputError(path, 0, 0,
                         "not a HEALPix map or MOC: " + table.hduLabel +
                             " has no PIXTYPE = 'HEALPIX' keyword (columns: " + columnList(table) +
                             ")");
    if (table.rows == 0)
        throw InputError(path, 0, 0, table.hduLabel + " holds no rows: the mask is empty");
    SkyMask mask = moc ? readMoc(path, table, ordering) : readMap(path, table, ordering, options);
    if (mask.empty())
        throw InputError(path, 0, 0,
                         "the mask covers no part of the sky (every completeness is 0)");
    return mask;
}

} // namespace tpacf
