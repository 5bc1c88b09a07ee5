#include "tpacf/result_io.h"

#include "tpacf/errors.h"
#include "tpacf/output_file.h"
#include "tpacf/units.h"
#include "tpacf/version.h"

#include <array>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <ostream>
#include <sstream>
#include <system_error>

namespace tpacf {

namespace {

constexpr const char* kToolName = "TPACF Studio";

// Every number goes through std::to_chars/std::to_string, never operator<< on a number: a
// stream imbued with a grouping locale would write 1,234 and break the CSV.

std::string formatDouble(double value) {
    if (std::isnan(value))
        return "nan";
    if (std::isinf(value))
        return value > 0 ? "inf" : "-inf";
    // Shortest form that reads back to the same double.
    std::array<char, 32> buffer{};
    const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
    return std::string(buffer.data(), result.ptr);
}

std::string formatJsonDouble(double value) {
    return std::isfinite(value) ? formatDouble(value) : std::string("null");
}

// Metadata values sit on one '#' line each; a name with a line break would end the comment.
std::string oneLine(std::string text) {
    for (char& c : text)
        if (c == '\n' || c == '\r')
            c = ' ';
    return text;
}

std::string jsonString(std::string_view text) {
    std::string quoted = "\"";
    for (const char c : text) {
        switch (c) {
        case '"':
            quoted += "\\\"";
            break;
        case '\\':
            quoted += "\\\\";
            break;
        case '\n':
            quoted += "\\n";
            break;
        case '\r':
            quoted += "\\r";
            break;
        case '\t':
            quoted += "\\t";
            break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                std::array<char, 8> escaped{};
                std::snprintf(escaped.data(), escaped.size(), "\\u%04x",
                              static_cast<unsigned>(static_cast<unsigned char>(c)));
                quoted += escaped.data();
            } else {
                quoted += c;
            }
        }
    }
    return quoted + "\"";
}

// UTC now as ISO 8601, from <chrono> calendar types (no gmtime: it is not thread-safe).
std::string utcTimestamp() {
    using namespace std::chrono;
    const auto now = floor<seconds>(system_clock::now());
    const auto day = floor<days>(now);
    const year_month_day date{day};
    const hh_mm_ss time{now - day};
    std::array<char, 32> buffer{};
    std::snprintf(buffer.data(), buffer.size(), "%04d-%02u-%02uT%02d:%02d:%02dZ",
                  static_cast<int>(date.year()), static_cast<unsigned>(date.month()),
                  static_cast<unsigned>(date.day()), static_cast<int>(time.hours().count()),
                  static_cast<int>(time.minutes().count()),
                  static_cast<int>(time.seconds().count()));
    return buffer.data();
}

std::string thetaConvention(AngleUnit unit, BinScale scale) {
    return std::string("theta_lo, theta_hi, theta_mid in ") + std::string(angleUnitName(unit)) +
           "; theta_mid is the " + (scale == BinScale::Logarithmic ? "geometric" : "arithmetic") +
           " centre of the bin; nan marks an undefined value";
}

const char* const kBinConvention =
    "a pair is in bin k when theta_lo <= theta < theta_hi; pairs are binned on the squared chord "
    "4 sin^2(theta/2) against the bin edges' squared chords computed in double; pairs outside "
    "the first and last edge are not counted";

std::string precisionConvention(Precision precision) {
    if (precision == Precision::Double)
        return "double precision: counts are exact (identical to the CPU reference)";
    return "float precision: coordinates as hi+lo float pairs; a count may differ from the double "
           "reference only through pairs within ~1e-6 (relative) of a bin edge";
}

// The lines both the result CSV and JSON carry, as (key, value).
using Metadata = std::vector<std::pair<std::string, std::string>>;

Metadata resultMetadata(const CorrelationResult& result) {
    Metadata lines;
    lines.emplace_back("tool", std::string(kToolName) + " " + std::string(version()));
    lines.emplace_back("created", utcTimestamp());
    lines.emplace_back("status", result.status == JobStatus::Completed ? "completed" : "cancelled");
    lines.emplace_back("data",
                       oneLine(result.data.name) + " N=" + std::to_string(result.data.size));
    for (std::size_t i = 0; i < result.randoms.size(); ++i)
        lines.emplace_back("random " + std::to_string(i + 1),
                           oneLine(result.randoms[i].name) +
                               " N=" + std::to_string(result.randoms[i].size));
    lines.emplace_back("bins", result.bins.describe());
    lines.emplace_back("bin count", std::to_string(result.binCount()));
    lines.emplace_back("estimator", std::string(estimatorName(result.estimator)) + ": " +
                                        std::string(estimatorFormula(result.estimator)));
    lines.emplace_back("backend", oneLine(result.backendName));
    lines.emplace_back("device", oneLine(result.deviceDescription));
    lines.emplace_back("precision", std::string(precisionName(result.precision)));
    lines.emplace_back("culling", describeCulling(result.cullingRequested, result.culled));
    lines.emplace_back("elapsed", formatDouble(result.elapsedSeconds) + " s");
    if (!result.backendNotice.empty())
        lines.emplace_back("notice", oneLine(result.backendNotice));
    if (result.hasJackknife()) {
        lines.emplace_back("jackknife", std::to_string(result.jackknifeRegions.count) +
                                            " regions, " + oneLine(result.jackknifeRegions.method));
        for (const std::string& warning : result.jackknifeRegions.warnings)
            lines.emplace_back("jackknife warning", oneLine(warning));
    }
    return lines;
}

const char* const kJackknifeConvention =
    "w_err = sqrt(C_ii), C_ij = (K-1)/K sum_k (w_k,i - mean_i)(w_k,j - mean_j) over the K "
    "jackknife samples; w_k is the estimator on the counts without the pairs touching region k, "
    "normalised by the pair totals of the catalogs without region k";

std::vector<std::string> resultConventions(const CorrelationResult& result) {
    std::vector<std::string> conventions{
        "DD and RR_i count each unordered pair (i<j) once; DR_i counts all N_D*N_Ri pairs",
        kBinConvention,
        precisionConvention(result.precision),
        "DR and RR columns are raw counts summed over the " +
            std::to_string(result.randoms.size()) + " random set(s)",
        "DD_norm = DD/(N_D(N_D-1)/2); DR_norm = mean over sets i of DR_i/(N_D*N_Ri); "
        "RR_norm = mean over sets i of RR_i/(N_Ri(N_Ri-1)/2)",
        "w from DD_norm, DR_norm, RR_norm: " + std::string(estimatorFormula(result.estimator)),
        thetaConvention(result.bins.unit, result.bins.scale),
    };
    if (result.hasJackknife())
        conventions.emplace_back(kJackknifeConvention);
    return conventions;
}

void writeMetadata(std::ostream& out, const Metadata& metadata,
                   const std::vector<std::string>& conventions) {
    for (const auto& [key, value] : metadata)
        out << "# " << key << ": " << value << '\n';
    for (const std::string& convention : conventions)
        out << "# convention: " << convention << '\n';
}

void requireSize(std::size_t actual, std::size_t expected, const char* what) {
    if (actual != expected)
        throw ConfigError(std::string("result is inconsistent: ") + what + " has " +
                          std::to_string(actual) + " entries for " + std::to_string(expected) +
                          " bins");
}

// The number of table rows: every bin when counts are present; none for a result that holds
// no counts (a cancelled job). Anything in between is a bug upstream, reported not written.
std::size_t checkedRowCount(const CorrelationResult& result) {
    if (result.raw.dd.empty() && result.w.empty())
        return 0;
    const std::size_t bins = result.binCount();
    requireSize(result.edges.size(), bins + 1, "edges");
    requireSize(result.raw.dd.size(), bins, "DD");
    for (const PairCounts& counts : result.raw.dr)
        requireSize(counts.size(), bins, "a DR histogram");
    for (const PairCounts& counts : result.raw.rr)
        requireSize(counts.size(), bins, "an RR histogram");
    requireSize(result.normalised.dd.size(), bins, "DD_norm");
    requireSize(result.normalised.dr.size(), bins, "DR_norm");
    requireSize(result.normalised.rr.size(), bins, "RR_norm");
    requireSize(result.w.size(), bins, "w");
    if (result.hasJackknife()) {
        requireSize(result.wError.size(), bins, "w_err");
        if (result.covariance.size() != bins * bins)
            throw ConfigError("result is inconsistent: the covariance has " +
                              std::to_string(result.covariance.size()) + " entries for " +
                              std::to_string(bins) + " x " + std::to_string(bins) + " bins");
        for (const std::vector<double>& sample : result.jackknifeSamples)
            requireSize(sample.size(), bins, "a jackknife sample");
    }
    return bins;
}

template <typename Values, typename Format>
void writeJsonArray(std::ostream& out, const Values& values, Format format) {
    out << '[';
    bool first = true;
    for (const auto& value : values) {
        if (!first)
            out << ',';
        first = false;
        out << format(value);
    }
    out << ']';
}

auto jsonDouble = [](double value) { return formatJsonDouble(value); };
auto jsonInteger = [](std::uint64_t value) { return std::to_string(value); };

std::string_view trimmed(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
        text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
        text.remove_suffix(1);
    return text;
}

std::vector<std::string_view> splitFields(std::string_view line) {
    std::vector<std::string_view> fields;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = line.find(',', start);
        fields.push_back(trimmed(line.substr(start, comma - start)));
        if (comma == std::string_view::npos)
            return fields;
        start = comma + 1;
    }
}

} // namespace

