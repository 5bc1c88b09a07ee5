// SPDX-License-Identifier: GPL-3.0-or-later
// The catalog preparation kernels: sky-curve keys (sky_curve.h) and sorting, the gather into the
// kernels' point layouts (hi/lo floats, doubles, weights), region-ordered gathers, and the tile and
// sub-tile bounding boxes (with their weight sums) that the pair kernel classifies tile pairs by.
#include "cuda_check.h"
#include "device_point.h"
#include "kd_groups.h"
#include "pair_kernels.h"
#include "sky_curve.h"

#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace tpacf::cuda::detail {

namespace {

// ---- catalog preparation ------------------------------------------------------------------

/// The low bits of every sort key that hold the curve's key; a region key's group sits above them.
constexpr int kCurveKeyBits = 30;
static_assert(kSkyCurveKeyBits <= kCurveKeyBits, "the sky curve's keys must fit their bits");

__global__ void curveKeyKernel(const double* x, const double* y, const double* z, std::uint32_t n,
                               std::uint32_t* keys, std::uint32_t* order) {
    for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += gridDim.x * blockDim.x) {
        keys[i] = skyCurveKey(x[i], y[i], z[i]);
        order[i] = i;
    }
}

/// Point src of (x, y, z) with its weight (w[src], or 1 where w is null), or a NaN padding point
/// of weight 0 where src is ~0u, stored at i.
__device__ __forceinline__ void storePoint(const double* x, const double* y, const double* z,
                                           const double* w, std::uint32_t src, std::uint32_t i,
                                           DoublePoint* sorted, float4* hi, float4* lo) {
    DoublePoint p;
    if (src != ~0u) {
        p = DoublePoint{x[src], y[src], z[src], w != nullptr ? w[src] : 1.0};
    } else {
        const double nan = __longlong_as_double(0x7ff8000000000000ll);
        p = DoublePoint{nan, nan, nan, 0.0};
    }
    sorted[i] = p;
    if (hi != nullptr) {
        // hi = float(x), lo = float(x - hi): hi + lo carries x to ~2^-48. The weight rides in
        // the hi part's w, rounded to float.
        const float hx = __double2float_rn(p.x), hy = __double2float_rn(p.y),
                    hz = __double2float_rn(p.z);
        hi[i] = make_float4(hx, hy, hz, __double2float_rn(p.w));
        lo[i] = make_float4(__double2float_rn(p.x - hx), __double2float_rn(p.y - hy),
                            __double2float_rn(p.z - hz), 0.f);
    }
}

__global__ void gatherKernel(const double* x, const double* y, const double* z, const double* w,
                             const std::uint32_t* order, std::uint32_t n, std::uint32_t paddedSize,
                             DoublePoint* sorted, float4* hi, float4* lo) {
    for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < paddedSize;
         i += gridDim.x * blockDim.x)
        storePoint(x, y, z, w, i < n ? order[i] : ~0u, i, sorted, hi, lo);
}

/// Region layout: 64-bit keys (layout group above the 30 bits of the sky curve's key), so one sort
/// orders by group, then along the curve.
__global__ void regionKeyKernel(const double* x, const double* y, const double* z,
                                const std::int32_t* regions, std::uint32_t n, std::uint64_t* keys,
                                std::uint32_t* order) {
    for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += gridDim.x * blockDim.x) {
        keys[i] =
            (static_cast<std::uint64_t>(static_cast<std::uint32_t>(regions[i])) << kCurveKeyBits) |
            skyCurveKey(x[i], y[i], z[i]);
        order[i] = i;
    }
}

/// Region layout: padded slot i belongs to tile i / tileSize; the tile's first tileCount slots
/// take its region's next points in sorted order, the rest are NaN padding.
__global__ void gatherByRegionKernel(const double* x, const double* y, const double* z,
                                     const double* w, const std::uint32_t* order,
                                     const std::uint32_t* tileSortedStart,
                                     const std::uint32_t* tileCount, std::uint32_t tileSize,
                                     std::uint32_t paddedSize, DoublePoint* sorted, float4* hi,
                                     float4* lo) {
    for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < paddedSize;
         i += gridDim.x * blockDim.x) {
        const std::uint32_t tile = i / tileSize, offset = i % tileSize;
        storePoint(x, y, z, w,
                   offset < tileCount[tile] ? order[tileSortedStart[tile] + offset] : ~0u, i,
                   sorted, hi, lo);
    }
}

/// The box of a warp's points: every lane's lo/hi become the warp's min/max on each axis.
__device__ void warpReduceBox(double (&lo)[3], double (&hi)[3]) {
#pragma unroll
    for (int axis = 0; axis < 3; ++axis) {
        for (int offset = 16; offset > 0; offset /= 2) {
            lo[axis] = fmin(lo[axis], __shfl_xor_sync(0xffffffffu, lo[axis], offset));
            hi[axis] = fmax(hi[axis], __shfl_xor_sync(0xffffffffu, hi[axis], offset));
        }
    }
}

