// SPDX-License-Identifier: GPL-3.0-or-later
// Kernel Lab, CUDA rung 4: register blocking and per-warp histograms. Each thread holds four i
// points in registers and pairs every j it reads from the shared tile with all four (a quarter
// of the shared-memory reads per pair); each warp counts into its own copy of the histogram, so
// the shared atomics of different warps never collide. Arithmetic as rung 2 (double c²): exact.
#include "lab_device.cuh"
#include "lab_harness.h"
#include "lab_variants.h"

namespace tpacf::cuda::lab {
namespace {

constexpr int kBlockSize = 128;
constexpr int kPointsPerThread = 4;
constexpr int kRowsPerBlock = kBlockSize * kPointsPerThread;
constexpr int kWarpsPerBlock = kBlockSize / 32;
/// Columns one block visits (a multiple of the block size).
constexpr long long kColumnSlice = 32 * kBlockSize;

// [lab:excerpt cuda-4-register-blocked]
/// One block per kRowsPerBlock rows; thread t holds rows blockRow + t + p · blockDim.x
/// (p < kPointsPerThread: coalesced loads). Dynamic shared memory: a tile of blockDim.x j
/// points (double x, y, z), then `copies` histograms of binCount 32-bit counters; warp w counts
/// into copy w % copies (one per warp where they fit).
__global__ void registerBlockedKernel(const double* x1, const double* y1, const double* z1,
                                      const double* x2, const double* y2, const double* z2,
                                      long long columns, bool autoPairs, long long rowBegin,
                                      long long rowEnd, const double* thresholds, int binCount,
                                      int copies, unsigned long long* counts) {
    extern __shared__ double s_shared[];
    double* s_x = s_shared;
    double* s_y = s_x + blockDim.x;
    double* s_z = s_y + blockDim.x;
    unsigned int* s_hists = reinterpret_cast<unsigned int*>(s_z + blockDim.x);
    for (int k = threadIdx.x; k < copies * binCount; k += blockDim.x)
        s_hists[k] = 0;
    unsigned int* s_hist = s_hists + (threadIdx.x / 32) % copies * binCount;

    const long long blockRow =
        rowBegin + static_cast<long long>(blockIdx.x) * blockDim.x * kPointsPerThread;
    long long row[kPointsPerThread];
    double xi[kPointsPerThread], yi[kPointsPerThread], zi[kPointsPerThread];
#pragma unroll
    for (int p = 0; p < kPointsPerThread; ++p) {
        row[p] = blockRow + threadIdx.x + p * blockDim.x;
        const bool active = row[p] < rowEnd;
        xi[p] = active ? x1[row[p]] : 0;
        yi[p] = active ? y1[row[p]] : 0;
        zi[p] = active ? z1[row[p]] : 0;
        if (!active)
            row[p] = autoPairs ? columns : -1; // pairs with no j: skipped below
    }
    const bool anyActive = blockRow + threadIdx.x < rowEnd;

    // Each block takes one slice of the columns (blockIdx.y): enough blocks to fill the GPU
    // even when a launch holds few rows.
    const long long sliceBegin = static_cast<long long>(blockIdx.y) * kColumnSlice;
    const long long sliceEnd = min(columns, sliceBegin + kColumnSlice);
    for (long long tile = max(sliceBegin, autoPairs ? blockRow : 0LL); tile < sliceEnd;
         tile += blockDim.x) {
        __syncthreads();
        const long long j = tile + threadIdx.x;
        if (j < sliceEnd) {
            s_x[threadIdx.x] = x2[j];
            s_y[threadIdx.x] = y2[j];
            s_z[threadIdx.x] = z2[j];
        }
        __syncthreads();
        if (!anyActive)
            continue;
        const int tileSize =
            static_cast<int>(min(static_cast<long long>(blockDim.x), sliceEnd - tile));
        for (int t = 0; t < tileSize; ++t) {
            const double xj = s_x[t], yj = s_y[t], zj = s_z[t]; // one read, four pairs
#pragma unroll
            for (int p = 0; p < kPointsPerThread; ++p) {
                if (autoPairs ? tile + t <= row[p] : row[p] < 0)
                    continue;
                const double c2 = chord2Double(xi[p], yi[p], zi[p], xj, yj, zj);
                const int k = binOfChord2(c2, thresholds, binCount);
                if (k >= 0)
                    atomicAdd(&s_hist[k], 1u); // this warp's copy: no other warp contends
            }
        }
    }
    __syncthreads();
    for (int k = threadIdx.x; k < binCount; k += blockDim.x) {
        unsigned long long sum = 0;
        for (int c = 0; c < copies; ++c)
            sum += s_hists[c * binCount + k];
        if (sum != 0)
            atomicAdd(&counts[k], sum);
    }
}
// [lab:end]

class RegisterBlockedVariant final : public CudaLabVariant {
public:
    using CudaLabVariant::CudaLabVariant;

