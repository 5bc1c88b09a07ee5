// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Kernel Lab's CUDA rungs (kernels/lab/) as a provider for the programs' LabRegistry. Holds
// no CUDA type; without CUDA the provider says so and offers no rung.
#include "tpacf/cuda/cuda_backend.h"
#include "tpacf/lab.h"

#include <memory>

namespace tpacf::cuda {

/// The CUDA rungs on the first device, the product rung in the precision "auto" picks there and
/// with `tuning`. Never starts a device until a rung counts.
std::unique_ptr<lab::LabProvider> makeLabProvider(const CudaTuning& tuning = {});

} // namespace tpacf::cuda
