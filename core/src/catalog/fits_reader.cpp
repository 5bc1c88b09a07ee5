// SPDX-License-Identifier: GPL-3.0-or-later
// FITS catalogs through cfitsio: columns chosen and read from a table fits_table.cpp opened,
// and previews. Compiled only where cfitsio was found.
#include "base/number_text.h"
#include "catalog/fits_reader.h"
#include "catalog/fits_table.h"

#include "tpacf/errors.h"
#include "tpacf/units.h"

#include <fitsio.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace tpacf::detail {

namespace {

// Rows read from a column at a time: the cancel token is polled between chunks.
constexpr long long kRowChunk = 1 << 16;

std::string columnLabel(const FitsTable& table, int col) {
    const std::string& name = table.columns[static_cast<std::size_t>(col - 1)].name;
    return name.empty() ? "column " + std::to_string(col) : "column " + quoteField(name);
}

std::string availableNames(const FitsTable& table) {
    std::vector<std::string> names;
    for (const FitsColumn& column : table.columns)
        if (!column.name.empty())
            names.push_back(column.name);
    return names.empty() ? "(no named columns)" : joinNames(names);
}

// 1-based column for an explicit reference, or for the default of `axis` (defaultColumnByName,
// else the first numeric scalar column not yet taken); 0 when neither is asked for.
int chooseColumn(const FitsTable& table, const std::string& path, const ColumnRef& ref,
                 std::optional<Axis> axis, const char* role, const std::vector<int>& taken) {
    const int count = static_cast<int>(table.columns.size());
    int col = 0;
    if (ref.index > 0) {
        if (ref.index > count)
            throw InputError(path, 0, ref.index,
                             std::string(role) + " is column " + std::to_string(ref.index) +
                                 ", but the table has only " + std::to_string(count) + " columns");
        col = ref.index;
    } else if (!ref.name.empty()) {
        for (int i = 1; i <= count && col == 0; ++i)
            if (equalsIgnoringCase(table.columns[static_cast<std::size_t>(i - 1)].name, ref.name))
                col = i;
        if (col == 0)
            throw InputError(path, 0, 0,
                             "no column named " + quoteField(ref.name) + " (for " + role +
                                 ") in the table; available: " + availableNames(table));
    } else if (axis) {
        auto free = [&taken](int i) {
            return std::find(taken.begin(), taken.end(), i) == taken.end();
        };
        std::vector<std::string> names;
        for (const FitsColumn& column : table.columns)
            names.push_back(column.name);
        if (const auto named = defaultColumnByName(
                names, *axis, [&](std::size_t i) { return free(static_cast<int>(i) + 1); }, path,
                0))
            col = static_cast<int>(*named) + 1;
        for (int i = 1; i <= count && col == 0; ++i)
            if (free(i) && table.columns[static_cast<std::size_t>(i - 1)].numericScalar())
                col = i;
        if (col == 0)
            throw InputError(path, 0, 0,
                             std::string("no numeric column left for ") + role +
                                 "; columns: " + availableNames(table));
    }
    if (col > 0 && !table.columns[static_cast<std::size_t>(col - 1)].numericScalar())
        throw InputError(path, 0, col,
                         columnLabel(table, col) + " (for " + role +
                             ") does not hold one number per row");
    return col;
}

// The column as doubles, read in chunks of rows between which a cancel request is honoured;
// memory is the rows used, whatever else the table holds.
std::vector<double> readColumn(const FitsTable& table, const std::string& path, int col,
                               const char* role, const ReadOptions& options) {
    std::vector<double> values(static_cast<std::size_t>(table.rows));
    std::vector<char> isNull(static_cast<std::size_t>(std::min(table.rows, kRowChunk)));
    for (long long first = 0; first < table.rows; first += kRowChunk) {
        throwIfCancelled(options);
        const long long count = std::min(kRowChunk, table.rows - first);
        double* const chunk = values.data() + first;
        int anyNull = 0, status = 0;
        if (fits_read_colnull(table.file.get(), TDOUBLE, col, first + 1, 1, count, chunk,
                              isNull.data(), &anyNull, &status))
            throw InputError(path, 0, col,
                             "cannot read " + columnLabel(table, col) + " (" + role +
                                 "): " + io::fitsStatusText(status));
        for (long long i = 0; i < count; ++i)
            if (isNull[static_cast<std::size_t>(i)] || !std::isfinite(chunk[i])) {
                const long row = static_cast<long>(first + i + 1);
                throw InputError(path, row, col,
                                 "row " + std::to_string(row) + ", " + columnLabel(table, col) +
                                     ": " + role + " value " +
                                     (isNull[static_cast<std::size_t>(i)]
                                          ? std::string("is undefined (null)")
                                          : detail::formatDouble(chunk[i]) + " is not finite"));
            }
    }
    return values;
}

// The name a column goes by in summaries: its TTYPE, else "column N".
std::string originName(const FitsTable& table, int col) {
    if (col <= 0)
        return {};
    const std::string& name = table.columns[static_cast<std::size_t>(col - 1)].name;
    return name.empty() ? "column " + std::to_string(col) : name;
}

CatalogOrigin fitsOrigin(const FitsTable& table, const ReadOptions& options, int raCol, int decCol,
                         int weightCol, int regionCol) {
    CatalogOrigin origin;
    origin.format = "fits";
    origin.raColumn = originName(table, raCol);
    origin.decColumn = originName(table, decCol);
    origin.weightColumn = originName(table, weightCol);
    origin.regionColumn = originName(table, regionCol);
    const std::string unit(angleUnitName(options.coordUnit));
    origin.unit = options.raInHours ? "RA in hours, Dec in " + unit : unit;
    auto how = [&table](const ColumnRef& ref, int col) {
        if (ref.isSet())
            return std::string("chosen");
        return table.columns[static_cast<std::size_t>(col - 1)].name.empty()
                   ? std::string("first numeric column")
                   : std::string("column names");
    };
    const std::string raHow = how(options.raColumn, raCol);
    const std::string decHow = how(options.decColumn, decCol);
    origin.columnChoice = raHow == decHow ? raHow : "RA " + raHow + ", Dec " + decHow;
    if (origin.columnChoice == "chosen")
        origin.columnChoice = "as chosen";
    else if (origin.columnChoice == "first numeric column")
        origin.columnChoice = "first numeric columns (no names)";
    origin.selection = table.hduLabel;
    if (!table.columnSpec.empty())
        origin.selection += ", [" + table.columnSpec + "]";
    if (!table.rowFilter.empty())
        origin.selection += ", rows [" + table.rowFilter + "] (" + std::to_string(table.rows) +
                            " of " + std::to_string(table.rowsInFile) + ")";
    origin.rows = static_cast<std::uint64_t>(table.rows);
    return origin;
}

} // namespace

