// SPDX-License-Identifier: GPL-3.0-or-later
// The CUDA module's provider: device queries that never throw, and counters over chosen devices.
#include "tpacf/cuda/cuda_backend.h"

#include "cuda_check.h"
#include "cuda_pair_counter.h"
#include "device_support.h"
#include "../fcs/cuda_correlator.h"
#include "../lab/lab_variants.h"
#include "tpacf/errors.h"
#include "tpacf/work_runner.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <string>

namespace tpacf::cuda {
namespace {

std::string versionText(int version) {
    return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

class CudaProvider final : public BackendModule {
public:
    explicit CudaProvider(const CudaTuning& tuning) : m_tuning(tuning) { m_tuning.validate(); }

    std::string name() const override { return "cuda"; }
    bool compiledIn() const override { return true; }

    std::vector<GpuDeviceInfo> devices() const override { return scan().usable; }

    std::vector<std::string> unsupportedDevices() const override { return scan().unsupported; }

    std::string unavailableReason() const override {
        int count = 0;
        const cudaError_t status = cudaGetDeviceCount(&count);
        if (status == cudaSuccess && count > 0) {
            const DeviceScan found = scan();
            if (!found.usable.empty())
                return {};
            std::string reasons;
            for (const std::string& reason : found.unsupported)
                reasons += (reasons.empty() ? "" : "; ") + reason;
            return reasons.empty() ? "no usable CUDA device" : reasons;
        }
        cudaGetLastError();
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

    void warmUp(const std::vector<int>& deviceIndices) const override {
        std::vector<int> indices = deviceIndices;
        if (indices.empty()) {
            int count = 0;
            if (cudaGetDeviceCount(&count) != cudaSuccess) {
                cudaGetLastError();
                return;
            }
            for (int i = 0; i < count; ++i)
                indices.push_back(i);
        }
        if (indices.empty())
            return;
        // Each device's primary context, which the counter's threads then find made; in
        // parallel, since each takes ~0.1-0.25 s. Errors are left for the counter to report.
        try {
            runWorkers(indices.size(), [&](std::size_t i, const std::atomic<bool>&) {
                if (cudaSetDevice(indices[i]) == cudaSuccess)
                    cudaFree(nullptr);
                cudaGetLastError();
            });
        } catch (...) {
        }
    }

    std::string versionDescription() const override {
        int runtime = 0, driver = 0;
        if (cudaRuntimeGetVersion(&runtime) != cudaSuccess)
            runtime = 0;
        if (cudaDriverGetVersion(&driver) != cudaSuccess)
            driver = 0;
        cudaGetLastError();
        std::string text =
            "CUDA runtime " + (runtime > 0 ? versionText(runtime) : std::string("unknown"));
        text += driver > 0 ? ", driver " + versionText(driver) : ", no driver";
        return text;
    }

    std::unique_ptr<PairCounter> create(Precision precision,
                                        const std::vector<int>& deviceIndices) const override {
        const std::vector<GpuDeviceInfo> available = devices();
        if (available.empty())
            throw BackendUnavailable("CUDA backend unavailable: " + unavailableReason());
        std::vector<int> chosen;
        if (deviceIndices.empty()) {
            for (const GpuDeviceInfo& info : available)
                chosen.push_back(info.index);
        } else {
            for (int index : deviceIndices) {
                const bool known =
                    std::any_of(available.begin(), available.end(),
                                [&](const GpuDeviceInfo& info) { return info.index == index; });
                if (!known)
                    throw ConfigError("CUDA device " + std::to_string(index) +
                                      " does not exist (this machine has " +
                                      std::to_string(available.size()) + ")");
                if (std::find(chosen.begin(), chosen.end(), index) == chosen.end())
                    chosen.push_back(index);
            }
        }
        // "NVIDIA H100 80GB HBM3 (1 GPU)"; mixed cards are listed by name.
        std::map<std::string, int> byName;
        for (int index : chosen)
            for (const GpuDeviceInfo& info : available)
                if (info.index == index)
                    ++byName[info.name];
        std::string names;
        for (const auto& [name, count] : byName) {
            if (!names.empty())
                names += " + ";
            names += byName.size() > 1 && count > 1 ? std::to_string(count) + "x " + name : name;
        }
        const std::string description = names + " (" + std::to_string(chosen.size()) +
                                        (chosen.size() == 1 ? " GPU)" : " GPUs)");
        return detail::makeCudaPairCounter(precision, std::move(chosen), description, m_tuning);
    }

    /// The Kernel Lab's CUDA rungs on the first device; the product rung in the precision
    /// "auto" picks there (float where no device answers: its count then reports why).
    tpacf::lab::LabVariantList labVariants() const override {
        const std::vector<GpuDeviceInfo> available = devices();
        const int device = available.empty() ? 0 : available.front().index;
        const Precision precision = available.empty()
                                        ? Precision::Float
                                        : autoPrecision({available.front()}).precision;
        return cuda::lab::makeCudaLabVariants(device, precision, m_tuning);
    }

    /// The multi-tau correlator on the first device asked for (one device: a photon stream is
    /// one sequence, counted in order).
    std::unique_ptr<tpacf::fcs::MultiTauCorrelator>
    createCorrelator(const tpacf::fcs::MultiTauSettings& settings, std::size_t channels,
                     const std::vector<int>& deviceIndices) const override {
        const std::vector<GpuDeviceInfo> available = devices();
        if (available.empty())
            throw BackendUnavailable("CUDA backend unavailable: " + unavailableReason());
        const int device = deviceIndices.empty() ? available.front().index : deviceIndices.front();
        const auto info = std::find_if(available.begin(), available.end(),
                                       [&](const GpuDeviceInfo& d) { return d.index == device; });
        if (info == available.end())
            throw ConfigError("CUDA device " + std::to_string(device) +
                              " does not exist (this machine has " +
                              std::to_string(available.size()) + ")");
        return detail::fcs::makeCudaCorrelator(settings, channels, device, info->name);
    }

private:
    struct DeviceScan {
        std::vector<GpuDeviceInfo> usable;
        std::vector<std::string> unsupported; // why, a sentence per device
    };

    // Properties only, no context: cheap enough to ask on every query.
    static DeviceScan scan() {
        DeviceScan result;
        int count = 0;
        if (cudaGetDeviceCount(&count) != cudaSuccess) {
            cudaGetLastError(); // clear the sticky-free error so later calls start clean
            return result;
        }
        const auto targets = detail::parseArchitectures(detail::builtArchitectures());
        for (int i = 0; i < count; ++i) {
            cudaDeviceProp props{};
            if (cudaGetDeviceProperties(&props, i) != cudaSuccess) {
                cudaGetLastError();
                continue;
            }
            std::string why = detail::unsupportedReason(i, props.name, props.major, props.minor,
                                                        detail::builtArchitectures());
            if (!why.empty()) {
                result.unsupported.push_back(std::move(why));
                continue;
            }
            GpuDeviceInfo info;
            info.index = i;
            info.name = props.name;
            info.memoryBytes = props.totalGlobalMem;
            info.computeMajor = props.major;
            info.computeMinor = props.minor;
            info.multiprocessors = props.multiProcessorCount;
            int ratio = 0;
            if (cudaDeviceGetAttribute(&ratio, cudaDevAttrSingleToDoublePrecisionPerfRatio, i) ==
                cudaSuccess)
                info.fp32PerFp64 = ratio;
            else
                cudaGetLastError(); // unknown: auto precision then stays with float
            if (targets)
                info.code = detail::codeForDevice(props.major, props.minor, *targets).description;
            result.usable.push_back(std::move(info));
        }
        return result;
    }

    CudaTuning m_tuning; // every counter this provider creates uses it
};

} // namespace

std::unique_ptr<BackendModule> makeProvider(const CudaTuning& tuning) {
    return std::make_unique<CudaProvider>(tuning);
}

} // namespace tpacf::cuda
