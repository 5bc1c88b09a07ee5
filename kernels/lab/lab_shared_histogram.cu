// SPDX-License-Identifier: GPL-3.0-or-later
// Kernel Lab, CUDA rung 3: the histogram privatised per block. Each block counts into its own
// 32-bit histogram in shared memory (atomics on the SM, not across the chip) and adds it to the
// 64-bit global counters once at the end; the j points are staged through shared memory in
// tiles that the whole block reads. Arithmetic as rung 2 (double c²): exact.
#include "lab_device.cuh"
#include "lab_harness.h"
#include "lab_variants.h"

namespace tpacf::cuda::lab {
namespace {

constexpr int kBlockSize = 256;
/// Columns one block visits (a multiple of the block size).
constexpr long long kColumnSlice = 16 * kBlockSize;

// [lab:excerpt cuda-3-shared-histogram]
/// One block per kBlockSize rows (row = blockRow + threadIdx.x); dynamic shared memory: a tile
/// of blockDim.x j points (x, y, z in double), then binCount 32-bit counters.
__global__ void sharedHistogramKernel(const double* x1, const double* y1, const double* z1,
                                      const double* x2, const double* y2, const double* z2,
                                      long long columns, bool autoPairs, long long rowBegin,
                                      long long rowEnd, const double* thresholds, int binCount,
                                      unsigned long long* counts) {
    extern __shared__ double s_shared[];
    double* s_x = s_shared;
    double* s_y = s_x + blockDim.x;
    double* s_z = s_y + blockDim.x;
    unsigned int* s_hist = reinterpret_cast<unsigned int*>(s_z + blockDim.x);
    for (int k = threadIdx.x; k < binCount; k += blockDim.x)
        s_hist[k] = 0;

    const long long blockRow = rowBegin + static_cast<long long>(blockIdx.x) * blockDim.x;
    const long long i = blockRow + threadIdx.x;
    const bool active = i < rowEnd; // the threads past the end still load tiles and sync
    const double xi = active ? x1[i] : 0, yi = active ? y1[i] : 0, zi = active ? z1[i] : 0;

    // Auto: no j of this block's pairs lies before its first row.
    // Each block takes one slice of the columns (blockIdx.y): enough blocks to fill the GPU
    // even when a launch holds few rows.
    const long long sliceBegin = static_cast<long long>(blockIdx.y) * kColumnSlice;
    const long long sliceEnd = min(columns, sliceBegin + kColumnSlice);
    for (long long tile = max(sliceBegin, autoPairs ? blockRow : 0LL); tile < sliceEnd;
         tile += blockDim.x) {
        __syncthreads(); // the last tile is read (and, the first time, the histogram zeroed)
        const long long j = tile + threadIdx.x;
        if (j < sliceEnd) {
            s_x[threadIdx.x] = x2[j];
            s_y[threadIdx.x] = y2[j];
            s_z[threadIdx.x] = z2[j];
        }
        __syncthreads();
        if (!active)
            continue;
        const int tileSize =
            static_cast<int>(min(static_cast<long long>(blockDim.x), sliceEnd - tile));
        for (int t = 0; t < tileSize; ++t) {
            if (autoPairs && tile + t <= i)
                continue;
            // Every thread reads the same s_x[t]: a broadcast, no bank conflict.
            const double c2 = chord2Double(xi, yi, zi, s_x[t], s_y[t], s_z[t]);
            const int k = binOfChord2(c2, thresholds, binCount);
            if (k >= 0)
                atomicAdd(&s_hist[k], 1u); // shared memory: resolved on the SM
        }
    }
    __syncthreads();
    // One global atomic per bin and block, instead of one per pair.
    for (int k = threadIdx.x; k < binCount; k += blockDim.x)
        if (s_hist[k] != 0)
            atomicAdd(&counts[k], static_cast<unsigned long long>(s_hist[k]));
}
// [lab:end]

class SharedHistogramVariant final : public CudaLabVariant {
public:
    using CudaLabVariant::CudaLabVariant;

    std::string key() const override { return "cuda-3-shared-histogram"; }
    std::string name() const override {
        return "Shared histogram: a 32-bit histogram per block in shared memory, j tiles "
               "staged in shared memory, merged once per block";
    }
    int rung() const override { return 3; }
    bool exact() const override { return true; }
    std::string sourceFile() const override { return "kernels/lab/lab_shared_histogram.cu"; }
    std::string explanation() const override {
        return "Privatisation, the standard cure for histogram atomics (as in CUB's histogram): "
               "each block keeps its own histogram in shared memory, zeroes it, counts every "
               "pair with an atomicAdd on shared memory (resolved inside the SM, far cheaper "
               "than a global atomic that crosses the chip to L2), and adds it to the 64-bit "
               "global counters once, one atomic per bin and block. The block also loads the j "
               "points cooperatively, one tile of 256 at a time, into shared memory: each j is "
               "read from global memory once per block instead of once per thread, and all "
               "threads then read the same j (a broadcast). A block counts at most 256 × N₂ "
               "pairs, so its 32-bit shared counters cannot wrap below N₂ = 16.7 million. "
               "Same double arithmetic as rung 2: exact.";
    }

    LabCounts count(const Catalog& first, const Catalog* second, const Binning& binning,
                    int repeats, const std::atomic<bool>* cancel) override {
        const PairShape shape = pairShape(first, second);
        // A block's bin holds at most kBlockSize × columns pairs in 32 bits.
        checkSharedCounterRange(key(), shape, kBlockSize);
        const std::size_t binCount = binning.count();
        // One histogram per block, after the tile of j points.
        const std::size_t shared =
            sizeSharedHistograms(key(), 3 * kBlockSize * sizeof(double), binCount, 1).bytes;

        LabDevice dev(device());
        const DoubleInputs in = uploadDoubleInputs(first, second, binning, dev.stream());
        const DeviceAxes<double>& cols = in.columns();

        const RungLaunch rung{
            .kernel = reinterpret_cast<const void*>(&sharedHistogramKernel),
            .kernelName = "sharedHistogramKernel",
            .blockSize = kBlockSize,
            .rowsPerBlock = kBlockSize,
            .columnSlice = kColumnSlice,
            .dynamicShared = shared};
        LabCounts result = countRows<unsigned long long>(
            dev, shape, binCount, repeats, cancel, rung,
            [&](dim3 grid, std::int64_t begin, std::int64_t end, unsigned long long* d_counts,
                cudaStream_t s) {
                sharedHistogramKernel<<<grid, kBlockSize, shared, s>>>(
                    in.first.x.get(), in.first.y.get(), in.first.z.get(), cols.x.get(),
                    cols.y.get(), cols.z.get(), shape.columns, shape.autoPairs, begin, end,
                    in.thresholds.get(), static_cast<int>(binCount), d_counts);
            });

        result.notes.push_back(
            "one thread per i, one block per 256 rows; one shared-memory atomicAdd per pair in "
            "range, one 64-bit global atomicAdd per non-empty bin and block; j tiles of 256 "
            "points in shared memory");
        return result;
    }
};

} // namespace

std::unique_ptr<LabVariant> makeSharedHistogramVariant(int device) {
    return std::make_unique<SharedHistogramVariant>(device);
}

} // namespace tpacf::cuda::lab
