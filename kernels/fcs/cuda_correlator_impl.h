// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The CUDA multi-tau correlator (internal; callers get it through the CorrelatorProvider of
// tpacf/cuda/cuda_correlator.h, correlator_provider.cpp).
#include "tpacf/multitau.h"

#include <cstddef>
#include <memory>
#include <string>

namespace tpacf::cuda::detail::fcs {

/// A streaming correlator of `channels` channels on `device`. Throws ConfigError for settings
/// the kernels are not built for (lags per level other than 8, 16, 32, 64), CudaError when the
/// device cannot hold its state.
std::unique_ptr<tpacf::fcs::MultiTauCorrelator>
makeCudaCorrelator(const tpacf::fcs::MultiTauSettings& settings, std::size_t channels, int device,
                   std::string description);

} // namespace tpacf::cuda::detail::fcs
