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
#include "io/count_file_fits.h"

#include "tpacf/errors.h"
#include "tpacf/jackknife.h"
#include "tpacf/output_file.h"
#include "tpacf/version.h"

#include <fitsio.h>

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

constexpr const char* kFormatName = "tpacf-counts";
constexpr std::size_t kBlockBytes = std::size_t(8) << 20; // rows written or read at a time

struct FitsCloser {
    void operator()(fitsfile* file) const noexcept {
        int status = 0;
        fits_close_file(file, &status);
    }
};
using FitsPtr = std::unique_ptr<fitsfile, FitsCloser>;

std::string statusText(int status) {
    char text[FLEN_ERRMSG] = {};
    std::string detail;
    if (fits_read_errmsg(text))
        detail = text;
    fits_clear_errmsg();
    if (detail.empty()) {
        char generic[FLEN_STATUS] = {};
        fits_get_errstatus(status, generic);
        detail = generic;
    }
    return detail + " (cfitsio status " + std::to_string(status) + ")";
}

std::size_t elementSize(int datatype) {
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

// ---- writing --------------------------------------------------------------------------------

// A column to write: `values` holds rows × repeat values of `datatype` (for TSTRING, rows
// std::strings).
struct OutColumn {
    std::string name, form, unit;
    int datatype = TDOUBLE;
    LONGLONG repeat = 1;
    const void* values = nullptr;
};

class FitsWriter {
public:
    explicit FitsWriter(const std::string& path) : m_path(path) {}

    void check(int status, const std::string& what) const {
        if (status != 0)
            throw InputError(m_path, 0, 0,
                             "cannot write the FITS count file (" + what +
                                 "): " + statusText(status));
    }

    void table(fitsfile* file, const char* extname, LONGLONG rows,
               const std::vector<OutColumn>& columns) const {
        int status = 0;
        std::vector<char*> names, forms, units;
        for (const OutColumn& column : columns) {
            names.push_back(const_cast<char*>(column.name.c_str()));
            forms.push_back(const_cast<char*>(column.form.c_str()));
            units.push_back(const_cast<char*>(column.unit.c_str()));
        }
        fits_create_tbl(file, BINARY_TBL, rows, static_cast<int>(columns.size()), names.data(),
                        forms.data(), units.data(), extname, &status);
        check(status, std::string("table ") + extname);
        LONGLONG rowBytes = 8;
        for (const OutColumn& column : columns)
            rowBytes += column.repeat * 8;
        const LONGLONG block = std::max<LONGLONG>(1, LONGLONG(kBlockBytes) / rowBytes);
        std::vector<unsigned char> scratch;
        std::vector<char*> texts;
        for (LONGLONG first = 0; first < rows; first += block) {
            const LONGLONG count = std::min(block, rows - first);
            for (std::size_t c = 0; c < columns.size(); ++c) {
                const OutColumn& column = columns[c];
                if (column.datatype == TSTRING) {
                    const auto* strings = static_cast<const std::string*>(column.values);
                    texts.clear();
                    for (LONGLONG row = first; row < first + count; ++row)
                        texts.push_back(const_cast<char*>(strings[row].c_str()));
                    fits_write_col(file, TSTRING, static_cast<int>(c + 1), first + 1, 1, count,
                                   texts.data(), &status);
                } else {
                    // A copy: cfitsio may swap the bytes of what it is given in place.
                    const std::size_t size = elementSize(column.datatype);
                    const std::size_t bytes = std::size_t(count * column.repeat) * size;
                    scratch.resize(bytes);
                    std::memcpy(scratch.data(),
                                static_cast<const unsigned char*>(column.values) +
                                    std::size_t(first * column.repeat) * size,
                                bytes);
                    fits_write_col(file, column.datatype, static_cast<int>(c + 1), first + 1, 1,
                                   count * column.repeat, scratch.data(), &status);
                }
                check(status, std::string(extname) + " column " + column.name);
            }
        }
    }

    void header(fitsfile* file, const char* keyword, const std::string& value,
                const char* comment) const {
        for (const char c : value)
            if (c < 32 || c > 126)
                throw InputError(m_path, 0, 0,
                                 std::string("cannot write the FITS count file: ") + comment +
                                     " holds characters a FITS header cannot carry (printable "
                                     "ASCII only); write the count file as JSON");
        int status = 0;
        fits_write_key_longstr(file, keyword, value.c_str(), comment, &status);
        check(status, std::string("keyword ") + keyword);
    }

private:
    const std::string& m_path;
};

std::string textForm(const std::vector<std::string>& texts) {
    std::size_t width = 1;
    for (const std::string& text : texts)
        width = std::max(width, text.size());
    return std::to_string(width) + "A";
}

std::vector<int> lengthsOf(const std::vector<std::string>& texts, const std::string& path,
                           const char* what) {
    std::vector<int> lengths;
    for (const std::string& text : texts) {
        if (text.find('\0') != std::string::npos ||
            text.size() > std::size_t(std::numeric_limits<int>::max()))
            throw InputError(path, 0, 0,
                             std::string("cannot write the FITS count file: a ") + what +
                                 " holds a NUL character");
        lengths.push_back(static_cast<int>(text.size()));
    }
    return lengths;
}

// ---- reading --------------------------------------------------------------------------------

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
            fail("cannot read " + what + ": " + statusText(status));
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
                 " is not an integer: " + statusText(status));
        return value;
    }
    bool logical(const char* keyword) const {
        int status = 0, value = 0;
        fits_read_key_log(m_file, keyword, &value, nullptr, &status);
        if (status == KEY_NO_EXIST)
            fail(std::string("the keyword ") + keyword + " is missing");
        if (status != 0)
            fail(std::string("the keyword ") + keyword + " is not T or F: " + statusText(status));
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

} // namespace

