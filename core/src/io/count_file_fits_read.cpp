// SPDX-License-Identifier: GPL-3.0-or-later
// Count files as FITS, the reading side (the layout: count_file_fits_format.h): every size is
// checked against the file before anything is allocated.
#include "io/count_file_fits.h"
#include "io/count_file_fits_format.h"

#include "tpacf/errors.h"
#include "tpacf/jackknife.h"
#include "tpacf/output_file.h"
#include "tpacf/version.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <string_view>
#include <vector>

namespace tpacf::io {

namespace {

using namespace count_fits;

class FitsReader {
public:
    FitsReader(const std::string& path, fitsfile* file, std::uint64_t fileSize)
        : m_path(path), m_file(file), m_fileSize(fileSize) {}

    [[noreturn]] void fail(const std::string& problem) const {
        throw InputError(m_path, 0, 0,
                         "FITS count file: " + (m_hdu.empty() ? std::string() : m_hdu + ": ") +
                             problem);
    }
    void check(int status, const std::string& what) const {
        if (status != 0)
            fail("cannot read " + what + ": " + fitsStatusText(status));
    }

    void primary() {
        m_hdu = "the primary header";
        int type = 0, status = 0;
        fits_movabs_hdu(m_file, 1, &type, &status);
        check(status, "the primary HDU");
    }

    std::optional<std::string> optionalText(const char* keyword) const {
        int status = 0;
        char* value = nullptr;
        fits_read_key_longstr(m_file, keyword, &value, nullptr, &status);
        if (status == KEY_NO_EXIST) {
            fits_clear_errmsg();
            return std::nullopt;
        }
        std::string result = value ? value : "";
        if (value)
            fits_free_memory(value, &status);
        check(status, std::string("keyword ") + keyword);
        return result;
    }
    std::string text(const char* keyword) const {
        if (auto value = optionalText(keyword))
            return *value;
        fail(std::string("the keyword ") + keyword + " is missing");
    }
    long long integer(const char* keyword) const {
        int status = 0;
        long long value = 0;
        fits_read_key_lnglng(m_file, keyword, &value, nullptr, &status);
        if (status == KEY_NO_EXIST)
            fail(std::string("the keyword ") + keyword + " is missing");
        if (status != 0)
            fail(std::string("the keyword ") + keyword +
                 " is not an integer: " + fitsStatusText(status));
        return value;
    }
    bool logical(const char* keyword) const {
        int status = 0, value = 0;
        fits_read_key_log(m_file, keyword, &value, nullptr, &status);
        if (status == KEY_NO_EXIST)
            fail(std::string("the keyword ") + keyword + " is missing");
        if (status != 0)
            fail(std::string("the keyword ") + keyword +
                 " is not T or F: " + fitsStatusText(status));
        return value != 0;
    }

    /// Moves to the binary table `extname` (EXTVER `version`, 0: any) and returns its rows,
    /// checked against the file: a cut-short file or a lying header allocates nothing.
    LONGLONG moveTo(const char* extname, int version, const std::string& label) {
        m_hdu.clear();
        int status = 0;
        fits_movnam_hdu(m_file, BINARY_TBL, const_cast<char*>(extname), version, &status);
        if (status == BAD_HDU_NUM) {
            fits_clear_errmsg();
            fail("it has no binary table " + label);
        }
        check(status, "the table " + label);
        m_hdu = "table " + label;
        LONGLONG rows = 0, headStart = 0, dataStart = 0, dataEnd = 0;
        fits_get_num_rowsll(m_file, &rows, &status);
        fits_get_hduaddrll(m_file, &headStart, &dataStart, &dataEnd, &status);
        check(status, "its size");
        if (rows < 0 || static_cast<std::uint64_t>(dataEnd) > m_fileSize)
            fail("its header gives " + std::to_string(dataEnd - dataStart) +
                 " bytes of data, but the file ends " +
                 std::to_string(m_fileSize > std::uint64_t(dataStart)
                                    ? m_fileSize - std::uint64_t(dataStart)
                                    : 0) +
                 " bytes after its start: the file is cut short");
        return rows;
    }

    void requireRows(LONGLONG rows, LONGLONG expected, const std::string& what) const {
        if (rows != expected)
            fail("it has " + std::to_string(rows) + " rows where " + std::to_string(expected) +
                 " belong (" + what + ")");
    }

