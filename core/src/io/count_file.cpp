// SPDX-License-Identifier: GPL-3.0-or-later
// Count files: a CountStore as JSON, or as FITS for a name ending .fits, .fit or .fts
// (count_file_fits_write.cpp, count_file_fits_read.cpp). Counts are written as integers and weighted sums with 17 significant
// digits, so that everything reads back bit for bit.
#include "tpacf/count_store.h"

#include "io/count_file_fits.h"
#include "io/json_document.h"
#include "tpacf/errors.h"
#include "tpacf/json_text.h"
#include "tpacf/jackknife.h"
#include "tpacf/output_file.h"
#include "tpacf/version.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <system_error>

namespace tpacf {

namespace {

constexpr std::string_view kFormatName = "tpacf-counts";

bool endsWith(std::string_view text, std::string_view suffix) {
    if (text.size() < suffix.size())
        return false;
    for (std::size_t i = 0; i < suffix.size(); ++i) {
        char c = text[text.size() - suffix.size() + i];
        if (c >= 'A' && c <= 'Z')
            c = static_cast<char>(c - 'A' + 'a');
        if (c != suffix[i])
            return false;
    }
    return true;
}

// ---- writing ------------------------------------------------------------------------------


// 17 significant digits, locale-independent: reads back as the same double.
std::string jsonDouble17(double value) {
    char text[40];
    const auto [end, error] =
        std::to_chars(text, text + sizeof text, value, std::chars_format::general, 17);
    if (error != std::errc())
        throw Error("cannot format a weighted count");
    return std::string(text, end);
}

template <typename Value, typename Format>
void writeArray(std::ostream& out, const std::vector<Value>& values, Format format) {
    out << '[';
    for (std::size_t i = 0; i < values.size(); ++i)
        out << (i ? ", " : "") << format(values[i]);
    out << ']';
}

void writeIntegers(std::ostream& out, const std::vector<std::uint64_t>& values) {
    writeArray(out, values, [](std::uint64_t v) { return std::to_string(v); });
}

void writeDoubles(std::ostream& out, const std::vector<double>& values) {
    writeArray(out, values, jsonDouble17);
}

// ---- reading (io/json_document.h parses) ----------------------------------------------------

using io::JsonValue;

// Typed access to the document, each failure naming the file, the line and the field.
class Reader {
public:
    explicit Reader(const std::string& file) : m_file(file) {}

    [[noreturn]] void fail(const JsonValue& at, const std::string& problem) const {
        throw InputError(m_file, at.line, 0, "count file: " + problem);
    }

    const JsonValue& member(const JsonValue& object, std::string_view key) const {
        if (object.kind != JsonValue::Kind::Object)
            fail(object, "expected an object");
        const JsonValue* value = object.member(key);
        if (!value)
            fail(object, "the field \"" + std::string(key) + "\" is missing");
        return *value;
    }

    bool isNull(const JsonValue& value) const { return value.kind == JsonValue::Kind::Null; }

    std::string string(const JsonValue& value, std::string_view what) const {
        if (value.kind != JsonValue::Kind::String)
            fail(value, std::string(what) + " is not a string");
        return value.text;
    }

    bool boolean(const JsonValue& value, std::string_view what) const {
        if (value.kind != JsonValue::Kind::Bool)
            fail(value, std::string(what) + " is not true or false");
        return value.boolean;
    }

    template <typename Number>
    static std::optional<Number> parseLiteral(std::string_view literal) noexcept {
        Number result{};
        const char* end = literal.data() + literal.size();
        const auto [stop, error] = std::from_chars(literal.data(), end, result);
        if (error == std::errc() && stop == end)
            return result;
        return std::nullopt;
    }

    std::uint64_t integer(const JsonValue& value, std::string_view what) const {
        if (value.kind == JsonValue::Kind::Number)
            if (const auto result = parseLiteral<std::uint64_t>(value.text))
                return *result;
        fail(value, std::string(what) + " is not a non-negative integer");
    }

    double number(const JsonValue& value, std::string_view what) const {
        if (value.kind == JsonValue::Kind::Number)
            if (const auto result = parseLiteral<double>(value.text))
                return *result;
        fail(value, std::string(what) + " is not a number");
    }