void writeResultCsv(std::ostream& out, const CorrelationResult& result) {
    const std::size_t rows = checkedRowCount(result);
    writeMetadata(out, resultMetadata(result), resultConventions(result));
    // w_err only with jackknife, so readers of the plain table see the columns they always did.
    out << "theta_lo,theta_hi,theta_mid,DD,DR,RR,DD_norm,DR_norm,RR_norm,w"
        << (result.hasJackknife() ? ",w_err\n" : "\n");
    if (rows == 0)
        return;
    const std::vector<std::uint64_t> drSum = result.drSummed();
    const std::vector<std::uint64_t> rrSum = result.rrSummed();
    requireSize(drSum.size(), rows, "summed DR");
    requireSize(rrSum.size(), rows, "summed RR");
    for (std::size_t bin = 0; bin < rows; ++bin) {
        out << formatDouble(result.edges[bin]) << ',' << formatDouble(result.edges[bin + 1]) << ','
            << formatDouble(result.centres[bin]) << ',' << std::to_string(result.raw.dd[bin]) << ','
            << std::to_string(drSum[bin]) << ',' << std::to_string(rrSum[bin]) << ','
            << formatDouble(result.normalised.dd[bin]) << ','
            << formatDouble(result.normalised.dr[bin]) << ','
            << formatDouble(result.normalised.rr[bin]) << ',' << formatDouble(result.w[bin]);
        if (result.hasJackknife())
            out << ',' << formatDouble(result.wError[bin]);
        out << '\n';
    }
}

