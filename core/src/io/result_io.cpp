#include "tpacf/result_io.h"

#include "io/table.h"

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
#include <functional>
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
           "; theta_mid is the " +
           (scale == BinScale::Logarithmic ? "geometric"
            : scale == BinScale::Custom
                ? "geometric (for a bin starting at 0 the arithmetic)"
                : "arithmetic") +
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
using io::EcsvColumn;
using io::Metadata;
using io::Table;
using io::TableColumn;

// "name N=5000", with the weight sums of a weighted catalog: "name N=5000 sum_w=4812.3
// sum_w2=4790.1".
std::string describeInput(const InputSummary& input) {
    std::string text = oneLine(input.name) + " N=" + std::to_string(input.size);
    if (input.weighted) {
        text += " sum_w=" + formatDouble(input.weightSum) +
                " sum_w2=" + formatDouble(input.weightSquareSum);
        if (input.negativeWeights > 0)
            text += " negative_weights=" + std::to_string(input.negativeWeights);
    }
    // Provenance: how the file was read and what its content was.
    if (input.origin.known())
        text += "; read as " + oneLine(input.origin.describe());
    if (!input.fingerprint.empty())
        text += "; fingerprint " + input.fingerprint;
    return text;
}

Metadata resultMetadata(const CorrelationResult& result) {
    Metadata lines;
    lines.emplace_back("tool", std::string(kToolName) + " " + std::string(version()));
    lines.emplace_back("created", utcTimestamp());
    if (!result.invocation.empty())
        lines.emplace_back("command", oneLine(result.invocation));
    lines.emplace_back("status", result.status == JobStatus::Completed ? "completed" : "cancelled");
    if (result.isCross())
        lines.emplace_back("mode", "cross (D1 = " + oneLine(result.data.name) +
                                       ", D2 = " + oneLine(result.data2.name) + ")");
    else
        lines.emplace_back("mode", "auto");
    lines.emplace_back("weights", result.isWeighted()
                                      ? "weighted: counts are sums of w_i*w_j (catalogs "
                                        "without weights count 1 per point)"
                                      : "none");
    lines.emplace_back(result.isCross() ? "data 1" : "data", describeInput(result.data));
    for (std::size_t i = 0; i < result.randoms.size(); ++i)
        lines.emplace_back((result.isCross() ? "random 1." : "random ") + std::to_string(i + 1),
                           describeInput(result.randoms[i]));
    if (result.isCross()) {
        lines.emplace_back("data 2", describeInput(result.data2));
        for (std::size_t i = 0; i < result.randoms2.size(); ++i)
            lines.emplace_back("random 2." + std::to_string(i + 1),
                               describeInput(result.randoms2[i]));
        if (result.randoms2.empty())
            lines.emplace_back("random 2", "none: the second sample uses the first's randoms "
                                           "(RD = R1D2 against R1, RR = R1R1)");
    }
    lines.emplace_back("bins", result.bins.describe());
    lines.emplace_back("bin count", std::to_string(result.binCount()));
    lines.emplace_back("estimator",
                       std::string(estimatorName(result.estimator)) + ": " +
                           std::string(estimatorFormula(result.estimator, result.isCross())));
    lines.emplace_back("backend", oneLine(result.backendName));
    lines.emplace_back("device", oneLine(result.deviceDescription));
    lines.emplace_back("precision", std::string(precisionName(result.precision)));
    lines.emplace_back("culling", describeCulling(result.cullingRequested, result.culled));
    lines.emplace_back("elapsed", formatDouble(result.elapsedSeconds) + " s");
    if (!result.backendNotice.empty())
        lines.emplace_back("notice", oneLine(result.backendNotice));
    for (const std::string& note : result.notes)
        lines.emplace_back("note", oneLine(note));
    for (const std::string& reused : result.reusedCounts)
        lines.emplace_back("reused", oneLine(reused));
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
    const std::string sets = std::to_string(result.randoms.size());
    const bool weighted = result.isWeighted();
    // A count's pair total: unweighted N(N-1)/2 or N_A*N_B, weighted their sums of weights.
    const auto autoTotal = [&](const char* n) {
        return weighted ? std::string("(((sum w_") + n + ")^2 - sum w_" + n + "^2)/2)"
                        : std::string("(N_") + n + "(N_" + n + "-1)/2)";
    };
    const auto crossTotal = [&](const char* a, const char* b) {
        return weighted ? std::string("(sum w_") + a + " * sum w_" + b + ")"
                        : std::string("(N_") + a + "*N_" + b + ")";
    };
    const std::string w = weighted ? "_w" : "";
    std::vector<std::string> conventions;
    if (result.isCross()) {
        const bool own = !result.randoms2.empty();
        conventions = {
            "cross mode: DD = D1D2, DR = D1R2, RD = R1D2, RR = R1R2; DD, DR, RD count all "
            "N_A*N_B pairs of their two catalogs; RR too where the second sample has randoms of "
            "its own, else it is R1R1 counting each unordered pair (i<j) once",
            kBinConvention,
            precisionConvention(result.precision),
            "DR, RD and RR columns are summed over the " + sets +
                " random set(s) (set i of the second sample pairs with set i of the first)",
            "DD_norm = DD" + w + "/" + crossTotal("D1", "D2") + "; DR_norm = mean over sets i of DR" +
                w + "_i/" + crossTotal("D1", own ? "R2i" : "R1i") +
                "; RD_norm = mean over sets i of RD" + w + "_i/" + crossTotal("R1i", "D2") +
                "; RR_norm = mean over sets i of RR" + w + "_i/" +
                (own ? crossTotal("R1i", "R2i") : autoTotal("R1i")),
            "w from DD_norm, DR_norm, RD_norm, RR_norm: " +
                std::string(estimatorFormula(result.estimator, true)),
        };
    } else {
        conventions = {
            "DD and RR_i count each unordered pair (i<j) once; DR_i counts all N_D*N_Ri pairs",
            kBinConvention,
            precisionConvention(result.precision),
            "DR and RR columns are raw counts summed over the " + sets + " random set(s)",
            "DD_norm = DD" + w + "/" + autoTotal("D") + "; DR_norm = mean over sets i of DR" + w +
                "_i/" + crossTotal("D", "Ri") + "; RR_norm = mean over sets i of RR" + w + "_i/" +
                autoTotal("Ri"),
            "w from DD_norm, DR_norm, RR_norm: " + std::string(estimatorFormula(result.estimator)),
        };
    }
    if (weighted)
        conventions.emplace_back(
            std::string("weighted: DD_w, DR_w, ") + (result.isCross() ? "RD_w, " : "") +
            "RR_w are sums of w_i*w_j over the pairs of the bin, in double (summed over the "
            "random sets like the raw columns); the raw columns count the same pairs; a catalog "
            "without weights counts 1 per point");
    conventions.push_back(thetaConvention(result.bins.unit, result.bins.scale));
    if (result.hasJackknife())
        conventions.emplace_back(kJackknifeConvention);
    return conventions;
}

