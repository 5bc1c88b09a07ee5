// SPDX-License-Identifier: GPL-3.0-or-later
// The CUDA correlator's provider in a build without CUDA: it says so and makes none.
#include "tpacf/cuda/cuda_correlator.h"
#include "tpacf/errors.h"

namespace tpacf::cuda {
namespace {

class NoCudaCorrelatorProvider final : public tpacf::fcs::CorrelatorProvider {
public:
    std::string name() const override { return "cuda"; }
    std::string displayName() const override { return "CUDA"; }
    std::string unavailableReason() const override {
        return "this build of tpacf has no CUDA support (configured with TPACF_CUDA=OFF or no "
               "nvcc)";
    }
    std::unique_ptr<tpacf::fcs::MultiTauCorrelator>
    create(const tpacf::fcs::MultiTauSettings&, std::size_t,
           const std::vector<int>&) const override {
        throw BackendUnavailable("CUDA backend unavailable: " + unavailableReason());
    }
};

} // namespace

std::unique_ptr<tpacf::fcs::CorrelatorProvider> makeCorrelatorProvider() {
    return std::make_unique<NoCudaCorrelatorProvider>();
}

} // namespace tpacf::cuda
