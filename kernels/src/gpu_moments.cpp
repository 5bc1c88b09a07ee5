// SPDX-License-Identifier: GPL-3.0-or-later
#include "gpu_moments.h"

#include "cuda_check.h"
#include "memory_pool.h"
#include "moments_kernel.h"
#include "tpacf/errors.h"

#include <algorithm>
#include <chrono>
#include <vector>

namespace tpacf::cuda::detail {

namespace {

// Plan blocks per launch: a few ms of work each at N ~ 1e6, so progress and a cancel are seen
// often, while a launch still fills the device many times over.
constexpr std::uint32_t kBlocksPerLaunch = 1u << 16;

std::uint64_t planBytes(const MomentsPlan& plan, std::size_t binCount) {
    std::uint64_t bytes = plan.blocks.size() * sizeof(MomentsBlock);
    for (const MomentsCatalog& catalog : plan.catalogs)
        bytes += (3 + (catalog.w.empty() ? 0 : 1)) * catalog.size() * sizeof(double);
    return bytes + plan.taskCount * binCount * 4 * sizeof(double);
}

template <class T>
DeviceBuffer<T> upload(const std::vector<T>& values, cudaStream_t stream) {
    DeviceBuffer<T> buffer(values.size(), stream);
    if (!values.empty())
        TPACF_CUDA_TRY(cudaMemcpyAsync(buffer.get(), values.data(), buffer.bytes(),
                                       cudaMemcpyHostToDevice, stream));
    return buffer;
}

template <class T> std::vector<T> download(const DeviceBuffer<T>& buffer, cudaStream_t stream) {
    std::vector<T> values(buffer.size());
    if (!values.empty())
        TPACF_CUDA_TRY(cudaMemcpyAsync(values.data(), buffer.get(), buffer.bytes(),
                                       cudaMemcpyDeviceToHost, stream));
    return values;
}

} // namespace

std::vector<SeparationMoments> walkMomentsPlanOnDevice(int device, const MomentsPlan& plan,
                                                       const Binning& binning,
                                                       std::uint64_t memoryLimit,
                                                       const CountControl& control) {
    const auto binCount = static_cast<std::uint32_t>(binning.count());
    DeviceGuard guard(device);
    if (memoryLimit == 0) {
        std::size_t driverFree = 0, total = 0;
        TPACF_CUDA_TRY(cudaMemGetInfo(&driverFree, &total));
        // What the pool holds unused (the counter keeps it between batches) is free here too.
        const std::uint64_t free = driverFree + poolUnusedBytes(device);
        memoryLimit = free - free / 10;
    }
    // A plan beyond the device's memory: the host's threads give the same sums, slower.
    if (planBytes(plan, binCount) > memoryLimit)
        return walkMomentsPlanOnCpu(plan, binning, 0, control);

    Stream stream;
    const cudaStream_t s = stream.get();
    std::vector<DeviceBuffer<double>> arrays;
    std::vector<MomentsCatalogView> views;
    for (const MomentsCatalog& catalog : plan.catalogs) {
        MomentsCatalogView view;
        for (auto [host, device] : {std::pair{&catalog.x, &view.x}, std::pair{&catalog.y, &view.y},
                                    std::pair{&catalog.z, &view.z}, std::pair{&catalog.w, &view.w}})
            if (!host->empty()) {
                arrays.push_back(upload(*host, s));
                *device = arrays.back().get();
            }
        views.push_back(view);
    }
    const DeviceBuffer<MomentsCatalogView> deviceViews = upload(views, s);
    const DeviceBuffer<MomentsBlock> blocks = upload(plan.blocks, s);
    const DeviceBuffer<std::uint8_t> weighted = upload(plan.weighted, s);
    const std::span<const double> edges = binning.chord2Edges();
    const DeviceBuffer<double> thresholds =
        upload(std::vector<double>(edges.begin(), edges.end()), s);
    const std::size_t cells = plan.taskCount * binCount;
    DeviceBuffer<unsigned long long> pairs(cells, s);
    DeviceBuffer<double> weight(cells, s), theta(cells, s), logTheta(cells, s);
    TPACF_CUDA_TRY(cudaMemsetAsync(pairs.get(), 0, pairs.bytes(), s));
    for (DeviceBuffer<double>* sums : {&weight, &theta, &logTheta})
        TPACF_CUDA_TRY(cudaMemsetAsync(sums->get(), 0, sums->bytes(), s));

    MomentsKernelArgs args;
    args.blocks = blocks.get();
    args.catalogs = deviceViews.get();
    args.weighted = weighted.get();
    args.thresholds = thresholds.get();
    args.binCount = binCount;
    args.pairs = pairs.get();
    args.weight = weight.get();
    args.theta = theta.get();
    args.logTheta = logTheta.get();
    std::uint64_t pairsDone = 0;
    const auto total = static_cast<std::uint32_t>(plan.blocks.size());
    for (std::uint32_t begin = 0; begin < total; begin += kBlocksPerLaunch) {
        if (control.cancelled())
            throw Cancelled();
        args.blockBegin = begin;
        args.blockEnd = std::min(total, begin + kBlocksPerLaunch);
        launchMomentsKernel(args, s);
        TPACF_CUDA_TRY(cudaStreamSynchronize(s));
        for (std::uint32_t b = args.blockBegin; b < args.blockEnd; ++b)
            pairsDone += plan.blocks[b].pairs();
        if (control.onProgress) {
            CountProgress progress;
            progress.pairsDone = pairsDone;
            progress.pairsTotal = plan.pairsVisited;
            control.onProgress(progress);
        }
    }
    const std::vector<unsigned long long> hostPairs = download(pairs, s);
    const std::vector<double> hostWeight = download(weight, s), hostTheta = download(theta, s),
                              hostLog = download(logTheta, s);
    TPACF_CUDA_TRY(cudaStreamSynchronize(s));
    std::vector<SeparationMoments> result(plan.taskCount, SeparationMoments::zeros(binCount));
    for (std::size_t t = 0; t < plan.taskCount; ++t)
        for (std::size_t k = 0; k < binCount; ++k) {
            const std::size_t cell = t * binCount + k;
            result[t].pairs[k] = hostPairs[cell];
            result[t].weight[k] = hostWeight[cell];
            result[t].theta[k] = hostTheta[cell];
            result[t].logTheta[k] = hostLog[cell];
        }
    return result;
}

} // namespace tpacf::cuda::detail
