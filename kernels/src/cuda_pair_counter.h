// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The CUDA PairCounter (internal; callers get it through makeProvider(tuning)->create()).
#include "tpacf/cuda/cuda_backend.h"
#include "tpacf/pair_counter.h"

#include <memory>
#include <string>
#include <vector>

namespace tpacf::cuda::detail {

/// A counter over `devices` as given (a device listed twice is driven by two host threads, as if
/// it were two cards: the multi-device schedule tested on one GPU). Throws ConfigError for an
/// invalid tuning, CudaError when a device cannot be initialised.
std::unique_ptr<PairCounter> makeCudaPairCounter(Precision precision, std::vector<int> devices,
                                                 std::string description,
                                                 const CudaTuning& tuning = {});

} // namespace tpacf::cuda::detail
