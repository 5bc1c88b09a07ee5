// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to the Kernel Lab: the CPU rungs' counting functions (one per rung, each in its own
// file so that its excerpt reads on its own), the variants that time them, and the helpers they
// share. Nothing here is used by a CorrelationJob.
#include "tpacf/bins.h"
#include "tpacf/catalog.h"
#include "tpacf/errors.h"
#include "tpacf/lab.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace tpacf::lab::detail {

inline bool cancelled(const std::atomic<bool>* cancel) noexcept {
    return cancel && cancel->load(std::memory_order_relaxed);
}
inline void throwIfCancelled(const std::atomic<bool>* cancel) {
    if (cancelled(cancel))
        throw Cancelled();
}

/// Unit vectors rounded to float, as a course's code holds them.
struct FloatPoints {
    std::vector<float> x, y, z;
    explicit FloatPoints(const Catalog& catalog);
    std::size_t size() const noexcept { return x.size(); }
};

/// Rung 1: float dot product, acosf, the bin found among float edges (radians), 32-bit counters.
/// `second` null: auto (i < j). One counter per bin, wrapped as it wrapped.
std::vector<std::uint32_t> countNaiveFloat(const FloatPoints& first, const FloatPoints* second,
                                           std::span<const float> edgesRadians,
                                           const std::atomic<bool>* cancel);
/// Rung 2: squared chords in double against the Binning's thresholds, 64-bit counters.
PairCounts countChord2Scalar(const Catalog& first, const Catalog* second, const Binning& binning,
                             const std::atomic<bool>* cancel);
/// Rungs 3 and 4: the product's tile kernel over every tile, brute force; `threads` == 1 runs on
/// the calling thread, otherwise through the runner (`threads` <= 0: all).
PairCounts countTiles(const Catalog& first, const Catalog* second, const Binning& binning,
                      int threads, const std::atomic<bool>* cancel);
/// The tile kernel's name on this processor ("avx512" or "portable").
std::string tileKernelName();
/// Rung 5: the product, CpuPairCounter with culling on; `culled` says whether it culled.
PairCounts countProduct(const Catalog& first, const Catalog* second, const Binning& binning,
                        int threads, const std::atomic<bool>* cancel, bool& culled);

/// Runs `countOnce` `repeats` times (at least once) and keeps the best wall time; the counts are
/// the last run's (every run counts the same).
template <class CountOnce>
LabCounts timedBest(int repeats, const std::atomic<bool>* cancel, CountOnce&& countOnce) {
    LabCounts result;
    double best = -1;
    for (int run = 0; run < std::max(1, repeats); ++run) {
        throwIfCancelled(cancel);
        const auto start = std::chrono::steady_clock::now();
        PairCounts counts = countOnce();
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (best < 0 || seconds < best)
            best = seconds;
        result.counts = std::move(counts);
    }
    result.seconds = best;
    return result;
}

/// What every CPU rung has in common: its identity as data, the backend "cpu".
class CpuRung : public LabVariant {
public:
    struct Identity {
        std::string key, name;
        int rung = 0;
        bool exact = true;
        std::string explanation, sourceFile;
    };
    explicit CpuRung(Identity identity) : m_identity(std::move(identity)) {}

    std::string key() const override { return m_identity.key; }
    std::string name() const override { return m_identity.name; }
    int rung() const override { return m_identity.rung; }
    std::string backend() const override { return "cpu"; }
    bool exact() const override { return m_identity.exact; }
    std::string explanation() const override { return m_identity.explanation; }
    std::string sourceFile() const override { return m_identity.sourceFile; }

private:
    Identity m_identity;
};

std::unique_ptr<LabVariant> makeNaiveRung();
std::unique_ptr<LabVariant> makeChord2Rung();
std::unique_ptr<LabVariant> makeVectorisedRung();
std::unique_ptr<LabVariant> makeThreadsRung(int threads);
std::unique_ptr<LabVariant> makeCulledRung(int threads);

} // namespace tpacf::lab::detail