std::string unitName(AngleUnit unit) {
    return std::string(angleUnitName(unit));
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
    if (result.isCross()) {
        for (const PairCounts& counts : result.raw.rd)
            requireSize(counts.size(), bins, "an RD histogram");
        requireSize(result.normalised.rd.size(), bins, "RD_norm");
    }
    if (result.isWeighted()) {
        requireSize(result.raw.ddWeighted.size(), bins, "DD_w");
        for (const auto* perSet : {&result.raw.drWeighted, &result.raw.rrWeighted})
            for (const WeightedCounts& sums : *perSet)
                requireSize(sums.size(), bins, "a weighted histogram");
        if (result.isCross())
            for (const WeightedCounts& sums : result.raw.rdWeighted)
                requireSize(sums.size(), bins, "a weighted RD histogram");
    }
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


// The table's columns, each a name and how a bin's value is written: the raw counts, the
// weighted sums of a weighted result, the normalised counts, w, and w_err with jackknife. An
// unweighted auto result has the columns it always had; RD appears only in cross mode. A
// result without counts (cancelled: rows == 0) has every list empty and writes the header alone.
Table resultTable(const CorrelationResult& result) {
    const std::size_t rows = checkedRowCount(result);
    Table table;
    table.rows = rows;
    table.metadata = resultMetadata(result);
    table.conventions = resultConventions(result);
    auto& columns = table.columns;
    const auto integers = [&](std::string name, std::vector<std::uint64_t> values) {
        requireSize(values.size(), rows, name.c_str());
        columns.push_back({{std::move(name), "", "uint64"}, std::move(values), {}});
    };
    const auto doubles = [&](std::string name, std::vector<double> values,
                             std::string unit = "") {
        requireSize(values.size(), rows, name.c_str());
        columns.push_back({{std::move(name), std::move(unit), "float64"}, {}, std::move(values)});
    };
    const bool cross = result.isCross();
    const std::string unit = unitName(result.bins.unit);
    const bool hasRows = rows > 0;
    const auto edges = [&](std::size_t first) {
        return hasRows ? std::vector<double>(result.edges.begin() + first,
                                             result.edges.begin() + first + rows)
                       : std::vector<double>();
    };
    doubles("theta_lo", edges(0), unit);
    doubles("theta_hi", edges(1), unit);
    doubles("theta_mid", hasRows ? result.centres : std::vector<double>(), unit);
    integers("DD", result.raw.dd);
    integers("DR", result.drSummed());
    if (cross)
        integers("RD", result.rdSummed());
    integers("RR", result.rrSummed());
    if (result.isWeighted()) {
        doubles("DD_w", result.raw.ddWeighted);
        doubles("DR_w", result.drWeightedSummed());
        if (cross)
            doubles("RD_w", result.rdWeightedSummed());
        doubles("RR_w", result.rrWeightedSummed());
    }
    doubles("DD_norm", result.normalised.dd);
    doubles("DR_norm", result.normalised.dr);
    if (cross)
        doubles("RD_norm", result.normalised.rd);
    doubles("RR_norm", result.normalised.rr);
    doubles("w", result.w);
    // w_err only with jackknife, so readers of the plain table see the columns they always did.
    if (result.hasJackknife())
        doubles("w_err", result.wError);
    return table;
}

} // namespace

