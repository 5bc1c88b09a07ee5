// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Reading back this tool's result tables (to compare runs): the CSV/ECSV that writeResultCsv
// writes (a plain CSV with '#' lines too) and the FITS table of writeResultFitsFile. The format
// is chosen by content first, then by the file name, through a small table.
#include "tpacf/correlation_job.h"
#include "tpacf/units.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tpacf {

/// One numeric column of a result table besides θ, w and w_err (DD, DR, RD, RR, their _w and
/// _norm forms).
struct LoadedColumn {
    std::string name;
    std::vector<double> values;
};

/// A result table as read back: θ per bin, w, w_err where the file has it, the count columns
/// present, and the metadata (key, value) lines in file order.
struct LoadedResult {
    std::string path;
    std::string format; // the key of the format that read it: "ecsv", "csv", "fits"
    std::vector<double> thetaLo, thetaHi, thetaMid;
    std::optional<AngleUnit> thetaUnit; // nullopt: the file does not say
    std::vector<double> w;
    std::vector<double> wError; // empty: the file has no w_err column
    std::vector<LoadedColumn> counts;
    std::vector<std::pair<std::string, std::string>> metadata;

    std::size_t binCount() const noexcept { return thetaMid.size(); }
    bool hasErrors() const noexcept { return !wError.empty(); }
    /// A count column by name (exact), null when absent.
    const std::vector<double>* column(std::string_view name) const;
    /// The first metadata value of `key`, "" when absent.
    std::string meta(std::string_view key) const;
    /// A short label: the data catalog's file name and the estimator ("galaxies.txt, LS"), or
    /// "" when the metadata names neither.
    std::string summary() const;
};

/// One entry of the result format table.
struct ResultFormat {
    std::string_view key;  // "ecsv"
    std::string_view name; // "ECSV (astropy Enhanced CSV)"
    std::vector<std::string_view> suffixes;
    /// Whether the first bytes of a file are this format's (ECSV header, FITS "SIMPLE").
    bool (*matchesContent)(std::string_view head);
    LoadedResult (*read)(const std::string& path);
};
/// The formats readResultFile() chooses from, in the order their content is tried.
const std::vector<ResultFormat>& resultFormats();

/// Reads a result table in any format of resultFormats(). Throws InputError naming the file and
/// the line (CSV, ECSV) or the HDU and column (FITS): unreadable, not a result of this tool (no
/// theta/w columns, e.g. a catalog or a count file), malformed rows, no bins, non-increasing θ.
LoadedResult readResultFile(const std::string& path);

/// What a result file of `result` would read back as (the θ edges and centres, w, w_err with
/// jackknife, the raw counts summed over random sets, the normalised counts, the metadata the
/// writers put in), without going through a file: the current run beside loaded ones.
LoadedResult loadedResultOf(const CorrelationResult& result);

} // namespace tpacf
