// SPDX-License-Identifier: GPL-3.0-or-later
// The choice of the cell population behind the CPU backend's culled path (planCellPairs).
//
// Why try several populations: the best cell size follows θ_max, N, the footprint, the bins and
// the clustering at once. Small cells visit fewer pairs outside θ_max and let more of them be
// added whole, but cost more box tests to plan and shorter kernel rows. The plan itself measures
// all of that, so planCellPairs prices a plan for a few populations, from large cells (cheap to
// plan) down in steps of 4×, each on a sample of the coarse cells, with a cost model calibrated
// on the kernels (sky_cells.h), and keeps the cheapest; it stops at the first population that
// costs more than the best so far by a margin, or once the box tests of a finer one would cost a
// good share of the best plan, then tries the best's skipped neighbours. The plans themselves
// are made in sky_cell_plan.cpp.
#include "counting/sky_cell_plan.h"
#include "counting/sky_cells.h"

#include <algorithm>
#include <array>
#include <utility>

namespace tpacf::sky {

namespace {

// Populations tried, largest first (of the largest catalog; the others scale with their size).
constexpr std::array<std::size_t, 9> kPopulations = {2048, 1024, 512, 256, 128, 64, 32, 16, 8};
// Coarse cells of the first catalog per one priced when choosing the population.
constexpr std::uint32_t kSampleStride = 16;

} // namespace

CellPlan planCellPairs(std::span<const SortedCatalog> catalogs, std::span<const CellTask> tasks,
                       std::span<const double> chord2Edges, std::size_t regionCount,
                       const Poll& poll, std::size_t threads) {
    // Candidates are priced on a sample of each task's coarse cells (every stride-th of its
    // first catalog, with all their pairs), which is unbiased for a spatially coherent order and
    // costs a fraction of the full plan; only the chosen population is planned in full, over
    // the cells its candidate made (partitionCells is deterministic). The search steps by 4×
    // from large cells down (the cost varies slowly with the population, and every candidate
    // partitions every catalog), then prices the skipped neighbours of the best, walking on
    // while one is cheaper. Every decision reads only the modelled costs, which do not depend
    // on the thread count, so neither does the choice.
    constexpr std::size_t kCount = kPopulations.size();
    std::array<double, kCount> costs;
    costs.fill(-1);
    std::size_t finest = kCount - 1; // finest index the box tests leave worth pricing
    std::size_t best = kCount;
    std::vector<CellPartition> bestCells;
    const auto price = [&](std::size_t index) {
        CellPlan candidate = planForPopulation(catalogs, tasks, chord2Edges, regionCount,
                                               kPopulations[index], poll, threads, kSampleStride);
        costs[index] = candidate.cost;
        if (best == kCount || candidate.cost < costs[best]) {
            best = index;
            bestCells = std::move(candidate.cells);
        }
        // Halving the population multiplies the box tests by 2.5 or more (measured 2.5–5), and
        // pricing it costs a share of them: once they would cost a quarter of the best plan, a
        // finer partition wins too little, if at all, to pay for looking. Returns how many
        // halvings stay worth it (0, 1 or 2).
        const double checks = 2.5 * kCheckCost * static_cast<double>(candidate.checks);
        const double budget = 0.25 * costs[best];
        if (checks >= budget)
            finest = std::min(finest, index);
        return checks >= budget ? 0 : checks * 2.5 >= budget ? 1 : 2;
    };
    for (std::size_t index = 0; index <= finest;) {
        const int halvings = price(index);
        // Past the minimum (with room for the sample's noise), finer cells only add box tests.
        if (costs[index] > 1.25 * costs[best] || halvings == 0)
            break;
        index += static_cast<std::size_t>(halvings);
    }
    // A neighbour between the best and a candidate that costs twice as much is left out: the
    // cost falls that steeply only where the pairs dominate, and they fall on towards the best.
    const auto steepBeyond = [&](std::size_t at, std::size_t beyond) {
        return beyond < kCount && costs[beyond] >= 2 * costs[at];
    };
    for (bool moved = true; moved;) {
        moved = false;
        const std::size_t at = best;
        for (std::size_t next : {at - 1, at + 1})
            if (next < kCount && next <= finest && costs[next] < 0 &&
                !steepBeyond(at, next < at ? at - 2 : at + 2)) {
                price(next);
                moved = moved || best != at;
            }
    }
    return planOverCells(std::move(bestCells), tasks, chord2Edges, regionCount, kPopulations[best],
                         poll, threads, 1);
}

} // namespace tpacf::sky
