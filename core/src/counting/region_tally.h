// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to the CPU backend: counts keyed by jackknife region (countBatchByRegion). Points are
// taken in region order so that the work units split into rectangles of one region pair, each
// counted by the plain kernels and added to per-region rows of the task's tally.
#include "counting/cpu_tile_kernels.h"

#include "tpacf/catalog.h"

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <mutex>
#include <vector>

namespace tpacf::cpu {

// A catalog's points ordered by region, so that every tile splits into a few rectangles whose
// points share one region on each side; each rectangle is then counted by the plain kernels.
// Reordering changes no pair and no arithmetic, only which rectangle a pair is counted in.
struct RegionOrderedPoints {
    std::vector<double> x, y, z;          // empty when the catalog is already in region order
    std::vector<double> w;                // weights in that order (or ones), when copied
    std::vector<std::size_t> regionStart; // regionCount + 1 offsets into the ordered points
    Points points{nullptr, nullptr, nullptr, 0};

    /// withWeights: points.w gets the catalog's weights, or ones where it has none (the
    /// catalog is in a weighted task).
    RegionOrderedPoints(const Catalog& catalog, std::size_t regionCount, bool withWeights = false);

    /// Region of ordered point i.
    std::size_t regionOf(std::size_t i) const;
};

// Pairs of one task counted so far, keyed by jackknife region (see countBatchByRegion): for each
// region and bin, the pairs whose first point lies in it (byFirst), whose second point does
// (bySecond), and whose both points do (within); regionCount × bins each, row-major by region as
// in RegionPairCounts, so that the culled plan's whole-cell counts become them and the result
// takes them over without a copy (at thousands of regions and bins each is tens of MB).
// touching = byFirst + bySecond − within. Shared by the workers: merges under the mutex.
// Weighted tasks also keep the weighted sums (doubles), by first region, by second region where
// it differs from the first (touching = byFirst + bySecondOnly: no subtraction to lose digits
// in) and within; empty otherwise. They are added in the order the units finish.
struct RegionTaskTally {
    std::mutex mutex;
    std::vector<std::uint64_t> byFirst, bySecond, within;
    std::vector<double> weightedByFirst, weightedBySecondOnly, weightedWithin;
    std::uint64_t pairsDone = 0;
    double workDone = 0; // culled: the items' work (CulledBatch::itemWork)
};

// One worker's region-keyed counts of the current work unit: a histogram for the rectangle of
// one region pair being counted, and a row of slots for each region the unit touched, for at
// most kRegionRowsPerThread regions a side: past that they are added to the task's tally first
// (a progress snapshot may then see counts of a unit not yet credited as done; live estimates
// only). So a thread holds O(rows · bins) whatever K is, and a unit costs no O(regions) sweep.
struct RegionScratch {
    std::vector<std::uint32_t> histogram;
    std::vector<double> weightedHistogram; // kHistogramCopies × slots, for weighted tasks
    std::size_t slots = 0;
    // Per region: 1 + its row among the first (second) regions of the unit; 0 while it has none.
    std::vector<std::uint32_t> firstRow, secondRow;
    std::vector<std::size_t> firstRegions, secondRegions; // the regions of the rows, in row order
    std::vector<std::uint64_t> byFirst, within, bySecond; // rows × slots
    // Weighted rows, as the tally's weighted sums (rows × slots; empty for unweighted units).
    std::vector<double> weightedByFirst, weightedWithin, weightedBySecondOnly;

    /// weighted: the batch has weighted tasks (the weighted histogram is allocated).
    RegionScratch(std::size_t regionCount, std::size_t slotCount, bool weighted = false);

    /// Adds the histogram as pairs of a point in region `first` and one in `second` of the
    /// task of `tally`, and clears it for the next rectangle; the weighted histogram too where
    /// the task is weighted (its tally has weighted sums).
    void addRectangle(std::size_t first, std::size_t second, RegionTaskTally& tally);

    /// Adds the unit's counts to the task's tally and credits `pairs` (and `work`) as done.
    void publish(RegionTaskTally& tally, std::uint64_t pairs, double work = 0);

private:
    // The row of `region` on one side, zeroed in every array of that side when it is new.
    std::size_t rowOf(std::size_t region, std::vector<std::uint32_t>& rowPlusOne,
                      std::vector<std::size_t>& regions,
                      std::initializer_list<std::vector<std::uint64_t>*> arrays);

    // Adds the rows to the tally (the caller holds its mutex) and empties them.
    void flushRows(RegionTaskTally& tally);
};

} // namespace tpacf::cpu
