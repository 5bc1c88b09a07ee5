// SPDX-License-Identifier: GPL-3.0-or-later
// Kernel Lab, CPU rung 2: the product's binning idea in its plainest form. No angle is ever
// computed: the squared chord between two unit vectors is compared with the squared chords of
// the edges, computed once in double. Still one thread and one pair at a time.
#include "cpu_rungs.h"

#include <algorithm>

namespace tpacf::lab::detail {

PairCounts countChord2Scalar(const Catalog& first, const Catalog* second, const Binning& binning,
                             const std::atomic<bool>* cancel) {
    const Catalog& a = first;
    const Catalog& b = second ? *second : first;
    const bool autoCount = second == nullptr;
    const std::span<const double> ax = a.x(), ay = a.y(), az = a.z();
    const std::span<const double> bx = b.x(), by = b.y(), bz = b.z();
    const std::span<const double> thresholds = binning.chord2Edges(); // 4 sin^2(edge / 2)
    const std::size_t bins = binning.count();
    PairCounts histogram(bins, 0);
    // [lab:excerpt cpu-2-chord2]
    for (std::size_t i = 0; i < a.size(); ++i) {
        throwIfCancelled(cancel);
        for (std::size_t j = autoCount ? i + 1 : 0; j < b.size(); ++j) {
            const double dx = ax[i] - bx[j], dy = ay[i] - by[j], dz = az[i] - bz[j];
            // |a - b|^2 = 2 - 2 cos theta, without the cancellation of 1 - cos theta:
            // full double precision at 0.01' as at 180 degrees.
            const double chord2 = dx * dx + dy * dy + dz * dz;
            const std::size_t above = static_cast<std::size_t>(
                std::upper_bound(thresholds.begin(), thresholds.end(), chord2) -
                thresholds.begin());
            if (above >= 1 && above <= bins)
                ++histogram[above - 1]; // std::uint64_t: never wraps
        }
    }
    // [lab:end]
    return histogram;
}

namespace {

class Chord2Rung final : public CpuRung {
public:
    Chord2Rung()
        : CpuRung({"cpu-2-chord2",
                   "Chord^2 thresholds in double, 64-bit counters, one thread",
                   2,
                   true,
                   "The product's binning idea, scalar: for unit vectors a and b, |a - b|^2 = "
                   "2 - 2 cos theta = 4 sin^2(theta/2), computed from the coordinate differences "
                   "in double, is compared with the same quantity of every edge, computed once. "
                   "No acos, no cancellation: the subtraction happens on coordinates, so a pair "
                   "0.01' apart has a chord^2 of 8.5e-12 known to 16 digits, where 1 - cos theta "
                   "in float is 0. Counters are 64-bit. Exact, bin for bin; still one pair at a "
                   "time on one core, the binary search costing more than the arithmetic.",
                   "core/lab/src/cpu_chord2.cpp"}) {}

    LabCounts count(const Catalog& first, const Catalog* second, const Binning& binning,
                    int repeats, const std::atomic<bool>* cancel) override {
        return timedBest(repeats, cancel,
                         [&] { return countChord2Scalar(first, second, binning, cancel); });
    }
};

} // namespace

std::unique_ptr<LabVariant> makeChord2Rung() {
    return std::make_unique<Chord2Rung>();
}

} // namespace tpacf::lab::detail
