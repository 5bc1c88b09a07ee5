// FITS binary tables through cfitsio. Compiled only where cfitsio was found.
#include "fits_reader.h"

#include "tpacf/errors.h"

#include <fitsio.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

namespace tpacf::detail {

namespace {

std::string fitsMessage(int status) {
    char text[FLEN_STATUS] = {};
    fits_get_errstatus(status, text);
    return std::string(text) + " (cfitsio status " + std::to_string(status) + ")";
}

struct FitsCloser {
    void operator()(fitsfile* file) const noexcept {
        int status = 0;
        fits_close_file(file, &status);
    }
};
using FitsPtr = std::unique_ptr<fitsfile, FitsCloser>;

bool equalsIgnoringCase(std::string_view a, std::string_view b) noexcept {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y));
           });
}

struct FitsColumn {
    std::string name;
    int typecode = 0;
    long long repeat = 0;
    bool numericScalar() const noexcept {
        return repeat == 1 && typecode != TSTRING && typecode != TLOGICAL && typecode != TBIT &&
               typecode > 0 && typecode != TCOMPLEX && typecode != TDBLCOMPLEX;
    }
};

// An open binary table: the file positioned at the first BINTABLE HDU, with its columns.
struct FitsTable {
    FitsPtr file;
    int hdu = 0;
    long long rows = 0;
    std::vector<FitsColumn> columns;
};

FitsTable openFirstBinaryTable(const std::string& path) {
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (!std::filesystem::exists(status))
        throw InputError(path, 0, 0, "cannot read the catalog: the file does not exist");
    if (std::filesystem::is_directory(status))
        throw InputError(path, 0, 0, "cannot read the catalog: this is a directory, not a file");

    FitsTable table;
    int fitsStatus = 0;
    fitsfile* raw = nullptr;
    // The disk-file form takes the path literally: no "[ext]" or "+n" filename syntax, so any
    // path a user picks opens as that file.
    if (fits_open_diskfile(&raw, path.c_str(), READONLY, &fitsStatus)) {
        if (raw) {
            int ignored = 0;
            fits_close_file(raw, &ignored);
        }
        throw InputError(path, 0, 0, "cannot open as FITS: " + fitsMessage(fitsStatus));
    }
    table.file.reset(raw);

    int hduCount = 0;
    if (fits_get_num_hdus(raw, &hduCount, &fitsStatus))
        throw InputError(path, 0, 0, "cannot read the FITS structure: " + fitsMessage(fitsStatus));
    for (int hdu = 1; hdu <= hduCount && table.hdu == 0; ++hdu) {
        int type = 0;
        if (fits_movabs_hdu(raw, hdu, &type, &fitsStatus))
            throw InputError(path, 0, 0,
                             "cannot read HDU " + std::to_string(hdu) + ": " +
                                 fitsMessage(fitsStatus));
        if (type == BINARY_TBL)
            table.hdu = hdu;
    }
    if (table.hdu == 0)
        throw InputError(path, 0, 0,
                         "the FITS file holds no binary table (" + std::to_string(hduCount) +
                             " HDUs, none a BINTABLE)");

    int columnCount = 0;
    if (fits_get_num_rowsll(raw, &table.rows, &fitsStatus) ||
        fits_get_num_cols(raw, &columnCount, &fitsStatus))
        throw InputError(path, 0, 0, "cannot read the table size: " + fitsMessage(fitsStatus));
    for (int col = 1; col <= columnCount; ++col) {
        FitsColumn column;
        char keyName[FLEN_KEYWORD] = {};
        char value[FLEN_VALUE] = {};
        fits_make_keyn("TTYPE", col, keyName, &fitsStatus);
        if (fits_read_key(raw, TSTRING, keyName, value, nullptr, &fitsStatus) == KEY_NO_EXIST)
            fitsStatus = 0; // an unnamed column is legal; it is chosen by index
        column.name = value;
        long long width = 0;
        if (fits_get_coltypell(raw, col, &column.typecode, &column.repeat, &width, &fitsStatus))
            throw InputError(path, 0, col,
                             "cannot read the column's type: " + fitsMessage(fitsStatus));
        table.columns.push_back(std::move(column));
    }
    return table;
}

std::string columnLabel(const FitsTable& table, int col) {
    const std::string& name = table.columns[static_cast<std::size_t>(col - 1)].name;
    return name.empty() ? "column " + std::to_string(col) : "column '" + name + "'";
}

