// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to the cell-pair plan: the plan over cells already made, which the choice of the
// population (sky_cell_population.cpp) ends with, over the cells of the candidate it keeps.
#include "counting/sky_cells.h"

#include "tpacf/culling.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace tpacf::sky {

/// The plan of every task over given cells (partitionCells' for `population`, one partition
/// per catalog). maxSampleStride as planForPopulation's.
CellPlan planOverCells(std::vector<CellPartition> cells, std::span<const CellTask> tasks,
                       std::span<const double> chord2Edges, std::size_t regionCount,
                       std::size_t population, const Poll& poll, std::size_t threads,
                       std::uint32_t maxSampleStride);

/// listCellPairs for the a cells of every stride-th index only, which is all a sampled plan
/// reads (the rest of the list took most of the pricing of fine populations on 32 threads,
/// BENCHMARKS.md): those cells listed against the whole second side as a cross query, their
/// indices mapped back, and for an auto query the cells b below a dropped, as its own list
/// leaves them out. The runs are the whole list's rows of those a, except that a run taken
/// whole from a group pair may cover other empty cells (they hold no points).
std::vector<CellPairRun> sampledCellPairs(std::span<const CellBounds> cellsA,
                                          std::span<const CellBounds> cellsB, CellPairQuery query,
                                          std::uint32_t stride, std::size_t threads);

} // namespace tpacf::sky
