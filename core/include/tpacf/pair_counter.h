// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The interface every pair-counting backend implements (CPU here, CUDA in kernels/).
#include "tpacf/bins.h"
#include "tpacf/catalog.h"
#include "tpacf/culling.h"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tpacf {

struct SeparationMoments; // separation_moments.h

/// Raw pair counts, one per bin.
using PairCounts = std::vector<std::uint64_t>;

enum class Precision { Double, Float };

/// One count: the auto-correlation of `first` (second == nullptr), or first × second.
/// Auto counts each unordered pair i<j once; cross counts all |first|·|second| pairs.
struct CountTask {
    const Catalog* first = nullptr;
    const Catalog* second = nullptr;

    bool isAuto() const noexcept { return second == nullptr; }
    /// Pairs the task visits: N(N−1)/2 for auto, N·M for cross.
    std::uint64_t pairTotal() const noexcept;
    /// Whether the task sums weights: some catalog of it carries weights (Catalog::hasWeights).
    /// A catalog without weights then counts with weight 1 for each of its points.
    bool weighted() const noexcept;
};

/// Weight of point i of a catalog in a weighted count: its weight, or 1 where it has none.
inline double pointWeight(const Catalog& catalog, std::size_t i) noexcept {
    return catalog.hasWeights() ? catalog.weight()[i] : 1.0;
}

/// Weighted sums per bin: Σ w_i·w_j over the pairs of the bin, accumulated in double.
using WeightedCounts = std::vector<double>;

/// The result of one plain task: the raw per-bin pair counts and, for a weighted task
/// (CountTask::weighted), the weighted sums beside them (users check npairs against the sums).
/// Tallies keyed by jackknife region are RegionPairCounts.
struct TaskCounts {
    PairCounts raw;          // one per bin
    WeightedCounts weighted; // one per bin for a weighted task, else empty

    std::size_t binCount() const noexcept { return raw.size(); }
    bool isWeighted() const noexcept { return !weighted.empty(); }
    bool operator==(const TaskCounts&) const = default;
};

/// Counts of one task keyed by jackknife region (Catalog::region(), values in [0, regionCount)).
/// Memory is O(regions · bins): for region k, `touching` holds the pairs with at least one point
/// in k and `within` the pairs with both points in k. A pair in regions (a, b) is counted once in
/// `total`, once in touching[a] and, when b ≠ a, once in touching[b]; the leave-one-out count of
/// jackknife sample k is total − touching[k] (the "inverse jackknife": one pass, not K). A
/// weighted task (CountTask::weighted) fills the weighted tallies alike, Σ w_i·w_j in double;
/// they stay empty otherwise.
struct RegionPairCounts {
    std::size_t regionCount = 0;
    std::size_t binCount = 0;
    PairCounts total;                    // binCount
    std::vector<std::uint64_t> touching; // regionCount × binCount, row-major by region
    std::vector<std::uint64_t> within;   // regionCount × binCount, row-major by region
    WeightedCounts weightedTotal;        // binCount, or empty
    std::vector<double> weightedTouching; // regionCount × binCount, or empty
    std::vector<double> weightedWithin;   // regionCount × binCount, or empty

    bool isWeighted() const noexcept { return !weightedTotal.empty(); }
    std::uint64_t leaveOneOut(std::size_t region, std::size_t bin) const noexcept {
        return total[bin] - touching[region * binCount + bin];
    }
    /// The weighted sum without the pairs touching `region` (isWeighted() only).
    double weightedLeaveOneOut(std::size_t region, std::size_t bin) const noexcept {
        return weightedTotal[bin] - weightedTouching[region * binCount + bin];
    }
};

struct CountProgress {
    std::uint64_t pairsDone = 0;
    std::uint64_t pairsTotal = 0;
    /// Pairs visited so far per task (same order as the tasks).
    std::vector<std::uint64_t> pairsDonePerTask;
    /// Counts so far per task; may be empty when the backend has none to report this time.
    std::vector<PairCounts> partialCounts;
    /// The pairs visited behind partialCounts, per task, where they lag pairsDonePerTask (a GPU
    /// reports counts copied back a moment ago); empty: pairsDonePerTask.
    std::vector<std::uint64_t> partialPairsPerTask;
    /// Weighted sums so far per task (empty vectors for unweighted tasks); may be empty where
    /// partialCounts is, or where the backend reports raw counts only.
    std::vector<WeightedCounts> partialWeighted;
    /// True where every partial count is an even sample of its task's pairs: the work visited
    /// in an order spread over the sky (not cell by cell), and pairs counted whole in advance
    /// reported in proportion to the rest. Only then is a partial count divided by its pairs an
    /// honest estimate of the final one in every bin (a live w(θ)); otherwise the counts are
    /// reported for the record but no estimate is made from them.
    bool partialsEvenlySpread = false;
    /// The work done and to do, in a unit proportional to the expected time (pairs compared
    /// plus per-run and per-row costs); workTotal 0: the backend reports pairs only, and
    /// pairsDone / pairsTotal stands for the work. Pairs culled away are no work.
    double workDone = 0;
    double workTotal = 0;
    /// The backend is still preparing (sorting catalogs into cells, building the pair lists):
    /// nothing is counted yet. preparationDone of preparationTotal steps, where known.
    bool preparing = false;
    std::size_t preparationDone = 0;
    std::size_t preparationTotal = 0;
};