void writeResultCsv(std::ostream& out, const CorrelationResult& result) {
    io::writeEcsvTable(out, resultTable(result));
}

bool fitsOutputSupported() noexcept {
    return io::fitsTablesSupported();
}

void writeResultFitsFile(const std::string& path, const CorrelationResult& result) {
    io::writeFitsTable(path, resultTable(result), "WTHETA");
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
    field("command");
    out << jsonString(result.invocation) << ",\n";
    field("mode");
    out << jsonString(result.isCross() ? "cross" : "auto") << ",\n";
    field("weighted");
    out << (result.isWeighted() ? "true" : "false") << ",\n";
    const auto input = [&](const InputSummary& summary) {
        out << "{\"name\": " << jsonString(summary.name)
            << ", \"size\": " << std::to_string(summary.size);
        if (summary.weighted)
            out << ", \"sum_w\": " << formatJsonDouble(summary.weightSum)
                << ", \"sum_w2\": " << formatJsonDouble(summary.weightSquareSum)
                << ", \"negative_weights\": " << std::to_string(summary.negativeWeights);
        if (!summary.fingerprint.empty())
            out << ", \"fingerprint\": " << jsonString(summary.fingerprint);
        const CatalogOrigin& origin = summary.origin;
        if (origin.known())
            out << ", \"read_as\": {\"format\": " << jsonString(origin.format)
                << ", \"ra\": " << jsonString(origin.raColumn)
                << ", \"dec\": " << jsonString(origin.decColumn)
                << ", \"weight\": " << jsonString(origin.weightColumn)
                << ", \"region\": " << jsonString(origin.regionColumn)
                << ", \"unit\": " << jsonString(origin.unit)
                << ", \"column_choice\": " << jsonString(origin.columnChoice)
                << ", \"selection\": " << jsonString(origin.selection)
                << ", \"rows\": " << std::to_string(origin.rows) << '}';
        out << '}';
    };
    const auto inputs = [&](const std::vector<InputSummary>& summaries) {
        out << '[';
        for (std::size_t i = 0; i < summaries.size(); ++i) {
            out << (i ? ", " : "");
            input(summaries[i]);
        }
        out << ']';
    };
    field("data");
    input(result.data);
    out << ",\n";
    field("randoms");
    inputs(result.randoms);
    out << ",\n";
    if (result.isCross()) {
        // The second sample; "randoms2": [] where it uses the first's randoms.
        field("data2");
        input(result.data2);
        out << ",\n";
        field("randoms2");
        inputs(result.randoms2);
        out << ",\n";
    }
    field("notes");
    writeJsonArray(out, result.notes, [](const std::string& note) { return jsonString(note); });
    out << ",\n";
    field("bins");
    out << "{\"description\": " << jsonString(result.bins.describe())
        << ", \"count\": " << std::to_string(result.binCount()) << ", \"scale\": "
        << jsonString(binScaleKey(result.bins.scale))
        << ", \"unit\": " << jsonString(angleUnitName(result.bins.unit));
    if (result.bins.scale == BinScale::Custom) {
        out << ", \"edges\": [";
        for (std::size_t k = 0; k < result.bins.edges.size(); ++k)
            out << (k ? ", " : "") << formatJsonDouble(result.bins.edges[k]);
        out << ']';
    }
    out << "},\n";
    field("estimator");
    out << "{\"key\": " << jsonString(estimatorKey(result.estimator))
        << ", \"name\": " << jsonString(estimatorName(result.estimator))
        << ", \"formula\": "
        << jsonString(estimatorFormula(result.estimator, result.isCross())) << "},\n";
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
    const auto perSet = [&](const char* key, const auto& sets, auto format) {
        out << ",\n    \"" << key << "\": [";
        for (std::size_t set = 0; set < sets.size(); ++set) {
            out << (set ? ", " : "");
            writeJsonArray(out, sets[set], format);
        }
        out << ']';
    };
    out << "{\n    \"dd\": ";
    writeJsonArray(out, result.raw.dd, jsonInteger);
    perSet("dr", result.raw.dr, jsonInteger);
    if (result.isCross())
        perSet("rd", result.raw.rd, jsonInteger);
    perSet("rr", result.raw.rr, jsonInteger);
    out << ",\n    \"dr_summed\": ";
    writeJsonArray(out, hasRows ? result.drSummed() : noCounts, jsonInteger);
    if (result.isCross()) {
        out << ",\n    \"rd_summed\": ";
        writeJsonArray(out, hasRows ? result.rdSummed() : noCounts, jsonInteger);
    }
    out << ",\n    \"rr_summed\": ";
    writeJsonArray(out, hasRows ? result.rrSummed() : noCounts, jsonInteger);
    if (result.isWeighted()) {
        // Σ w_i·w_j per bin, per set as the raw counts.
        out << ",\n    \"dd_weighted\": ";
        writeJsonArray(out, result.raw.ddWeighted, jsonDouble);
        perSet("dr_weighted", result.raw.drWeighted, jsonDouble);
        if (result.isCross())
            perSet("rd_weighted", result.raw.rdWeighted, jsonDouble);
        perSet("rr_weighted", result.raw.rrWeighted, jsonDouble);
    }
    out << "\n  },\n";

    field("normalised");
    out << "{\n    \"dd\": ";
    writeJsonArray(out, result.normalised.dd, jsonDouble);
    out << ",\n    \"dr\": ";
    writeJsonArray(out, result.normalised.dr, jsonDouble);
    if (result.isCross()) {
        out << ",\n    \"rd\": ";
        writeJsonArray(out, result.normalised.rd, jsonDouble);
    }
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
    Table table;
    table.rows = bins;
    table.metadata = std::move(metadata);
    table.conventions = std::move(conventions);
    std::vector<double> index(bins), centres(result.centres.begin(), result.centres.end());
    for (std::size_t i = 0; i < bins; ++i)
        index[i] = static_cast<double>(i);
    table.columns.push_back({{"bin", "", "int64"}, {}, std::move(index)});
    table.columns.push_back({{"theta_mid", unitName(result.bins.unit), "float64"}, {}, centres});
    for (std::size_t j = 0; j < bins; ++j) {
        std::vector<double> column(bins);
        for (std::size_t i = 0; i < bins; ++i)
            column[i] = result.covariance[i * bins + j];
        table.columns.push_back({{"cov_" + std::to_string(j), "", "float64"}, {}, std::move(column)});
    }
    io::writeEcsvTable(out, table);
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
    if (!summary.invocation.empty())
        metadata.emplace_back("command", oneLine(summary.invocation));
    metadata.emplace_back(summary.second ? "first" : "catalog", describeInput(summary.first));
    if (summary.second)
        metadata.emplace_back("second", describeInput(*summary.second));
    const bool weighted = !summary.weighted.empty();
    if (weighted)
        requireSize(summary.weighted.size(), bins, "the weighted count");
    metadata.emplace_back("count", summary.second ? "cross" : "auto");
    metadata.emplace_back("bins", binning.spec().describe());
    metadata.emplace_back("bin count", std::to_string(bins));
    metadata.emplace_back("backend", oneLine(summary.backendName));
    metadata.emplace_back("device", oneLine(summary.deviceDescription));
    metadata.emplace_back("precision", std::string(precisionName(summary.precision)));
    metadata.emplace_back("culling", describeCulling(summary.cullingRequested, summary.culled));
    metadata.emplace_back("elapsed", formatDouble(summary.elapsedSeconds) + " s");

    std::vector<std::string> conventions{
        summary.second ? "cross count: all N_first*N_second pairs are counted"
                       : "auto count: each unordered pair (i<j) is counted once",
        kBinConvention,
        precisionConvention(summary.precision),
        "count is the raw pair count (not normalised)",
        thetaConvention(binning.unit(), binning.spec().scale),
    };
    if (weighted)
        conventions.emplace_back("weighted is the sum of w_i*w_j over the same pairs, in double (a "
                                 "catalog without weights counts 1 per point)");
    const std::string unit = unitName(binning.unit());
    const auto edges = binning.edges();
    const auto centres = binning.centres();
    Table table;
    table.rows = bins;
    table.metadata = std::move(metadata);
    table.conventions = std::move(conventions);
    table.columns.push_back(
        {{"theta_lo", unit, "float64"}, {}, std::vector<double>(edges.begin(), edges.end() - 1)});
    table.columns.push_back(
        {{"theta_hi", unit, "float64"}, {}, std::vector<double>(edges.begin() + 1, edges.end())});
    table.columns.push_back(
        {{"theta_mid", unit, "float64"}, {}, std::vector<double>(centres.begin(), centres.end())});
    table.columns.push_back({{"count", "", "uint64"}, summary.counts, {}});
    if (weighted)
        table.columns.push_back({{"weighted", "", "float64"}, {}, summary.weighted});
    io::writeEcsvTable(out, table);
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
