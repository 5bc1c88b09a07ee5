// SPDX-License-Identifier: GPL-3.0-or-later
// NVML, opened at run time (device_listing.h): the driver's library, present wherever the
// NVIDIA driver is; a build never links it.
#include "device_listing.h"

#include "device_rates.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <tuple>

namespace tpacf::cuda::detail {
namespace {

// The few NVML entry points used, with their C signatures (nvml.h; stable since NVML 10).
using NvmlDevice = void*;
struct NvmlMemory {
    unsigned long long total, free, used;
};
struct NvmlPciInfo {
    char busIdLegacy[16];
    unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
    char busId[32];
};
constexpr int kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;

template <class F> F symbol(void* library, const char* name) {
    return reinterpret_cast<F>(dlsym(library, name));
}

} // namespace

NvmlListing readNvml() {
    NvmlListing listing;
    void* library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        listing.error = "NVML (libnvidia-ml.so.1) not found";
        return listing;
    }
    const auto init = symbol<int (*)(unsigned)>(library, "nvmlInitWithFlags");
    const auto shutdown = symbol<int (*)()>(library, "nvmlShutdown");
    const auto count = symbol<int (*)(unsigned*)>(library, "nvmlDeviceGetCount_v2");
    const auto byIndex =
        symbol<int (*)(unsigned, NvmlDevice*)>(library, "nvmlDeviceGetHandleByIndex_v2");
    const auto name = symbol<int (*)(NvmlDevice, char*, unsigned)>(library, "nvmlDeviceGetName");
    const auto uuid = symbol<int (*)(NvmlDevice, char*, unsigned)>(library, "nvmlDeviceGetUUID");
    const auto memory =
        symbol<int (*)(NvmlDevice, NvmlMemory*)>(library, "nvmlDeviceGetMemoryInfo");
    const auto capability =
        symbol<int (*)(NvmlDevice, int*, int*)>(library, "nvmlDeviceGetCudaComputeCapability");
    const auto pci = symbol<int (*)(NvmlDevice, NvmlPciInfo*)>(library, "nvmlDeviceGetPciInfo_v3");
    const auto cores = symbol<int (*)(NvmlDevice, unsigned*)>(library, "nvmlDeviceGetNumGpuCores");
    const auto clock =
        symbol<int (*)(NvmlDevice, int, unsigned*)>(library, "nvmlDeviceGetMaxClockInfo");
    const auto migMode =
        symbol<int (*)(NvmlDevice, unsigned*, unsigned*)>(library, "nvmlDeviceGetMigMode");
    const auto cudaVersion = symbol<int (*)(int*)>(library, "nvmlSystemGetCudaDriverVersion_v2");
    if (!init || !shutdown || !count || !byIndex || !name || !uuid || !memory || !capability ||
        !pci || !cores) {
        listing.error = "NVML lacks a function this program reads (driver too old)";
        return listing; // the library stays loaded: harmless, and unloading it is not
    }
    if (init(0) != kNvmlSuccess) {
        listing.error = "NVML did not start";
        return listing;
    }
    unsigned n = 0;
    bool ok = count(&n) == kNvmlSuccess;
    for (unsigned i = 0; ok && i < n; ++i) {
        NvmlDevice device = nullptr;
        ListedDevice d;
        char text[128] = {};
        NvmlMemory mem{};
        NvmlPciInfo bus{};
        unsigned coreCount = 0;
        ok = byIndex(i, &device) == kNvmlSuccess && name(device, text, sizeof text) == kNvmlSuccess;
        d.name = text;
        std::memset(text, 0, sizeof text);
        ok = ok && uuid(device, text, sizeof text) == kNvmlSuccess;
        d.uuid = text;
        ok = ok && memory(device, &mem) == kNvmlSuccess &&
             capability(device, &d.major, &d.minor) == kNvmlSuccess &&
             pci(device, &bus) == kNvmlSuccess && cores(device, &coreCount) == kNvmlSuccess;
        if (!ok)
            break;
        d.memoryBytes = mem.total;
        d.pciDomain = bus.domain;
        d.pciBus = bus.bus;
        d.pciDevice = bus.device;
        d.multiprocessors =
            static_cast<int>(coreCount) / std::max(1, fp32LanesPerMultiprocessor(d.major, d.minor));
        unsigned mhz = 0;
        if (clock && clock(device, kNvmlClockSm, &mhz) == kNvmlSuccess)
            d.clockKHz = static_cast<int>(mhz) * 1000;
        unsigned current = 0, pending = 0;
        d.mig = migMode && migMode(device, &current, &pending) == kNvmlSuccess && current != 0;
        listing.devices.push_back(std::move(d));
    }
    if (cudaVersion)
        cudaVersion(&listing.cudaDriverVersion);
    shutdown();
    if (!ok) {
        listing.devices.clear();
        listing.error = "NVML could not read every GPU";
        return listing;
    }
    listing.ok = true;
    return listing;
}

