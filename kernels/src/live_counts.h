// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The counts of a running batch as the devices last copied them back, for the live plots. Each
// device enqueues, about every kLiveCountsInterval, a copy of its per-bin totals behind the
// launches it has queued, so a snapshot holds exactly the units launched before it; the
// caller's thread sums the devices' latest snapshots into CountProgress. Plain C++, internal to
// kernels/src.
#include "tpacf/pair_counter.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace tpacf::cuda::detail {

/// Often enough for the GUI's live plot (the job throttles partial results to 0.25 s), rarely
/// enough that the copies (a few KB each) cost nothing next to ~30 ms launches.
inline constexpr std::chrono::milliseconds kLiveCountsInterval{250};

class LiveCounts {
public:
    /// taskWeighted: per task whether it is weighted (DeviceJob::taskWeighted); empty: none.
    LiveCounts(std::size_t devices, std::size_t taskCount, std::size_t binCount,
               std::vector<std::uint8_t> taskWeighted);

    /// Device `slot`'s snapshot: taskCount × binCount counters (and weighted sums, or null), and
    /// the pairs of work behind them per task.
    void publish(std::size_t slot, const unsigned long long* counts, const double* weighted,
                 const std::vector<std::uint64_t>& pairsPerTask);
    /// The sum over devices of their latest snapshots, when any is newer than at the last call;
    /// false (nothing written) otherwise. weighted: empty for an unweighted batch, else one
    /// entry per task, empty for its unweighted tasks (as CountProgress::partialWeighted).
    bool takeNew(std::vector<PairCounts>& counts, std::vector<WeightedCounts>& weighted,
                 std::vector<std::uint64_t>& pairsPerTask);

private:
    struct Snapshot {
        std::vector<unsigned long long> counts;
        std::vector<double> weighted;
        std::vector<std::uint64_t> pairsPerTask;
    };
    std::mutex m_mutex;
    std::size_t m_taskCount, m_binCount;
    std::vector<std::uint8_t> m_taskWeighted;
    std::vector<Snapshot> m_devices; // empty counts: no snapshot yet
    std::uint64_t m_version = 0, m_taken = 0;
};

} // namespace tpacf::cuda::detail
