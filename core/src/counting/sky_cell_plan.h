// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to the cell-pair plan: the plan over cells already made, which the choice of the
// population (sky_cell_population.cpp) ends with, over the cells of the candidate it keeps.
#include "counting/sky_cells.h"

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

} // namespace tpacf::sky
