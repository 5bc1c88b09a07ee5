// SPDX-License-Identifier: GPL-3.0-or-later
#include "tpacf/run_comparison.h"

#include "base/number_text.h"

#include "tpacf/errors.h"

#include <algorithm>
#include <cmath>

namespace tpacf {

namespace {

// Edges written in their shortest exact form read back bit for bit; a unit conversion (deg to
// arcmin) rounds in the last place. 1e-9 relative tells that from another binning.
constexpr double kEdgeTolerance = 1e-9;

bool sameEdge(double a, double b, double tolerance) {
    return std::abs(a - b) <= tolerance * std::max(std::abs(a), std::abs(b));
}

std::string unitText(const LoadedResult& result) {
    return result.thetaUnit ? " " + std::string(angleUnitName(*result.thetaUnit)) : "";
}

} // namespace

std::string binsDifference(const LoadedResult& run, const LoadedResult& reference,
                           const std::string& runName, const std::string& referenceName) {
    const std::size_t bins = run.binCount();
    if (bins != reference.binCount())
        return runName + " has " + std::to_string(bins) + " bins, " + referenceName + " has " +
               std::to_string(reference.binCount());
    const double scale = run.thetaUnit && reference.thetaUnit
                             ? radiansPer(*run.thetaUnit) / radiansPer(*reference.thetaUnit)
                             : 1.0;
    // Another code's file states its edges to its printed digits: match to what both allow.
    const double tolerance =
        std::max({kEdgeTolerance, run.edgeTolerance, reference.edgeTolerance});
    for (std::size_t k = 0; k < bins; ++k) {
        const bool loSame = k < run.thetaLo.size() && k < reference.thetaLo.size()
                                ? sameEdge(run.thetaLo[k] * scale, reference.thetaLo[k], tolerance)
                                : sameEdge(run.thetaMid[k] * scale, reference.thetaMid[k],
                                           tolerance);
        const bool hiSame = k < run.thetaHi.size() && k < reference.thetaHi.size()
                                ? sameEdge(run.thetaHi[k] * scale, reference.thetaHi[k], tolerance)
                                : true;
        if (loSame && hiSame)
            continue;
        const auto range = [k](const LoadedResult& r) {
            if (k < r.thetaLo.size() && k < r.thetaHi.size())
                return "[" + detail::formatDouble(r.thetaLo[k]) + ", " + detail::formatDouble(r.thetaHi[k]) +
                       ")" + unitText(r);
            return detail::formatDouble(r.thetaMid[k]) + unitText(r);
        };
        return "bin " + std::to_string(k + 1) + " differs: " + runName + " " + range(run) +
               ", " + referenceName + " " + range(reference);
    }
    return {};
}

std::string countAgreement(const LoadedResult& run, const LoadedResult& reference,
                           const std::string& column, const std::string& runName,
                           const std::string& referenceName) {
    const std::vector<double>* mine = run.column(column);
    const std::vector<double>* theirs = reference.column(column);
    const std::size_t bins = run.binCount();
    if (!mine || !theirs || mine->size() != bins || theirs->size() != bins || bins == 0 ||
        !binsDifference(run, reference, runName, referenceName).empty())
        return {};
    std::size_t differing = 0, first = bins;
    for (std::size_t k = 0; k < bins; ++k)
        if ((*mine)[k] != (*theirs)[k]) {
            ++differing;
            first = std::min(first, k);
        }
    if (differing == 0)
        return column + " equal in all " + std::to_string(bins) + " bins";
    return column + " differs in " + std::to_string(differing) + " of " + std::to_string(bins) +
           " bins (first: bin " + std::to_string(first + 1) + ", " +
           detail::formatDouble((*mine)[first]) + " in " + runName + ", " +
           detail::formatDouble((*theirs)[first]) + " in " + referenceName + ")";
}

RunComparison compareRuns(const LoadedResult& run, const LoadedResult& reference,
                          ComparisonKind kind, const std::string& runName,
                          const std::string& referenceName) {
    if (const std::string problem = binsDifference(run, reference, runName, referenceName);
        !problem.empty())
        throw ConfigError("cannot compare " + runName + " with " + referenceName +
                          " bin by bin: " + problem);
    const std::size_t bins = run.binCount();
    RunComparison comparison;
    comparison.value.resize(bins);
    const bool errors = run.wError.size() == bins && reference.wError.size() == bins;
    if (errors)
        comparison.error.resize(bins);
    const double nan = std::nan("");
    for (std::size_t k = 0; k < bins; ++k) {
        const double w = k < run.w.size() ? run.w[k] : nan;
        const double ref = k < reference.w.size() ? reference.w[k] : nan;
        double value = nan, sigma = nan;
        if (kind == ComparisonKind::Difference) {
            value = w - ref;
            if (errors)
                sigma = std::hypot(run.wError[k], reference.wError[k]);
        } else if (ref != 0) {
            value = w / ref;
            if (errors && w != 0)
                sigma = std::abs(value) *
                        std::hypot(run.wError[k] / w, reference.wError[k] / ref);
            else if (errors) // w = 0: the ratio's σ is σ/|w_ref| alone
                sigma = run.wError[k] / std::abs(ref);
        }
        comparison.value[k] = std::isfinite(value) ? value : nan;
        if (errors)
            comparison.error[k] = std::isfinite(sigma) ? sigma : nan;
    }
    return comparison;
}

} // namespace tpacf
