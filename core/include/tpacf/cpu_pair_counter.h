#pragma once
// The exact reference backend: double precision on all cores.
#include "tpacf/pair_counter.h"

namespace tpacf {

class CpuPairCounter final : public PairCounter {
public:
    /// threads <= 0: one per hardware thread.
    explicit CpuPairCounter(int threads = 0);

    std::string backendName() const override { return "cpu"; }
    std::string deviceDescription() const override;
    Precision precision() const override { return Precision::Double; }
    int threadCount() const noexcept { return m_threads; }

    std::vector<PairCounts> countBatch(std::span<const CountTask> tasks, const Binning& binning,
                                       const CountControl& control = {}) override;

private:
    int m_threads;
};

} // namespace tpacf
