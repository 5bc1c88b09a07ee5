// SPDX-License-Identifier: GPL-3.0-or-later
#include "batch_trace.h"

#include <cstdio>

namespace tpacf::cuda::detail {

void markStage(DeviceResult& result, const char* stage,
               std::chrono::steady_clock::time_point start) {
    result.stages.emplace_back(
        stage, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

std::string batchTraceNote(std::span<const int> devices, const std::vector<DeviceResult>& results,
                           const std::vector<std::chrono::steady_clock::time_point>& lists,
                           std::chrono::steady_clock::time_point start,
                           std::chrono::steady_clock::time_point joined) {
    char text[128];
    const auto since = [&](std::chrono::steady_clock::time_point t) {
        return std::chrono::duration<double>(t - start).count();
    };
    std::string note = "trace (host seconds from the batch's start):";
    if (!lists.empty()) {
        std::snprintf(text, sizeof text, " %zu list%s published %.3f to %.3f;", lists.size(),
                      lists.size() == 1 ? "" : "s", since(lists.front()), since(lists.back()));
        note += text;
    }
    for (std::size_t d = 0; d < results.size(); ++d) {
        note += (d == 0 ? " GPU " : "; GPU ") + std::to_string(devices[d]) + ":";
        for (const auto& [stage, seconds] : results[d].stages) {
            std::snprintf(text, sizeof text, " %s %.3f,", stage, seconds);
            note += text;
        }
        const DeviceResult& r = results[d];
        std::snprintf(text, sizeof text,
                      " busy %.3f (%zu launches, kernels %.3f, catalogs %.3f), lists waited %.3f,",
                      r.busySeconds, r.launches, r.kernelSeconds, r.catalogSeconds,
                      r.listWaitSeconds);
        note += text;
        note.pop_back();
    }
    std::snprintf(text, sizeof text, "; joined %.3f", since(joined));
    return note + text;
}

} // namespace tpacf::cuda::detail