    const std::vector<JsonValue>& array(const JsonValue& value, std::string_view what,
                                        std::optional<std::size_t> size = std::nullopt) const {
        if (value.kind != JsonValue::Kind::Array)
            fail(value, std::string(what) + " is not a list");
        const std::size_t held = value.items.size() + value.numbers.size();
        if (size && held != *size)
            fail(value, std::string(what) + " holds " + std::to_string(held) + " values where " +
                            std::to_string(*size) + " belong");
        if (!value.numbers.empty())
            fail(value, std::string(what) + " holds numbers where objects belong");
        return value.items;
    }

    template <typename Number>
    std::vector<Number> numbers(const JsonValue& value, std::string_view what,
                                std::optional<std::size_t> size, const char* kind) const {
        if (value.kind != JsonValue::Kind::Array)
            fail(value, std::string(what) + " is not a list");
        if (size && value.numbers.size() + value.items.size() != *size)
            fail(value, std::string(what) + " holds " +
                            std::to_string(value.numbers.size() + value.items.size()) +
                            " values where " + std::to_string(*size) + " belong");
        if (!value.items.empty())
            fail(value, std::string(what) + " holds something else than numbers");
        std::vector<Number> result;
        result.reserve(value.numbers.size());
        for (const std::string_view literal : value.numbers) {
            const auto parsed = parseLiteral<Number>(literal);
            if (!parsed)
                fail(value, std::string(what) + " holds " + std::string(literal.substr(0, 40)) +
                                ", not " + kind);
            result.push_back(*parsed);
        }
        return result;
    }

    std::vector<std::uint64_t> integers(const JsonValue& value, std::string_view what,
                                        std::size_t size) const {
        return numbers<std::uint64_t>(value, what, size, "a non-negative integer");
    }

    std::vector<double> doubles(const JsonValue& value, std::string_view what,
                                std::optional<std::size_t> size) const {
        return numbers<double>(value, what, size, "a number");
    }

