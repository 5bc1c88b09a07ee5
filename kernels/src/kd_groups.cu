// SPDX-License-Identifier: GPL-3.0-or-later
// K-d groups: the sky curve's order refined, run by run, into a k-d order. The curve's runs of a
// tile are compact but ragged (a run starts wherever the previous one ended); splitting each
// group of kKdGroupPoints curve-ordered points (aligned runs, or in the region layout runs inside
// one region's stretch) at the median of its widest axis, then each half, down to the 32-point
// sub-tiles, makes every tile and sub-tile a box of the partition: smaller boxes, fewer tile
// pairs straddling an edge (BENCHMARKS.md, "K-d groups").
// Only the order changes, never a point: every count stays that of brute force.
#include "kd_groups.h"

#include "cuda_check.h"

#include <cub/block/block_radix_sort.cuh>

#include <cstdint>

namespace tpacf::cuda::detail {

namespace {

constexpr int kKdThreads = 512;
constexpr int kKdItems = static_cast<int>(kKdGroupPoints) / kKdThreads;
static_assert(kKdItems * kKdThreads == static_cast<int>(kKdGroupPoints));
/// Splits per group: halves down to 32-point leaves (the sub-tiles).
constexpr int kKdLevels = 8;
static_assert((kKdGroupPoints >> kKdLevels) == 32, "the leaves are the 32-point sub-tiles");
/// Segments of the deepest split level; each key holds its segment above 24 bits of coordinate.
constexpr int kKdSegments = 1 << (kKdLevels - 1);
constexpr int kCoordinateBits = 24;
static_assert(kCoordinateBits + kKdLevels - 1 <= 32, "a key is 32 bits");
/// Dynamic shared memory: the group's coordinates (float, 3 per point) and its order.
constexpr std::size_t kKdDynamicBytes =
    kKdGroupPoints * (3 * sizeof(float) + sizeof(std::uint16_t));

/// A float as an unsigned that orders as the float does (no NaN here: unit vectors).
__device__ __forceinline__ unsigned orderedBits(float value) {
    const unsigned bits = __float_as_uint(value);
    return (bits & 0x80000000u) != 0 ? ~bits : bits | 0x80000000u;
}

__device__ __forceinline__ float fromOrderedBits(unsigned bits) {
    return __uint_as_float((bits & 0x80000000u) != 0 ? bits & 0x7fffffffu : ~bits);
}

/// One block per group: order[start .. start + M) rewritten in k-d order, start = starts[block]
/// (or block·M where starts is null). Each level sorts the group by (segment, coordinate on the
/// segment's widest axis), which splits every segment at its median into the next level's two
/// segments, the halves of its positions.
__global__ void __launch_bounds__(kKdThreads)
    kdGroupKernel(const double* x, const double* y, const double* z, std::uint32_t* order,
                  const std::uint32_t* starts) {
    using Sort = cub::BlockRadixSort<unsigned, kKdThreads, kKdItems, std::uint16_t>;
    __shared__ typename Sort::TempStorage sortStorage;
    __shared__ unsigned boxLo[3][kKdSegments], boxHi[3][kKdSegments];
    extern __shared__ float dynamicShared[];
    float* const coords = dynamicShared; // [axis][point of the group, as first read]
    auto* const local = reinterpret_cast<std::uint16_t*>(dynamicShared + 3 * kKdGroupPoints);

    const std::uint32_t tid = threadIdx.x, lane = tid % 32;
    std::uint32_t* const group =
        order + (starts != nullptr ? starts[blockIdx.x]
                                   : static_cast<std::size_t>(blockIdx.x) * kKdGroupPoints);
    for (std::uint32_t i = tid; i < kKdGroupPoints; i += kKdThreads) {
        const std::uint32_t point = group[i];
        coords[i] = static_cast<float>(x[point]);
        coords[kKdGroupPoints + i] = static_cast<float>(y[point]);
        coords[2 * kKdGroupPoints + i] = static_cast<float>(z[point]);
        local[i] = static_cast<std::uint16_t>(i);
    }

    for (int level = 0; level < kKdLevels; ++level) {
        const int segmentShift = kKdGroupBits - level;
        for (std::uint32_t s = tid; s < (1u << level); s += kKdThreads)
            for (int axis = 0; axis < 3; ++axis) {
                boxLo[axis][s] = ~0u;
                boxHi[axis][s] = 0u;
            }
        __syncthreads();
        // Each segment's box: a warp's 32 consecutive positions share a segment (>= 64 long).
        for (std::uint32_t i = tid; i < kKdGroupPoints; i += kKdThreads) {
            const std::uint32_t point = local[i], segment = i >> segmentShift;
            for (int axis = 0; axis < 3; ++axis) {
                const unsigned bits = orderedBits(coords[axis * kKdGroupPoints + point]);
                const unsigned lo = __reduce_min_sync(0xffffffffu, bits);
                const unsigned hi = __reduce_max_sync(0xffffffffu, bits);
                if (lane == 0) {
                    atomicMin(&boxLo[axis][segment], lo);
                    atomicMax(&boxHi[axis][segment], hi);
                }
            }
        }
        __syncthreads();
        unsigned keys[kKdItems];
        std::uint16_t values[kKdItems];
        for (int k = 0; k < kKdItems; ++k) {
            const std::uint32_t i = tid * kKdItems + k, segment = i >> segmentShift;
            const std::uint16_t point = local[i];
            int widest = 0;
            float widestLo = 0, widestExtent = -1;
            for (int axis = 0; axis < 3; ++axis) {
                const float lo = fromOrderedBits(boxLo[axis][segment]);
                const float extent = fromOrderedBits(boxHi[axis][segment]) - lo;
                if (extent > widestExtent) {
                    widest = axis;
                    widestLo = lo;
                    widestExtent = extent;
                }
            }
            const float scale = widestExtent > 0
                                    ? static_cast<float>((1u << kCoordinateBits) - 1) / widestExtent
                                    : 0.f;
            const float scaled = (coords[widest * kKdGroupPoints + point] - widestLo) * scale;
            const unsigned cell =
                min(static_cast<unsigned>(fmaxf(scaled, 0.f)), (1u << kCoordinateBits) - 1);
            keys[k] = (segment << kCoordinateBits) | cell;
            values[k] = point;
        }
        __syncthreads(); // every read of `local` before the sort's results overwrite it
        Sort(sortStorage).Sort(keys, values, 0, kCoordinateBits + level);
        for (int k = 0; k < kKdItems; ++k)
            local[tid * kKdItems + k] = values[k];
        __syncthreads();
    }

    std::uint32_t points[kKdItems];
    for (int k = 0; k < kKdItems; ++k)
        points[k] = group[local[tid + k * kKdThreads]];
    __syncthreads();
    for (int k = 0; k < kKdItems; ++k)
        group[tid + k * kKdThreads] = points[k];
}

} // namespace

bool kdGroupsWanted(CudaTileOrder order, bool culled, bool projected, bool regions) noexcept {
    if (order != CudaTileOrder::Auto)
        return order == CudaTileOrder::Kd;
    return culled && !projected && !regions;
}

bool kdGroupsApply(std::uint32_t size, std::uint32_t tileSize) noexcept {
    return size >= kKdGroupPoints && tileSize >= 32 && kKdGroupPoints % tileSize == 0;
}

void preloadKdGroupKernel() noexcept {
    cudaFuncAttributes attributes{};
    cudaFuncGetAttributes(&attributes, kdGroupKernel);
    cudaFuncSetAttribute(kdGroupKernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                         static_cast<int>(kKdDynamicBytes));
}

void launchKdGroups(const double* x, const double* y, const double* z, std::uint32_t* order,
                    std::uint32_t size, const std::uint32_t* d_starts, std::uint32_t count,
                    cudaStream_t stream) {
    const std::uint32_t groups = d_starts != nullptr ? count : size / kKdGroupPoints;
    if (groups == 0)
        return;
    // Per device; set again at every launch, since the catalogs of a batch may be prepared on
    // several devices (a host call, no device work).
    TPACF_CUDA_TRY(cudaFuncSetAttribute(kdGroupKernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(kKdDynamicBytes)));
    kdGroupKernel<<<groups, kKdThreads, kKdDynamicBytes, stream>>>(x, y, z, order, d_starts);
    TPACF_CUDA_CHECK_LAUNCH("kdGroupKernel");
}

} // namespace tpacf::cuda::detail