void writeResultCsvFile(const std::string& path, const CorrelationResult& result) {
    // Formatted in memory first: an inconsistent result then leaves no half-written file.
    std::ostringstream text;
    writeResultCsv(text, result);
    writeFileAtomically(path, text.view());
}

void writeResultJson(std::ostream& out, const CorrelationResult& result) {
    const std::size_t rows = checkedRowCount(result);
    const auto field = [&out](std::string_view key) { out << "  " << jsonString(key) << ": "; };

    out << "{\n";
    field("tool");
    out << jsonString(kToolName) << ",\n";
    field("version");
    out << jsonString(version()) << ",\n";
    field("created");
    out << jsonString(utcTimestamp()) << ",\n";
    field("status");
    out << jsonString(result.status == JobStatus::Completed ? "completed" : "cancelled") << ",\n";
    field("data");
    out << "{\"name\": " << jsonString(result.data.name)
        << ", \"size\": " << std::to_string(result.data.size) << "},\n";
    field("randoms");
    out << '[';
    for (std::size_t i = 0; i < result.randoms.size(); ++i)
        out << (i ? ", " : "") << "{\"name\": " << jsonString(result.randoms[i].name)
            << ", \"size\": " << std::to_string(result.randoms[i].size) << '}';
    out << "],\n";
    field("bins");
    out << "{\"description\": " << jsonString(result.bins.describe())
        << ", \"count\": " << std::to_string(result.binCount()) << ", \"scale\": "
        << jsonString(result.bins.scale == BinScale::Logarithmic ? "log" : "linear")
        << ", \"unit\": " << jsonString(angleUnitName(result.bins.unit)) << "},\n";
    field("estimator");
    out << "{\"key\": " << jsonString(estimatorKey(result.estimator))
        << ", \"name\": " << jsonString(estimatorName(result.estimator))
        << ", \"formula\": " << jsonString(estimatorFormula(result.estimator)) << "},\n";
    field("backend");
    out << jsonString(result.backendName) << ",\n";
    field("device");
    out << jsonString(result.deviceDescription) << ",\n";
    field("precision");
    out << jsonString(precisionName(result.precision)) << ",\n";
    field("culling");
    out << "{\"used\": " << jsonString(result.culled ? "on" : "off")
        << ", \"requested\": " << jsonString(cullingModeName(result.cullingRequested)) << "},\n";
    field("elapsed_seconds");
    out << formatJsonDouble(result.elapsedSeconds) << ",\n";
    field("notice");
    out << jsonString(result.backendNotice) << ",\n";
    field("conventions");
    writeJsonArray(out, resultConventions(result),
                   [](const std::string& s) { return jsonString(s); });
    out << ",\n";

    const bool hasRows = rows > 0;
    const std::vector<double> noDoubles;
    const std::vector<std::uint64_t> noCounts;
    field("theta_lo");
    writeJsonArray(out,
                   hasRows ? std::vector<double>(result.edges.begin(), result.edges.end() - 1)
                           : noDoubles,
                   jsonDouble);
    out << ",\n";
    field("theta_hi");
    writeJsonArray(out,
                   hasRows ? std::vector<double>(result.edges.begin() + 1, result.edges.end())
                           : noDoubles,
                   jsonDouble);
    out << ",\n";
    field("theta_mid");
    writeJsonArray(out, hasRows ? result.centres : noDoubles, jsonDouble);
    out << ",\n";

    field("counts");
    out << "{\n    \"dd\": ";
    writeJsonArray(out, result.raw.dd, jsonInteger);
    out << ",\n    \"dr\": [";
    for (std::size_t set = 0; set < result.raw.dr.size(); ++set) {
        out << (set ? ", " : "");
        writeJsonArray(out, result.raw.dr[set], jsonInteger);
    }
    out << "],\n    \"rr\": [";
    for (std::size_t set = 0; set < result.raw.rr.size(); ++set) {
        out << (set ? ", " : "");
        writeJsonArray(out, result.raw.rr[set], jsonInteger);
    }
    out << "],\n    \"dr_summed\": ";
    writeJsonArray(out, hasRows ? result.drSummed() : noCounts, jsonInteger);
    out << ",\n    \"rr_summed\": ";
    writeJsonArray(out, hasRows ? result.rrSummed() : noCounts, jsonInteger);
    out << "\n  },\n";

    field("normalised");
    out << "{\n    \"dd\": ";
    writeJsonArray(out, result.normalised.dd, jsonDouble);
    out << ",\n    \"dr\": ";
    writeJsonArray(out, result.normalised.dr, jsonDouble);
    out << ",\n    \"rr\": ";
    writeJsonArray(out, result.normalised.rr, jsonDouble);
    out << "\n  },\n";

    field("w");
    writeJsonArray(out, result.w, jsonDouble);
    out << ",\n";

    // Without jackknife the keys are still there (null), so readers need no second schema.
    field("w_err");
    if (result.hasJackknife())
        writeJsonArray(out, result.wError, jsonDouble);
    else
        out << "null";
    out << ",\n";
    field("jackknife");
    if (!result.hasJackknife()) {
        out << "null\n}\n";
        return;
    }
    const JackknifeRegionsSummary& regions = result.jackknifeRegions;
    out << "{\n    \"regions\": " << std::to_string(regions.count)
        << ",\n    \"method\": " << jsonString(regions.method) << ",\n    \"data_per_region\": ";
    writeJsonArray(out, regions.dataPerRegion, jsonInteger);
    out << ",\n    \"random_per_region\": ";
    writeJsonArray(out, regions.randomPerRegion, jsonInteger);
    out << ",\n    \"warnings\": ";
    writeJsonArray(out, regions.warnings, [](const std::string& w) { return jsonString(w); });
    out << ",\n    \"covariance\": [";
    for (std::size_t row = 0; row < rows; ++row) {
        out << (row ? ",\n      " : "\n      ");
        const auto first = result.covariance.begin() + static_cast<std::ptrdiff_t>(row * rows);
        writeJsonArray(out, std::vector<double>(first, first + static_cast<std::ptrdiff_t>(rows)),
                       jsonDouble);
    }
    out << "],\n    \"samples\": [";
    for (std::size_t k = 0; k < result.jackknifeSamples.size(); ++k) {
        out << (k ? ",\n      " : "\n      ");
        writeJsonArray(out, result.jackknifeSamples[k], jsonDouble);
    }
    out << "]\n  }\n}\n";
}

