// SPDX-License-Identifier: GPL-3.0-or-later
#include "counting/region_tally.h"

#include "tpacf/cpu_pair_counter.h"

#include <algorithm>

namespace tpacf::cpu {

RegionOrderedPoints::RegionOrderedPoints(const Catalog& catalog, std::size_t regionCount,
                                         bool withWeights) {
    const auto region = catalog.region();
    const std::size_t n = catalog.size();
    regionStart.assign(regionCount + 1, 0);
    for (std::int32_t r : region)
        ++regionStart[static_cast<std::size_t>(r) + 1];
    for (std::size_t r = 0; r < regionCount; ++r)
        regionStart[r + 1] += regionStart[r];
    if (std::is_sorted(region.begin(), region.end())) {
        points = Points(catalog);
        if (withWeights && !catalog.hasWeights()) {
            w.assign(n, 1.0);
            points.w = w.data();
        }
        return;
    }
    x.resize(n);
    y.resize(n);
    z.resize(n);
    if (withWeights)
        w.assign(n, 1.0);
    std::vector<std::size_t> next(regionStart.begin(), regionStart.end() - 1);
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t to = next[static_cast<std::size_t>(region[i])]++;
        x[to] = catalog.x()[i];
        y[to] = catalog.y()[i];
        z[to] = catalog.z()[i];
        if (withWeights && catalog.hasWeights())
            w[to] = catalog.weight()[i];
    }
    points = Points(x.data(), y.data(), z.data(), n, withWeights ? w.data() : nullptr);
}

std::size_t RegionOrderedPoints::regionOf(std::size_t i) const {
    return static_cast<std::size_t>(std::upper_bound(regionStart.begin(), regionStart.end(), i) -
                                    regionStart.begin() - 1);
}

RegionScratch::RegionScratch(std::size_t regionCount, std::size_t slotCount, bool weighted)
    : slots(slotCount), firstRow(regionCount, 0), secondRow(regionCount, 0) {
    histogram.assign(kHistogramCopies * slots, 0);
    if (weighted)
        weightedHistogram.assign(kHistogramCopies * slots, 0.0);
}

void RegionScratch::addRectangle(std::size_t first, std::size_t second, RegionTaskTally& tally) {
    if ((firstRow[first] == 0 && firstRegions.size() == kRegionRowsPerThread) ||
        (secondRow[second] == 0 && secondRegions.size() == kRegionRowsPerThread)) {
        const std::lock_guard lock(tally.mutex);
        flushRows(tally);
    }
    const std::size_t a = rowOf(first, firstRow, firstRegions, {&byFirst, &within});
    const std::size_t b = rowOf(second, secondRow, secondRegions, {&bySecond});
    std::uint64_t* toFirst = byFirst.data() + a * slots;
    std::uint64_t* toSecond = bySecond.data() + b * slots;
    std::uint64_t* toWithin = within.data() + a * slots;
    for (std::size_t copy = 0; copy < kHistogramCopies; ++copy) {
        const std::uint32_t* h = histogram.data() + copy * slots;
        for (std::size_t k = 0; k < slots; ++k) {
            toFirst[k] += h[k];
            toSecond[k] += h[k];
        }
        if (first == second)
            for (std::size_t k = 0; k < slots; ++k)
                toWithin[k] += h[k];
    }
    std::fill(histogram.begin(), histogram.end(), 0u);
    if (tally.weightedByFirst.empty())
        return;
    // Weighted rows: grown with the rows of each side (new ones zero; a unit is all of one task).
    weightedByFirst.resize(firstRegions.size() * slots, 0.0);
    weightedWithin.resize(firstRegions.size() * slots, 0.0);
    weightedBySecondOnly.resize(secondRegions.size() * slots, 0.0);
    double* into = (first == second ? weightedWithin.data() : weightedBySecondOnly.data()) +
                   (first == second ? a : b) * slots;
    double* intoFirst = weightedByFirst.data() + a * slots;
    for (std::size_t k = 0; k < slots; ++k) {
        double rectangle = 0;
        for (std::size_t copy = 0; copy < kHistogramCopies; ++copy) {
            rectangle += weightedHistogram[copy * slots + k];
            weightedHistogram[copy * slots + k] = 0;
        }
        intoFirst[k] += rectangle;
        into[k] += rectangle;
    }
}

void RegionScratch::publish(RegionTaskTally& tally, std::uint64_t pairs, double work) {
    const std::lock_guard lock(tally.mutex);
    flushRows(tally);
    tally.pairsDone += pairs;
    tally.workDone += work;
}

std::size_t RegionScratch::rowOf(std::size_t region, std::vector<std::uint32_t>& rowPlusOne,
                                 std::vector<std::size_t>& regions,
                                 std::initializer_list<std::vector<std::uint64_t>*> arrays) {
    if (rowPlusOne[region] == 0) {
        regions.push_back(region);
        rowPlusOne[region] = static_cast<std::uint32_t>(regions.size());
        for (std::vector<std::uint64_t>* rows : arrays)
            rows->resize(regions.size() * slots, 0);
    }
    return rowPlusOne[region] - 1;
}

// Slot bin+1 is the bin; the slots below and above the range are dropped.
void RegionScratch::flushRows(RegionTaskTally& tally) {
    const std::size_t bins = slots - 2;
    const auto add = [&](const std::vector<std::uint64_t>& rows, std::size_t row,
                         std::vector<std::uint64_t>& to, std::size_t region) {
        const std::uint64_t* from = rows.data() + row * slots + 1;
        std::uint64_t* into = to.data() + region * bins;
        for (std::size_t bin = 0; bin < bins; ++bin)
            into[bin] += from[bin];
    };
    const auto addWeighted = [&](const std::vector<double>& rows, std::size_t row,
                                 std::vector<double>& to, std::size_t region) {
        const double* from = rows.data() + row * slots + 1;
        double* into = to.data() + region * bins;
        for (std::size_t bin = 0; bin < bins; ++bin)
            into[bin] += from[bin];
    };
    // Weighted rows exist up to the last rectangle of a weighted unit (none otherwise).
    const std::size_t weightedFirstRows = weightedByFirst.size() / slots;
    const std::size_t weightedSecondRows = weightedBySecondOnly.size() / slots;
    for (std::size_t row = 0; row < firstRegions.size(); ++row) {
        add(byFirst, row, tally.byFirst, firstRegions[row]);
        add(within, row, tally.within, firstRegions[row]);
        if (row < weightedFirstRows) {
            addWeighted(weightedByFirst, row, tally.weightedByFirst, firstRegions[row]);
            addWeighted(weightedWithin, row, tally.weightedWithin, firstRegions[row]);
        }
        firstRow[firstRegions[row]] = 0;
    }
    for (std::size_t row = 0; row < secondRegions.size(); ++row) {
        add(bySecond, row, tally.bySecond, secondRegions[row]);
        if (row < weightedSecondRows)
            addWeighted(weightedBySecondOnly, row, tally.weightedBySecondOnly, secondRegions[row]);
        secondRow[secondRegions[row]] = 0;
    }
    weightedByFirst.clear();
    weightedWithin.clear();
    weightedBySecondOnly.clear();
    firstRegions.clear();
    secondRegions.clear();
    // Capacity stays: the next unit's rows need no allocation.
    byFirst.clear();
    within.clear();
    bySecond.clear();
}

} // namespace tpacf::cpu
