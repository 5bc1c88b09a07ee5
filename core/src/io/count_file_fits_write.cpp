// SPDX-License-Identifier: GPL-3.0-or-later
// Count files as FITS, the writing side (the layout: count_file_fits_format.h).
#include "io/count_file_fits.h"
#include "io/count_file_fits_format.h"
#include "io/fits_memory_file.h"

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
                                 "): " + fitsStatusText(status));
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

// The bytes the tables will take (for the in-memory file's first size); InputError where a count
// holds counts or region tallies of another size than the bins and regions.
std::uint64_t checkedDataBytes(const std::string& path, const CountStore& store, LONGLONG binCount,
                               LONGLONG regionCount) {
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

    return dataBytes;
}

// The primary HDU: format, bins, regions, how the counts were made, the shares held.
void writePrimaryHeader(const FitsWriter& write, fitsfile* file, const CountStore& store,
                        LONGLONG binCount, LONGLONG regionCount) {
    int status = 0;
    fits_create_img(file, BYTE_IMG, 0, nullptr, &status);
    write.check(status, "primary HDU");
    fits_write_key_longwarn(file, &status);
    write.header(file, "TPFORMAT", kFormatName, "a tpacf count file");
    int formatVersion = CountStore::kFormatVersion;
    fits_write_key(file, TINT, "TPVERS", &formatVersion, "count file format version", &status);
    write.header(file, "TOOL", "tpacf " + std::string(version()), "written by");
    write.header(file, "BINDESC", store.binsDescription, "the bins");
    write.header(file, "BINUNIT", std::string(angleUnitName(store.unit)), "unit of EDGE");
    fits_write_key(file, TLONGLONG, "NBINS", const_cast<LONGLONG*>(&binCount),
                   "bins (BINS has NBINS + 1 edges)", &status);
    fits_write_key(file, TLONGLONG, "NREGION", const_cast<LONGLONG*>(&regionCount),
                   "jackknife regions (0: none)", &status);
    write.check(status, "header");
    write.header(file, "BACKEND", store.backend, "the backend that counted");
    write.header(file, "PRECISN", std::string(precisionName(store.precision)), "its precision");
    write.header(file, "CULLING", std::string(cullingModeName(store.culling)),
                 "the culling asked for");
    int culled = store.culled ? 1 : 0;
    fits_write_key(file, TLOGICAL, "CULLED", &culled, "only cell pairs within reach", &status);
    unsigned long parts = store.shareParts;
    fits_write_key(file, TULONG, "SHPARTS", &parts, "N of the work shares (--share K/N)", &status);
    write.check(status, "header");
    std::string held;
    for (const std::uint32_t share : store.sharesHeld)
        held += (held.empty() ? "" : ",") + std::to_string(std::uint64_t(share) + 1);
    write.header(file, "SHHELD", held, "the shares held (1-based K)");

}

void writeCatalogTable(const FitsWriter& write, fitsfile* file, const std::string& path,
                       const CountStore& store) {
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
    write.table(file, "CATALOGS", LONGLONG(store.catalogs.size()),
                {{"NAME", textForm(names), "", TSTRING, 1, names.data()},
                 {"NAMELEN", "1J", "", TINT, 1, nameLengths.data()},
                 {"FINGERPR", "32A", "", TSTRING, 1, contents.data()},
                 {"REGIONFP", "32A", "", TSTRING, 1, regionPrints.data()},
                 {"SIZE", "1W", "", TULONGLONG, 1, sizes.data()},
                 {"WEIGHTED", "1L", "", TLOGICAL, 1, catalogWeighted.data()},
                 {"SUM_W", "1D", "", TDOUBLE, 1, sums.data()},
                 {"SUM_W2", "1D", "", TDOUBLE, 1, sumSquares.data()}});

}

void writeCountTable(const FitsWriter& write, fitsfile* file, const std::string& path,
                     const CountStore& store, LONGLONG binCount) {
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
    write.table(file, "COUNTS", LONGLONG(store.counts.size()),
                {{"LABEL", textForm(labels), "", TSTRING, 1, labels.data()},
                 {"LABELLEN", "1J", "", TINT, 1, labelLengths.data()},
                 {"FIRST", "1K", "", TLONGLONG, 1, firsts.data()},
                 {"SECOND", "1K", "", TLONGLONG, 1, seconds.data()},
                 {"WEIGHTED", "1L", "", TLOGICAL, 1, countWeighted.data()},
                 {"RAW", vector + "W", "", TULONGLONG, binCount, rawCounts.data()},
                 {"WSUM", vector + "D", "", TDOUBLE, binCount, weightedSums.data()}});

}

// One REGIONS table per count (EXTVER: its COUNTS row).
void writeRegionTables(const FitsWriter& write, fitsfile* file, const CountStore& store,
                       LONGLONG binCount, LONGLONG regionCount) {
    int status = 0;
    const std::string vector = std::to_string(binCount);
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
        write.table(file, "REGIONS", regionCount, columns);
        int extver = static_cast<int>(i + 1);
        fits_write_key(file, TINT, "EXTVER", &extver, "the COUNTS row", &status);
        write.check(status, "REGIONS header");
        write.header(file, "LABEL", store.counts[i].label, "the count");
    }

}

} // namespace

void writeCountStoreFits(const std::string& path, const CountStore& store) {
    const FitsWriter write(path);
    if (store.edges.size() < 2 || store.chord2Edges.size() != store.edges.size())
        throw InputError(path, 0, 0, "cannot write the FITS count file: the counts have no bins");
    const LONGLONG binCount = LONGLONG(store.edges.size() - 1);
    const LONGLONG regionCount = LONGLONG(store.regionCount);
    const std::uint64_t dataBytes = checkedDataBytes(path, store, binCount, regionCount);
    // Built in memory and written through the safe output path (fits_memory_file.h).
    const std::size_t estimate = std::size_t(dataBytes) + 2880 * (8 + 2 * store.counts.size()) +
                                 4 * store.binsDescription.size();
    MemoryFitsFile memory(path, "FITS count file", estimate);
    fitsfile* const file = memory.get();
    writePrimaryHeader(write, file, store, binCount, regionCount);
    const std::string unit(angleUnitName(store.unit));
    write.table(file, "BINS", binCount + 1,
                {{"EDGE", "1D", unit, TDOUBLE, 1, store.edges.data()},
                 {"CHORD2", "1D", "", TDOUBLE, 1, store.chord2Edges.data()}});
    writeCatalogTable(write, file, path, store);
    writeCountTable(write, file, path, store, binCount);
    writeRegionTables(write, file, store, binCount, regionCount);
    memory.commit();
}

} // namespace tpacf::io

bool tpacf::fitsCountFilesSupported() noexcept {
    return true;
}