void writeCovarianceCsv(std::ostream& out, const CorrelationResult& result) {
    if (!result.hasJackknife())
        throw ConfigError("the result has no jackknife covariance (run with jackknife regions)");
    const std::size_t bins = checkedRowCount(result);
    Metadata metadata = resultMetadata(result);
    std::vector<std::string> conventions{
        kJackknifeConvention,
        "row i, column cov_j: C_ij of bins i and j (row-major, symmetric); the diagonal is "
        "w_err^2",
        thetaConvention(result.bins.unit, result.bins.scale),
    };
    writeMetadata(out, metadata, conventions);
    out << "bin,theta_mid";
    for (std::size_t j = 0; j < bins; ++j)
        out << ",cov_" << std::to_string(j);
    out << '\n';
    for (std::size_t i = 0; i < bins; ++i) {
        out << std::to_string(i) << ',' << formatDouble(result.centres[i]);
        for (std::size_t j = 0; j < bins; ++j)
            out << ',' << formatDouble(result.covariance[i * bins + j]);
        out << '\n';
    }
}

void writeCovarianceCsv(const std::string& path, const CorrelationResult& result) {
    std::ostringstream text;
    writeCovarianceCsv(text, result);
    writeFileAtomically(path, text.view());
}

void writeCovarianceCsvFile(const std::string& path, const CorrelationResult& result) {
    writeCovarianceCsv(path, result);
}

