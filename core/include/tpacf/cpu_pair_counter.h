// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The exact reference backend: double precision on all cores.
#include "tpacf/pair_counter.h"

#include <cstddef>
#include <string>

namespace tpacf {

/// Regions a side whose counts one counting thread holds before it adds them to the shared
/// per-region tallies: a thread's rows then cost at most 3 × this × (bins + 2) counters, where
/// one row per region would cost gigabytes per thread at thousands of regions and bins.
inline constexpr std::size_t kRegionRowsPerThread = 256;

/// Inner loop of the CPU backend. Every kernel gives identical counts; Best picks the fastest
/// the processor supports (AVX-512 where present), Portable forces plain C++ (tests, benchmarks).
enum class CpuKernel { Best, Portable };

class CpuPairCounter final : public PairCounter {
public:
    /// threads <= 0: one per hardware thread.
    explicit CpuPairCounter(int threads = 0);
    CpuPairCounter(int threads, CpuKernel kernel);

    std::string backendName() const override { return "cpu"; }
    std::string deviceDescription() const override;
    Precision precision() const override { return Precision::Double; }
    int threadCount() const noexcept { return m_threads; }
    /// The inner loop in use: "avx512" or "portable".
    std::string kernelName() const;

    /// Brute force over tiles, or, where chooseCulling says so, culled: each distinct catalog
    /// sorted once into cells (Morton order, octree leaves), the cell pairs from listCellPairs
    /// refined so that groups of cells lying in one bin are added whole, and the rest counted by
    /// the same kernels. Identical counts either way. A work share (CountControl::share) is a
    /// contiguous, cost-balanced part of the batch's tiles, or culled of its cell-pair runs, in
    /// an order fixed by the catalogs and bins alone (not the thread count); the culled plan's
    /// whole cell pairs belong to part 0. Weighted tasks (CountTask::weighted) also get Σ w_i·w_j
    /// per bin in double from weighted kernels that bin each pair as the raw count does (raw
    /// counts identical to the unweighted ones); the summation order, and why the sums may
    /// differ in the last bits between runs and thread counts, is in counting/cpu_tile_kernels.h.
    /// Unweighted tasks run the integer kernels alone.
    std::vector<TaskCounts> countBatch(std::span<const CountTask> tasks, const Binning& binning,
                                       const CountControl& control = {}) override;

    bool supportsRegions() const override { return true; }
    /// The same kernels and schedule as countBatch; each catalog is taken in region order so
    /// every tile splits into rectangles of one region pair (memory O(regions · bins) per task).
    /// Culled, the cells are cut at region boundaries, so no cell holds two regions. Shares as
    /// in countBatch.
    std::vector<RegionPairCounts> countBatchByRegion(std::span<const CountTask> tasks,
                                                     const Binning& binning,
                                                     std::size_t regionCount,
                                                     const CountControl& control = {}) override;

    /// The plan of separation_moments.h walked on this counter's threads.
    std::vector<SeparationMoments> countSeparationMoments(std::span<const CountTask> tasks,
                                                          const Binning& binning,
                                                          const CountControl& control = {}) override;

private:
    int m_threads;
    bool m_avx512 = false;
};

} // namespace tpacf
