// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Writers (and a reader) for results: the CSV every frontend writes, JSON, pair-count CSV.
#include "tpacf/correlation_result.h"

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tpacf {

/// The forms a table is written in.
enum class TableFormat { Ecsv, Fits, VoTable, Json };
/// "csv" and "ecsv": ECSV; "fits"; "votable" and "vot": VOTable; "json"; nullopt otherwise.
std::optional<TableFormat> parseTableFormat(std::string_view name) noexcept;
/// "ECSV", "FITS", "VOTable", "JSON".
std::string_view tableFormatName(TableFormat format) noexcept;
/// The form a file name asks for, by its extension (any case): .fits, .fit, .fts: FITS; .vot,
/// .xml, .votable: VOTable; .json: JSON; anything else (.ecsv, .csv, .txt, none): ECSV.
TableFormat tableFormatOfPath(std::string_view path) noexcept;

/// '#' metadata lines (version, inputs with N, bins, estimator, backend, device, precision,
/// spatial culling used and requested, elapsed time, conventions in words), a header row, then
/// one row per bin:
/// theta_lo,theta_hi,theta_mid,DD,DR,RR,DD_norm,DR_norm,RR_norm,w (θ in the bins' unit), and
/// w_err appended when the result has jackknife errors.
void writeResultCsv(std::ostream& out, const CorrelationResult& result);
/// Writes to a file; throws InputError naming the path when it cannot be written.
void writeResultCsvFile(const std::string& path, const CorrelationResult& result);

/// Whether this build writes FITS tables (built with cfitsio).
bool fitsOutputSupported() noexcept;
/// The table of writeResultCsv as a FITS binary table (extension WTHETA; TUNIT for θ; counts as
/// 64-bit integers) whose header holds the same metadata as keywords (long values continued;
/// the original key in each keyword's comment) and the conventions as COMMENT cards; with
/// jackknife, extensions COVARIANCE and JKSAMPLES follow (writeResultFile). Written
/// through a temporary and renamed. Throws ConfigError where fitsOutputSupported() is false.
void writeResultFitsFile(const std::string& path, const CorrelationResult& result);

/// The same content as JSON ("culling": {"used": "on"|"off", "requested": "auto"|"on"|"off"}),
/// with per-set raw counts; "w_err" and "jackknife" (regions, per-
/// region sizes, warnings, covariance rows, the leave-one-out samples) are null without jackknife.
void writeResultJson(std::ostream& out, const CorrelationResult& result);

/// The jackknife covariance: the result's '#' metadata, a header row
/// bin,theta_mid,cov_0..cov_(n-1), then one row per bin i holding C_i0..C_i(n-1).
/// Throws ConfigError when the result has no jackknife.
void writeCovarianceCsv(std::ostream& out, const CorrelationResult& result);
/// Writes to a file; throws InputError naming the path when it cannot be written.
void writeCovarianceCsv(const std::string& path, const CorrelationResult& result);
/// The same as writeCovarianceCsv(path, result), named like writeResultCsvFile.
void writeCovarianceCsvFile(const std::string& path, const CorrelationResult& result);

/// The value of the '#' culling metadata line, e.g. "on (requested auto): only cell pairs within
/// reach of theta_max were visited; counts are identical to brute force".
std::string describeCulling(CullingMode requested, bool culled);

/// One count as CSV: metadata lines, then theta_lo,theta_hi,theta_mid,count, and `weighted`
/// (Σ w_i·w_j of the bin) for a weighted count.
struct CountSummary {
    Binning binning;
    PairCounts counts;
    InputSummary first;
    std::optional<InputSummary> second; // unset for an auto count
    std::string backendName, deviceDescription;
    Precision precision = Precision::Double;
    double elapsedSeconds = 0;
    CullingMode cullingRequested = CullingMode::Auto;
    bool culled = false; // PairCounter::lastBatchCulled() of the count
    WeightedCounts weighted{}; // empty: unweighted
    std::string invocation{};  // the command line, for provenance; "" when not known
    std::vector<std::string> processes{}; // MPI ranks (CorrelationResult::processes); empty: one
    std::vector<std::string> notes{};     // how it was counted (PairCounter::lastBatchNotes)
    /// --mean-theta: the count's mean separations (label "count"); unset otherwise.
    std::optional<MeanSeparation> meanSeparation{};
};
void writeCountsCsv(std::ostream& out, const CountSummary& summary);
/// The same table in `format`: ECSV, FITS (extension COUNTS) or VOTable; JSON: ConfigError.
void writeCountsFile(const std::string& path, const CountSummary& summary, TableFormat format);

/// Files written beside a result, which its metadata names ("" for none).
struct ResultCompanions {
    std::string covariancePath;
    std::string samplesPath;
};

/// The result table in `format`: ECSV (writeResultCsv), FITS (writeResultFitsFile, extension
/// WTHETA), VOTable (the same columns, units, UCDs, the metadata as PARAMs) or JSON
/// (writeResultJson). With jackknife, a FITS or VOTable result also holds the covariance
/// (extension/TABLE COVARIANCE) and the leave-one-out samples (JKSAMPLES: a row per region, a
/// column w_j per bin); an ECSV result names the `companions` written beside it. Staged and
/// renamed; ConfigError for FITS where fitsOutputSupported() is false.
void writeResultFile(const std::string& path, const CorrelationResult& result,
                     TableFormat format, const ResultCompanions& companions = {});
/// The jackknife samples alone (the JKSAMPLES table, headed by the result's metadata) in
/// `format`; JSON is a ConfigError (the JSON result holds them). ConfigError without jackknife.
void writeJackknifeSamplesFile(const std::string& path, const CorrelationResult& result,
                               TableFormat format);
/// The covariance table (writeCovarianceCsv's columns) in `format`: ECSV, FITS (extension
/// COVARIANCE) or VOTable; JSON is a ConfigError (the JSON result holds the covariance).
void writeCovarianceFile(const std::string& path, const CorrelationResult& result,
                         TableFormat format);

/// The numeric table of a result CSV read back (metadata lines skipped).
struct ResultTable {
    std::vector<std::string> columns;
    std::vector<std::vector<double>> rows;
};
/// Throws InputError naming file and line on malformed content.
ResultTable readResultCsv(const std::string& path);

} // namespace tpacf
