// SPDX-License-Identifier: GPL-3.0-or-later
#include "tpacf/result_io.h"

#include "io/result_text.h"
#include "io/table.h"

#include "tpacf/errors.h"
#include "tpacf/json_text.h"
#include "tpacf/output_file.h"
#include "tpacf/units.h"
#include "tpacf/version.h"

#include <array>
#include <cctype>
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

// The table's columns, each a name and how a bin's value is written: the raw counts, the
// weighted sums of a weighted result, the normalised counts, w, and w_err with jackknife. An
// unweighted auto result has the columns it always had; RD appears only in cross mode. A
// result without counts (cancelled: rows == 0) has every list empty and writes the header alone.
Table resultTable(const CorrelationResult& result) {
    const std::size_t rows = checkedRowCount(result);
    Table table;
    table.rows = rows;
    table.metadata = resultMetadata(result);
    table.typed = resultTypedMetadata(result);
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
    // --mean-theta: after w, so the columns before it stay where scripts expect them.
    for (const MeanSeparation& mean : result.meanSeparations) {
        doubles("mean_theta_" + mean.label, hasRows ? mean.theta : std::vector<double>(), unit);
        doubles("mean_log_theta_" + mean.label,
                hasRows ? mean.logTheta : std::vector<double>());
    }
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
    writeResultFile(path, result, TableFormat::Fits);
}

void writeResultCsvFile(const std::string& path, const CorrelationResult& result) {
    // Formatted in memory first: an inconsistent result then leaves no half-written file.
    std::ostringstream text;
    writeResultCsv(text, result);
    writeFileAtomically(path, text.view());
}

namespace {

// The covariance as a table: the result's metadata heads it where it is a file of its own
// (`withMetadata`); as an extension of the result's file it carries its conventions only.
Table covarianceTable(const CorrelationResult& result, bool withMetadata = true) {
    if (!result.hasJackknife())
        throw ConfigError("the result has no jackknife covariance (run with jackknife regions)");
    const std::size_t bins = checkedRowCount(result);
    Metadata metadata = withMetadata ? resultMetadata(result) : Metadata{};
    std::vector<std::string> conventions{
        errorBarConvention(result),
        "row i, column cov_j: C_ij of bins i and j (row-major, symmetric); the diagonal is "
        "w_err^2",
        thetaConvention(result.bins.unit, result.bins.scale),
    };
    Table table;
    table.rows = bins;
    table.metadata = std::move(metadata);
    if (withMetadata)
        table.typed = resultTypedMetadata(result);
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
    return table;
}

// The K leave-one-out samples: one row per region (its index and data points), a column w_j
// per bin j, from which the covariance is formed.
Table samplesTable(const CorrelationResult& result, bool withMetadata) {
    if (!result.hasJackknife())
        throw ConfigError("the result has no jackknife samples (run with jackknife regions)");
    const std::size_t bins = checkedRowCount(result);
    const std::size_t regions = result.jackknifeSamples.size();
    Table table;
    table.rows = regions;
    if (withMetadata) {
        table.metadata = resultMetadata(result);
        table.typed = resultTypedMetadata(result);
    }
    const bool bootstrap = result.hasBootstrap();
    table.conventions = {
        bootstrap ? "row b: w of every bin (column w_j: bin j) of bootstrap sample b (the regions "
                    "it drew are in the JSON output, bootstrap.selections)"
                  : "row k: w of every bin (column w_j: bin j) with the pairs touching jackknife "
                    "region k left out; n_data (where known): the data points in region k",
        errorBarConvention(result),
    };
    std::vector<double> index(regions);
    for (std::size_t k = 0; k < regions; ++k)
        index[k] = static_cast<double>(k);
    table.columns.push_back({{bootstrap ? "sample" : "region", "", "int64"}, {}, std::move(index)});
    // A result read back from a count file may lack the per-region sizes: then no n_data.
    if (!bootstrap && result.jackknifeRegions.dataPerRegion.size() == regions)
        table.columns.push_back(
            {{"n_data", "", "uint64"}, result.jackknifeRegions.dataPerRegion, {}});
    for (std::size_t j = 0; j < bins; ++j) {
        std::vector<double> column(regions);
        for (std::size_t k = 0; k < regions; ++k) {
            requireSize(result.jackknifeSamples[k].size(), bins, "jackknife sample");
            column[k] = result.jackknifeSamples[k][j];
        }
        table.columns.push_back({{"w_" + std::to_string(j), "", "float64"}, {}, std::move(column)});
    }
    return table;
}

// Where the result's covariance and samples are: named companion files (ECSV), or tables of
// the same file (FITS, VOTable).
void addCompanionMetadata(Table& table, const CorrelationResult& result, TableFormat format,
                          const ResultCompanions& companions) {
    if (!result.hasJackknife())
        return;
    if (format == TableFormat::Fits || format == TableFormat::VoTable) {
        table.metadata.emplace_back("jackknife tables",
                                    std::string(format == TableFormat::Fits ? "extensions"
                                                                            : "tables") +
                                        " COVARIANCE and JKSAMPLES of this file");
        table.typed.push_back(TypedValue::ofText("covariance_table", "COV_TAB", "COVARIANCE"));
        table.typed.push_back(TypedValue::ofText("samples_table", "SMP_TAB", "JKSAMPLES"));
    }
    if (!companions.covariancePath.empty()) {
        table.metadata.emplace_back("covariance file", companions.covariancePath);
        table.typed.push_back(
            TypedValue::ofText("covariance_file", "COV_FILE", companions.covariancePath));
    }
    if (!companions.samplesPath.empty()) {
        table.metadata.emplace_back("jackknife samples file", companions.samplesPath);
        table.typed.push_back(
            TypedValue::ofText("samples_file", "SMP_FILE", companions.samplesPath));
    }
}

} // namespace

