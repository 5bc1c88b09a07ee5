// SPDX-License-Identifier: GPL-3.0-or-later
#include "tpacf/pair_counter.h"
#include "tpacf/errors.h"
#include "tpacf/separation_moments.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace tpacf {

void WorkShare::validate() const {
    if (parts < 1 || part >= parts)
        throw ConfigError("work share " + std::to_string(part) + " of " + std::to_string(parts) +
                          ": the part must be below the number of parts (counted from 0)");
}

std::uint64_t CountTask::pairTotal() const noexcept {
    if (!first)
        return 0;
    const std::uint64_t n = first->size();
    if (second)
        return n * static_cast<std::uint64_t>(second->size());
    if (n < 2)
        return 0;
    // Halve the even factor first so the product cannot overflow before the division.
    return (n % 2 == 0) ? (n / 2) * (n - 1) : n * ((n - 1) / 2);
}

bool CountTask::weighted() const noexcept {
    return (first && first->hasWeights()) || (second && second->hasWeights());
}

PairCounts PairCounter::countAuto(const Catalog& catalog, const Binning& binning,
                                  const CountControl& control) {
    const CountTask task{&catalog, nullptr};
    return std::move(
        countBatch(std::span<const CountTask>(&task, 1), binning, control).front().raw);
}

PairCounts PairCounter::countCross(const Catalog& a, const Catalog& b, const Binning& binning,
                                   const CountControl& control) {
    const CountTask task{&a, &b};
    return std::move(
        countBatch(std::span<const CountTask>(&task, 1), binning, control).front().raw);
}

std::optional<Precision> parsePrecision(std::string_view text) noexcept {
    std::string lower(text);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (lower == "double" || lower == "fp64")
        return Precision::Double;
    if (lower == "float" || lower == "fp32" || lower == "single")
        return Precision::Float;
    return std::nullopt;
}

std::string_view precisionName(Precision precision) noexcept {
    switch (precision) {
    case Precision::Double:
        return "double";
    case Precision::Float:
        return "float";
    }
    return "double";
}

} // namespace tpacf

namespace tpacf {

std::vector<SeparationMoments> PairCounter::countSeparationMoments(std::span<const CountTask> tasks,
                                                                   const Binning& binning,
                                                                   const CountControl& control) {
    requireWholeShare(control);
    return countSeparationMomentsOnCpu(tasks, binning, 0, control);
}

void PairCounter::requireWholeShare(const CountControl& control) const {
    control.share.validate();
    if (!control.share.whole())
        throw ConfigError("the " + backendName() + " backend cannot count a part (" +
                          std::to_string(control.share.part) + " of " +
                          std::to_string(control.share.parts) + ") of a batch");
}

std::vector<RegionPairCounts> PairCounter::countBatchByRegion(std::span<const CountTask>,
                                                              const Binning&, std::size_t,
                                                              const CountControl& control) {
    control.share.validate();
    throw ConfigError("the " + backendName() + " backend cannot count pairs by jackknife region");
}

} // namespace tpacf
