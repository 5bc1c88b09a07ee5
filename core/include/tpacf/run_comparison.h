// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Comparing two runs bin by bin: w / w_ref or w − w_ref on their common bins, with the errors
// propagated where both runs have jackknife σ (taken as independent: two runs on different
// catalogs; for runs sharing data the bars overstate the scatter of the ratio).
#include "tpacf/loaded_result.h"

#include <string>
#include <vector>

namespace tpacf {

enum class ComparisonKind { Ratio, Difference };

/// Why `run` and `reference` cannot be compared bin by bin ("" when they can): another bin
/// count, or the first bin whose edges differ (after converting θ to the reference's unit where
/// both state one), named with both runs' values and units. `runName` and `referenceName` are
/// the labels used in the text.
std::string binsDifference(const LoadedResult& run, const LoadedResult& reference,
                           const std::string& runName, const std::string& referenceName);

/// How the raw pair-count column `column` (e.g. "DD") of two runs with the same bins agrees,
/// for checking counts against another code's: "DD equal in all 20 bins", or "DD differs in 3
/// of 20 bins (first: bin 4, 1023 in 'A', 1024 in 'B')". "" when either run lacks the column or
/// their bins differ (binsDifference says how).
std::string countAgreement(const LoadedResult& run, const LoadedResult& reference,
                           const std::string& column, const std::string& runName,
                           const std::string& referenceName);

struct RunComparison {
    std::vector<double> value; // per bin: w/w_ref or w − w_ref; NaN where undefined (w_ref = 0)
    std::vector<double> error; // per bin σ; empty unless both runs have w_err
};

/// The comparison of `run` against `reference`. Ratio σ: |r|·sqrt((σ/w)² + (σ_ref/w_ref)²);
/// difference σ: sqrt(σ² + σ_ref²). Throws ConfigError with binsDifference()'s text when the
/// bins differ.
RunComparison compareRuns(const LoadedResult& run, const LoadedResult& reference,
                          ComparisonKind kind, const std::string& runName = "the run",
                          const std::string& referenceName = "the reference");

} // namespace tpacf