void writeCovarianceCsv(std::ostream& out, const CorrelationResult& result) {
    io::writeEcsvTable(out, covarianceTable(result));
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

namespace {

Table countsTable(const CountSummary& summary) {
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
    if (!summary.processes.empty()) {
        metadata.emplace_back("mpi ranks", std::to_string(summary.processes.size()) +
                                               " (each counted a share of the work list; the "
                                               "counts are their sums)");
        for (const std::string& process : summary.processes)
            metadata.emplace_back("mpi rank", oneLine(process));
    }
    for (const std::string& note : summary.notes)
        metadata.emplace_back("note", oneLine(note));

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
    if (summary.meanSeparation)
        conventions.emplace_back(
            "mean_theta and mean_log_theta: the mean of theta and of ln(theta) over the pairs of "
            "the bin" + std::string(weighted ? ", weighted by w_i*w_j" : "") +
            ", theta = 2 asin(c/2) in double, binned as the double reference bins; nan where the "
            "bin holds no pairs");
    const std::string unit = unitName(binning.unit());
    const auto edges = binning.edges();
    const auto centres = binning.centres();
    Table table;
    table.rows = bins;
    table.metadata = std::move(metadata);
    table.typed = countTypedMetadata(summary);
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
    if (const auto& mean = summary.meanSeparation) {
        requireSize(mean->theta.size(), bins, "mean_theta");
        requireSize(mean->logTheta.size(), bins, "mean_log_theta");
        table.columns.push_back({{"mean_theta", unit, "float64"}, {}, mean->theta});
        table.columns.push_back({{"mean_log_theta", "", "float64"}, {}, mean->logTheta});
    }
    return table;
}

// Writes `table` at `path` in `format` (JSON excepted: the caller has its own form or none).
void writeTableFile(const std::string& path, const Table& table, TableFormat format,
                    const std::string& name) {
    std::ostringstream text;
    switch (format) {
    case TableFormat::Fits:
        io::writeFitsTable(path, table, name);
        return;
    case TableFormat::VoTable:
        io::writeVoTable(text, table, name);
        break;
    case TableFormat::Ecsv:
    case TableFormat::Json:
        io::writeEcsvTable(text, table);
        break;
    }
    writeFileAtomically(path, text.view());
}

std::string lowered(std::string_view text) {
    std::string out(text);
    for (char& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

} // namespace

void writeCountsCsv(std::ostream& out, const CountSummary& summary) {
    io::writeEcsvTable(out, countsTable(summary));
}

std::optional<TableFormat> parseTableFormat(std::string_view name) noexcept {
    if (name == "csv" || name == "ecsv")
        return TableFormat::Ecsv;
    if (name == "fits")
        return TableFormat::Fits;
    if (name == "votable" || name == "vot")
        return TableFormat::VoTable;
    if (name == "json")
        return TableFormat::Json;
    return std::nullopt;
}

std::string_view tableFormatName(TableFormat format) noexcept {
    switch (format) {
    case TableFormat::Ecsv:
        return "ECSV";
    case TableFormat::Fits:
        return "FITS";
    case TableFormat::VoTable:
        return "VOTable";
    case TableFormat::Json:
        return "JSON";
    }
    return "ECSV";
}

TableFormat tableFormatOfPath(std::string_view path) noexcept {
    const std::size_t slash = path.find_last_of('/');
    const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
    const std::size_t dot = name.find_last_of('.');
    if (dot == std::string_view::npos)
        return TableFormat::Ecsv;
    static constexpr std::pair<std::string_view, TableFormat> kByExtension[] = {
        {"fits", TableFormat::Fits},       {"fit", TableFormat::Fits},
        {"fts", TableFormat::Fits},        {"vot", TableFormat::VoTable},
        {"xml", TableFormat::VoTable},     {"votable", TableFormat::VoTable},
        {"json", TableFormat::Json},
    };
    const std::string extension = lowered(name.substr(dot + 1));
    for (const auto& [known, format] : kByExtension)
        if (extension == known)
            return format;
    return TableFormat::Ecsv;
}

void writeResultFile(const std::string& path, const CorrelationResult& result,
                     TableFormat format, const ResultCompanions& companions) {
    if (format == TableFormat::Json) {
        std::ostringstream text;
        writeResultJson(text, result);
        writeFileAtomically(path, text.view());
        return;
    }
    Table main = resultTable(result);
    addCompanionMetadata(main, result, format, companions);
    const bool oneFile = format == TableFormat::Fits || format == TableFormat::VoTable;
    if (!oneFile || !result.hasJackknife()) {
        writeTableFile(path, main, format, "WTHETA");
        return;
    }
    // FITS and VOTable hold several tables: the covariance and the samples travel with w.
    const Table covariance = covarianceTable(result, false);
    const Table samples = samplesTable(result, false);
    const std::vector<NamedTable> tables = {
        {&main, "WTHETA"}, {&covariance, "COVARIANCE"}, {&samples, "JKSAMPLES"}};
    if (format == TableFormat::Fits) {
        io::writeFitsTables(path, tables);
        return;
    }
    std::ostringstream text;
    io::writeVoTables(text, tables);
    writeFileAtomically(path, text.view());
}

void writeJackknifeSamplesFile(const std::string& path, const CorrelationResult& result,
                               TableFormat format) {
    if (format == TableFormat::Json)
        throw ConfigError("the jackknife samples are written as ECSV, FITS or VOTable (name them "
                          ".ecsv, .fits or .vot), not as JSON: the JSON result holds them too");
    writeTableFile(path, samplesTable(result, true), format, "JKSAMPLES");
}

void writeCovarianceFile(const std::string& path, const CorrelationResult& result,
                         TableFormat format) {
    if (format == TableFormat::Json)
        throw ConfigError("the covariance is written as ECSV, FITS or VOTable (name it .ecsv, "
                          ".fits or .vot), not as JSON: the JSON result holds it too");
    writeTableFile(path, covarianceTable(result), format, "COVARIANCE");
}

void writeCountsFile(const std::string& path, const CountSummary& summary, TableFormat format) {
    if (format == TableFormat::Json)
        throw ConfigError("a count is written as ECSV, FITS or VOTable (name it .ecsv, .fits or "
                          ".vot), not as JSON");
    writeTableFile(path, countsTable(summary), format, "COUNTS");
}

} // namespace tpacf
