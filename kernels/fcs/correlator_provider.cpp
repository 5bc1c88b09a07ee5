// SPDX-License-Identifier: GPL-3.0-or-later
// The provider of the CUDA multi-tau correlator: device queries that never throw and never start
// a GPU (the CUDA session's listing), the correlator on the device asked for.
#include "tpacf/cuda/cuda_correlator.h"

#include "cuda_correlator_impl.h"
#include "cuda_session.h"
#include "tpacf/errors.h"

#include <algorithm>

namespace tpacf::cuda {
namespace {

using detail::CudaSession;

class CudaCorrelatorProvider final : public tpacf::fcs::CorrelatorProvider {
public:
    std::string name() const override { return "cuda"; }
    std::string displayName() const override { return "CUDA"; }
    std::string unavailableReason() const override {
        const auto scan = CudaSession::instance().scan();
        return scan.usable.empty() ? scan.unavailable : std::string();
    }

    /// The correlator on the first device asked for (one device: a photon stream is one
    /// sequence, counted in order).
    std::unique_ptr<tpacf::fcs::MultiTauCorrelator>
    create(const tpacf::fcs::MultiTauSettings& settings, std::size_t channels,
           const std::vector<int>& deviceIndices) const override {
        const std::vector<GpuDeviceInfo> available = CudaSession::instance().scan().usable;
        if (available.empty())
            throw BackendUnavailable("CUDA backend unavailable: " + unavailableReason());
        const int device = deviceIndices.empty() ? available.front().index : deviceIndices.front();
        const auto info = std::find_if(available.begin(), available.end(),
                                       [&](const GpuDeviceInfo& d) { return d.index == device; });
        if (info == available.end())
            throw ConfigError("CUDA device " + std::to_string(device) +
                              " does not exist (this machine has " +
                              std::to_string(available.size()) + ")");
        const int runtime = CudaSession::instance().start({device}).front();
        return detail::fcs::makeCudaCorrelator(settings, channels, runtime, info->name);
    }
};

} // namespace

std::unique_ptr<tpacf::fcs::CorrelatorProvider> makeCorrelatorProvider() {
    return std::make_unique<CudaCorrelatorProvider>();
}

} // namespace tpacf::cuda