    /// The column `name` of the current table, which must hold `repeat` values (-1: any) of
    /// `datatype` a row (for TSTRING, `repeat` is the width). Returns its number and repeat.
    std::pair<int, LONGLONG> column(const char* name, int datatype, LONGLONG repeat,
                                    const char* kind) const {
        int status = 0, number = 0;
        fits_get_colnum(m_file, CASESEN, const_cast<char*>(name), &number, &status);
        if (status != 0) {
            fits_clear_errmsg();
            fail(std::string("the column ") + name + " is missing");
        }
        int type = 0;
        LONGLONG held = 0, width = 0;
        fits_get_eqcoltypell(m_file, number, &type, &held, &width, &status);
        check(status, std::string("the column ") + name);
        // cfitsio names a 'J' column's type TLONG; we read it into ints.
        if (type != (datatype == TINT ? TLONG : datatype))
            fail(std::string("the column ") + name + " is not " + kind);
        if (repeat >= 0 && held != repeat)
            fail(std::string("the column ") + name + " holds " + std::to_string(held) +
                 " values a row where " + std::to_string(repeat) + " belong");
        return {number, held};
    }

    template <typename Value>
    std::vector<Value> numbers(const char* name, int datatype, LONGLONG rows, LONGLONG repeat,
                               const char* kind) const {
        const int number = column(name, datatype, repeat, kind).first;
        std::vector<Value> values(std::size_t(rows * repeat));
        const LONGLONG block = std::max<LONGLONG>(1, LONGLONG(kBlockBytes) / (8 * repeat + 1));
        int status = 0, anyNull = 0;
        for (LONGLONG first = 0; first < rows && status == 0; first += block) {
            const LONGLONG count = std::min(block, rows - first);
            fits_read_col(m_file, datatype, number, first + 1, 1, count * repeat, nullptr,
                          values.data() + first * repeat, &anyNull, &status);
        }
        check(status, std::string("the column ") + name);
        return values;
    }

    std::vector<std::uint64_t> counts(const char* name, LONGLONG rows, LONGLONG repeat) const {
        static_assert(sizeof(ULONGLONG) == sizeof(std::uint64_t));
        const auto values = numbers<ULONGLONG>(name, TULONGLONG, rows, repeat,
                                               "unsigned 64-bit integers (K, TZERO = 2^63)");
        return {values.begin(), values.end()};
    }
    std::vector<double> doubles(const char* name, LONGLONG rows, LONGLONG repeat) const {
        return numbers<double>(name, TDOUBLE, rows, repeat, "64-bit floating point (D)");
    }
    std::vector<char> logicals(const char* name, LONGLONG rows) const {
        return numbers<char>(name, TLOGICAL, rows, 1, "logical (L)");
    }

