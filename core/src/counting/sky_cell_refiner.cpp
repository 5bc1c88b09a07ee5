// SPDX-License-Identifier: GPL-3.0-or-later
// The dual descent of the CPU plan (sky_cell_refiner.h).
#include "counting/sky_cell_refiner.h"
#include "counting/triangle_pairs.h"

#include <algorithm>

namespace tpacf::sky {

namespace {

using counting::trianglePairs;

// Additions a refiner buffers before it takes the lock: 96 KiB, a few hundred µs of box tests.
constexpr std::size_t kWholeBatch = 4096;

double squaredDiagonal(const CellBounds& box) noexcept {
    double sum = 0;
    for (int axis = 0; axis < 3; ++axis)
        sum += (box.hi[axis] - box.lo[axis]) * (box.hi[axis] - box.lo[axis]);
    return sum;
}

// Points under a node.
std::uint64_t pointsOf(const CellPartition& cells, const CellNode& n) noexcept {
    return cells.start[n.cellEnd] - cells.start[n.cellBegin];
}

} // namespace

void WholeCounts::add(std::span<const Addition> additions) {
    const std::lock_guard lock(m_mutex);
    for (const Addition& a : additions) {
        m_out.wholeByFirst[a.regionA * m_bins + a.bin] += a.pairs;
        m_out.wholeBySecond[a.regionB * m_bins + a.bin] += a.pairs;
        if (a.regionA == a.regionB)
            m_out.wholeWithin[a.regionA * m_bins + a.bin] += a.pairs;
    }
    if (m_out.wholeWeightedByFirst.empty())
        return;
    for (const Addition& a : additions) {
        m_out.wholeWeightedByFirst[a.regionA * m_bins + a.bin] += a.weighted;
        if (a.regionA == a.regionB)
            m_out.wholeWeightedWithin[a.regionA * m_bins + a.bin] += a.weighted;
        else
            m_out.wholeWeightedBySecondOnly[a.regionB * m_bins + a.bin] += a.weighted;
    }
}

std::uint64_t DualRefiner::finish(std::span<std::optional<DualRefiner>> parts, std::size_t threads,
                                  const Poll& poll) {
    std::vector<const std::vector<std::pair<std::uint32_t, std::uint32_t>>*> lists{&m_pairs};
    for (std::optional<DualRefiner>& part : parts) {
        part->flushWhole();
        m_out.wholePairs += part->m_out.wholePairs;
        m_out.countedPairs += part->m_out.countedPairs;
        m_checks += part->m_checks;
        lists.push_back(&part->m_pairs);
    }
    // Each list's range of a, so that a block reads only the lists that reach it.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> reach{m_reachA};
    for (const std::optional<DualRefiner>& part : parts)
        reach.push_back(part->m_reachA);
    std::uint64_t pairCount = 0;
    for (const auto* list : lists)
        pairCount += list->size();
    const std::size_t cellCountA = m_cellsA.cellCount();
    const std::size_t blocks =
        std::clamp<std::size_t>(std::min<std::uint64_t>(pairCount / 16384, 8 * threads), 1,
                                std::max<std::size_t>(1, cellCountA));
    const std::size_t blockCells = (cellCountA + blocks - 1) / std::max<std::size_t>(1, blocks);
    std::vector<std::vector<CountRun>> blockRuns(blocks);
    std::vector<std::uint64_t> blockRows(blocks, 0);
    forEachItem(blocks, threads, poll, [&](std::size_t block) {
        const auto lo = static_cast<std::uint32_t>(std::min(cellCountA, block * blockCells));
        const auto hi = static_cast<std::uint32_t>(std::min(cellCountA, lo + blockCells));
        // Built in a vector of the worker's own: the blocks' vectors lie side by side, and
        // one appended to on every cell pair would keep its neighbours' lines moving.
        std::vector<CountRun> runs;
        blockRows[block] = buildRuns(m_task, m_cellsA, m_cellsB, lists, reach, lo, hi, runs);
        blockRuns[block] = std::move(runs);
    });
    m_pairs = {};
    for (std::optional<DualRefiner>& part : parts)
        part->m_pairs = {};
    // The blocks' runs copied into place on the workers too: a serial copy of a large
    // task's runs (~10^6) took 0.01–0.02 s, a good share of the plan on 32 threads.
    std::vector<std::size_t> blockStart(blocks + 1, m_out.runs.size());
    std::uint64_t rows = 0;
    for (std::size_t block = 0; block < blocks; ++block) {
        blockStart[block + 1] = blockStart[block] + blockRuns[block].size();
        rows += blockRows[block];
    }
    m_out.runs.resize(blockStart[blocks]);
    forEachItem(blocks, threads, poll, [&](std::size_t block) {
        std::copy(blockRuns[block].begin(), blockRuns[block].end(),
                  m_out.runs.begin() + static_cast<std::ptrdiff_t>(blockStart[block]));
        blockRuns[block] = {};
    });
    return rows;
}

// One node on both sides of an auto task: pairs i < j within it.
void DualRefiner::visitSame(std::uint32_t node) {
    const CellNode& n = m_cellsA.nodes[node];
    const std::uint64_t pairs = trianglePairs(pointsOf(m_cellsA, n));
    if (pairs == 0 || classify(n, n, pairs, true) == Outcome::Done)
        return;
    if (n.isCell()) {
        keepCellPair(n.cellBegin, n.cellBegin, pairs);
        return;
    }
    for (std::uint32_t i = n.childBegin; i < n.childEnd; ++i) {
        visitSame(m_cellsA.children[i]);
        for (std::uint32_t j = i + 1; j < n.childEnd; ++j)
            visit(m_cellsA.children[i], m_cellsA.children[j]);
    }
}

void DualRefiner::visit(std::uint32_t nodeA, std::uint32_t nodeB) {
    const CellNode& a = m_cellsA.nodes[nodeA];
    const CellNode& b = m_cellsB.nodes[nodeB];
    const std::uint64_t pairs = pointsOf(m_cellsA, a) * pointsOf(m_cellsB, b);
    if (classify(a, b, pairs, false) == Outcome::Done)
        return;
    const bool splitA =
        !a.isCell() && (b.isCell() || squaredDiagonal(a.box) >= squaredDiagonal(b.box));
    if (splitA) {
        for (std::uint32_t i = a.childBegin; i < a.childEnd; ++i)
            visit(m_cellsA.children[i], nodeB);
    } else if (!b.isCell()) {
        for (std::uint32_t j = b.childBegin; j < b.childEnd; ++j)
            visit(nodeA, m_cellsB.children[j]);
    } else {
        keepCellPair(a.cellBegin, b.cellBegin, pairs);
    }
}

// A single cell pair left to the kernels.
void DualRefiner::keepCellPair(std::uint32_t a, std::uint32_t b, std::uint64_t pairs) {
    m_pairs.emplace_back(a, b);
    m_reachA = {std::min(m_reachA.first, a), std::max(m_reachA.second, a)};
    m_out.countedPairs += pairs;
}

// Done: every pair between the boxes lies in one slot (added whole where that slot is a bin
// and each side lies in one region) or outside the bins. `same`: a node with itself (auto),
// pairs i < j within it.
DualRefiner::Outcome DualRefiner::classify(const CellNode& a, const CellNode& b,
                                           std::uint64_t pairs, bool same) {
    ++m_checks;
    const double nearest = boxMinChord2(a.box, b.box);
    if (nearest >= m_edges[m_edgeCount - 1])
        return Outcome::Done; // at or beyond the last edge
    const double farthest = boxMaxChord2(a.box, b.box);
    if (farthest < m_edges[0])
        return Outcome::Done; // below the first edge
    // Thresholds ≤ c², as the kernels define a slot (a branch-free upper_bound: the
    // outcome is unpredictable); one slot for the whole range of the box pair means every
    // pair lands in it.
    const double* base = m_edges;
    for (std::size_t n = m_edgeCount; n > 1;) {
        const std::size_t half = n / 2;
        base = base[half] <= nearest ? base + half : base;
        n -= half;
    }
    const auto slot = static_cast<std::size_t>(base - m_edges) + (*base <= nearest ? 1 : 0);
    if (slot == 0 || !(farthest < m_edges[slot]) || a.segment < 0 || b.segment < 0)
        return Outcome::Split;
    // Weighted: Σ_a w · Σ_b w, or for a node with itself ((Σw)² − Σw²)/2.
    double weighted = 0;
    if (m_task.weighted)
        weighted =
            same ? (a.weightSum * a.weightSum - a.weightSquareSum) / 2 : a.weightSum * b.weightSum;
    m_pendingWhole.push_back({static_cast<std::uint32_t>(a.segment),
                              static_cast<std::uint32_t>(b.segment),
                              static_cast<std::uint32_t>(slot - 1), pairs, weighted});
    if (m_pendingWhole.size() >= kWholeBatch)
        flushWhole();
    m_out.wholePairs += pairs;
    return Outcome::Done;
}

} // namespace tpacf::sky
