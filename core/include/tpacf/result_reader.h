// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Reading back this tool's result tables (to compare runs): the CSV/ECSV that writeResultCsv
// writes (a plain CSV with '#' lines too) and the FITS table of writeResultFitsFile. The format
// is chosen by content first, then by the file name, through a small table.
#include "tpacf/correlation_result.h"
#include "tpacf/loaded_result.h"
#include "tpacf/units.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tpacf {


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
