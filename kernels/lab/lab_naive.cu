// SPDX-License-Identifier: GPL-3.0-or-later
// Kernel Lab, CUDA rung 1: what a course's first port looks like. One thread per point i, a
// loop over every j, the angle from the float dot product with acosf, the bin by dividing the
// log of the angle, and a 32-bit global atomicAdd per pair. Its errors are the lesson (see
// explanation()); the later rungs fix them one by one.
#include "lab_harness.h"
#include "lab_variants.h"

#include "tpacf/errors.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tpacf::cuda::lab {
namespace {

constexpr int kBlockSize = 256;

/// The bins as a student writes them: the first edge, the step and the last edge of θ in
/// radians, in float. Log bins: k = ⌊(ln θ − ln θ₀) / ln step⌋; linear: k = ⌊(θ − θ₀) / width⌋;
/// custom edges: a walk over the edges.
struct NaiveBins {
    enum Scale : int { Log, Linear, Custom };
    int scale = Log;
    float first = 0;   // θ₀; log: ln θ₀
    float invStep = 0; // 1 / (ln step) or 1 / width
    float lowest = 0;  // θ₀
    float last = 0;    // the last edge
    int binCount = 0;
    const float* edges = nullptr; // custom: binCount + 1 edges
};

// [lab:excerpt cuda-1-naive]
__device__ int naiveBin(float theta, const NaiveBins& bins) {
    if (!(theta >= bins.lowest && theta < bins.last))
        return -1;
    int k = 0;
    if (bins.scale == NaiveBins::Log)
        k = static_cast<int>((logf(theta) - bins.first) * bins.invStep);
    else if (bins.scale == NaiveBins::Linear)
        k = static_cast<int>((theta - bins.first) * bins.invStep);
    else
        while (theta >= bins.edges[k + 1])
            ++k;
    return min(k, bins.binCount - 1); // rounding can put θ just below the last edge at binCount
}

/// One thread per i (grid-stride), every j after it (auto) or every j (cross).
__global__ void naivePairKernel(const float* x1, const float* y1, const float* z1, const float* x2,
                                const float* y2, const float* z2, long long columns, bool autoPairs,
                                long long rowBegin, long long rowEnd, NaiveBins bins,
                                unsigned int* counts) {
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long i = rowBegin + static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
         i < rowEnd; i += stride) {
        const float xi = x1[i], yi = y1[i], zi = z1[i];
        for (long long j = autoPairs ? i + 1 : 0; j < columns; ++j) {
            // cos θ: near 1 for close pairs, where a float holds steps of 6e-8 only.
            float dot = xi * x2[j] + yi * y2[j] + zi * z2[j];
            dot = fminf(fmaxf(dot, -1.0f), 1.0f); // unclamped, 1.0000001 gives acosf = NaN
            const int k = naiveBin(acosf(dot), bins);
            if (k >= 0)
                atomicAdd(&counts[k], 1u); // 32 bits: wraps past 4 294 967 295
        }
    }
}
// [lab:end]

/// The bins in the student's form: first edge, step and last edge in float; custom edges
/// uploaded to d_edges (which must outlive the count) on `stream`.
NaiveBins naiveBinsOf(const Binning& binning, detail::DeviceBuffer<float>& d_edges,
                      cudaStream_t stream) {
    const auto edges = binning.edgesRadians();
    NaiveBins bins;
    bins.binCount = static_cast<int>(binning.count());
    bins.lowest = static_cast<float>(edges.front());
    bins.last = static_cast<float>(edges.back());
    switch (binning.spec().scale) {
    case BinScale::Logarithmic:
        bins.scale = NaiveBins::Log;
        bins.first = std::log(static_cast<float>(edges[0]));
        bins.invStep = static_cast<float>(1.0 / std::log(edges[1] / edges[0]));
        break;
    case BinScale::Linear:
        bins.scale = NaiveBins::Linear;
        bins.first = static_cast<float>(edges[0]);
        bins.invStep = static_cast<float>(1.0 / (edges[1] - edges[0]));
        break;
    case BinScale::Custom:
        bins.scale = NaiveBins::Custom;
        d_edges = uploadArray<float>(std::vector<float>(edges.begin(), edges.end()), stream);
        bins.edges = d_edges.get();
        break;
    }
    return bins;
}

