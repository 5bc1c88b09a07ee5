// SPDX-License-Identifier: GPL-3.0-or-later
// Whole node pairs added up per task (whole_sums.h).
#include "whole_sums.h"

#include "tpacf/work_runner.h"

#include <algorithm>

namespace tpacf::cuda::detail {

namespace {

// Adds `value` to bin `bin` of a task's rows: all pairs, the touched rows of both regions (once
// where they are the same) and, within one region, its within row.
template <class Row, class Value>
void addToRows(Row& row, std::size_t binCount, std::size_t regions, const WholePairs& w,
               Value value) {
    row[w.bin] += value;
    if (regions == 0)
        return;
    row[binCount + w.regionA * binCount + w.bin] += value;
    if (w.regionA == w.regionB)
        row[binCount + (regions + w.regionA) * binCount + w.bin] += value;
    else
        row[binCount + w.regionB * binCount + w.bin] += value;
}

} // namespace

WholeSums sumWholePairs(std::span<TraversalPiece> pieces, std::span<const std::size_t> pieceTask,
                        std::span<const std::uint8_t> taskWeighted, std::size_t binCount,
                        std::size_t regions) {
    const std::size_t tasks = taskWeighted.size();
    const std::size_t rowSize = (regions > 0 ? 1 + 2 * regions : 1) * binCount;
    WholeSums sums;
    sums.counts.assign(tasks, std::vector<std::uint64_t>(rowSize, 0));
    sums.weighted.resize(tasks);
    bool anyWeighted = false;
    for (std::size_t t = 0; t < tasks; ++t)
        if (taskWeighted[t] != 0) {
            sums.weighted[t].assign(rowSize, 0.0);
            anyWeighted = true;
        }
    if (anyWeighted)
        for (std::size_t p = 0; p < pieces.size(); ++p)
            if (std::vector<double>& row = sums.weighted[pieceTask[p]]; !row.empty())
                for (const WholePairs& w : pieces[p].whole)
                    addToRows(row, binCount, regions, w, w.weighted);

    // Contiguous ranges of pieces (so each touches few tasks), each into rows of its own for the
    // tasks it touches, then added together.
    const std::size_t ranges = workerCount(0, pieces.size());
    struct Partial {
        std::vector<std::vector<std::uint64_t>> rows; // per task; empty where untouched
        std::uint64_t pairs = 0;
    };
    std::vector<Partial> partials(ranges);
    runWorkers(ranges, [&](std::size_t range, const std::atomic<bool>&) {
        Partial& partial = partials[range];
        partial.rows.resize(tasks);
        const std::size_t end = (range + 1) * pieces.size() / ranges;
        for (std::size_t p = range * pieces.size() / ranges; p < end; ++p) {
            std::vector<std::uint64_t>& row = partial.rows[pieceTask[p]];
            if (row.empty())
                row.assign(rowSize, 0);
            for (const WholePairs& w : pieces[p].whole) {
                addToRows(row, binCount, regions, w, w.pairs);
                partial.pairs += w.pairs;
            }
            pieces[p].whole = {}; // freed on this core too
        }
    });
    for (const Partial& partial : partials) {
        sums.pairs += partial.pairs;
        for (std::size_t t = 0; t < tasks; ++t)
            if (!partial.rows[t].empty())
                std::transform(sums.counts[t].begin(), sums.counts[t].end(),
                               partial.rows[t].begin(), sums.counts[t].begin(),
                               [](std::uint64_t a, std::uint64_t b) { return a + b; });
    }
    return sums;
}

} // namespace tpacf::cuda::detail