    /// Text of `name`, its trailing blanks given back from the lengths in `lengthName`.
    std::vector<std::string> texts(const char* name, const char* lengthName, LONGLONG rows) const {
        const auto [number, width] = column(name, TSTRING, -1, "text (A)");
        std::vector<int> lengths;
        if (lengthName)
            lengths = numbers<int>(lengthName, TINT, rows, 1, "32-bit integers (J)");
        std::vector<std::string> result;
        std::vector<char> buffer(std::size_t(width) + 1);
        for (LONGLONG row = 0; row < rows; ++row) {
            int status = 0, anyNull = 0;
            char* pointer = buffer.data();
            std::fill(buffer.begin(), buffer.end(), '\0');
            fits_read_col(m_file, TSTRING, number, row + 1, 1, 1, nullptr, &pointer, &anyNull,
                          &status);
            check(status, std::string("the column ") + name);
            std::string value(buffer.data());
            // cfitsio gives an empty text as one blank.
            value.erase(value.find_last_not_of(' ') + 1);
            if (lengthName) {
                const int length = lengths[std::size_t(row)];
                if (length < 0 || std::size_t(length) > std::size_t(width) ||
                    value.size() > std::size_t(length))
                    fail(std::string(lengthName) + " of row " + std::to_string(row + 1) + " is " +
                         std::to_string(length) + ", not the length of " + name);
                value.resize(std::size_t(length), ' ');
            }
            result.push_back(std::move(value));
        }
        return result;
    }

private:
    const std::string& m_path;
    fitsfile* m_file;
    std::uint64_t m_fileSize;
    std::string m_hdu;
};

Fingerprint fingerprintOf(const FitsReader& read, const std::string& text, const char* column,
                          LONGLONG row) {
    const auto parsed = Fingerprint::parseHex(text);
    if (!parsed)
        read.fail(std::string("the ") + column + " of row " + std::to_string(row + 1) +
                  " is not 32 hex digits");
    return *parsed;
}

// The primary header: format and version, the bins' description and unit, NBINS and NREGION,
// how the counts were made. Returns NBINS.
long long readPrimaryHeader(FitsReader& read, const std::string& path, CountStore& store) {
    read.primary();
    const auto format = read.optionalText("TPFORMAT");
    if (!format || *format != kFormatName)
        throw InputError(path, 0, 0,
                         "not a tpacf count file (its primary header has no TPFORMAT = "
                         "'tpacf-counts')");
    const long long formatVersion = read.integer("TPVERS");
    if (formatVersion != CountStore::kFormatVersion)
        read.fail("version " + std::to_string(formatVersion) +
                  " is not one this build reads (version " +
                  std::to_string(CountStore::kFormatVersion) + ")");
    store.binsDescription = read.text("BINDESC");
    const auto unit = parseAngleUnit(read.text("BINUNIT"));
    if (!unit)
        read.fail("BINUNIT is not an angle unit");
    store.unit = *unit;
    const long long binCount = read.integer("NBINS");
    if (binCount < 1 || binCount > LONGLONG(kMaxBinCount))
        read.fail("NBINS is " + std::to_string(binCount) + " (1 to " +
                  std::to_string(kMaxBinCount) + ")");
    const long long regionCount = read.integer("NREGION");
    if (regionCount < 0 || regionCount == 1 || regionCount > kMaxJackknifeRegions)
        read.fail("NREGION is " + std::to_string(regionCount) + " (0, or 2 to " +
                  std::to_string(kMaxJackknifeRegions) + ")");
    store.regionCount = std::size_t(regionCount);
    store.backend = read.text("BACKEND");
    const auto precision = parsePrecision(read.text("PRECISN"));
    if (!precision)
        read.fail("PRECISN is not double or float");
    store.precision = *precision;
    const auto culling = parseCullingMode(read.text("CULLING"));
    if (!culling)
        read.fail("CULLING is not auto, on or off");
    store.culling = *culling;
    store.culled = read.logical("CULLED");
    const long long parts = read.integer("SHPARTS");
    if (parts < 1 || parts > 0xffffffffLL)
        read.fail("SHPARTS is out of range");
    store.shareParts = std::uint32_t(parts);
    return binCount;
}

// SHPARTS and SHHELD (1-based parts, ascending, no repeats).
void readShares(FitsReader& read, CountStore& store) {
    const long long parts = store.shareParts;
    store.sharesHeld.clear();
    std::istringstream held(read.text("SHHELD"));
    for (std::string word; std::getline(held, word, ',');) {
        long long part = 0;
        const auto [end, failed] = std::from_chars(word.data(), word.data() + word.size(), part);
        if (failed != std::errc() || end != word.data() + word.size() || part < 1 || part > parts)
            read.fail("SHHELD names '" + word.substr(0, 20) + "', not a part of 1 to " +
                      std::to_string(parts));
        if (!store.sharesHeld.empty() && store.sharesHeld.back() >= std::uint32_t(part - 1))
            read.fail("SHHELD is not in ascending order without repeats");
        store.sharesHeld.push_back(std::uint32_t(part - 1));
    }
    if (store.sharesHeld.empty())
        read.fail("SHHELD is empty");

}

void readCatalogTable(FitsReader& read, CountStore& store) {
    const long long regionCount = static_cast<long long>(store.regionCount);
    const LONGLONG catalogCount = read.moveTo("CATALOGS", 0, "CATALOGS");
    const auto names = read.texts("NAME", "NAMELEN", catalogCount);
    const auto contents = read.texts("FINGERPR", nullptr, catalogCount);
    const auto regionPrints = read.texts("REGIONFP", nullptr, catalogCount);
    const auto sizes = read.counts("SIZE", catalogCount, 1);
    const auto catalogWeighted = read.logicals("WEIGHTED", catalogCount);
    const auto sums = read.doubles("SUM_W", catalogCount, 1);
    const auto sumSquares = read.doubles("SUM_W2", catalogCount, 1);
    for (LONGLONG row = 0; row < catalogCount; ++row) {
        const std::size_t i = std::size_t(row);
        CountCatalog catalog;
        catalog.name = names[i];
        catalog.content = fingerprintOf(read, contents[i], "FINGERPR", row);
        if (!regionPrints[i].empty())
            catalog.regions = fingerprintOf(read, regionPrints[i], "REGIONFP", row);
        if ((regionCount > 0) == catalog.regions.empty())
            read.fail("row " + std::to_string(row + 1) +
                      (regionCount > 0 ? " has no REGIONFP in a jackknife count file"
                                       : " has a REGIONFP without jackknife regions"));
        catalog.size = sizes[i];
        catalog.weighted = catalogWeighted[i] != 0;
        catalog.weights = {sums[i], sumSquares[i]};
        store.catalogs.push_back(std::move(catalog));
    }

}

void readCountTable(FitsReader& read, CountStore& store, long long binCount) {
    const LONGLONG catalogCount = LONGLONG(store.catalogs.size());
    const LONGLONG countRows = read.moveTo("COUNTS", 0, "COUNTS");
    const auto labels = read.texts("LABEL", "LABELLEN", countRows);
    const auto firsts =
        read.numbers<LONGLONG>("FIRST", TLONGLONG, countRows, 1, "64-bit integers (K)");
    const auto seconds =
        read.numbers<LONGLONG>("SECOND", TLONGLONG, countRows, 1, "64-bit integers (K)");
    const auto countWeighted = read.logicals("WEIGHTED", countRows);
    const auto rawCounts = read.counts("RAW", countRows, binCount);
    const auto weightedSums = read.doubles("WSUM", countRows, binCount);
    const std::size_t bins = std::size_t(binCount);
    for (LONGLONG row = 0; row < countRows; ++row) {
        const std::size_t i = std::size_t(row);
        StoredCount count;
        count.label = labels[i];
        const auto catalogIndex = [&](LONGLONG index, const char* column) {
            if (index < 0 || index >= catalogCount)
                read.fail(std::string(column) + " of row " + std::to_string(row + 1) +
                          " names catalog " + std::to_string(index) + " of " +
                          std::to_string(catalogCount) + " (0-based)");
            return std::size_t(index);
        };
        count.first = catalogIndex(firsts[i], "FIRST");
        if (seconds[i] != -1)
            count.second = catalogIndex(seconds[i], "SECOND");
        count.counts.raw.assign(rawCounts.begin() + i * bins, rawCounts.begin() + (i + 1) * bins);
        if (countWeighted[i])
            count.counts.weighted.assign(weightedSums.begin() + i * bins,
                                         weightedSums.begin() + (i + 1) * bins);
        store.counts.push_back(std::move(count));
    }
}

// One REGIONS table per count (EXTVER: its COUNTS row).
void readRegionTables(FitsReader& read, CountStore& store, long long binCount) {
    const long long regionCount = static_cast<long long>(store.regionCount);
    const std::size_t bins = std::size_t(binCount);
    for (std::size_t i = 0; i < store.counts.size() && regionCount > 0; ++i) {
        StoredCount& count = store.counts[i];
        const std::string label =
            "REGIONS " + std::to_string(i + 1) + " (of count " + count.label + ")";
        read.requireRows(read.moveTo("REGIONS", int(i + 1), label), regionCount,
                         "a row per region");
        RegionPairCounts tallies;
        tallies.regionCount = std::size_t(regionCount);
        tallies.binCount = bins;
        tallies.total = count.counts.raw;
        tallies.touching = read.counts("TOUCHING", regionCount, binCount);
        tallies.within = read.counts("WITHIN", regionCount, binCount);
        if (count.counts.isWeighted()) {
            tallies.weightedTotal = count.counts.weighted;
            tallies.weightedTouching = read.doubles("W_TOUCH", regionCount, binCount);
            tallies.weightedWithin = read.doubles("W_WITHIN", regionCount, binCount);
        }
        count.regions = std::move(tallies);
    }
}

} // namespace

CountStore readCountStoreFits(const std::string& path) {
    std::error_code error;
    const std::uint64_t fileSize = std::filesystem::file_size(path, error);
    if (error)
        throw InputError(path, 0, 0, "cannot read the count file: " + error.message());
    int status = 0;
    fitsfile* raw = nullptr;
    fits_clear_errmsg();
    if (fits_open_diskfile(&raw, path.c_str(), READONLY, &status)) {
        if (raw) {
            int ignored = 0;
            fits_close_file(raw, &ignored);
        }
        throw InputError(path, 0, 0, "cannot open the FITS count file: " + fitsStatusText(status));
    }
    FitsPtr file(raw);
    FitsReader read(path, file.get(), fileSize);

    CountStore store;
    store.source = path;
    const long long binCount = readPrimaryHeader(read, path, store);
    readShares(read, store);
    read.requireRows(read.moveTo("BINS", 0, "BINS"), binCount + 1, "NBINS + 1 edges");
    store.edges = read.doubles("EDGE", binCount + 1, 1);
    store.chord2Edges = read.doubles("CHORD2", binCount + 1, 1);

    readCatalogTable(read, store);
    readCountTable(read, store, binCount);
    readRegionTables(read, store, binCount);
    fits_close_file(file.release(), &status);
    return store;
}

} // namespace tpacf::io
