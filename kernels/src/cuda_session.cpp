// SPDX-License-Identifier: GPL-3.0-or-later
// The process's CUDA state (cuda_session.h).
#include "cuda_session.h"

#include "cuda_check.h"
#include "device_listing.h"
#include "device_rates.h"
#include "device_support.h"
#include "pair_kernels.h"
#include "tpacf/errors.h"
#include "tpacf/work_runner.h"

#include <algorithm>
#include <cstdlib>

namespace tpacf::cuda::detail {
namespace {

std::string versionText(int version) {
    return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

std::string versionDescription(int driver) {
    // The runtime is linked statically: its version is the one this library was built with.
    std::string text = "CUDA runtime " + versionText(CUDART_VERSION);
    text += driver > 0 ? ", driver " + versionText(driver) : ", no driver";
    return text;
}

// A usable device's entry, its expected pair rates included (device_rates.h).
GpuDeviceInfo infoOf(int index, const std::string& name, std::uint64_t memory, int major, int minor,
                     int multiprocessors, int clockKHz, int fp32PerFp64,
                     const std::optional<std::vector<CodeTarget>>& targets) {
    GpuDeviceInfo info;
    info.index = index;
    info.name = name;
    info.memoryBytes = memory;
    info.computeMajor = major;
    info.computeMinor = minor;
    info.multiprocessors = multiprocessors;
    info.clockKHz = clockKHz;
    info.fp32PerFp64 = fp32PerFp64;
    const DeviceThroughput throughput{multiprocessors, clockKHz, major, minor, fp32PerFp64};
    info.pairsPerSecondFloat = pairRates(throughput, true).first;
    info.pairsPerSecondDouble = pairRates(throughput, false).first;
    if (targets)
        info.code = codeForDevice(major, minor, *targets).description;
    return info;
}

std::string unavailableText(cudaError_t status) {
    const std::string detail =
        std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status);
    switch (status) {
    case cudaSuccess:
        return "no CUDA device: the driver reports 0 devices";
    case cudaErrorNoDevice:
        return "no CUDA device: " + detail;
    case cudaErrorInsufficientDriver:
    case cudaErrorCallRequiresNewerDriver:
        return "no CUDA driver (or one too old for this build): " + detail;
    default:
        return "CUDA unavailable: " + detail;
    }
}

} // namespace

CudaSession& CudaSession::instance() {
    static CudaSession session;
    return session;
}

// The old way, where NVML cannot stand in for CUDA: CUDA's own queries (which start the driver,
// and with it every visible GPU).
CudaSession::Listing CudaSession::listWithCuda() {
    Listing result;
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    int driver = 0;
    if (cudaDriverGetVersion(&driver) != cudaSuccess)
        driver = 0;
    result.version = versionDescription(driver);
    if (status != cudaSuccess || count == 0) {
        cudaGetLastError(); // clear the sticky-free error so later calls start clean
        result.unavailable = unavailableText(status);
        return result;
    }
    const auto targets = parseArchitectures(builtArchitectures());
    for (int i = 0; i < count; ++i) {
        cudaDeviceProp props{};
        if (cudaGetDeviceProperties(&props, i) != cudaSuccess) {
            cudaGetLastError();
            continue;
        }
        std::string why =
            unsupportedReason(i, props.name, props.major, props.minor, builtArchitectures());
        if (!why.empty()) {
            result.unsupported.push_back(std::move(why));
            continue;
        }
        int ratio = 0, clock = 0;
        if (cudaDeviceGetAttribute(&ratio, cudaDevAttrSingleToDoublePrecisionPerfRatio, i) !=
            cudaSuccess)
            ratio = 0; // unknown: auto precision then stays with float
        if (cudaDeviceGetAttribute(&clock, cudaDevAttrClockRate, i) != cudaSuccess)
            clock = 0;
        cudaGetLastError();
        result.usable.push_back(infoOf(i, props.name, props.totalGlobalMem, props.major,
                                       props.minor, props.multiProcessorCount, clock, ratio,
                                       targets));
        result.pci.push_back({static_cast<unsigned>(props.pciDomainID),
                              static_cast<unsigned>(props.pciBusID),
                              static_cast<unsigned>(props.pciDeviceID)});
        result.uuids.emplace_back();
    }
    if (result.usable.empty()) {
        std::string reasons;
        for (const std::string& reason : result.unsupported)
            reasons += (reasons.empty() ? "" : "; ") + reason;
        result.unavailable = reasons.empty() ? "no usable CUDA device" : reasons;
    }
    return result;
}

const CudaSession::Listing& CudaSession::listing() {
    if (m_listing)
        return *m_listing;
    const NvmlListing nvml = readNvml();
    std::optional<std::vector<ListedDevice>> ordered;
    if (nvml.ok && !nvml.devices.empty())
        ordered = cudaOrder(nvml.devices, std::getenv("CUDA_VISIBLE_DEVICES"),
                            std::getenv("CUDA_DEVICE_ORDER"));
    // NVML stands in for CUDA where it mirrors CUDA's numbering, knows every device's FP64
    // rate, and the driver is new enough for this build; else CUDA answers (and the reason
    // for no device is CUDA's own).
    bool nvmlUsable =
        ordered && !ordered->empty() && nvml.cudaDriverVersion / 1000 >= CUDART_VERSION / 1000;
    if (nvmlUsable)
        for (const ListedDevice& d : *ordered)
            nvmlUsable = nvmlUsable && fp64RatioOf(d.major, d.minor) > 0;
    if (!nvmlUsable) {
        m_listing = listWithCuda();
        m_driverStarted = true;
        for (const GpuDeviceInfo& info : m_listing->usable)
            m_runtime[info.index] = info.index;
        return *m_listing;
    }
    Listing result;
    result.viaNvml = true;
    result.version = versionDescription(nvml.cudaDriverVersion);
    const auto targets = parseArchitectures(builtArchitectures());
    for (std::size_t i = 0; i < ordered->size(); ++i) {
        const ListedDevice& d = (*ordered)[i];
        const int index = static_cast<int>(i);
        std::string why = unsupportedReason(index, d.name, d.major, d.minor, builtArchitectures());
        if (!why.empty()) {
            result.unsupported.push_back(std::move(why));
            continue;
        }
        result.usable.push_back(infoOf(index, d.name, d.memoryBytes, d.major, d.minor,
                                       d.multiprocessors, d.clockKHz, fp64RatioOf(d.major, d.minor),
                                       targets));
        result.uuids.push_back(d.uuid);
        result.pci.push_back({d.pciDomain, d.pciBus, d.pciDevice});
    }
    if (result.usable.empty()) {
        std::string reasons;
        for (const std::string& reason : result.unsupported)
            reasons += (reasons.empty() ? "" : "; ") + reason;
        result.unavailable = reasons.empty() ? "no usable CUDA device" : reasons;
    }
    m_listing = std::move(result);
    return *m_listing;
}

CudaSession::Scan CudaSession::scan() {
    std::lock_guard lock(m_mutex);
    const Listing& l = listing();
    Scan result{l.usable, l.unsupported, l.unavailable, l.version};
    for (GpuDeviceInfo& info : result.usable) {
        info.started = m_started.contains(info.index);
        info.reachable = !m_reserved || m_reserved->contains(info.index);
    }
    return result;
}

void CudaSession::reserve(const std::vector<int>& listed) {
    std::lock_guard lock(m_mutex);
    try {
        const Listing& l = listing();
        if (m_driverStarted || !l.viaNvml || m_reserved)
            return;
        std::set<int> chosen;
        std::string visible;
        for (std::size_t u = 0; u < l.usable.size(); ++u)
            if (std::find(listed.begin(), listed.end(), l.usable[u].index) != listed.end()) {
                chosen.insert(l.usable[u].index);
                visible += (visible.empty() ? "" : ",") + l.uuids[u];
            }
        if (chosen.empty())
            return;
        // Before the driver starts, and on the thread that starts the others: nothing reads
        // the environment concurrently.
        if (setenv("CUDA_VISIBLE_DEVICES", visible.c_str(), 1) == 0)
            m_reserved = std::move(chosen);
    } catch (...) {
    }
}

void CudaSession::startDriver() {
    if (m_driverStarted)
        return;
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
        cudaGetLastError();
        throw BackendUnavailable("CUDA backend unavailable: " + unavailableText(status));
    }
    m_driverStarted = true;
    // Each GPU CUDA numbers is the listed one at its PCI address.
    const Listing& l = *m_listing;
    for (int r = 0; r < count; ++r) {
        int domain = 0, bus = 0, device = 0;
        if (cudaDeviceGetAttribute(&domain, cudaDevAttrPciDomainId, r) != cudaSuccess ||
            cudaDeviceGetAttribute(&bus, cudaDevAttrPciBusId, r) != cudaSuccess ||
            cudaDeviceGetAttribute(&device, cudaDevAttrPciDeviceId, r) != cudaSuccess) {
            cudaGetLastError();
            continue;
        }
        for (std::size_t u = 0; u < l.usable.size(); ++u)
            if (l.pci[u] == std::array<unsigned, 3>{static_cast<unsigned>(domain),
                                                    static_cast<unsigned>(bus),
                                                    static_cast<unsigned>(device)})
                m_runtime.emplace(l.usable[u].index, r);
    }
}