std::string describeCulling(CullingMode requested, bool culled) {
    // Culling changes how long a count takes, never what it counts: say both.
    std::string text = culled ? "on" : "off";
    text += " (requested ";
    text += cullingModeName(requested);
    text += "): ";
    text += culled ? "only cell pairs within reach of theta_max were visited; counts are "
                     "identical to brute force"
                   : "brute force, every pair computed";
    return text;
}

void writeCountsCsv(std::ostream& out, const CountSummary& summary) {
    const Binning& binning = summary.binning;
    const std::size_t bins = binning.count();
    requireSize(summary.counts.size(), bins, "the count");

    Metadata metadata;
    metadata.emplace_back("tool", std::string(kToolName) + " " + std::string(version()));
    metadata.emplace_back("created", utcTimestamp());
    metadata.emplace_back(summary.second ? "first" : "catalog",
                          oneLine(summary.first.name) + " N=" + std::to_string(summary.first.size));
    if (summary.second)
        metadata.emplace_back("second", oneLine(summary.second->name) +
                                            " N=" + std::to_string(summary.second->size));
    metadata.emplace_back("count", summary.second ? "cross" : "auto");
    metadata.emplace_back("bins", binning.spec().describe());
    metadata.emplace_back("bin count", std::to_string(bins));
    metadata.emplace_back("backend", oneLine(summary.backendName));
    metadata.emplace_back("device", oneLine(summary.deviceDescription));
    metadata.emplace_back("precision", std::string(precisionName(summary.precision)));
    metadata.emplace_back("culling", describeCulling(summary.cullingRequested, summary.culled));
    metadata.emplace_back("elapsed", formatDouble(summary.elapsedSeconds) + " s");

    const std::vector<std::string> conventions{
        summary.second ? "cross count: all N_first*N_second pairs are counted"
                       : "auto count: each unordered pair (i<j) is counted once",
        kBinConvention,
        precisionConvention(summary.precision),
        "count is the raw pair count (not normalised)",
        thetaConvention(binning.unit(), binning.spec().scale),
    };
    writeMetadata(out, metadata, conventions);

    out << "theta_lo,theta_hi,theta_mid,count\n";
    const auto edges = binning.edges();
    const auto centres = binning.centres();
    for (std::size_t bin = 0; bin < bins; ++bin)
        out << formatDouble(edges[bin]) << ',' << formatDouble(edges[bin + 1]) << ','
            << formatDouble(centres[bin]) << ',' << std::to_string(summary.counts[bin]) << '\n';
}