std::optional<std::vector<ListedDevice>> cudaOrder(const std::vector<ListedDevice>& devices,
                                                   const char* visible, const char* order) {
    if (std::any_of(devices.begin(), devices.end(), [](const ListedDevice& d) { return d.mig; }))
        return std::nullopt;
    std::vector<ListedDevice> sorted = devices;
    const auto pciKey = [](const ListedDevice& d) {
        return std::tuple(d.pciDomain, d.pciBus, d.pciDevice);
    };
    const bool byBus = order != nullptr && std::string_view(order) == "PCI_BUS_ID";
    // FASTEST_FIRST (the default): the faster device first, equals in PCI order.
    const auto speed = [](const ListedDevice& d) {
        return static_cast<double>(d.multiprocessors) *
               fp32LanesPerMultiprocessor(d.major, d.minor) * std::max(d.clockKHz, 1);
    };
    std::stable_sort(sorted.begin(), sorted.end(),
                     [&](const ListedDevice& a, const ListedDevice& b) {
                         if (!byBus && speed(a) != speed(b))
                             return speed(a) > speed(b);
                         return pciKey(a) < pciKey(b);
                     });
    if (visible == nullptr)
        return sorted;
    // CUDA_VISIBLE_DEVICES: indices or GPU UUIDs (a unique prefix will do), comma separated; the
    // list ends at the first entry that names no device.
    std::vector<ListedDevice> shown;
    std::string_view rest = visible;
    while (!rest.empty()) {
        const std::size_t comma = rest.find(',');
        std::string_view entry = rest.substr(0, comma);
        rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
        while (!entry.empty() && entry.front() == ' ')
            entry.remove_prefix(1);
        while (!entry.empty() && entry.back() == ' ')
            entry.remove_suffix(1);
        if (entry.starts_with("MIG-"))
            return std::nullopt;
        const ListedDevice* found = nullptr;
        if (entry.starts_with("GPU-")) {
            for (const ListedDevice& d : sorted)
                if (d.uuid.starts_with(entry)) {
                    if (found)
                        return std::nullopt; // ambiguous: let CUDA decide
                    found = &d;
                }
        } else if (!entry.empty() &&
                   entry.find_first_not_of("0123456789") == std::string_view::npos &&
                   entry.size() < 6) {
            const auto index = static_cast<std::size_t>(std::atoi(std::string(entry).c_str()));
            if (index < sorted.size())
                found = &sorted[index];
        }
        if (!found)
            break;
        shown.push_back(*found);
    }
    return shown;
}

int fp64RatioOf(int major, int minor) {
    // cudaDevAttrSingleToDoublePrecisionPerfRatio as the data-centre and desktop GPUs report it:
    // full-rate FP64 (1/2) on P100, V100, A100, H100/H200, B200; 1/32 on Pascal and Turing
    // GeForce, 1/64 on Ampere, Ada and Blackwell GeForce. Others: unknown, asked of CUDA.
    struct Entry {
        int major, minor, ratio;
    };
    static constexpr Entry kTable[] = {{6, 0, 2},  {6, 1, 32}, {7, 0, 2}, {7, 5, 32}, {8, 0, 2},
                                       {8, 6, 64}, {8, 9, 64}, {9, 0, 2}, {10, 0, 2}, {12, 0, 64}};
    for (const Entry& e : kTable)
        if (e.major == major && e.minor == minor)
            return e.ratio;
    return 0;
}

} // namespace tpacf::cuda::detail