    std::string key() const override { return "cuda-4-register-blocked"; }
    std::string name() const override {
        return "Register-blocked: four i points per thread in registers, a histogram per warp";
    }
    int rung() const override { return 4; }
    bool exact() const override { return true; }
    std::string sourceFile() const override { return "kernels/lab/lab_register_blocked.cu"; }
    std::string explanation() const override {
        return "Two refinements of rung 3. Register blocking: each thread keeps four i points in "
               "registers and pairs every j it reads from the shared tile with all four, so a "
               "shared-memory read serves four pairs instead of one (more registers per "
               "thread, the price). Per-warp histograms: each warp counts into its own copy of "
               "the histogram in shared memory, so atomics of different warps never fall on the "
               "same counter, and the copies are summed once per block before the one global "
               "atomic per bin. The copies are sized to stay within 48 KiB of shared memory per "
               "block: with many bins, warps share copies (down to one per block, rung 3's "
               "case). A copy's counter holds at most 512 × N₂ pairs: no 32-bit wrap below N₂ = "
               "8.4 million. Same double arithmetic as rung 2: exact.";
    }

    LabCounts count(const Catalog& first, const Catalog* second, const Binning& binning,
                    int repeats, const std::atomic<bool>* cancel) override {
        const PairShape shape = pairShape(first, second);
        checkSharedCounterRange(key(), shape, kRowsPerBlock);
        const std::size_t binCount = binning.count();
        // A histogram per warp where they fit beside the tile of j points, fewer where not.
        const SharedHistograms histograms =
            sizeSharedHistograms(key(), 3 * kBlockSize * sizeof(double), binCount, kWarpsPerBlock);
        const int copies = histograms.copies;
        const std::size_t shared = histograms.bytes;

        LabDevice dev(device());
        const DoubleInputs in = uploadDoubleInputs(first, second, binning, dev.stream());
        const DeviceAxes<double>& cols = in.columns();

        const RungLaunch rung{
            .kernel = reinterpret_cast<const void*>(&registerBlockedKernel),
            .kernelName = "registerBlockedKernel",
            .blockSize = kBlockSize,
            .rowsPerBlock = kRowsPerBlock,
            .columnSlice = kColumnSlice,
            .dynamicShared = shared};
        LabCounts result = countRows<unsigned long long>(
            dev, shape, binCount, repeats, cancel, rung,
            [&](dim3 grid, std::int64_t begin, std::int64_t end, unsigned long long* d_counts,
                cudaStream_t s) {
                registerBlockedKernel<<<grid, kBlockSize, shared, s>>>(
                    in.first.x.get(), in.first.y.get(), in.first.z.get(), cols.x.get(),
                    cols.y.get(), cols.z.get(), shape.columns, shape.autoPairs, begin, end,
                    in.thresholds.get(), static_cast<int>(binCount), copies, d_counts);
            });

        result.notes.push_back(
            "4 i points per thread, one block per 512 rows; " + std::to_string(copies) +
            (copies == 1 ? " histogram" : " histograms") + " per block (" +
            std::to_string(kWarpsPerBlock) +
            " warps); one shared-memory atomicAdd per pair in range, one 64-bit global "
            "atomicAdd per non-empty bin and block");
        return result;
    }
};

} // namespace

std::unique_ptr<LabVariant> makeRegisterBlockedVariant(int device) {
    return std::make_unique<RegisterBlockedVariant>(device);
}

} // namespace tpacf::cuda::lab
