// SPDX-License-Identifier: GPL-3.0-or-later
// The counting runs of the cell-pair plan (sky_cell_plan.cpp): the single cell pairs the
// refiners left, gathered by a cell and merged into runs of consecutive b cells.
#include "counting/sky_cells.h"
#include "counting/triangle_pairs.h"

#include <algorithm>

namespace tpacf::sky {

using counting::trianglePairs;

std::uint64_t buildRuns(const CellTask& task, const CellPartition& cellsA,
                        const CellPartition& cellsB, std::span<const CellPairList* const> lists,
                        std::span<const std::pair<std::uint32_t, std::uint32_t>> reach,
                        std::uint32_t lo, std::uint32_t hi, std::vector<CountRun>& runs) {
    std::vector<std::size_t> start(hi - lo + 1, 0);
    const auto reaches = [&](std::size_t l) {
        return reach[l].first < hi && reach[l].second >= lo;
    };
    for (std::size_t l = 0; l < lists.size(); ++l)
        if (reaches(l))
            for (const auto& [a, b] : *lists[l])
                if (a >= lo && a < hi)
                    ++start[a - lo + 1];
    for (std::size_t a = 0; a < hi - lo; ++a)
        start[a + 1] += start[a];
    std::vector<std::uint32_t> bOfA(start.back());
    for (std::size_t l = 0; l < lists.size(); ++l)
        if (reaches(l))
            for (const auto& [a, b] : *lists[l])
                if (a >= lo && a < hi)
                    bOfA[start[a - lo]++] = b;
    std::uint64_t rows = 0, runPairs = 0;
    std::size_t from = 0;
    for (std::uint32_t a = lo; a < hi; ++a) {
        const std::size_t to = start[a - lo];
        const auto first = bOfA.begin() + static_cast<std::ptrdiff_t>(from);
        const auto last = bOfA.begin() + static_cast<std::ptrdiff_t>(to);
        if (!std::is_sorted(first, last))
            std::sort(first, last);
        const std::uint64_t countA = cellsA.countOf(a);
        for (std::size_t k = from; k < to; ++k) {
            const std::uint32_t b = bOfA[k];
            const std::uint64_t pairs =
                task.isAuto && b == a ? trianglePairs(countA) : countA * cellsB.countOf(b);
            CountRun* run = k == from ? nullptr : &runs.back();
            if (run && run->bEnd == b && cellsB.segment[run->bBegin] == cellsB.segment[b] &&
                runPairs + pairs <= kMaxRunPairs) {
                run->bEnd = b + 1;
                runPairs += pairs;
            } else {
                runs.push_back(CountRun{a, b, b + 1});
                runPairs = pairs;
                rows += countA;
            }
        }
        from = to;
    }
    return rows;
}

} // namespace tpacf::sky