/// A part of a batch's work: part `part` of `parts` of the backend's work list (the unit pairs
/// of every task, after culling, in the backend's order). The `parts` shares of one batch, each
/// counted with the same catalogs and bins, add up exactly to the whole batch: what MPI ranks
/// and chunked runs build on. The default is the whole batch.
struct WorkShare {
    std::uint32_t part = 0;
    std::uint32_t parts = 1;

    bool whole() const noexcept { return parts == 1; }
    /// Throws ConfigError unless parts >= 1 and part < parts.
    void validate() const;
};

/// Progress sink and cancel token a backend honours. onProgress is called on the thread that
/// called countBatch, at least every ~100 ms of work; the backend checks the token at least as
/// often and throws Cancelled once it is set.
struct CountControl {
    std::function<void(const CountProgress&)> onProgress;
    const std::atomic<bool>* cancelRequested = nullptr;
    /// How often the backend reports (where it can choose; the CPU backend: every interval,
    /// counts every other report).
    std::chrono::milliseconds progressEvery{50};
    /// Which part of the batch to count (every countBatch and countBatchByRegion honours it);
    /// progress totals are those of the share.
    WorkShare share;

    bool cancelled() const noexcept {
        return cancelRequested && cancelRequested->load(std::memory_order_relaxed);
    }
};

class PairCounter {
public:
    virtual ~PairCounter() = default;

    /// "cpu" or "cuda".
    virtual std::string backendName() const = 0;
    /// Human-readable device, e.g. "CPU, 2 threads" or "NVIDIA H100 80GB HBM3 (1 GPU)".
    virtual std::string deviceDescription() const = 0;
    virtual Precision precision() const = 0;

    /// Counts every task into binning.count() bins, scheduling them together as the backend
    /// sees fit. Returns one TaskCounts per task, in order. Throws Cancelled.
    virtual std::vector<TaskCounts> countBatch(std::span<const CountTask> tasks,
                                               const Binning& binning,
                                               const CountControl& control = {}) = 0;

    /// Spatial culling for the following counts (Auto: decided per batch by chooseCulling).
    void setCulling(CullingMode mode) noexcept { m_culling = mode; }
    CullingMode culling() const noexcept { return m_culling; }
    /// Whether the last countBatch / countBatchByRegion visited only the cell pairs within
    /// reach of the bins (false: brute force). Metadata and benchmarks report it.
    bool lastBatchCulled() const noexcept { return m_lastBatchCulled; }

    /// The most device memory (bytes per device) the counter's catalogs may take; 0: what each
    /// device has free. A batch whose catalogs need more is counted in chunks of pieces that fit
    /// (chunked_count.h): the same counts, at the cost of more uploads. Counters that keep the
    /// catalogs in host memory (the CPU) ignore it.
    void setDeviceMemoryLimit(std::uint64_t bytes) noexcept { m_deviceMemoryLimit = bytes; }
    std::uint64_t deviceMemoryLimit() const noexcept { return m_deviceMemoryLimit; }
    /// What a reader of the result should know of how the last batch was counted (counted in
    /// chunks, and how many); empty where there is nothing to say.
    const std::vector<std::string>& lastBatchNotes() const noexcept { return m_lastBatchNotes; }

    /// Device-timed busy time of the last countBatch in seconds (GPU events), where the backend
    /// measures one; nullopt otherwise. Benchmarks use it.
    virtual std::optional<double> lastDeviceSeconds() const { return std::nullopt; }

    /// Whether countBatchByRegion is implemented (jackknife support).
    virtual bool supportsRegions() const { return false; }
    /// Like countBatch, keyed by the regions of the points: every catalog of every task carries
    /// regions in [0, regionCount). Throws ConfigError where supportsRegions() is false.
    virtual std::vector<RegionPairCounts> countBatchByRegion(std::span<const CountTask> tasks,
                                                             const Binning& binning,
                                                             std::size_t regionCount,
                                                             const CountControl& control = {});

    /// Mean separations (--mean-theta): per task, in task order, Σθ and Σ ln θ of the pairs of
    /// each bin (pair-weighted for a weighted task), in double whatever precision(), binned as
    /// the double reference bins them. The default walks separation_moments.h's plan on every
    /// host core; a backend with a device walks it there. Whole batches only (ConfigError for a
    /// share); progress reports pairs of the plan, cancellation throws Cancelled.
    virtual std::vector<SeparationMoments> countSeparationMoments(std::span<const CountTask> tasks,
                                                                  const Binning& binning,
                                                                  const CountControl& control = {});

    /// One-task shorthands for countBatch; they return the raw counts (countBatch has the
    /// weighted sums of a weighted task).
    PairCounts countAuto(const Catalog& catalog, const Binning& binning,
                         const CountControl& control = {});
    PairCounts countCross(const Catalog& a, const Catalog& b, const Binning& binning,
                          const CountControl& control = {});

protected:
    /// Backends set this in every countBatch / countBatchByRegion.
    void setLastBatchCulled(bool culled) noexcept { m_lastBatchCulled = culled; }
    void setLastBatchNotes(std::vector<std::string> notes) { m_lastBatchNotes = std::move(notes); }
    /// For a path that can count only whole batches: throws ConfigError unless control.share is
    /// the whole batch, rather than count everything for a part.
    void requireWholeShare(const CountControl& control) const;

private:
    CullingMode m_culling = CullingMode::Auto;
    bool m_lastBatchCulled = false;
    std::uint64_t m_deviceMemoryLimit = 0;
    std::vector<std::string> m_lastBatchNotes;
};

/// "double" / "float" (also "fp64", "fp32").
std::optional<Precision> parsePrecision(std::string_view text) noexcept;
std::string_view precisionName(Precision precision) noexcept;

} // namespace tpacf
