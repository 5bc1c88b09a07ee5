// SPDX-License-Identifier: GPL-3.0-or-later
// Provider for builds without CUDA: reports the fact, offers no device.
#include "tpacf/cuda/cuda_backend.h"
#include "tpacf/errors.h"

namespace tpacf::cuda {
namespace {

class NoCudaProvider final : public BackendModule {
public:
    std::string name() const override { return "cuda"; }
    bool compiledIn() const override { return false; }
    std::vector<GpuDeviceInfo> devices() const override { return {}; }
    std::string unavailableReason() const override {
        return "this build of tpacf has no CUDA support (configured with TPACF_CUDA=OFF or no "
               "nvcc)";
    }
    std::string versionDescription() const override { return {}; }
    std::unique_ptr<PairCounter> create(Precision, const std::vector<int>&) const override {
        throw BackendUnavailable("CUDA backend unavailable: " + unavailableReason());
    }
};

} // namespace

std::unique_ptr<BackendModule> makeProvider(const CudaTuning& tuning) {
    tuning.validate(); // the same errors as a CUDA build, for the same flags
    return std::make_unique<NoCudaProvider>();
}

} // namespace tpacf::cuda
