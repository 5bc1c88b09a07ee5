// SPDX-License-Identifier: GPL-3.0-or-later
// The CUDA module's provider: device queries that never throw and never start a GPU, and
// counters over chosen devices (started all at once).
#include "tpacf/cuda/cuda_backend.h"

#include "cuda_pair_counter.h"
#include "cuda_session.h"
#include "device_support.h"
#include "tpacf/errors.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <map>
#include <string>

namespace tpacf::cuda {
namespace {

using detail::CudaSession;

class CudaProvider final : public BackendModule {
public:
    explicit CudaProvider(const CudaTuning& tuning) : m_tuning(tuning) { m_tuning.validate(); }

    std::string name() const override { return "cuda"; }
    bool compiledIn() const override { return true; }

    // Listing never starts a GPU: NVML where it can stand in for CUDA (cuda_session.h).
    std::vector<GpuDeviceInfo> devices() const override {
        return CudaSession::instance().scan().usable;
    }

    std::vector<std::string> unsupportedDevices() const override {
        return CudaSession::instance().scan().unsupported;
    }

    std::string unavailableReason() const override {
        return CudaSession::instance().scan().unavailable;
    }

    void reserveDevices(const std::vector<int>& deviceIndices) const override {
        CudaSession::instance().reserve(deviceIndices);
    }

    void warmUp(const std::vector<int>& deviceIndices, Precision precision) const override {
        // Each device's context, on a thread of its own, and the kernels a count loads first:
        // the caller overlaps this with the reading. Errors are left for the counter.
        try {
            CudaSession& session = CudaSession::instance();
            session.start(deviceIndices.empty() ? session.reachable() : deviceIndices, precision);
        } catch (...) {
        }
    }

    std::string versionDescription() const override {
        return CudaSession::instance().scan().version;
    }

    // The toolkit and the architectures the kernels were compiled for: constants of the build,
    // so `tpacf --version` starts no GPU.
    std::string buildDescription() const override {
        const int runtime = CUDART_VERSION;
        return "CUDA " + std::to_string(runtime / 1000) + "." + std::to_string(runtime % 1000 / 10) +
               ", code for CUDA architectures " + std::string(detail::builtArchitectures());
    }

    std::unique_ptr<PairCounter> create(Precision precision,
                                        const std::vector<int>& deviceIndices) const override {
        CudaSession& session = CudaSession::instance();
        const std::vector<GpuDeviceInfo> available = devices();
        if (available.empty())
            throw BackendUnavailable("CUDA backend unavailable: " + unavailableReason());
        std::vector<int> chosen;
        for (int index : deviceIndices.empty() ? session.reachable() : deviceIndices)
            if (std::find(chosen.begin(), chosen.end(), index) == chosen.end())
                chosen.push_back(index);
        // Unknown or reserved-away devices are refused here (ConfigError), the others started
        // all at once.
        std::vector<int> runtime = session.start(chosen);
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
        // "(4 GPUs)" with every GPU of the process, else which: "(1 of 4 GPUs: 2)".
        std::string description = names + " (";
        if (chosen.size() < available.size()) {
            description += std::to_string(chosen.size()) + " of " +
                           std::to_string(available.size()) + " GPUs: ";
            for (std::size_t i = 0; i < chosen.size(); ++i) {
                if (i > 0)
                    description += ',';
                description += std::to_string(chosen[i]);
            }
        } else {
            description += std::to_string(chosen.size()) + (chosen.size() == 1 ? " GPU" : " GPUs");
        }
        description += ")";
        return detail::makeCudaPairCounter(precision, std::move(runtime), description, m_tuning);
    }

private:
    CudaTuning m_tuning; // every counter this provider creates uses it
};

} // namespace

std::unique_ptr<BackendModule> makeProvider(const CudaTuning& tuning) {
    return std::make_unique<CudaProvider>(tuning);
}

} // namespace tpacf::cuda
