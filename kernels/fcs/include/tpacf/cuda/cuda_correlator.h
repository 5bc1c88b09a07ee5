// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The CUDA multi-tau correlator (kernels/fcs/) as a provider for the programs'
// CorrelatorRegistry. Holds no CUDA type; without CUDA the provider says so and makes none.
#include "tpacf/multitau.h"

#include <memory>

namespace tpacf::cuda {

std::unique_ptr<fcs::CorrelatorProvider> makeCorrelatorProvider();

} // namespace tpacf::cuda