// One FITS file at a time through cfitsio: catalogs read side by side (tpacf run's data and
// randoms) hung now and then in cfitsio's open on its global lock, left held by the other
// thread's use of the library. Every use takes this lock before its table exists, so that
// closing the table (its destructor) is inside it too.
std::mutex& cfitsioUse() {
    static std::mutex lock;
    return lock;
}

Catalog readFitsCatalog(const std::string& path, const ReadOptions& options) {
    const std::lock_guard<std::mutex> serial(cfitsioUse());
    FitsTable table = openTable(path, options, false);
    std::vector<int> taken;
    const int raCol = chooseColumn(table, path, options.raColumn, Axis::Ra, "RA", taken);
    taken.push_back(raCol);
    const int decCol = chooseColumn(table, path, options.decColumn, Axis::Dec, "Dec", taken);
    taken.push_back(decCol);
    const int weightCol =
        options.weightColumn.isSet()
            ? chooseColumn(table, path, options.weightColumn, std::nullopt, "the weight", taken)
            : 0;
    const int regionCol = options.regionColumn.isSet()
                              ? chooseColumn(table, path, options.regionColumn, std::nullopt,
                                             "the jackknife region", taken)
                              : 0;
    if (table.rows <= 0 && !table.rowFilter.empty())
        throw InputError(path, 0, 0,
                         "no rows pass the row filter [" + shortText(table.rowFilter, 80) +
                             "]: the catalog is empty (" + table.hduLabel + " holds " +
                             std::to_string(table.rowsInFile) + " rows)");
    if (table.rows <= 0)
        throw InputError(path, 0, 0, "the binary table in " + table.hduLabel + " has no rows");

    std::vector<double> ra = readColumn(table, path, raCol, "RA", options);
    std::vector<double> dec = readColumn(table, path, decCol, "Dec", options);
    std::vector<double> weight;
    if (weightCol > 0)
        weight = readColumn(table, path, weightCol, "weight", options);
    std::vector<std::int32_t> region;
    if (regionCol > 0) {
        const std::vector<double> labels = readColumn(table, path, regionCol, "region", options);
        region.reserve(labels.size());
        for (std::size_t i = 0; i < labels.size(); ++i)
            region.push_back(regionLabel(labels[i], path, static_cast<long>(i + 1), regionCol,
                                         detail::formatDouble(labels[i])));
    }

    const CoordinateConverter convert(options);
    for (std::size_t i = 0; i < ra.size(); ++i) {
        const std::optional<double> decRadians = convert.decRadians(dec[i]);
        if (!decRadians) {
            const long row = static_cast<long>(i + 1);
            throw InputError(path, row, decCol,
                             "row " + std::to_string(row) + ", " + columnLabel(table, decCol) +
                                 ": " + convert.decRangeProblem(detail::formatDouble(dec[i]), dec[i]));
        }
        ra[i] = convert.raRadians(ra[i]);
        dec[i] = *decRadians;
    }
    Catalog catalog = Catalog::fromRadians(path, std::move(ra), std::move(dec), std::move(weight),
                                           std::move(region));
    catalog.setOrigin(fitsOrigin(table, options, raCol, decCol, weightCol, regionCol));
    return catalog;
}

