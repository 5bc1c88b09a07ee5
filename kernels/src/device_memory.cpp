// SPDX-License-Identifier: GPL-3.0-or-later
#include "device_memory.h"

#include "pair_work.h"
#include "tpacf/chunked_count.h"

#include <algorithm>

namespace tpacf::cuda::detail {

namespace {
// Tiles hold at least 64 x kPointsPerThread points; a TileBox is 56 bytes, a sub-box 48 per
// kSubTileSize points, a tile weight 16 and the region layout's tile arrays 12.
constexpr std::uint64_t kBoxBytesPerPoint = 2;
} // namespace

std::uint64_t deviceBytesPerPoint(const BatchMemoryShape& shape) noexcept {
    std::uint64_t bytes = 3 * sizeof(double)    // the unit vectors as uploaded
                          + 4 * sizeof(double)  // sorted (x, y, z, w)
                          + kBoxBytesPerPoint;
    if (shape.isFloat)
        bytes += 8 * sizeof(float); // hi and lo parts, 4 each
    if (shape.weighted)
        bytes += sizeof(double) + 1; // weights as uploaded, tile weight sums
    if (shape.byRegion)
        bytes += sizeof(std::int32_t) + 1; // regions, tile region arrays
    return bytes;
}

std::uint64_t sortBytesPerPoint(const BatchMemoryShape& shape) noexcept {
    // Keys and order, each twice (radix sort ping-pong), plus the sort's scratch of about as
    // much again: 32-bit curve keys, or 64-bit (group, curve) keys by region.
    const std::uint64_t keys = shape.byRegion ? 8 : 4;
    return 2 * (2 * keys + 2 * 4);
}

std::uint64_t batchDeviceBytes(std::span<const CountTask> tasks, const BatchMemoryShape& shape) {
    std::uint64_t largest = 0;
    for (const CountTask& task : tasks)
        for (const Catalog* catalog : {task.first, task.second})
            if (catalog)
                largest = std::max<std::uint64_t>(largest, catalog->size());
    return kFixedBatchBytes + distinctPoints(tasks) * deviceBytesPerPoint(shape) +
           largest * sortBytesPerPoint(shape);
}

std::uint64_t pointsWithin(std::uint64_t limitBytes, const BatchMemoryShape& shape) noexcept {
    if (limitBytes <= kFixedBatchBytes)
        return 0;
    // A sub-batch of P points holds pieces of at most P/2: P·perPoint + (P/2)·sort bytes.
    const std::uint64_t perPoint = deviceBytesPerPoint(shape) + sortBytesPerPoint(shape) / 2;
    return (limitBytes - kFixedBatchBytes) / perPoint;
}

} // namespace tpacf::cuda::detail
