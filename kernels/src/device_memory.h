// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// How much device memory a batch's catalogs take (DeviceCatalogs and the launch loop's buffers),
// and how many points fit a limit: what decides whether the CUDA counter streams a batch through
// the GPU in pieces (chunked_count.h). Plain C++: the sizes follow device_catalogs.cpp's buffers.
#include "tpacf/pair_counter.h"

#include <cstdint>
#include <span>

namespace tpacf::cuda::detail {

/// What a batch's device buffers depend on besides its points.
struct BatchMemoryShape {
    bool isFloat = true; ///< hi/lo parts beside the sorted doubles
    bool weighted = false;
    bool byRegion = false;
};

/// Device bytes of every point of a prepared catalog (unit vectors, the sorted copy, hi/lo parts,
/// weights, regions, a share of the tile and sub-tile boxes).
std::uint64_t deviceBytesPerPoint(const BatchMemoryShape& shape) noexcept;
/// Device bytes per point of the largest catalog for its sort (keys, order and scratch, shared by
/// the catalogs one after another).
std::uint64_t sortBytesPerPoint(const BatchMemoryShape& shape) noexcept;
/// Bytes a batch needs whatever its points: the work-unit list (up to kMaxWorkUnits units of
/// 32 bytes), counters and bin tables, kept free for the CUDA runtime.
inline constexpr std::uint64_t kFixedBatchBytes = std::uint64_t{768} << 20;

/// Device bytes of a batch (each device that counts it holds all of it).
std::uint64_t batchDeviceBytes(std::span<const CountTask> tasks, const BatchMemoryShape& shape);

/// The most distinct points a sub-batch may hold within `limitBytes`, its pieces being at most
/// half of them (countBatchInChunks' pieces): 0 where not even the fixed part fits.
std::uint64_t pointsWithin(std::uint64_t limitBytes, const BatchMemoryShape& shape) noexcept;

} // namespace tpacf::cuda::detail
