// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What `tpacf run` prints on the terminal besides its progress: the result's summary table,
// --timings (where the wall time went) and the power-law fit.
#include "cli/input_loading.h"
#include "tpacf/correlation_job.h"
#include "tpacf/power_law_fit.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace tpacf::cli {

/// The files a run wrote ("" for one not asked for).
struct RunFiles {
    std::string table, json, covariance, samples, plot;
};
/// The files written, every input with how it was read, the bins, estimator and backend, and
/// the raw counts and w per bin (bins without pairs left to the CSV).
void printSummary(std::ostream& out, const CorrelationResult& result, const RunFiles& files);
/// The command's own steps around the job, in seconds, for --timings.
struct RunTimings {
    double countFileSeconds = -1;    // negative: no count file was read
    double beforeReadingSeconds = 0; // from the command's start to the reading's
    double deviceChoiceSeconds = 0;  // of which the GPUs' choice and reservation
    double writeSeconds = 0;
    double totalSeconds = 0;
};
/// --timings: where the wall time of the command went, stage by stage.
void printTimings(std::ostream& err, const std::vector<CatalogRequest>& requests,
                  const LoadedCatalogs& loaded, const CorrelationResult& result,
                  const RunTimings& timings);
/// The fit's parameters, errors and notes, one line and then a notice each.
void printFit(std::ostream& err, const PowerLawFit& fit, const CorrelationResult& result);

} // namespace tpacf::cli
