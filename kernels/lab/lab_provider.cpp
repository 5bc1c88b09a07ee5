// SPDX-License-Identifier: GPL-3.0-or-later
// The provider of the Kernel Lab's CUDA rungs: device queries that never throw and never start a
// GPU (the CUDA session's listing), the rungs on the first device.
#include "tpacf/cuda/cuda_lab.h"

#include "cuda_session.h"
#include "lab_variants.h"
#include "tpacf/errors.h"

namespace tpacf::cuda {
namespace {

using detail::CudaSession;

class CudaLabProvider final : public tpacf::lab::LabProvider {
public:
    explicit CudaLabProvider(const CudaTuning& tuning) : m_tuning(tuning) { m_tuning.validate(); }

    std::string name() const override { return "cuda"; }
    std::string displayName() const override { return "CUDA"; }
    std::string unavailableReason() const override {
        const auto scan = CudaSession::instance().scan();
        return scan.usable.empty() ? scan.unavailable : std::string();
    }

    /// The rungs on the first device; the product rung in the precision "auto" picks there
    /// (float where no device answers: its count then reports why).
    tpacf::lab::LabVariantList variants() const override {
        const std::vector<GpuDeviceInfo> available = CudaSession::instance().scan().usable;
        int device = 0;
        if (!available.empty()) {
            try {
                device = CudaSession::instance().runtimeIndices({available.front().index}).front();
            } catch (const Error&) {
                device = available.front().index; // the rung's count reports the problem
            }
        }
        const Precision precision = available.empty()
                                        ? Precision::Float
                                        : autoPrecision({available.front()}).precision;
        return cuda::lab::makeCudaLabVariants(device, precision, m_tuning);
    }

private:
    CudaTuning m_tuning;
};

} // namespace

std::unique_ptr<tpacf::lab::LabProvider> makeLabProvider(const CudaTuning& tuning) {
    return std::make_unique<CudaLabProvider>(tuning);
}

} // namespace tpacf::cuda
