// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The process's CUDA state: the GPUs as listed (NVML, without starting CUDA; device_listing.h),
// which of them the process keeps out of the driver (reserve), the listed index of each GPU
// CUDA numbers (matched by PCI address), and the GPUs started. The CUDA driver starts every GPU
// it can see, one after another, the moment anything calls CUDA; a process that reserved its
// GPUs first makes only those visible to it (CUDA_VISIBLE_DEVICES, set before that moment).
#include "tpacf/backend.h"

#include <array>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tpacf::cuda::detail {

class CudaSession {
public:
    /// The one session of the process.
    static CudaSession& instance();

    struct Scan {
        std::vector<GpuDeviceInfo> usable;    ///< index: the listed index; started/reachable now
        std::vector<std::string> unsupported; ///< why, a sentence per device
        std::string unavailable;              ///< why there is no usable device; "" when some
        std::string version;                  ///< "CUDA runtime 13.0, driver 13.0"
    };
    /// The listing (read once) with each device's state now. Never throws.
    Scan scan();

    /// Keeps every listed GPU but `listed` out of the driver, where the driver has not started
    /// yet and the listing came from NVML; else nothing. Never throws.
    void reserve(const std::vector<int>& listed);

    /// CUDA's index of each listed GPU (starting the driver where it has not started): throws
    /// ConfigError for a GPU not listed or kept out, BackendUnavailable where CUDA does not see
    /// it.
    std::vector<int> runtimeIndices(const std::vector<int>& listed);

    /// Starts the listed GPUs (each one's context, on a thread of its own, all at once) and
    /// returns their CUDA indices; the first failure is rethrown once all are done. With
    /// `preloadFor`, each device started now also loads the kernels a count in that precision
    /// launches first (preloadCountKernels, pair_kernels.h): a warm-up beside the reading.
    std::vector<int> start(const std::vector<int>& listed,
                           std::optional<Precision> preloadFor = std::nullopt);

    /// Listed indices of every usable, reachable GPU.
    std::vector<int> reachable();

private:
    CudaSession() = default;
    struct Listing {
        std::vector<GpuDeviceInfo> usable;
        std::vector<std::string> uuids; ///< per usable device (NVML listing), for reserve
        std::vector<std::string> unsupported;
        std::string unavailable;
        std::string version;
        bool viaNvml = false;
        std::vector<std::array<unsigned, 3>> pci; ///< domain, bus, device per usable device
    };
    const Listing& listing(); // under m_mutex
    void startDriver();       // under m_mutex; throws BackendUnavailable
    static Listing listWithCuda();

    std::mutex m_mutex;
    std::optional<Listing> m_listing;
    bool m_driverStarted = false;
    std::optional<std::set<int>> m_reserved;
    std::map<int, int> m_runtime; ///< listed index → CUDA index
    std::set<int> m_started;
};

} // namespace tpacf::cuda::detail
