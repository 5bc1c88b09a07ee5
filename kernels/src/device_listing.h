// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The GPUs as NVML lists them, without starting CUDA (plain C++: NVML is opened at run time).
// Starting the CUDA driver starts every GPU it sees, ~0.25 s each, one after another (4 x H200:
// 0.55-1.07 s against 0.15-0.28 s with one visible; BENCHMARKS.md); NVML reads the same
// properties in ~60 ms for four. The CUDA numbering is mirrored from CUDA_DEVICE_ORDER and
// CUDA_VISIBLE_DEVICES; once CUDA runs, devices are matched by PCI address, so a listed index
// always means the device listed.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tpacf::cuda::detail {

struct ListedDevice {
    std::string name;
    std::string uuid; ///< "GPU-..." (what CUDA_VISIBLE_DEVICES takes)
    unsigned pciDomain = 0, pciBus = 0, pciDevice = 0;
    std::uint64_t memoryBytes = 0;
    int major = 0, minor = 0;
    int multiprocessors = 0; ///< from the FP32 cores and the lanes of the compute capability
    int clockKHz = 0;        ///< peak SM clock
    bool mig = false;        ///< MIG mode on: CUDA then lists instances, not this GPU
};

struct NvmlListing {
    bool ok = false;                   ///< NVML answered
    std::vector<ListedDevice> devices; ///< NVML's order
    int cudaDriverVersion = 0;         ///< 13000 for CUDA 13.0; 0: unknown
    std::string error;                 ///< why not ok
};

/// Opens libnvidia-ml.so.1 and reads every GPU; never throws.
NvmlListing readNvml();

/// The devices CUDA would number 0, 1, ... given the environment's CUDA_DEVICE_ORDER and
/// CUDA_VISIBLE_DEVICES (null: unset), or nullopt where the listing cannot mirror CUDA (MIG,
/// MIG instances named in CUDA_VISIBLE_DEVICES): the caller then asks CUDA itself.
std::optional<std::vector<ListedDevice>> cudaOrder(const std::vector<ListedDevice>& devices,
                                                   const char* visible, const char* order);

/// FP32 : FP64 throughput ratio of a compute capability (what CUDA reports as
/// cudaDevAttrSingleToDoublePrecisionPerfRatio); 0 where the table does not know it.
int fp64RatioOf(int major, int minor);

} // namespace tpacf::cuda::detail