class NaiveVariant final : public CudaLabVariant {
public:
    using CudaLabVariant::CudaLabVariant;

    std::string key() const override { return "cuda-1-naive"; }
    std::string name() const override {
        return "Naive: one thread per i, float dot product, acosf, a 32-bit global atomic per "
               "pair";
    }
    int rung() const override { return 1; }
    bool exact() const override { return false; }
    std::string sourceFile() const override { return "kernels/lab/lab_naive.cu"; }
    std::string explanation() const override {
        return "What students write first: each thread takes one point i and loops over every "
               "j, computes cos θ as the float dot product, θ = acosf, and the bin by dividing "
               "ln θ; each pair is one atomicAdd on a 32-bit counter in global memory, so "
               "thousands of threads queue on the same few addresses. Two errors are the "
               "lesson. Precision: a float near 1 moves in steps of 6e-8, so 1 − cos θ cannot "
               "tell angles below ~1.2′ from 0: every pair closer than that reads θ = 0 and is "
               "lost (every bin below ~1.2′ stays empty); above, θ is off by ~1e-7 / sin θ, so "
               "bins of a few arcminutes are wrong by percents, bins near 1° by tenths of a "
               "percent, and past ~10° at most a few pairs in ten thousand move. Range: a "
               "32-bit counter wraps past 4 294 967 295, so a bin holding more pairs reports its "
               "count modulo 2^32. "
               "Rung 2 removes the acos (chord² thresholds in double) and widens the counters.";
    }

    LabCounts count(const Catalog& first, const Catalog* second, const Binning& binning,
                    int repeats, const std::atomic<bool>* cancel) override {
        LabDevice dev(device());
        const cudaStream_t stream = dev.stream();
        const DeviceAxes<float> a = uploadFloat(first, stream);
        const DeviceAxes<float> b = second ? uploadFloat(*second, stream) : DeviceAxes<float>{};
        const DeviceAxes<float>& columnsAxes = second ? b : a;
        detail::DeviceBuffer<float> d_edges; // custom bins only
        const NaiveBins bins = naiveBinsOf(binning, d_edges, stream);

        const PairShape shape = pairShape(first, second);
        const RungLaunch rung{
            .kernel = reinterpret_cast<const void*>(&naivePairKernel),
            .kernelName = "naivePairKernel",
            .blockSize = kBlockSize,
            .rowsPerBlock = kBlockSize};
        LabCounts result =
            countRows<unsigned int>(dev, shape, binning.count(), repeats, cancel, rung,
                                    [&](dim3 grid, std::int64_t begin, std::int64_t end,
                                        unsigned int* d_counts, cudaStream_t s) {
                                        naivePairKernel<<<grid, kBlockSize, 0, s>>>(
                                            a.x.get(), a.y.get(), a.z.get(), columnsAxes.x.get(),
                                            columnsAxes.y.get(), columnsAxes.z.get(), shape.columns,
                                            shape.autoPairs, begin, end, bins, d_counts);
                                    });

        result.notes.push_back("one thread per i; one 32-bit global atomicAdd per pair in range");
        if (shape.pairTotal() > std::numeric_limits<std::uint32_t>::max())
            result.notes.push_back(
                std::to_string(shape.pairTotal()) +
                " pairs visited, more than a 32-bit counter holds: a bin with more than "
                "4294967295 pairs reports its count modulo 2^32");
        return result;
    }
};

} // namespace

std::unique_ptr<LabVariant> makeNaiveVariant(int device) {
    return std::make_unique<NaiveVariant>(device);
}

} // namespace tpacf::cuda::lab