    Fingerprint fingerprint(const JsonValue& value, std::string_view what) const {
        const auto parsed = Fingerprint::parseHex(string(value, what));
        if (!parsed)
            fail(value, std::string(what) + " is not 32 hex digits");
        return *parsed;
    }

private:
    const std::string& m_file;
};

// The parts of a count file's document, each read into `store` (storeOf reads them in order).
void readFormat(const Reader& read, const JsonValue& document, const std::string& name) {
    if (document.kind != JsonValue::Kind::Object || !document.member("format") ||
        document.member("format")->kind != JsonValue::Kind::String ||
        document.member("format")->text != kFormatName)
        throw InputError(name, document.line, 0,
                         "not a tpacf count file (it has no \"format\": \"tpacf-counts\")");
    const JsonValue& versionValue = read.member(document, "version");
    const std::uint64_t version = read.integer(versionValue, "version");
    if (version != static_cast<std::uint64_t>(CountStore::kFormatVersion))
        read.fail(versionValue, "version " + std::to_string(version) +
                                    " is not one this build reads (version " +
                                    std::to_string(CountStore::kFormatVersion) + ")");
}

void readBins(const Reader& read, const JsonValue& document, CountStore& store) {
    const JsonValue& bins = read.member(document, "bins");
    store.binsDescription = read.string(read.member(bins, "description"), "bins.description");
    const JsonValue& unitValue = read.member(bins, "unit");
    const auto unit = parseAngleUnit(read.string(unitValue, "bins.unit"));
    if (!unit)
        read.fail(unitValue, "bins.unit is not an angle unit");
    store.unit = *unit;
    store.edges = read.doubles(read.member(bins, "edges"), "bins.edges", std::nullopt);
    if (store.edges.size() < 2 || store.edges.size() > kMaxBinCount + 1)
        read.fail(bins, "bins.edges holds " + std::to_string(store.edges.size()) +
                            " edges (2 to " + std::to_string(kMaxBinCount + 1) + " belong)");
    store.chord2Edges =
        read.doubles(read.member(bins, "chord2_edges"), "bins.chord2_edges", store.edges.size());
    const JsonValue& regionsValue = read.member(document, "jackknife_regions");
    store.regionCount = read.integer(regionsValue, "jackknife_regions");
    if (store.regionCount == 1 || store.regionCount > std::size_t(kMaxJackknifeRegions))
        read.fail(regionsValue, "jackknife_regions is " + std::to_string(store.regionCount) +
                                    " (0, or 2 to " + std::to_string(kMaxJackknifeRegions) + ")");

}

void readCountedBy(const Reader& read, const JsonValue& document, CountStore& store) {
    const JsonValue& countedBy = read.member(document, "counted_by");
    store.backend = read.string(read.member(countedBy, "backend"), "counted_by.backend");
    const JsonValue& precisionValue = read.member(countedBy, "precision");
    const auto precision = parsePrecision(read.string(precisionValue, "counted_by.precision"));
    if (!precision)
        read.fail(precisionValue, "counted_by.precision is not double or float");
    store.precision = *precision;
    const JsonValue& cullingValue = read.member(countedBy, "culling");
    const auto culling = parseCullingMode(read.string(cullingValue, "counted_by.culling"));
    if (!culling)
        read.fail(cullingValue, "counted_by.culling is not auto, on or off");
    store.culling = *culling;
    store.culled = read.boolean(read.member(countedBy, "culled"), "counted_by.culled");

}

void readShares(const Reader& read, const JsonValue& document, CountStore& store) {
    const JsonValue& shares = read.member(document, "shares");
    const JsonValue& partsValue = read.member(shares, "parts");
    const std::uint64_t parts = read.integer(partsValue, "shares.parts");
    if (parts < 1 || parts > 0xffffffffULL)
        read.fail(partsValue, "shares.parts is out of range");
    store.shareParts = static_cast<std::uint32_t>(parts);
    store.sharesHeld.clear();
    const JsonValue& heldValue = read.member(shares, "held");
    for (const std::uint64_t part :
         read.integers(heldValue, "shares.held", heldValue.numbers.size())) {
        if (part < 1 || part > parts)
            read.fail(heldValue, "shares.held names part " + std::to_string(part) + " of " +
                                     std::to_string(parts));
        const auto share = static_cast<std::uint32_t>(part - 1);
        if (!store.sharesHeld.empty() && store.sharesHeld.back() >= share)
            read.fail(heldValue, "shares.held is not in ascending order without repeats");
        store.sharesHeld.push_back(share);
    }
    if (store.sharesHeld.empty())
        read.fail(heldValue, "shares.held is empty");

}

void readCatalogs(const Reader& read, const JsonValue& document, CountStore& store) {
    for (const JsonValue& item : read.array(read.member(document, "catalogs"), "catalogs")) {
        CountCatalog catalog;
        catalog.name = read.string(read.member(item, "name"), "catalogs.name");
        catalog.content =
            read.fingerprint(read.member(item, "fingerprint"), "catalogs.fingerprint");
        const JsonValue& regions = read.member(item, "region_fingerprint");
        if (!read.isNull(regions))
            catalog.regions = read.fingerprint(regions, "catalogs.region_fingerprint");
        if ((store.regionCount > 0) != !catalog.regions.empty())
            read.fail(regions, store.regionCount > 0 ? "a catalog has no region fingerprint in a "
                                                       "jackknife count file"
                                                     : "a catalog has a region fingerprint "
                                                       "without jackknife regions");
        catalog.size = read.integer(read.member(item, "size"), "catalogs.size");
        catalog.weighted = read.boolean(read.member(item, "weighted"), "catalogs.weighted");
        catalog.weights.sum = read.number(read.member(item, "sum_w"), "catalogs.sum_w");
        catalog.weights.sumSquares = read.number(read.member(item, "sum_w2"), "catalogs.sum_w2");
        store.catalogs.push_back(std::move(catalog));
    }

}

// A count's region tallies, which must add up to its raw counts.
RegionPairCounts regionTalliesOf(const Reader& read, const JsonValue& regions,
                                 const StoredCount& count, std::size_t regionCount,
                                 std::size_t binCount) {
    const std::size_t regionCells = regionCount * binCount;
    RegionPairCounts tallies;
    tallies.regionCount = regionCount;
    tallies.binCount = binCount;
    tallies.total = read.integers(read.member(regions, "total"), "regions.total", binCount);
    tallies.touching =
        read.integers(read.member(regions, "touching"), "regions.touching", regionCells);
    tallies.within =
        read.integers(read.member(regions, "within"), "regions.within", regionCells);
    if (count.counts.isWeighted()) {
        tallies.weightedTotal = read.doubles(read.member(regions, "weighted_total"),
                                             "regions.weighted_total", binCount);
        tallies.weightedTouching = read.doubles(read.member(regions, "weighted_touching"),
                                                "regions.weighted_touching", regionCells);
        tallies.weightedWithin = read.doubles(read.member(regions, "weighted_within"),
                                              "regions.weighted_within", regionCells);
    }
    if (tallies.total != count.counts.raw)
        read.fail(regions, "the region totals of count " + count.label +
                               " differ from its raw counts");
    return tallies;
}


StoredCount countOf(const Reader& read, const JsonValue& item, const CountStore& store,
                    std::size_t binCount) {
    StoredCount count;
    count.label = read.string(read.member(item, "label"), "counts.label");
    const auto catalogIndex = [&](const JsonValue& value, std::string_view what) {
        const std::uint64_t index = read.integer(value, what);
        if (index >= store.catalogs.size())
            read.fail(value, std::string(what) + " names catalog " + std::to_string(index) +
                                 " of " + std::to_string(store.catalogs.size()));
        return static_cast<std::size_t>(index);
    };
    count.first = catalogIndex(read.member(item, "first"), "counts.first");
    const JsonValue& second = read.member(item, "second");
    if (!read.isNull(second))
        count.second = catalogIndex(second, "counts.second");
    count.counts.raw = read.integers(read.member(item, "raw"), "counts.raw", binCount);
    const JsonValue& weighted = read.member(item, "weighted");
    if (!read.isNull(weighted))
        count.counts.weighted = read.doubles(weighted, "counts.weighted", binCount);
    const JsonValue& regions = read.member(item, "regions");
    if (read.isNull(regions) != (store.regionCount == 0))
        read.fail(regions, store.regionCount > 0
                               ? "count " + count.label + " has no region tallies"
                               : "count " + count.label +
                                     " has region tallies without "
                                     "jackknife regions");
    if (!read.isNull(regions))
        count.regions = regionTalliesOf(read, regions, count, store.regionCount, binCount);
    return count;
}

CountStore storeOf(const JsonValue& document, const std::string& name) {
    const Reader read(name);
    readFormat(read, document, name);
    CountStore store;
    store.source = name;
    readBins(read, document, store);
    readCountedBy(read, document, store);
    readShares(read, document, store);
    readCatalogs(read, document, store);
    const std::size_t binCount = store.edges.size() - 1;
    for (const JsonValue& item : read.array(read.member(document, "counts"), "counts"))
        store.counts.push_back(countOf(read, item, store, binCount));
    return store;
}

} // namespace

bool isFitsCountFileName(const std::string& path) {
    for (const std::string_view suffix : {".fits", ".fit", ".fts"})
        if (endsWith(path, suffix))
            return true;
    return false;
}

void requireCountFileFormat(const std::string& path) {
    for (const std::string_view suffix : {".fits.gz", ".fit.gz", ".fts.gz", ".fz"})
        if (endsWith(path, suffix))
            throw ConfigError("count file " + path +
                              ": compressed FITS count files are not supported; name it .fits "
                              "(or .json)");
    if (isFitsCountFileName(path) && !fitsCountFilesSupported())
        throw ConfigError("count file " + path +
                          ": this build has no FITS support (built without cfitsio); name it "
                          ".json");
}

void writeCountStoreJson(std::ostream& out, const CountStore& store) {
    const std::size_t binCount = store.chord2Edges.empty() ? 0 : store.chord2Edges.size() - 1;
    out << "{\n";
    out << "  \"format\": " << jsonQuoted(kFormatName) << ",\n";
    out << "  \"version\": " << CountStore::kFormatVersion << ",\n";
    out << "  \"tool\": " << jsonQuoted("tpacf " + std::string(version())) << ",\n";
    out << "  \"bins\": {\"description\": " << jsonQuoted(store.binsDescription)
        << ", \"unit\": " << jsonQuoted(angleUnitName(store.unit)) << ", \"count\": " << binCount
        << ",\n    \"edges\": ";
    writeDoubles(out, store.edges);
    out << ",\n    \"chord2_edges\": ";
    writeDoubles(out, store.chord2Edges);
    out << "},\n";
    out << "  \"jackknife_regions\": " << store.regionCount << ",\n";
    out << "  \"counted_by\": {\"backend\": " << jsonQuoted(store.backend)
        << ", \"precision\": " << jsonQuoted(precisionName(store.precision))
        << ", \"culling\": " << jsonQuoted(cullingModeName(store.culling))
        << ", \"culled\": " << (store.culled ? "true" : "false") << "},\n";
    out << "  \"shares\": {\"parts\": " << store.shareParts << ", \"held\": [";
    for (std::size_t i = 0; i < store.sharesHeld.size(); ++i)
        out << (i ? ", " : "") << store.sharesHeld[i] + 1;
    out << "]},\n";
    out << "  \"catalogs\": [";
    for (std::size_t i = 0; i < store.catalogs.size(); ++i) {
        const CountCatalog& catalog = store.catalogs[i];
        out << (i ? ",\n" : "\n") << "    {\"name\": " << jsonQuoted(catalog.name)
            << ", \"fingerprint\": " << jsonQuoted(catalog.content.hex())
            << ", \"region_fingerprint\": "
            << (catalog.regions.empty() ? std::string("null") : jsonQuoted(catalog.regions.hex()))
            << ", \"size\": " << catalog.size
            << ", \"weighted\": " << (catalog.weighted ? "true" : "false")
            << ", \"sum_w\": " << jsonDouble17(catalog.weights.sum)
            << ", \"sum_w2\": " << jsonDouble17(catalog.weights.sumSquares) << '}';
    }
    out << "\n  ],\n";
    out << "  \"counts\": [";
    for (std::size_t i = 0; i < store.counts.size(); ++i) {
        const StoredCount& count = store.counts[i];
        out << (i ? ",\n" : "\n") << "    {\"label\": " << jsonQuoted(count.label)
            << ", \"first\": " << count.first << ", \"second\": "
            << (count.second ? std::to_string(*count.second) : std::string("null"))
            << ",\n     \"raw\": ";
        writeIntegers(out, count.counts.raw);
        out << ",\n     \"weighted\": ";
        if (count.counts.isWeighted())
            writeDoubles(out, count.counts.weighted);
        else
            out << "null";
        out << ",\n     \"regions\": ";
        if (!count.regions) {
            out << "null}";
            continue;
        }
        const RegionPairCounts& regions = *count.regions;
        out << "{\"total\": ";
        writeIntegers(out, regions.total);
        out << ",\n       \"touching\": ";
        writeIntegers(out, regions.touching);
        out << ",\n       \"within\": ";
        writeIntegers(out, regions.within);
        if (regions.isWeighted()) {
            out << ",\n       \"weighted_total\": ";
            writeDoubles(out, regions.weightedTotal);
            out << ",\n       \"weighted_touching\": ";
            writeDoubles(out, regions.weightedTouching);
            out << ",\n       \"weighted_within\": ";
            writeDoubles(out, regions.weightedWithin);
        }
        out << "}}";
    }
    out << "\n  ]\n}\n";
}

void writeCountFile(const std::string& path, const CountStore& store) {
    requireCountFileFormat(path);
    if (isFitsCountFileName(path))
        return io::writeCountStoreFits(path, store);
    std::ostringstream text;
    writeCountStoreJson(text, store);
    writeFileAtomically(path, text.view());
}

CountStore parseCountStoreJson(std::string_view text, const std::string& name) {
    return storeOf(io::parseJsonDocument(text, name, "not a valid count file"), name);
}

CountStore readCountFile(const std::string& path) {
    requireCountFileFormat(path);
    std::error_code error;
    if (!std::filesystem::is_regular_file(path, error))
        throw InputError(path, 0, 0,
                         std::filesystem::exists(path, error) ? "not a regular file"
                                                              : "no such count file");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw InputError(path, 0, 0, "cannot open the count file");
    // What the file holds decides, not its name: FITS begins with its SIMPLE card.
    constexpr std::string_view kFitsStart = "SIMPLE  =";
    char start[9] = {};
    in.read(start, sizeof start);
    const bool fits = std::string_view(start, std::size_t(in.gcount())) == kFitsStart;
    if (fits || isFitsCountFileName(path)) {
        if (!fits)
            throw InputError(path, 0, 0,
                             "not a FITS file (it does not begin with SIMPLE =), though its name "
                             "says FITS");
        if (!fitsCountFilesSupported())
            throw InputError(path, 0, 0,
                             "a FITS count file, and this build reads no FITS (built without "
                             "cfitsio)");
        CountStore store = io::readCountStoreFits(path);
        checkCountStorePlausible(store);
        return store;
    }
    in.clear();
    in.seekg(0);
    std::ostringstream content;
    content << in.rdbuf();
    if (in.bad())
        throw InputError(path, 0, 0, "cannot read the count file");
    CountStore store = parseCountStoreJson(content.view(), path);
    checkCountStorePlausible(store);
    return store;
}

#ifndef TPACF_HAVE_CFITSIO
bool fitsCountFilesSupported() noexcept {
    return false;
}

namespace io {

void writeCountStoreFits(const std::string& path, const CountStore&) {
    throw ConfigError("count file " + path +
                      ": this build writes no FITS (built without cfitsio); name it .json");
}

CountStore readCountStoreFits(const std::string& path) {
    throw InputError(path, 0, 0, "this build reads no FITS count files (built without cfitsio)");
}

} // namespace io
#endif

} // namespace tpacf
