// SPDX-License-Identifier: GPL-3.0-or-later
// Kernel Lab, CPU rung 1: what a course's first version looks like. Float unit vectors, the
// angle from acosf of their dot product, the bin found among the edges, one 32-bit counter per
// bin. Fast to write, easy to read, and wrong where the lesson is.
#include "cpu_rungs.h"
#include "tpacf/lab_demos.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tpacf::lab::detail {

FloatPoints::FloatPoints(const Catalog& catalog)
    : x(catalog.x().begin(), catalog.x().end()), y(catalog.y().begin(), catalog.y().end()),
      z(catalog.z().begin(), catalog.z().end()) {}

std::vector<std::uint32_t> countNaiveFloat(const FloatPoints& first, const FloatPoints* second,
                                           std::span<const float> edgesRadians,
                                           const std::atomic<bool>* cancel) {
    const FloatPoints& a = first;
    const FloatPoints& b = second ? *second : first;
    const bool autoCount = second == nullptr;
    const int bins = static_cast<int>(edgesRadians.size()) - 1;
    std::vector<std::uint32_t> histogram(static_cast<std::size_t>(bins), 0);
    // [lab:excerpt cpu-1-naive]
    for (std::size_t i = 0; i < a.size(); ++i) {
        throwIfCancelled(cancel);
        for (std::size_t j = autoCount ? i + 1 : 0; j < b.size(); ++j) {
            float cosTheta = a.x[i] * b.x[j] + a.y[i] * b.y[j] + a.z[i] * b.z[j];
            // Rounding can push the product of two unit vectors above 1: acos would be NaN.
            cosTheta = std::clamp(cosTheta, -1.0f, 1.0f);
            const float theta = std::acos(cosTheta); // acosf: near 1, cos has 2^-24 steps
            // The first edge above theta, minus one: theta's bin, -1 below the first edge.
            const int bin = static_cast<int>(std::upper_bound(edgesRadians.begin(),
                                                              edgesRadians.end(), theta) -
                                             edgesRadians.begin()) -
                            1;
            if (bin >= 0 && bin < bins)
                ++histogram[static_cast<std::size_t>(bin)]; // std::uint32_t: wraps at 2^32
        }
    }
    // [lab:end]
    return histogram;
}

namespace {

std::string arcminText(double radians) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3g'", radians * 10800.0 / 3.14159265358979323846);
    return text;
}

class NaiveRung final : public CpuRung {
public:
    NaiveRung()
        : CpuRung({"cpu-1-naive",
                   "Naive: float dot product, acosf, bin search, 32-bit counters, one thread",
                   1,
                   false,
                   "What a course's first version does: unit vectors in float, cos theta as their "
                   "dot product, theta = acosf(cos theta), the bin found among the edges, one "
                   "32-bit counter per bin; one thread, no vectors (acosf and the search do not "
                   "vectorise). It is wrong twice. (1) Near 1 a float has steps of 2^-24 = "
                   "6.0e-8, and 1 - cos theta = theta^2/2: below theta = 2^-12 rad = " +
                       arcminText(floatDotUnresolvedRadians()) +
                       " cos theta rounds to exactly 1 and theta comes out 0, and the smallest "
                       "angle other than 0 that acosf can return is acosf(1 - 2^-24) = 2^-11.5 "
                       "rad = " +
                       arcminText(floatDotSmallestAngleRadians()) +
                       ": every bin below " + arcminText(floatDotSmallestAngleRadians()) +
                       " counts 0, its pairs dropped below the first edge or moved up to the "
                       "bins around 1.2'-2'. Above, the dot product's rounding (a few 2^-24 "
                       "on cos theta, i.e. about 5 * 2^-24 / sin theta on theta) moves the pairs "
                       "that lie that close to an edge into the neighbouring bin: a few per cent "
                       "of a bin at 10', nothing visible beyond a degree. (2) A 32-bit counter "
                       "wraps past 2^32 = 4.29e9 pairs in one bin (N = 100,000 over the whole "
                       "sky has 5e9 pairs: 'tpacf lab --demo overflow').",
                   "core/lab/src/cpu_naive.cpp"}) {}

    LabCounts count(const Catalog& first, const Catalog* second, const Binning& binning,
                    int repeats, const std::atomic<bool>* cancel) override {
        // The float copies are made once, before the clock starts: a course's code reads them.
        const FloatPoints a(first);
        const std::unique_ptr<FloatPoints> b = second ? std::make_unique<FloatPoints>(*second)
                                                      : nullptr;
        std::vector<float> edges(binning.edgesRadians().begin(), binning.edgesRadians().end());
        LabCounts result = timedBest(repeats, cancel, [&] {
            const std::vector<std::uint32_t> counts = countNaiveFloat(a, b.get(), edges, cancel);
            return PairCounts(counts.begin(), counts.end());
        });
        const std::uint64_t pairs =
            second ? std::uint64_t(first.size()) * second->size()
                   : std::uint64_t(first.size()) * (first.size() - (first.empty() ? 0 : 1)) / 2;
        result.notes.push_back("float copies of the unit vectors made before timing");
        if (pairs >= (std::uint64_t{1} << 32))
            result.notes.push_back("over 2^32 pairs: a bin's 32-bit counter may have wrapped");
        return result;
    }
};

} // namespace

std::unique_ptr<LabVariant> makeNaiveRung() {
    return std::make_unique<NaiveRung>();
}

} // namespace tpacf::lab::detail