std::string availableNames(const FitsTable& table) {
    std::string names;
    for (const FitsColumn& column : table.columns)
        if (!column.name.empty())
            names += (names.empty() ? "" : ", ") + column.name;
    return names.empty() ? "(no named columns)" : names;
}

// 1-based column for an explicit reference, or for the default (named `defaultName`, else the
// first numeric scalar column not yet taken).
int chooseColumn(const FitsTable& table, const std::string& path, const ColumnRef& ref,
                 const char* defaultName, const char* role, const std::vector<int>& taken) {
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
                             "no column named '" + ref.name + "' (for " + role +
                                 ") in the table; available: " + availableNames(table));
    } else if (defaultName) {
        auto free = [&taken](int i) {
            return std::find(taken.begin(), taken.end(), i) == taken.end();
        };
        for (int i = 1; i <= count && col == 0; ++i)
            if (free(i) && equalsIgnoringCase(table.columns[static_cast<std::size_t>(i - 1)].name,
                                              defaultName))
                col = i;
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

std::vector<double> readColumn(const FitsTable& table, const std::string& path, int col,
                               const char* role) {
    std::vector<double> values(static_cast<std::size_t>(table.rows));
    std::vector<char> isNull(values.size());
    int anyNull = 0, status = 0;
    if (fits_read_colnull(table.file.get(), TDOUBLE, col, 1, 1, table.rows, values.data(),
                          isNull.data(), &anyNull, &status))
        throw InputError(path, 0, col,
                         "cannot read " + columnLabel(table, col) + " (" + role +
                             "): " + fitsMessage(status));
    for (std::size_t i = 0; i < values.size(); ++i)
        if (isNull[i] || !std::isfinite(values[i])) {
            const long row = static_cast<long>(i + 1);
            throw InputError(path, row, col,
                             "row " + std::to_string(row) + ", " + columnLabel(table, col) + ": " +
                                 role + " value " +
                                 (isNull[i] ? std::string("is undefined (null)")
                                            : formatNumber(values[i]) + " is not finite"));
        }
    return values;
}

} // namespace

Catalog readFitsCatalog(const std::string& path, const ReadOptions& options) {
    FitsTable table = openFirstBinaryTable(path);
    std::vector<int> taken;
    const int raCol = chooseColumn(table, path, options.raColumn, "RA", "RA", taken);
    taken.push_back(raCol);
    const int decCol = chooseColumn(table, path, options.decColumn, "DEC", "Dec", taken);
    taken.push_back(decCol);
    const int weightCol =
        options.weightColumn.isSet()
            ? chooseColumn(table, path, options.weightColumn, nullptr, "the weight", taken)
            : 0;
    const int regionCol = options.regionColumn.isSet()
                              ? chooseColumn(table, path, options.regionColumn, nullptr,
                                             "the jackknife region", taken)
                              : 0;
    if (table.rows <= 0)
        throw InputError(path, 0, 0,
                         "the binary table in HDU " + std::to_string(table.hdu) + " has no rows");

    std::vector<double> ra = readColumn(table, path, raCol, "RA");
    std::vector<double> dec = readColumn(table, path, decCol, "Dec");
    std::vector<double> weight;
    if (weightCol > 0)
        weight = readColumn(table, path, weightCol, "weight");
    std::vector<std::int32_t> region;
    if (regionCol > 0) {
        const std::vector<double> labels = readColumn(table, path, regionCol, "region");
        region.reserve(labels.size());
        for (std::size_t i = 0; i < labels.size(); ++i)
            region.push_back(regionLabel(labels[i], path, static_cast<long>(i + 1), regionCol,
                                         formatNumber(labels[i])));
    }

    const CoordinateConverter convert(options);
    for (std::size_t i = 0; i < ra.size(); ++i) {
        const std::optional<double> decRadians = convert.decRadians(dec[i]);
        if (!decRadians) {
            const long row = static_cast<long>(i + 1);
            throw InputError(path, row, decCol,
                             "row " + std::to_string(row) + ", " + columnLabel(table, decCol) +
                                 ": " + convert.decRangeProblem(formatNumber(dec[i]), dec[i]));
        }
        ra[i] = convert.raRadians(ra[i]);
        dec[i] = *decRadians;
    }
    return Catalog::fromRadians(path, std::move(ra), std::move(dec), std::move(weight),
                                std::move(region));
}

TablePreview previewFitsFile(const std::string& path, std::size_t maxRows) {
    FitsTable table = openFirstBinaryTable(path);
    TablePreview preview;
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