ResultTable readResultCsv(const std::string& path) {
    std::ifstream in(path, std::ios::in | std::ios::binary);
    if (!in)
        throw InputError(path, 0, 0,
                         "cannot open for reading: " +
                             std::error_code(errno, std::generic_category()).message());

    ResultTable table;
    bool haveHeader = false;
    std::string line;
    long lineNumber = 0;
    while (std::getline(in, line)) {
        ++lineNumber;
        std::string_view content = trimmed(line);
        // A spreadsheet that re-saves the file may put a UTF-8 byte-order mark in front.
        if (lineNumber == 1 && content.rfind("\xEF\xBB\xBF", 0) == 0)
            content = trimmed(content.substr(3));
        if (content.empty() || content.front() == '#')
            continue;
        const std::vector<std::string_view> fields = splitFields(content);
        if (!haveHeader) {
            for (std::size_t column = 0; column < fields.size(); ++column) {
                if (fields[column].empty())
                    throw InputError(path, lineNumber, static_cast<int>(column + 1),
                                     "empty column name in the header row");
                table.columns.emplace_back(fields[column]);
            }
            haveHeader = true;
            continue;
        }
        if (fields.size() != table.columns.size())
            throw InputError(path, lineNumber, 0,
                             "expected " + std::to_string(table.columns.size()) +
                                 " fields as in the header, found " +
                                 std::to_string(fields.size()));
        std::vector<double> row;
        row.reserve(fields.size());
        for (std::size_t column = 0; column < fields.size(); ++column) {
            std::string_view field = fields[column];
            // from_chars takes no leading '+'; a writer in another tool may put one.
            if (field.size() > 1 && field.front() == '+' && field[1] != '-')
                field.remove_prefix(1);
            double value = 0;
            const auto [end, error] =
                std::from_chars(field.data(), field.data() + field.size(), value);
            // from_chars reports a value too large or too small as out of range; both are
            // malformed for a result table, as is an empty or partly numeric field.
            if (field.empty() || error != std::errc() || end != field.data() + field.size())
                throw InputError(path, lineNumber, static_cast<int>(column + 1),
                                 "not a number: '" + std::string(fields[column]) + "' in column " +
                                     table.columns[column]);
            row.push_back(value);
        }
        table.rows.push_back(std::move(row));
    }
    if (in.bad())
        throw InputError(path, lineNumber, 0, "read error");
    if (!haveHeader)
        throw InputError(path, 0, 0, "no header row (the file holds no table)");
    return table;
}

} // namespace tpacf
