#pragma once
// The CUDA PairCounter (internal; callers get it through makeProvider()->create()).
#include "tpacf/pair_counter.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tpacf::cuda::detail {

std::unique_ptr<PairCounter> makeCudaPairCounter(Precision precision, std::vector<int> devices,
                                                 std::string description);

} // namespace tpacf::cuda::detail
