// SPDX-License-Identifier: GPL-3.0-or-later
// The multi-tau level passes for 16 lags per level (multitau_levels.cuh).
#include "multitau_levels.cuh"

namespace tpacf::cuda::detail::fcs {
template void launchFor<16>(const LevelPass&, cudaStream_t);
} // namespace tpacf::cuda::detail::fcs
