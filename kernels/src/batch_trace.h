// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The note a traced batch leaves (CudaTuning::trace, `--cuda-trace`): when its lists were
// published and, per device, when each of its stages came (host seconds from the batch's start)
// and where its busy time went. Plain C++.
#include "launch_loop.h"

#include <chrono>
#include <span>
#include <string>
#include <vector>

namespace tpacf::cuda::detail {

/// Notes in `result` that its device reached `stage` now.
void markStage(DeviceResult& result, const char* stage,
               std::chrono::steady_clock::time_point start);

/// devices[d] is the device results[d] counted on; `joined`: when the devices were joined.
std::string batchTraceNote(std::span<const int> devices, const std::vector<DeviceResult>& results,
                           const std::vector<std::chrono::steady_clock::time_point>& lists,
                           std::chrono::steady_clock::time_point start,
                           std::chrono::steady_clock::time_point joined);

} // namespace tpacf::cuda::detail
