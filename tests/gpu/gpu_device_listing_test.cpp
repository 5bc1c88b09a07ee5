// SPDX-License-Identifier: GPL-3.0-or-later
// The GPUs as the CUDA module lists them without starting CUDA (NVML) against CUDA's own
// properties of the same devices, matched by PCI address; and a process that reserved one GPU
// makes CUDA see that one alone and cannot use another.
//   tpacf_gpu_device_listing_tests all      every listed GPU started and compared
//   tpacf_gpu_device_listing_tests reserve  the last listed GPU reserved, then started
// Exit 77 without a device.
#include "cuda_session.h"
#include "gpu_test_support.h"

#include <cuda_runtime.h>

#include <cstring>
#include <string>

using namespace tpacf;
using tpacf::gputest::expect;
using tpacf::gputest::Stats;

namespace {

// The listed device against CUDA's properties of the device it was started as.
void compare(Stats& stats, const GpuDeviceInfo& listed, int runtime) {
    cudaDeviceProp props{};
    if (!expect(stats, cudaGetDeviceProperties(&props, runtime) == cudaSuccess,
                "properties of CUDA device " + std::to_string(runtime)))
        return;
    const std::string what =
        "GPU " + std::to_string(listed.index) + " as CUDA device " + std::to_string(runtime) + ": ";
    expect(stats, listed.name == props.name, what + "name " + listed.name + " vs " + props.name);
    expect(stats, listed.computeMajor == props.major && listed.computeMinor == props.minor,
           what + "compute capability");
    expect(stats, listed.multiprocessors == props.multiProcessorCount,
           what + "multiprocessors " + std::to_string(listed.multiprocessors) + " vs " +
               std::to_string(props.multiProcessorCount));
    // NVML's total counts memory CUDA keeps for itself: within 2 %.
    const double memory = static_cast<double>(props.totalGlobalMem);
    expect(stats, std::abs(static_cast<double>(listed.memoryBytes) - memory) < 0.02 * memory,
           what + "memory");
    int ratio = 0;
    cudaDeviceGetAttribute(&ratio, cudaDevAttrSingleToDoublePrecisionPerfRatio, runtime);
    expect(stats, listed.fp32PerFp64 == ratio,
           what + "FP64 ratio " + std::to_string(listed.fp32PerFp64) + " vs " +
               std::to_string(ratio));
    expect(stats, listed.pairsPerSecondFloat > 0 && listed.pairsPerSecondDouble > 0,
           what + "pair rates");
}

} // namespace

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "all";
    auto& session = cuda::detail::CudaSession::instance();
    const auto listing = session.scan();
    if (listing.usable.empty()) {
        std::printf("SKIP: no usable CUDA device (%s)\n", listing.unavailable.c_str());
        return gputest::kSkip;
    }
    Stats stats;
    if (mode == "reserve") {
        const GpuDeviceInfo last = listing.usable.back();
        session.reserve({last.index});
        const auto runtime = session.start({last.index});
        int count = 0;
        cudaGetDeviceCount(&count);
        expect(stats, count == 1, "CUDA sees " + std::to_string(count) + " GPUs, not 1");
        expect(stats, runtime == std::vector<int>{0}, "the reserved GPU is CUDA device 0");
        compare(stats, last, runtime.front());
        for (const GpuDeviceInfo& info : session.scan().usable)
            expect(stats,
                   info.reachable == (info.index == last.index) &&
                       info.started == (info.index == last.index),
                   "GPU " + std::to_string(info.index) + " reachable and started as reserved");
        if (listing.usable.size() > 1) {
            bool refused = false;
            try {
                session.start({listing.usable.front().index});
            } catch (const ConfigError&) {
                refused = true;
            }
            expect(stats, refused, "a GPU the process did not reserve is refused");
        }
    } else {
        std::vector<int> all;
        for (const GpuDeviceInfo& info : listing.usable)
            all.push_back(info.index);
        const auto runtime = session.start(all);
        int count = 0;
        cudaGetDeviceCount(&count);
        expect(stats, count >= static_cast<int>(all.size()), "CUDA sees every listed GPU");
        for (std::size_t i = 0; i < all.size(); ++i)
            compare(stats, listing.usable[i], runtime[i]);
        for (const GpuDeviceInfo& info : session.scan().usable)
            expect(stats, info.started && info.reachable,
                   "GPU " + std::to_string(info.index) + " started");
    }
    std::printf("%s: %d checks, %d failures (%zu GPUs listed, mode %s)\n",
                stats.failures ? "FAIL" : "PASS", stats.checks, stats.failures,
                listing.usable.size(), mode.c_str());
    return stats.failures ? 1 : 0;
}