std::vector<int> CudaSession::runtimeIndices(const std::vector<int>& listed) {
    std::lock_guard lock(m_mutex);
    const Listing& l = listing();
    if (l.usable.empty())
        throw BackendUnavailable("CUDA backend unavailable: " + l.unavailable);
    std::vector<int> runtime;
    for (const int index : listed) {
        const bool known = std::any_of(l.usable.begin(), l.usable.end(),
                                       [&](const GpuDeviceInfo& d) { return d.index == index; });
        if (!known)
            throw ConfigError("CUDA device " + std::to_string(index) +
                              " does not exist (this machine has " +
                              std::to_string(l.usable.size()) + ")");
        if (m_reserved && !m_reserved->contains(index))
            throw ConfigError("CUDA device " + std::to_string(index) +
                              " is not among the GPUs this process reserved");
        startDriver();
        const auto found = m_runtime.find(index);
        if (found == m_runtime.end())
            throw BackendUnavailable("CUDA backend unavailable: CUDA does not see GPU " +
                                     std::to_string(index) +
                                     " (no CUDA device has the PCI address NVML lists for it)");
        runtime.push_back(found->second);
    }
    return runtime;
}

std::vector<int> CudaSession::start(const std::vector<int>& listed,
                                    std::optional<Precision> preloadFor) {
    const std::vector<int> runtime = runtimeIndices(listed);
    std::vector<std::size_t> pending;
    {
        std::lock_guard lock(m_mutex);
        for (std::size_t i = 0; i < listed.size(); ++i) {
            const bool seen =
                std::find(listed.begin(), listed.begin() + static_cast<std::ptrdiff_t>(i),
                          listed[i]) != listed.begin() + static_cast<std::ptrdiff_t>(i);
            if (!seen && !m_started.contains(listed[i]))
                pending.push_back(i);
        }
    }
    // Each context on a thread of its own, all at once; the driver does part of it one at a
    // time (4 x H200: 0.42 s for four at once against 0.12 s for one).
    runWorkers(pending.size(), [&](std::size_t k, const std::atomic<bool>&) {
        DeviceGuard guard(runtime[pending[k]]);
        TPACF_CUDA_TRY(cudaFree(nullptr));
        if (preloadFor)
            preloadCountKernels(*preloadFor == Precision::Float ? RealKind::Float
                                                                : RealKind::Double);
    });
    std::lock_guard lock(m_mutex);
    for (const std::size_t i : pending)
        m_started.insert(listed[i]);
    return runtime;
}

std::vector<int> CudaSession::reachable() {
    std::vector<int> indices;
    for (const GpuDeviceInfo& info : scan().usable)
        if (info.reachable)
            indices.push_back(info.index);
    return indices;
}

} // namespace tpacf::cuda::detail