void writeCountStoreFits(const std::string& path, const CountStore& store) {
    const FitsWriter write(path);
    if (store.edges.size() < 2 || store.chord2Edges.size() != store.edges.size())
        throw InputError(path, 0, 0, "cannot write the FITS count file: the counts have no bins");
    const LONGLONG binCount = LONGLONG(store.edges.size() - 1);
    const LONGLONG regionCount = LONGLONG(store.regionCount);
    const auto wrongSize = [&](const StoredCount& count, const char* what) {
        return InputError(path, 0, 0,
                          "cannot write the FITS count file: count " + count.label + " holds " +
                              what + " of another size than its " + std::to_string(binCount) +
                              " bins and " + std::to_string(regionCount) + " regions");
    };
    std::uint64_t dataBytes = 0;
    for (const StoredCount& count : store.counts) {
        const bool weighted = count.counts.isWeighted();
        if (count.counts.raw.size() != std::size_t(binCount) ||
            (weighted && count.counts.weighted.size() != std::size_t(binCount)))
            throw wrongSize(count, "counts");
        if (count.regions.has_value() != (regionCount > 0))
            throw wrongSize(count, "region tallies");
        if (!count.regions)
            continue;
        const RegionPairCounts& r = *count.regions;
        const std::size_t cells = std::size_t(regionCount * binCount);
        if (r.total != count.counts.raw || r.touching.size() != cells || r.within.size() != cells ||
            r.isWeighted() != weighted ||
            (weighted && (r.weightedTouching.size() != cells || r.weightedWithin.size() != cells ||
                          r.weightedTotal.size() != std::size_t(binCount) ||
                          std::memcmp(r.weightedTotal.data(), count.counts.weighted.data(),
                                      std::size_t(binCount) * sizeof(double)) != 0)))
            throw wrongSize(count, "region tallies (or totals that differ from its counts)");
        dataBytes += cells * (weighted ? 32 : 16);
    }
    dataBytes += store.counts.size() * (std::uint64_t(binCount) * 16 + 64);
    for (const CountCatalog& catalog : store.catalogs)
        dataBytes += store.catalogs.size() * catalog.name.size() + 128;

    // Built in memory and written through the safe output path: a target of any name (cfitsio
    // would read brackets in a name as a filter), replaced only when complete.
    struct Buffer {
        void* data = nullptr;
        std::size_t size = 0;
        ~Buffer() { std::free(data); }
    } buffer;
    // cfitsio allocates the buffer itself (it takes a given buffer's bytes for content): in
    // one piece where the estimate holds, in steps of it otherwise.
    const std::size_t estimate = std::size_t(dataBytes) + 2880 * (8 + 2 * store.counts.size()) +
                                 4 * store.binsDescription.size();
    int status = 0;
    fitsfile* raw = nullptr;
    fits_create_memfile(&raw, &buffer.data, &buffer.size, estimate, &std::realloc, &status);
    FitsPtr file(raw);
    write.check(status, "create");
    fits_create_img(file.get(), BYTE_IMG, 0, nullptr, &status);
    write.check(status, "primary HDU");
    fits_write_key_longwarn(file.get(), &status);
    write.header(file.get(), "TPFORMAT", kFormatName, "a tpacf count file");
    int formatVersion = CountStore::kFormatVersion;
    fits_write_key(file.get(), TINT, "TPVERS", &formatVersion, "count file format version",
                   &status);
    write.header(file.get(), "TOOL", "tpacf " + std::string(version()), "written by");
    write.header(file.get(), "BINDESC", store.binsDescription, "the bins");
    write.header(file.get(), "BINUNIT", std::string(angleUnitName(store.unit)), "unit of EDGE");
    fits_write_key(file.get(), TLONGLONG, "NBINS", const_cast<LONGLONG*>(&binCount),
                   "bins (BINS has NBINS + 1 edges)", &status);
    fits_write_key(file.get(), TLONGLONG, "NREGION", const_cast<LONGLONG*>(&regionCount),
                   "jackknife regions (0: none)", &status);
    write.check(status, "header");
    write.header(file.get(), "BACKEND", store.backend, "the backend that counted");
    write.header(file.get(), "PRECISN", std::string(precisionName(store.precision)),
                 "its precision");
    write.header(file.get(), "CULLING", std::string(cullingModeName(store.culling)),
                 "the culling asked for");
    int culled = store.culled ? 1 : 0;
    fits_write_key(file.get(), TLOGICAL, "CULLED", &culled, "only cell pairs within reach",
                   &status);
    unsigned long parts = store.shareParts;
    fits_write_key(file.get(), TULONG, "SHPARTS", &parts, "N of the work shares (--share K/N)",
                   &status);
    write.check(status, "header");
    std::string held;
    for (const std::uint32_t share : store.sharesHeld)
        held += (held.empty() ? "" : ",") + std::to_string(std::uint64_t(share) + 1);
    write.header(file.get(), "SHHELD", held, "the shares held (1-based K)");

    const std::string unit(angleUnitName(store.unit));
    write.table(file.get(), "BINS", binCount + 1,
                {{"EDGE", "1D", unit, TDOUBLE, 1, store.edges.data()},
                 {"CHORD2", "1D", "", TDOUBLE, 1, store.chord2Edges.data()}});

    std::vector<std::string> names, contents, regionPrints;
    std::vector<ULONGLONG> sizes;
    std::vector<char> catalogWeighted;
    std::vector<double> sums, sumSquares;
    for (const CountCatalog& catalog : store.catalogs) {
        names.push_back(catalog.name);
        contents.push_back(catalog.content.hex());
        regionPrints.push_back(catalog.regions.empty() ? std::string() : catalog.regions.hex());
        sizes.push_back(catalog.size);
        catalogWeighted.push_back(catalog.weighted ? 1 : 0);
        sums.push_back(catalog.weights.sum);
        sumSquares.push_back(catalog.weights.sumSquares);
    }
    const std::vector<int> nameLengths = lengthsOf(names, path, "catalog name");
    write.table(file.get(), "CATALOGS", LONGLONG(store.catalogs.size()),
                {{"NAME", textForm(names), "", TSTRING, 1, names.data()},
                 {"NAMELEN", "1J", "", TINT, 1, nameLengths.data()},
                 {"FINGERPR", "32A", "", TSTRING, 1, contents.data()},
                 {"REGIONFP", "32A", "", TSTRING, 1, regionPrints.data()},
                 {"SIZE", "1W", "", TULONGLONG, 1, sizes.data()},
                 {"WEIGHTED", "1L", "", TLOGICAL, 1, catalogWeighted.data()},
                 {"SUM_W", "1D", "", TDOUBLE, 1, sums.data()},
                 {"SUM_W2", "1D", "", TDOUBLE, 1, sumSquares.data()}});

    std::vector<std::string> labels;
    std::vector<LONGLONG> firsts, seconds;
    std::vector<char> countWeighted;
    std::vector<ULONGLONG> rawCounts;
    std::vector<double> weightedSums;
    for (const StoredCount& count : store.counts) {
        labels.push_back(count.label);
        firsts.push_back(LONGLONG(count.first));
        seconds.push_back(count.second ? LONGLONG(*count.second) : -1);
        countWeighted.push_back(count.counts.isWeighted() ? 1 : 0);
        rawCounts.insert(rawCounts.end(), count.counts.raw.begin(), count.counts.raw.end());
        if (count.counts.isWeighted())
            weightedSums.insert(weightedSums.end(), count.counts.weighted.begin(),
                                count.counts.weighted.end());
        else
            weightedSums.insert(weightedSums.end(), std::size_t(binCount),
                                std::numeric_limits<double>::quiet_NaN());
    }
    const std::vector<int> labelLengths = lengthsOf(labels, path, "count label");
    const std::string vector = std::to_string(binCount);
    write.table(file.get(), "COUNTS", LONGLONG(store.counts.size()),
                {{"LABEL", textForm(labels), "", TSTRING, 1, labels.data()},
                 {"LABELLEN", "1J", "", TINT, 1, labelLengths.data()},
                 {"FIRST", "1K", "", TLONGLONG, 1, firsts.data()},
                 {"SECOND", "1K", "", TLONGLONG, 1, seconds.data()},
                 {"WEIGHTED", "1L", "", TLOGICAL, 1, countWeighted.data()},
                 {"RAW", vector + "W", "", TULONGLONG, binCount, rawCounts.data()},
                 {"WSUM", vector + "D", "", TDOUBLE, binCount, weightedSums.data()}});

    for (std::size_t i = 0; i < store.counts.size() && regionCount > 0; ++i) {
        const RegionPairCounts& r = *store.counts[i].regions;
        std::vector<OutColumn> columns{
            {"TOUCHING", vector + "W", "", TULONGLONG, binCount, r.touching.data()},
            {"WITHIN", vector + "W", "", TULONGLONG, binCount, r.within.data()}};
        if (r.isWeighted()) {
            columns.push_back(
                {"W_TOUCH", vector + "D", "", TDOUBLE, binCount, r.weightedTouching.data()});
            columns.push_back(
                {"W_WITHIN", vector + "D", "", TDOUBLE, binCount, r.weightedWithin.data()});
        }
        write.table(file.get(), "REGIONS", regionCount, columns);
        int extver = static_cast<int>(i + 1);
        fits_write_key(file.get(), TINT, "EXTVER", &extver, "the COUNTS row", &status);
        write.check(status, "REGIONS header");
        write.header(file.get(), "LABEL", store.counts[i].label, "the count");
    }

    LONGLONG headStart = 0, dataStart = 0, dataEnd = 0;
    fits_get_hduaddrll(file.get(), &headStart, &dataStart, &dataEnd, &status);
    write.check(status, "size");
    fits_close_file(file.release(), &status);
    write.check(status, "close");
    if (std::size_t(dataEnd) > buffer.size)
        throw InputError(path, 0, 0, "cannot write the FITS count file: its size is unknown");
    writeFileAtomically(
        path, std::string_view(static_cast<const char*>(buffer.data), std::size_t(dataEnd)));
}

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
        throw InputError(path, 0, 0, "cannot open the FITS count file: " + statusText(status));
    }
    FitsPtr file(raw);
    FitsReader read(path, file.get(), fileSize);

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
    CountStore store;
    store.source = path;
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

    read.requireRows(read.moveTo("BINS", 0, "BINS"), binCount + 1, "NBINS + 1 edges");
    store.edges = read.doubles("EDGE", binCount + 1, 1);
    store.chord2Edges = read.doubles("CHORD2", binCount + 1, 1);

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
    fits_close_file(file.release(), &status);
    return store;
}

} // namespace tpacf::io

bool tpacf::fitsCountFilesSupported() noexcept {
    return true;
}