TablePreview previewFitsFile(const std::string& path, std::size_t maxRows) {
    const std::lock_guard<std::mutex> serial(cfitsioUse());
    FitsTable table = openTable(path, ReadOptions{}, true);
    TablePreview preview;
    preview.hdus = std::move(table.hdus);
    preview.hasHeader = true;
    preview.columnCount = table.columns.size();
    for (const FitsColumn& column : table.columns)
        preview.columnNames.push_back(column.name);
    const long long rows = std::min<long long>(table.rows, static_cast<long long>(maxRows));
    preview.rows.assign(static_cast<std::size_t>(std::max(0LL, rows)),
                        std::vector<std::string>(table.columns.size()));
    for (int col = 1; col <= static_cast<int>(table.columns.size()) && rows > 0; ++col) {
        int status = 0, width = 0, anyNull = 0;
        fits_get_col_display_width(table.file.get(), col, &width, &status);
        // cfitsio formats any column as text; a column it cannot (variable arrays) shows "?".
        std::vector<std::vector<char>> buffers(
            static_cast<std::size_t>(rows),
            std::vector<char>(static_cast<std::size_t>(std::max(width, 1) + 1)));
        std::vector<char*> pointers;
        for (auto& buffer : buffers)
            pointers.push_back(buffer.data());
        char nullText[] = "null";
        if (status == 0)
            fits_read_col(table.file.get(), TSTRING, col, 1, 1, rows, nullText, pointers.data(),
                          &anyNull, &status);
        for (long long r = 0; r < rows; ++r) {
            std::string text =
                status == 0 ? std::string(pointers[static_cast<std::size_t>(r)]) : std::string("?");
            const auto first = text.find_first_not_of(' ');
            const auto last = text.find_last_not_of(' ');
            text =
                first == std::string::npos ? std::string() : text.substr(first, last - first + 1);
            preview.rows[static_cast<std::size_t>(r)][static_cast<std::size_t>(col - 1)] = text;
        }
    }
    return preview;
}

} // namespace tpacf::detail

namespace tpacf {

FitsRowCount countFitsRows(const std::string& path) {
    using namespace detail;
    const std::lock_guard<std::mutex> serial(cfitsioUse());
    // As readCatalog opens it: the same checks on the file and the selection, the filter
    // evaluated by cfitsio over the whole table.
    const FitsTable table = openTable(path, ReadOptions{}, false);
    return {static_cast<std::uint64_t>(std::max(0LL, table.rows)),
            static_cast<std::uint64_t>(std::max(0LL, table.rowsInFile))};
}

} // namespace tpacf
