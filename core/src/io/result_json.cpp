// SPDX-License-Identifier: GPL-3.0-or-later
// The JSON form of a result: the same content as the table, with per-set counts, the
// jackknife regions, covariance and samples.
#include "io/result_text.h"
#include "tpacf/json_text.h"
#include "tpacf/result_io.h"
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

using namespace io;

namespace {

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

auto jsonDouble = [](double value) { return jsonShortestNumber(value); };
auto jsonInteger = [](std::uint64_t value) { return std::to_string(value); };

// The document, one member a part, in the order they are written; each part ends with the
// ",\n" that separates it from the next, the jackknife's closes the document.
class JsonResultWriter {
public:
    JsonResultWriter(std::ostream& out, const CorrelationResult& result)
        : out(out), result(result), m_rows(checkedRowCount(result)) {}
    void write();

private:
    void field(std::string_view key) { out << "  " << jsonQuoted(key) << ": "; }
    void provenance();
    void input(const InputSummary& summary);
    void inputList(const std::vector<InputSummary>& summaries);
    void inputs();
    void setup();
    void thetaColumns();
    void counts();
    void normalised();
    void estimate();
    void jackknife();

    std::ostream& out;
    const CorrelationResult& result;
    std::size_t m_rows;
};

void JsonResultWriter::write() {
    provenance();
    inputs();
    setup();
    thetaColumns();
    counts();
    normalised();
    estimate();
    // Without jackknife the key is still there (null), so readers need no second schema.
    field("jackknife");
    if (!result.hasJackknife()) {
        out << "null\n}\n";
        return;
    }
    jackknife();
}

// Tool, version, time, status, command, mode, weighted.
void JsonResultWriter::provenance() {
    out << "{\n";
    field("tool");
    out << jsonQuoted(kToolName) << ",\n";
    field("version");
    out << jsonQuoted(version()) << ",\n";
    field("created");
    out << jsonQuoted(utcTimestamp()) << ",\n";
    field("status");
    out << jsonQuoted(result.status == JobStatus::Completed ? "completed" : "cancelled") << ",\n";
    field("command");
    out << jsonQuoted(result.invocation) << ",\n";
    field("mode");
    out << jsonQuoted(result.isCross() ? "cross" : "auto") << ",\n";
    field("weighted");
    out << (result.isWeighted() ? "true" : "false") << ",\n";
}

void JsonResultWriter::input(const InputSummary& summary) {
    out << "{\"name\": " << jsonQuoted(summary.name)
        << ", \"size\": " << std::to_string(summary.size);
    if (summary.weighted)
        out << ", \"sum_w\": " << jsonShortestNumber(summary.weightSum)
            << ", \"sum_w2\": " << jsonShortestNumber(summary.weightSquareSum)
            << ", \"negative_weights\": " << std::to_string(summary.negativeWeights);
    if (!summary.fingerprint.empty())
        out << ", \"fingerprint\": " << jsonQuoted(summary.fingerprint);
    const CatalogOrigin& origin = summary.origin;
    if (origin.known())
        out << ", \"read_as\": {\"format\": " << jsonQuoted(origin.format)
            << ", \"ra\": " << jsonQuoted(origin.raColumn)
            << ", \"dec\": " << jsonQuoted(origin.decColumn)
            << ", \"weight\": " << jsonQuoted(origin.weightColumn)
            << ", \"region\": " << jsonQuoted(origin.regionColumn)
            << ", \"unit\": " << jsonQuoted(origin.unit)
            << ", \"column_choice\": " << jsonQuoted(origin.columnChoice)
            << ", \"selection\": " << jsonQuoted(origin.selection)
            << ", \"rows\": " << std::to_string(origin.rows) << '}';
    out << '}';
}

void JsonResultWriter::inputList(const std::vector<InputSummary>& summaries) {
    out << '[';
    for (std::size_t i = 0; i < summaries.size(); ++i) {
        out << (i ? ", " : "");
        input(summaries[i]);
    }
    out << ']';
}

void JsonResultWriter::inputs() {
    field("data");
    input(result.data);
    out << ",\n";
    field("randoms");
    inputList(result.randoms);
    out << ",\n";
    if (result.isCross()) {
        // The second sample; "randoms2": [] where it uses the first's randoms.
        field("data2");
        input(result.data2);
        out << ",\n";
        field("randoms2");
        inputList(result.randoms2);
        out << ",\n";
    }
}

// Notes, bins, estimator, backend, device, precision, ranks, culling, time, conventions.
void JsonResultWriter::setup() {
    field("notes");
    writeJsonArray(out, result.notes, [](const std::string& note) { return jsonQuoted(note); });
    out << ",\n";
    field("bins");
    out << "{\"description\": " << jsonQuoted(result.bins.describe())
        << ", \"count\": " << std::to_string(result.binCount()) << ", \"scale\": "
        << jsonQuoted(binScaleKey(result.bins.scale))
        << ", \"unit\": " << jsonQuoted(angleUnitName(result.bins.unit));
    if (result.bins.scale == BinScale::Custom) {
        out << ", \"edges\": [";
        for (std::size_t k = 0; k < result.bins.edges.size(); ++k)
            out << (k ? ", " : "") << jsonShortestNumber(result.bins.edges[k]);
        out << ']';
    }
    out << "},\n";
    field("estimator");
    out << "{\"key\": " << jsonQuoted(estimatorKey(result.estimator))
        << ", \"name\": " << jsonQuoted(estimatorName(result.estimator))
        << ", \"formula\": "
        << jsonQuoted(estimatorFormula(result.estimator, result.isCross())) << "},\n";
    field("backend");
    out << jsonQuoted(result.backendName) << ",\n";
    field("device");
    out << jsonQuoted(result.deviceDescription) << ",\n";
    field("precision");
    out << jsonQuoted(precisionName(result.precision)) << ",\n";
    field("mpi_ranks");
    out << '[';
    for (std::size_t r = 0; r < result.processes.size(); ++r)
        out << (r ? ", " : "") << jsonQuoted(result.processes[r]);
    out << "],\n";
    field("precision_choice");
    out << jsonQuoted(result.precisionChoice) << ",\n";
    field("culling");
    out << "{\"used\": " << jsonQuoted(result.culled ? "on" : "off")
        << ", \"requested\": " << jsonQuoted(cullingModeName(result.cullingRequested)) << "},\n";
    field("elapsed_seconds");
    out << jsonShortestNumber(result.elapsedSeconds) << ",\n";
    field("notice");
    out << jsonQuoted(result.backendNotice) << ",\n";
    field("conventions");
    writeJsonArray(out, resultConventions(result),
                   [](const std::string& s) { return jsonQuoted(s); });
    out << ",\n";

}

void JsonResultWriter::thetaColumns() {
    const bool hasRows = m_rows > 0;
    const std::vector<double> noDoubles;
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

}

// Raw counts per set and summed; weighted sums where the result is weighted.
void JsonResultWriter::counts() {
    field("counts");
    const bool hasRows = m_rows > 0;
    const std::vector<std::uint64_t> noCounts;
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

}

void JsonResultWriter::normalised() {
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

}

// w and σ (null without jackknife).
void JsonResultWriter::estimate() {
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

    // --mean-theta: {"DD": {"theta": [...], "log_theta": [...]}, ...}; null when not asked for.
    field("mean_theta");
    if (result.meanSeparations.empty()) {
        out << "null,\n";
        return;
    }
    out << "{";
    for (std::size_t k = 0; k < result.meanSeparations.size(); ++k) {
        const MeanSeparation& mean = result.meanSeparations[k];
        out << (k > 0 ? ",\n    " : "\n    ") << jsonQuoted(mean.label) << ": {\"theta\": ";
        writeJsonArray(out, mean.theta, jsonDouble);
        out << ", \"log_theta\": ";
        writeJsonArray(out, mean.logTheta, jsonDouble);
        out << ", \"pairs\": ";
        writeJsonArray(out, mean.pairs, jsonInteger);
        out << "}";
    }
    out << "\n  },\n";
}

void JsonResultWriter::jackknife() {
    const JackknifeRegionsSummary& regions = result.jackknifeRegions;
    out << "{\n    \"regions\": " << std::to_string(regions.count)
        << ",\n    \"method\": " << jsonQuoted(regions.method) << ",\n    \"data_per_region\": ";
    writeJsonArray(out, regions.dataPerRegion, jsonInteger);
    out << ",\n    \"random_per_region\": ";
    writeJsonArray(out, regions.randomPerRegion, jsonInteger);
    out << ",\n    \"warnings\": ";
    writeJsonArray(out, regions.warnings, [](const std::string& w) { return jsonQuoted(w); });
    out << ",\n    \"cross_region_weight\": "
        << jsonQuoted(crossRegionWeightInfo(result.crossRegionWeight()).key);
    // With a bootstrap, σ, the covariance and the samples below are its own.
    if (result.hasBootstrap()) {
        out << ",\n    \"bootstrap\": {\"samples\": " << result.bootstrapSelections.size()
            << ", \"seed\": " << result.jackknifeRegions.settings.bootstrapSeed
            << ", \"selections\": [";
        for (std::size_t b = 0; b < result.bootstrapSelections.size(); ++b) {
            out << (b ? ",\n      " : "\n      ");
            writeJsonArray(out, result.bootstrapSelections[b], jsonInteger);
        }
        out << "]}";
    }
    out << ",\n    \"covariance\": [";
    for (std::size_t row = 0; row < m_rows; ++row) {
        out << (row ? ",\n      " : "\n      ");
        const auto first = result.covariance.begin() + static_cast<std::ptrdiff_t>(row * m_rows);
        writeJsonArray(out, std::vector<double>(first, first + static_cast<std::ptrdiff_t>(m_rows)),
                       jsonDouble);
    }
    out << "],\n    \"samples\": [";
    for (std::size_t k = 0; k < result.jackknifeSamples.size(); ++k) {
        out << (k ? ",\n      " : "\n      ");
        writeJsonArray(out, result.jackknifeSamples[k], jsonDouble);
    }
    out << "]\n  }\n}\n";
}

} // namespace

void writeResultJson(std::ostream& out, const CorrelationResult& result) {
    JsonResultWriter(out, result).write();
}

} // namespace tpacf