template <class Box>
__device__ void setBounds(Box& box, const double (&lo)[3], const double (&hi)[3]) {
    for (int axis = 0; axis < 3; ++axis) {
        box.lo[axis] = lo[axis];
        box.hi[axis] = hi[axis];
    }
}

/// One warp per tile: min/max of each axis over the tile's real points. Plain layout: the real
/// points are [0, n). Region layout (tileRegion set): tileCounts/tileRegion give them. Weighted
/// batches (weights set): also Σw and Σw² of the tile's real points.
__global__ void tileBoxKernel(const DoublePoint* sorted, std::uint32_t n, std::uint32_t tileSize,
                              std::uint32_t tileCount, const std::uint32_t* tileRegion,
                              const std::uint32_t* tileCounts, TileBox* tiles,
                              TileWeight* weights) {
    const std::uint32_t warpsPerBlock = blockDim.x / 32;
    const std::uint32_t lane = threadIdx.x % 32;
    for (std::uint32_t tile = blockIdx.x * warpsPerBlock + threadIdx.x / 32; tile < tileCount;
         tile += gridDim.x * warpsPerBlock) {
        const std::uint32_t begin = tile * tileSize;
        const std::uint32_t end =
            tileRegion != nullptr ? begin + tileCounts[tile] : min(begin + tileSize, n);
        double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
        for (std::uint32_t i = begin + lane; i < end; i += 32) {
            const DoublePoint p = sorted[i];
            lo[0] = fmin(lo[0], p.x), hi[0] = fmax(hi[0], p.x);
            lo[1] = fmin(lo[1], p.y), hi[1] = fmax(hi[1], p.y);
            lo[2] = fmin(lo[2], p.z), hi[2] = fmax(hi[2], p.z);
        }
        warpReduceBox(lo, hi);
        if (weights != nullptr) {
            double sum = 0, sumSquares = 0;
            for (std::uint32_t i = begin + lane; i < end; i += 32) {
                const double w = sorted[i].w;
                sum += w;
                sumSquares += w * w;
            }
            for (int offset = 16; offset > 0; offset /= 2) {
                sum += __shfl_xor_sync(0xffffffffu, sum, offset);
                sumSquares += __shfl_xor_sync(0xffffffffu, sumSquares, offset);
            }
            if (lane == 0)
                weights[tile] = TileWeight{sum, sumSquares};
        }
        if (lane == 0) {
            TileBox box;
            setBounds(box, lo, hi);
            box.count = end > begin ? end - begin : 0;
            box.region = tileRegion != nullptr ? tileRegion[tile] : 0u;
            tiles[tile] = box;
        }
    }
}

/// One warp per sub-box (kSubTileSize = 32 points, one per lane): min/max of each axis over the
/// real points, as tileBoxKernel does per tile; empty (padding only): lo = +inf, hi = -inf.
__global__ void subBoxKernel(const DoublePoint* sorted, std::uint32_t n, std::uint32_t tileSize,
                             std::uint32_t boxCount, const std::uint32_t* tileRegion,
                             const std::uint32_t* tileCounts, SubBox* boxes) {
    static_assert(kSubTileSize == 32, "one lane per point of a sub-box");
    const std::uint32_t warpsPerBlock = blockDim.x / 32;
    const std::uint32_t lane = threadIdx.x % 32;
    for (std::uint32_t box = blockIdx.x * warpsPerBlock + threadIdx.x / 32; box < boxCount;
         box += gridDim.x * warpsPerBlock) {
        const std::uint32_t i = box * kSubTileSize + lane;
        const bool real = tileRegion != nullptr ? i % tileSize < tileCounts[i / tileSize] : i < n;
        double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
        if (real) {
            const DoublePoint p = sorted[i];
            lo[0] = hi[0] = p.x;
            lo[1] = hi[1] = p.y;
            lo[2] = hi[2] = p.z;
        }
        warpReduceBox(lo, hi);
        if (lane == 0) {
            SubBox out;
            setBounds(out, lo, hi);
            boxes[box] = out;
        }
    }
}

template <class Kernel> void gridFor(Kernel kernel, std::uint32_t items, int& grid, int& block) {
    int minGrid = 0;
    TPACF_CUDA_TRY(cudaOccupancyMaxPotentialBlockSize(&minGrid, &block, kernel, 0, 0));
    const long long needed = (static_cast<long long>(items) + block - 1) / block;
    grid = static_cast<int>(std::max<long long>(1, std::min<long long>(needed, minGrid)));
}

} // namespace

std::size_t sortTempBytes(std::uint32_t size) {
    std::size_t bytes = 0;
    TPACF_CUDA_TRY(cub::DeviceRadixSort::SortPairs(
        nullptr, bytes, static_cast<const std::uint32_t*>(nullptr),
        static_cast<std::uint32_t*>(nullptr), static_cast<const std::uint32_t*>(nullptr),
        static_cast<std::uint32_t*>(nullptr), size, 0, kCurveKeyBits));
    return bytes;
}

