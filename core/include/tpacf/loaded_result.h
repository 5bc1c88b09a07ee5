// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A result table as read back (result_reader.h reads one from a file, loadedResultOf makes one
// from a run): what the comparison of runs (run_comparison.h) works on, without the reader.
#include "tpacf/units.h"

#include <cstddef>
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
    std::string format; // the format that read it: "ecsv", "csv", "fits", "treecorr",
                        // "treecorr-fits", "corrfunc"
    /// How closely the file states its bin edges (relative): 0 for this tool's own files (exact
    /// to the bit); another code's printed digits or nominal centres allow less.
    double edgeTolerance = 0;
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

} // namespace tpacf
