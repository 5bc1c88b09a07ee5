// SPDX-License-Identifier: GPL-3.0-or-later
// The dual descent that refines the CPU plan's coarse cell pairs (sky_cell_plan.cpp): node pairs
// added whole, dropped, or split down to the single cell pairs the kernels count, and those
// gathered into runs.
#pragma once

#include "counting/sky_cells.h"

#include <cstdint>
#include <limits>
#include <mutex>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace tpacf::sky {

/// The whole-cell counts of one task (TaskCellPlan's regionCount × bins arrays), which the
/// refiners of all its chunks add to. At thousands of regions and bins the arrays are hundreds of
/// MB, too much to give every refiner its own copy (one per chunk took 3.4 GB at 3000 regions and
/// 3000 bins on 2 threads); each refiner buffers its additions instead and adds a batch at a time
/// under the lock. Sums of integers: the order in which the batches arrive changes nothing; the
/// weighted sums of a weighted task (doubles) are added in that order too, so with several
/// planning threads they can differ in the last bits from one run to the next.
class WholeCounts {
public:
    struct Addition {
        std::uint32_t regionA, regionB, bin;
        std::uint64_t pairs;
        double weighted; // Σ w_i·w_j of the pairs (weighted tasks only)
    };

    WholeCounts(TaskCellPlan& out, std::size_t bins) : m_out(out), m_bins(bins) {}

    void add(std::span<const Addition> additions);

private:
    std::mutex m_mutex;
    TaskCellPlan& m_out;
    std::size_t m_bins;
};

/// Per task: refines each coarse cell pair listCellPairs returned by a dual descent of both
/// octrees. A node pair whose boxes put every pair into one bin is added whole (points · points,
/// one multiplication) where each side lies in one region; one that puts every pair outside the
/// bins is dropped; the rest split the side with the larger box, down to single cells, whose
/// pairs are left to the kernels. At large θ a group of cells against another costs one box test.
class DualRefiner {
public:
    /// `out` takes the refiner's counters and (finish) runs; `whole` its whole-cell counts.
    DualRefiner(const CellTask& task, const CellPartition& cellsA, const CellPartition& cellsB,
                std::span<const double> chord2Edges, TaskCellPlan& out, WholeCounts& whole)
        : m_task(task), m_cellsA(cellsA), m_cellsB(cellsB), m_edges(chord2Edges.data()),
          m_edgeCount(chord2Edges.size()), m_out(out), m_whole(whole) {}

    void refine(std::uint32_t nodeA, std::uint32_t nodeB) {
        if (m_task.isAuto && nodeA == nodeB)
            visitSame(nodeA);
        else
            visit(nodeA, nodeB);
    }

    std::uint64_t checks() const noexcept { return m_checks; }

    /// Adds the buffered whole-cell counts to the task's and frees the buffer.
    void flushWhole() {
        if (!m_pendingWhole.empty())
            m_whole.add(m_pendingWhole);
        m_pendingWhole = {};
    }

    /// Takes over the counters of `parts` (further refiners of the task, in list order) and
    /// turns their single cell pairs, with this one's, into the runs to count, sorted by a then
    /// b (merged where b cells are consecutive, of one region and within kMaxRunPairs). The a
    /// cells are cut into blocks finished on up to `threads` workers: a's b cells are gathered
    /// in list order (this refiner's, then the parts' in order), as they come out of the descent
    /// in increasing b (every split visits its parts in order, listCellPairs' runs come sorted),
    /// and sorted where they are not; runs never span two a, so the runs are the same for any
    /// number of blocks. Returns the rows (points of the a cells over all runs) for the cost
    /// model. `poll` is called on the calling thread only.
    std::uint64_t finish(std::span<std::optional<DualRefiner>> parts, std::size_t threads,
                         const Poll& poll);

private:
    enum class Outcome { Done, Split };

    void visitSame(std::uint32_t node);
    void visit(std::uint32_t nodeA, std::uint32_t nodeB);
    void keepCellPair(std::uint32_t a, std::uint32_t b, std::uint64_t pairs);
    Outcome classify(const CellNode& a, const CellNode& b, std::uint64_t pairs, bool same);

    const CellTask& m_task;
    const CellPartition& m_cellsA;
    const CellPartition& m_cellsB;
    const double* m_edges;
    std::size_t m_edgeCount;
    TaskCellPlan& m_out;
    WholeCounts& m_whole;
    // What the descent writes, from a cache line of its own on: the refiners of a task's chunks
    // lie side by side (refineChunks' parts), and on 32 threads one's writes made its
    // neighbours' reads of their fields above miss (the refine's CPU time varied 0.8–3.3 s run to
    // run, 1.0–1.1 s aligned).
    alignas(64) std::vector<WholeCounts::Addition> m_pendingWhole;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> m_pairs; // single cell pairs to count
    // The smallest and largest a of m_pairs (none: the empty range max, 0).
    std::pair<std::uint32_t, std::uint32_t> m_reachA{std::numeric_limits<std::uint32_t>::max(), 0};
    std::uint64_t m_checks = 0;
};

} // namespace tpacf::sky
