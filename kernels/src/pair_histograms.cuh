// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to pair_kernels.cu: the pair kernel's private histograms in shared memory (per
// thread, per warp or global; weighted sums beside them) and how they are flushed into a task's
// rows (total, and touching/within per region for jackknife).
#include "cuda_check.h"
#include "device_point.h"
#include "pair_kernels.h"

#include <cstdint>
#include <type_traits>

namespace tpacf::cuda::detail {
// Only pair_kernels.cu includes this file: its definitions stay local to that translation unit.
namespace {
// ---- histogram privatisation ------------------------------------------------------------
//
// Counters are indexed by "slot" = number of thresholds <= c²: slot 0 is below the first edge,
// slots 1..binCount are the bins, slot binCount+1 is above the last edge (and NaN padding). The
// two outer rows are never flushed, so the pair loops need no range branch.

/// The global rows one tile pair's pairs go to. Without regions: the task's counts (total).
/// With regions, a pair in regions (a, b) adds to exactly three rows: total, touching[a], and
/// within[a] when b == a, touching[b] otherwise (pair_counter.h's RegionPairCounts).
template <class T> struct Rows {
    T* total;
    T* first;
    T* second;
};
using CounterRows = Rows<unsigned long long>;
/// The weighted sums' rows (weighted kernels): the same layout over args.d_weighted.
using WeightRows = Rows<double>;

template <bool Regions, class T>
__device__ __forceinline__ Rows<T> rowsOf(T* base, const PairKernelArgs& args, std::uint32_t task,
                                          std::uint32_t regionA, std::uint32_t regionB) {
    const std::size_t binCount = args.bins.binCount;
    if constexpr (!Regions) {
        return {base + task * binCount, nullptr, nullptr};
    } else {
        const std::size_t regions = args.regionCount;
        T* total = base + task * (1 + 2 * regions) * binCount;
        T* touching = total + binCount;
        T* within = touching + regions * binCount;
        return {total, touching + regionA * binCount,
                regionA == regionB ? within + regionA * binCount : touching + regionB * binCount};
    }
}

template <bool Regions>
__device__ __forceinline__ CounterRows counterRows(const PairKernelArgs& args, std::uint32_t task,
                                                   std::uint32_t regionA, std::uint32_t regionB) {
    return rowsOf<Regions>(args.d_counts, args, task, regionA, regionB);
}

template <bool Regions>
__device__ __forceinline__ WeightRows weightRows(const PairKernelArgs& args, std::uint32_t task,
                                                 std::uint32_t regionA, std::uint32_t regionB) {
    return rowsOf<Regions>(args.d_weighted, args, task, regionA, regionB);
}

template <bool Regions, class T>
__device__ __forceinline__ void addToRows(const Rows<T>& rows, std::uint32_t bin, T value) {
    atomicAdd(rows.total + bin, value);
    if constexpr (Regions) {
        atomicAdd(rows.first + bin, value);
        atomicAdd(rows.second + bin, value);
    }
}

template <HistMode Mode, bool Regions> struct PrivateHist {
    static constexpr bool kWeighted = false;
    std::uint32_t* mine;  // this thread's (or warp's) column
    std::uint32_t stride; // counters between slots
    std::uint32_t binCount;
    CounterRows rows; // Global mode: where each pair goes

    /// Per-thread atomic: the counter's address in the shared window, one multiply-add from the
    /// column's (from a generic pointer the compiler spends a second instruction per pair on
    /// it), and a reduction (no value returned). Measured 3-4 % faster on the standard job's batch
    /// (BENCHMARKS.md, "The banded loop without range margins").
    __device__ __forceinline__ void add(int slot) const {
        if constexpr (Mode == HistMode::PerThreadAtomic) {
            const std::uint32_t address =
                static_cast<std::uint32_t>(__cvta_generic_to_shared(mine)) +
                static_cast<std::uint32_t>(slot) * (stride * 4u);
            asm volatile("red.shared.add.u32 [%0], 1;" ::"r"(address));
        } else if constexpr (Mode == HistMode::PerWarp) {
            atomicAdd(mine + slot * stride, 1u);
        } else {
            if (slot >= 1 && slot <= static_cast<int>(binCount))
                addToRows<Regions>(rows, static_cast<std::uint32_t>(slot - 1), 1ull);
        }
    }
    /// Takes back one pair added to `slot` (the banded loop's slot from the hi parts, where the
    /// full c² gives another), before the next flush: the counters wrap back.
    __device__ __forceinline__ void remove(int slot) const {
        if constexpr (Mode == HistMode::PerWarp || Mode == HistMode::PerThreadAtomic) {
            atomicSub(mine + slot * stride, 1u);
        } else {
            if (slot >= 1 && slot <= static_cast<int>(binCount))
                addToRows<Regions>(rows, static_cast<std::uint32_t>(slot - 1), ~0ull);
        }
    }
    /// `pairs` pairs at once (a whole sub-tile pair, at most 32 x 32), slot 1..binCount.
    __device__ __forceinline__ void addPairs(int slot, std::uint32_t pairs) const {
        if constexpr (Mode == HistMode::PerWarp || Mode == HistMode::PerThreadAtomic) {
            atomicAdd(mine + slot * stride, pairs);
        } else {
            addToRows<Regions>(rows, static_cast<std::uint32_t>(slot - 1),
                               static_cast<unsigned long long>(pairs));
        }
    }
};

/// The weighted variant: beside each private counter, a private sum of w_i·w_j in the kernel's
/// precision (Real), in the same layout (wmine: this thread's or warp's column). Per-thread
/// columns are private, so a plain load/add/store updates them; per-warp ones take a shared
/// atomic; Global adds each product to the double rows.
template <HistMode Mode, bool Regions, class Real> struct WeightedHist : PrivateHist<Mode, Regions> {
    static constexpr bool kWeighted = true;
    Real* wmine;
    WeightRows wrows; // Global mode

    __device__ __forceinline__ void add(int slot, Real weight) const {
        PrivateHist<Mode, Regions>::add(slot);
        if constexpr (Mode == HistMode::PerThreadAtomic) {
            wmine[slot * this->stride] += weight;
        } else if constexpr (Mode == HistMode::PerWarp) {
            atomicAdd(wmine + slot * this->stride, weight);
        } else {
            if (slot >= 1 && slot <= static_cast<int>(this->binCount))
                addToRows<Regions>(wrows, static_cast<std::uint32_t>(slot - 1),
                                   static_cast<double>(weight));
        }
    }
};

/// The sum of a private row's columns from `first` round to `first` − 1 (Sum: the wide type they
/// add up in), each column zeroed once read.
template <class Sum, class T>
__device__ __forceinline__ Sum takeRow(T* row, std::uint32_t columns, std::uint32_t first) {
    Sum sum = 0;
    for (std::uint32_t c = first; c < columns; ++c) {
        sum += static_cast<Sum>(row[c]);
        row[c] = T(0);
    }
    for (std::uint32_t c = 0; c < first; ++c) {
        sum += static_cast<Sum>(row[c]);
        row[c] = T(0);
    }
    return sum;
}

/// Sums the private columns of slots 1..binCount into the global rows and zeroes every row;
/// weighted kernels (s_weights set) the private weighted sums alike, in double. Block-wide, a
/// thread per slot. Where the rows are a multiple of 32 words apart (per-thread counters, not
/// projected: sharedLayout), each thread starts at the column of its slot and wraps around, so
/// that the threads of a warp read different banks at every step (all from column 0, they would
/// all read one bank).
template <HistMode Mode, bool Regions, bool Weighted = false, class Real = float>
__device__ void flushHist(std::uint32_t* s_hist, std::uint32_t stride, std::uint32_t columns,
                          std::uint32_t binCount, const CounterRows& rows,
                          Real* s_weights = nullptr, const WeightRows& wrows = {}) {
    if constexpr (Mode != HistMode::Global) {
        __syncthreads();
        for (std::uint32_t slot = threadIdx.x; slot < binCount + 2; slot += blockDim.x) {
            const std::uint32_t first = stride % 32 == 0 ? slot % columns : 0;
            const auto sum = takeRow<unsigned long long>(s_hist + slot * stride, columns, first);
            const bool toRows = sum != 0 && slot >= 1 && slot <= binCount;
            if (toRows)
                addToRows<Regions>(rows, slot - 1, sum);
            if constexpr (Weighted) {
                const double wsum = takeRow<double>(s_weights + slot * stride, columns, first);
                if (toRows)
                    addToRows<Regions>(wrows, slot - 1, wsum);
            }
        }
        __syncthreads();
    }
}

/// Flushes the private histogram into the rows of (task, region pair); weighted kernels the
/// private weighted sums too. Unweighted: exactly flushHist<Mode, Regions> as before.
template <HistMode Mode, bool Regions, bool Weighted, class Real>
__device__ __forceinline__ void flushPrivate(std::uint32_t* s_hist, Real* s_weights,
                                             std::uint32_t stride, std::uint32_t columns,
                                             std::uint32_t binCount, const PairKernelArgs& args,
                                             std::uint32_t task, std::uint32_t regionA,
                                             std::uint32_t regionB) {
    if constexpr (Weighted)
        flushHist<Mode, Regions, true, Real>(s_hist, stride, columns, binCount,
                                             counterRows<Regions>(args, task, regionA, regionB),
                                             s_weights,
                                             weightRows<Regions>(args, task, regionA, regionB));
    else
        flushHist<Mode, Regions>(s_hist, stride, columns, binCount,
                                 counterRows<Regions>(args, task, regionA, regionB));
}

} // namespace
} // namespace tpacf::cuda::detail
