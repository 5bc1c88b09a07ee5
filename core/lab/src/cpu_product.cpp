// SPDX-License-Identifier: GPL-3.0-or-later
// Kernel Lab, CPU rung 5: the product itself, as a run uses it, with spatial culling on. The
// rung is here to close the ladder: its code is the CPU backend (counting/cpu_pair_counter.cpp),
// of which this file shows how it is called.
#include "cpu_rungs.h"
#include "tpacf/cpu_pair_counter.h"
#include "tpacf/work_runner.h"

namespace tpacf::lab::detail {

PairCounts countProduct(const Catalog& first, const Catalog* second, const Binning& binning,
                        int threads, const std::atomic<bool>* cancel, bool& culled) {
    // [lab:excerpt cpu-5-culled]
    CpuPairCounter counter(threads);
    // Each catalog sorted once into sky cells (Morton order); only the cell pairs whose
    // bounding boxes can hold a pair within the bins are visited, and a cell pair that lies
    // wholly inside one bin is added as |cell a| x |cell b| without looking at its pairs.
    counter.setCulling(CullingMode::On);
    CountControl control;
    control.cancelRequested = cancel;
    const CountTask task{&first, second};
    PairCounts counts = counter.countBatch({&task, 1}, binning, control).front().raw;
    // [lab:end]
    culled = counter.lastBatchCulled();
    return counts;
}

namespace {

class CulledRung final : public CpuRung {
public:
    explicit CulledRung(int threads)
        : CpuRung({"cpu-5-culled",
                   "The product: CPU backend with spatial culling, every core",
                   5,
                   true,
                   "What 'tpacf run --backend cpu --culling on' does. The catalogs are sorted "
                   "into cells along a space-filling curve; for each pair of cells the distance "
                   "between their bounding boxes bounds every pair's chord from below and "
                   "above, so cell pairs out of reach of the bins are skipped and cell pairs "
                   "lying wholly inside one bin are counted as a product of sizes, never pair "
                   "by pair. The rest go through rung 4's kernel on every core. The sort and "
                   "the cell plan are inside the time. Exact: the bounds carry a margin far "
                   "above double rounding, and the pairs left are binned exactly as before. "
                   "The gain grows as the bins' largest angle shrinks against the catalog's "
                   "extent, and with wide outer bins.",
                   "core/lab/src/cpu_product.cpp"}),
          m_threads(threads) {}

    LabCounts count(const Catalog& first, const Catalog* second, const Binning& binning,
                    int repeats, const std::atomic<bool>* cancel) override {
        bool culled = false;
        LabCounts result = timedBest(repeats, cancel, [&] {
            return countProduct(first, second, binning, m_threads, cancel, culled);
        });
        const std::size_t threads = m_threads <= 0 ? hardwareThreads() : std::size_t(m_threads);
        result.notes.push_back(std::string(culled ? "culled" : "not culled (brute force)") +
                               ", " + std::to_string(threads) +
                               (threads == 1 ? " thread" : " threads"));
        return result;
    }

private:
    int m_threads;
};

} // namespace

std::unique_ptr<LabVariant> makeCulledRung(int threads) {
    return std::make_unique<CulledRung>(threads);
}

} // namespace tpacf::lab::detail
