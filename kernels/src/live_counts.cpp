// SPDX-License-Identifier: GPL-3.0-or-later
#include "live_counts.h"

#include <utility>

namespace tpacf::cuda::detail {

LiveCounts::LiveCounts(std::size_t devices, std::size_t taskCount, std::size_t binCount,
                       std::vector<std::uint8_t> taskWeighted)
    : m_taskCount(taskCount), m_binCount(binCount), m_taskWeighted(std::move(taskWeighted)),
      m_devices(devices) {}

void LiveCounts::publish(std::size_t slot, const unsigned long long* counts,
                         const double* weighted, const std::vector<std::uint64_t>& pairsPerTask) {
    const std::size_t size = m_taskCount * m_binCount;
    Snapshot snapshot;
    snapshot.counts.assign(counts, counts + size);
    if (!m_taskWeighted.empty() && weighted != nullptr)
        snapshot.weighted.assign(weighted, weighted + size);
    snapshot.pairsPerTask = pairsPerTask;
    const std::lock_guard lock(m_mutex);
    m_devices.at(slot) = std::move(snapshot);
    ++m_version;
}

bool LiveCounts::takeNew(std::vector<PairCounts>& counts, std::vector<WeightedCounts>& weighted,
                         std::vector<std::uint64_t>& pairsPerTask) {
    const std::lock_guard lock(m_mutex);
    if (m_version == m_taken)
        return false;
    m_taken = m_version;
    counts.assign(m_taskCount, PairCounts(m_binCount, 0));
    weighted.assign(m_taskWeighted.empty() ? 0 : m_taskCount, WeightedCounts());
    for (std::size_t t = 0; t < weighted.size(); ++t)
        if (m_taskWeighted[t] != 0)
            weighted[t].assign(m_binCount, 0.0);
    pairsPerTask.assign(m_taskCount, 0);
    for (const Snapshot& device : m_devices) {
        if (device.counts.empty())
            continue;
        for (std::size_t t = 0; t < m_taskCount; ++t) {
            pairsPerTask[t] += device.pairsPerTask[t];
            for (std::size_t k = 0; k < m_binCount; ++k) {
                counts[t][k] += device.counts[t * m_binCount + k];
                if (!device.weighted.empty() && !weighted[t].empty())
                    weighted[t][k] += device.weighted[t * m_binCount + k];
            }
        }
    }
    return true;
}

} // namespace tpacf::cuda::detail