std::size_t regionSortTempBytes(std::uint32_t size, int regionBits) {
    std::size_t bytes = 0;
    TPACF_CUDA_TRY(cub::DeviceRadixSort::SortPairs(
        nullptr, bytes, static_cast<const std::uint64_t*>(nullptr),
        static_cast<std::uint64_t*>(nullptr), static_cast<const std::uint32_t*>(nullptr),
        static_cast<std::uint32_t*>(nullptr), size, 0, kCurveKeyBits + regionBits));
    return bytes;
}

void preloadPrepareKernels() noexcept {
    // cudaFuncGetAttributes loads a kernel that lazy loading has not loaded yet.
    cudaFuncAttributes attributes{};
    cudaFuncGetAttributes(&attributes, curveKeyKernel);
    cudaFuncGetAttributes(&attributes, gatherKernel);
    cudaFuncGetAttributes(&attributes, tileBoxKernel);
    cudaFuncGetAttributes(&attributes, subBoxKernel);
    preloadKdGroupKernel();
}

void launchPrepareCatalog(const PrepareBuffers& b, cudaStream_t stream) {
    int grid = 0, block = 0;
    if (b.d_regions != nullptr) {
        if (b.size > 0) {
            gridFor(regionKeyKernel, b.size, grid, block);
            regionKeyKernel<<<grid, block, 0, stream>>>(b.d_x, b.d_y, b.d_z, b.d_regions, b.size,
                                                        b.d_regionKeys, b.d_order);
            TPACF_CUDA_CHECK_LAUNCH("regionKeyKernel");
            std::size_t tempBytes = b.sortTempBytes;
            TPACF_CUDA_TRY(cub::DeviceRadixSort::SortPairs(
                b.d_sortTemp, tempBytes, b.d_regionKeys, b.d_regionKeysSorted, b.d_order,
                b.d_orderSorted, b.size, 0, kCurveKeyBits + b.regionBits, stream));
            if (b.kdGroups && b.kdGroupCount > 0)
                launchKdGroups(b.d_x, b.d_y, b.d_z, b.d_orderSorted, b.size, b.d_kdGroupStarts,
                               b.kdGroupCount, stream);
        }
        gridFor(gatherByRegionKernel, b.paddedSize, grid, block);
        gatherByRegionKernel<<<grid, block, 0, stream>>>(
            b.d_x, b.d_y, b.d_z, b.d_w, b.d_orderSorted, b.d_tileSortedStart, b.d_tileCount, b.tileSize,
            b.paddedSize, static_cast<DoublePoint*>(b.d_sorted), static_cast<float4*>(b.d_hi),
            static_cast<float4*>(b.d_lo));
        TPACF_CUDA_CHECK_LAUNCH("gatherByRegionKernel");
    } else {
        if (b.size > 0) {
            gridFor(curveKeyKernel, b.size, grid, block);
            curveKeyKernel<<<grid, block, 0, stream>>>(b.d_x, b.d_y, b.d_z, b.size, b.d_keys,
                                                       b.d_order);
            TPACF_CUDA_CHECK_LAUNCH("curveKeyKernel");
            std::size_t tempBytes = b.sortTempBytes;
            TPACF_CUDA_TRY(cub::DeviceRadixSort::SortPairs(
                b.d_sortTemp, tempBytes, b.d_keys, b.d_keysSorted, b.d_order, b.d_orderSorted,
                b.size, 0, kCurveKeyBits, stream));
            if (b.kdGroups && kdGroupsApply(b.size, b.tileSize))
                launchKdGroups(b.d_x, b.d_y, b.d_z, b.d_orderSorted, b.size, nullptr, 0, stream);
        }
        gridFor(gatherKernel, b.paddedSize, grid, block);
        gatherKernel<<<grid, block, 0, stream>>>(
            b.d_x, b.d_y, b.d_z, b.d_w, b.d_orderSorted, b.size, b.paddedSize,
            static_cast<DoublePoint*>(b.d_sorted), static_cast<float4*>(b.d_hi),
            static_cast<float4*>(b.d_lo));
        TPACF_CUDA_CHECK_LAUNCH("gatherKernel");
    }
    const std::uint32_t tiles = b.paddedSize / b.tileSize;
    gridFor(tileBoxKernel, tiles * 32u, grid, block);
    tileBoxKernel<<<grid, block, 0, stream>>>(static_cast<const DoublePoint*>(b.d_sorted), b.size,
                                              b.tileSize, tiles, b.d_tileRegion, b.d_tileCount,
                                              b.d_tiles, b.d_tileWeights);
    TPACF_CUDA_CHECK_LAUNCH("tileBoxKernel");
    const std::uint32_t subBoxes = b.paddedSize / kSubTileSize;
    gridFor(subBoxKernel, subBoxes * 32u, grid, block);
    subBoxKernel<<<grid, block, 0, stream>>>(static_cast<const DoublePoint*>(b.d_sorted), b.size,
                                             b.tileSize, subBoxes, b.d_tileRegion, b.d_tileCount,
                                             b.d_subBoxes);
    TPACF_CUDA_CHECK_LAUNCH("subBoxKernel");
}

} // namespace tpacf::cuda::detail
