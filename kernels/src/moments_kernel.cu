// SPDX-License-Identifier: GPL-3.0-or-later
// The mean-separation pass on the device: each CUDA block walks one block of the host plan
// (separation_moments.h), a thread per a-point against the b-points staged in shared memory.
// Each pair's c² is computed as the CPU reference computes it (differences, squares,
// ((x + y) + z), each rounded on its own: _rn intrinsics, so nothing is contracted into an FMA)
// and binned against the same double thresholds with the same rule (upper bound), so a bin's
// pairs are the reference's. θ = 2 asin(√c²/2) and ln θ in double; sums of one thread run over
// consecutive pairs of one bin (pairs of two cells mostly share a bin), then go to the block's
// shared sums, then to the global ones.
#include "cuda_check.h"
#include "moments_kernel.h"

namespace tpacf::cuda::detail {
namespace {

struct Sums {
    unsigned long long* pairs;
    double* weight;
    double* theta;
    double* logTheta;
};

/// One thread's run of pairs in one bin, flushed when the bin changes.
struct Run {
    int bin = -1;
    unsigned long long pairs = 0;
    double weight = 0, theta = 0, logTheta = 0;

    __device__ void flushTo(const Sums& sums) {
        if (bin < 0 || pairs == 0)
            return;
        atomicAdd(sums.pairs + bin, pairs);
        atomicAdd(sums.weight + bin, weight);
        atomicAdd(sums.theta + bin, theta);
        atomicAdd(sums.logTheta + bin, logTheta);
        pairs = 0;
        weight = theta = logTheta = 0;
    }
};

__device__ __forceinline__ int binOf(const double* thresholds, std::uint32_t binCount, double c2) {
    // Upper bound over thresholds[0..binCount]: c² lies in [thresholds[0], thresholds[binCount]).
    int lo = 0, hi = static_cast<int>(binCount);
    while (hi - lo > 1) {
        const int mid = (lo + hi) / 2;
        if (thresholds[mid] <= c2)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

__global__ void __launch_bounds__(kMomentsThreads) momentsKernel(MomentsKernelArgs args) {
    extern __shared__ double shared[];
    const MomentsBlock block = args.blocks[args.blockBegin + blockIdx.x];
    const std::uint32_t bins = args.binCount;
    const bool inShared = bins <= kMomentsSharedBins;
    double* stagedX = shared;
    double* stagedY = stagedX + kMomentsThreads;
    double* stagedZ = stagedY + kMomentsThreads;
    double* stagedW = stagedZ + kMomentsThreads;
    double* thresholds = stagedW + kMomentsThreads;
    Sums local{};
    const Sums global{args.pairs + block.task * bins, args.weight + block.task * bins,
                      args.theta + block.task * bins, args.logTheta + block.task * bins};
    if (inShared) {
        double* sums = thresholds + bins + 1;
        local = {reinterpret_cast<unsigned long long*>(sums), sums + bins, sums + 2 * bins,
                 sums + 3 * bins};
        for (std::uint32_t k = threadIdx.x; k <= bins; k += blockDim.x)
            thresholds[k] = args.thresholds[k];
        for (std::uint32_t k = threadIdx.x; k < bins; k += blockDim.x) {
            local.pairs[k] = 0;
            local.weight[k] = local.theta[k] = local.logTheta[k] = 0;
        }
    } else {
        thresholds = const_cast<double*>(args.thresholds);
        local = global;
    }
    __syncthreads();
    const double low = thresholds[0], high = thresholds[bins];
    const MomentsCatalogView a = args.catalogs[block.catA];
    const MomentsCatalogView b = args.catalogs[block.catB];
    const bool weighted = args.weighted[block.task] != 0;
    Run run;
    for (std::uint32_t aBase = block.aBegin; aBase < block.aEnd; aBase += blockDim.x) {
        const std::uint32_t i = aBase + threadIdx.x;
        const bool active = i < block.aEnd;
        const double xi = active ? a.x[i] : 0, yi = active ? a.y[i] : 0, zi = active ? a.z[i] : 0;
        const double wi = active && weighted && a.w ? a.w[i] : 1.0;
        for (std::uint32_t bBase = block.bBegin; bBase < block.bEnd; bBase += blockDim.x) {
            const std::uint32_t j = bBase + threadIdx.x;
            if (j < block.bEnd) {
                stagedX[threadIdx.x] = b.x[j];
                stagedY[threadIdx.x] = b.y[j];
                stagedZ[threadIdx.x] = b.z[j];
                stagedW[threadIdx.x] = weighted && b.w ? b.w[j] : 1.0;
            }
            __syncthreads();
            const std::uint32_t staged = min(blockDim.x, block.bEnd - bBase);
            // The diagonal block pairs i with the points after it only.
            const std::uint32_t first =
                block.diagonal ? (i + 1 > bBase ? min(i + 1 - bBase, staged) : 0u) : 0u;
            if (active)
                for (std::uint32_t k = first; k < staged; ++k) {
                    const double dx = __dsub_rn(xi, stagedX[k]);
                    const double dy = __dsub_rn(yi, stagedY[k]);
                    const double dz = __dsub_rn(zi, stagedZ[k]);
                    const double c2 = __dadd_rn(__dadd_rn(__dmul_rn(dx, dx), __dmul_rn(dy, dy)),
                                                __dmul_rn(dz, dz));
                    if (!(c2 >= low && c2 < high))
                        continue;
                    if (run.bin < 0 || !(c2 >= thresholds[run.bin] &&
                                         c2 < thresholds[run.bin + 1])) {
                        run.flushTo(local);
                        run.bin = binOf(thresholds, bins, c2);
                    }
                    const double w = __dmul_rn(wi, stagedW[k]);
                    const double theta = 2.0 * asin(fmin(1.0, sqrt(c2) * 0.5));
                    run.pairs += 1;
                    run.weight += w;
                    run.theta += w * theta;
                    run.logTheta += w * log(theta);
                }
            __syncthreads();
        }
    }
    run.flushTo(local);
    if (!inShared)
        return;
    __syncthreads();
    for (std::uint32_t k = threadIdx.x; k < bins; k += blockDim.x)
        if (local.pairs[k] != 0) {
            atomicAdd(global.pairs + k, local.pairs[k]);
            atomicAdd(global.weight + k, local.weight[k]);
            atomicAdd(global.theta + k, local.theta[k]);
            atomicAdd(global.logTheta + k, local.logTheta[k]);
        }
}

} // namespace

std::size_t momentsSharedBytes(std::uint32_t binCount) noexcept {
    const std::size_t staging = 4 * kMomentsThreads * sizeof(double);
    if (binCount > kMomentsSharedBins)
        return staging;
    return staging + (binCount + 1) * sizeof(double) + 4 * binCount * sizeof(double);
}

void launchMomentsKernel(const MomentsKernelArgs& args, cudaStream_t stream) {
    const std::uint32_t blocks = args.blockEnd - args.blockBegin;
    if (blocks == 0)
        return;
    const std::size_t bytes = momentsSharedBytes(args.binCount);
    momentsKernel<<<blocks, kMomentsThreads, bytes, stream>>>(args);
    TPACF_CUDA_CHECK_LAUNCH("momentsKernel");
}

} // namespace tpacf::cuda::detail
