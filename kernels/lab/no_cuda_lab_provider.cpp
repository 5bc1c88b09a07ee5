// SPDX-License-Identifier: GPL-3.0-or-later
// The Kernel Lab's CUDA provider in a build without CUDA: it says so and offers no rung.
#include "tpacf/cuda/cuda_lab.h"

namespace tpacf::cuda {
namespace {

class NoCudaLabProvider final : public tpacf::lab::LabProvider {
public:
    std::string name() const override { return "cuda"; }
    std::string displayName() const override { return "CUDA"; }
    std::string unavailableReason() const override {
        return "this build of tpacf has no CUDA support (configured with TPACF_CUDA=OFF or no "
               "nvcc)";
    }
    tpacf::lab::LabVariantList variants() const override { return {}; }
};

} // namespace

std::unique_ptr<tpacf::lab::LabProvider> makeLabProvider(const CudaTuning& tuning) {
    tuning.validate(); // the same errors as a CUDA build, for the same flags
    return std::make_unique<NoCudaLabProvider>();
}

} // namespace tpacf::cuda
