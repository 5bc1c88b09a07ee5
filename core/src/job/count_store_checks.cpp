// SPDX-License-Identifier: GPL-3.0-or-later
// What a count file's numbers can be checked against without counting again: the pairs its
// catalogs have, the weights they carry, and its own other counts. A count file carries no
// signature: an edited number that stays within these bounds is not caught.
#include "tpacf/count_store.h"

#include "tpacf/errors.h"

#include <cmath>
#include <map>
#include <string>
#include <utility>

namespace tpacf {

namespace {

class PlausibilityCheck {
public:
    explicit PlausibilityCheck(const CountStore& store) : m_store(store) {}

    void catalogs() const {
        for (std::size_t c = 0; c < m_store.catalogs.size(); ++c) {
            const CountCatalog& catalog = m_store.catalogs[c];
            const WeightSums& w = catalog.weights;
            if (catalog.size == 0 || !std::isfinite(w.sum) || !std::isfinite(w.sumSquares) ||
                w.sumSquares < 0)
                fail("catalog " + std::to_string(c) + " (" + catalog.name +
                     ") has an impossible size or weight sums (N = " +
                     std::to_string(catalog.size) + ")");
        }
    }

    void count(const StoredCount& count) const {
        const CountCatalog& a = m_store.catalogs.at(count.first);
        const CountCatalog* b = count.second ? &m_store.catalogs.at(*count.second) : nullptr;
        // Every pair the catalogs have: N(N−1)/2 within one, N·M across two (in long double:
        // exact below 2^64, and no overflow above it).
        const long double pairs =
            b ? static_cast<long double>(a.size) * static_cast<long double>(b->size)
              : static_cast<long double>(a.size) * static_cast<long double>(a.size - 1) / 2;
        const std::string pairText = b ? std::to_string(a.size) + " × " + std::to_string(b->size)
                                       : std::to_string(a.size) + " points";
        long double sum = 0;
        for (std::size_t k = 0; k < count.counts.raw.size(); ++k) {
            const std::uint64_t value = count.counts.raw[k];
            if (static_cast<long double>(value) > pairs)
                fail(count.label + " holds " + std::to_string(value) + " pairs in bin " +
                     std::to_string(k + 1) + ", more than the " + pairsOf(pairs) + " pairs of " +
                     pairText);
            sum += static_cast<long double>(value);
        }
        if (sum > pairs)
            fail(count.label + " holds " + pairsOf(sum) + " pairs over all bins, more than the " +
                 pairsOf(pairs) + " pairs of " + pairText);
        if (count.counts.isWeighted())
            weighted(count, a, b);
        if (count.regions)
            regions(count, *count.regions);
    }

    // Two entries for the same catalogs must agree: a reader would otherwise take one of them.
    void duplicates() const {
        std::map<std::pair<std::size_t, std::size_t>, const StoredCount*> seen;
        constexpr std::size_t kAuto = static_cast<std::size_t>(-1);
        for (const StoredCount& count : m_store.counts) {
            std::pair key{count.first, count.second.value_or(kAuto)};
            if (count.second && key.second < key.first)
                std::swap(key.first, key.second);
            const auto [at, inserted] = seen.emplace(key, &count);
            if (!inserted && !sameCounts(*at->second, count))
                fail("it holds two different counts of the same catalogs (" + at->second->label +
                     " and " + count.label + ")");
        }
    }

private:
    [[noreturn]] void fail(const std::string& what) const {
        throw InputError(m_store.sourceName(), 0, 0,
                         "implausible count file: " + what +
                             "; the file was edited or damaged (count again without "
                             "--reuse-counts)");
    }

    static std::string pairsOf(long double value) {
        return value < 1.8e19L ? std::to_string(static_cast<std::uint64_t>(value))
                               : std::to_string(static_cast<double>(value));
    }

    // |Σ w_i·w_j| over any set of pairs is at most Σ|w_i||w_j| over all of them, which the
    // Cauchy–Schwarz inequality bounds by the catalogs' N and Σw² alone, whatever the signs:
    // (N−1)·Σw²/2 within one catalog, √(N_a·Σw_a²·N_b·Σw_b²) across two.
    void weighted(const StoredCount& count, const CountCatalog& a, const CountCatalog* b) const {
        const long double na = a.size, sa = a.weights.sumSquares;
        const long double bound =
            b ? std::sqrt(na * sa * static_cast<long double>(b->size) * b->weights.sumSquares)
              : (na - 1) * sa / 2;
        const long double allowed = bound * (1 + 1e-9L) + 1e-300L;
        long double total = 0;
        for (std::size_t k = 0; k < count.counts.weighted.size(); ++k) {
            const double value = count.counts.weighted[k];
            if (!std::isfinite(value) || std::abs(static_cast<long double>(value)) > allowed)
                fail(count.label + " holds the weighted sum " + std::to_string(value) + " in bin " +
                     std::to_string(k + 1) +
                     ", beyond the largest its catalogs' "
                     "weights allow (" +
                     std::to_string(static_cast<double>(bound)) + ")");
            total += std::abs(static_cast<long double>(value));
        }
        if (total > allowed)
            fail(count.label + "'s weighted sums add up to more than its catalogs' weights allow");
    }

    // Pairs touching a region are part of the bin's pairs, and those within it part of those.
    void regions(const StoredCount& count, const RegionPairCounts& tallies) const {
        for (std::size_t r = 0; r < tallies.regionCount; ++r)
            for (std::size_t k = 0; k < tallies.binCount; ++k) {
                const std::size_t cell = r * tallies.binCount + k;
                if (tallies.within[cell] > tallies.touching[cell] ||
                    tallies.touching[cell] > tallies.total[k])
                    fail(count.label + ": region " + std::to_string(r + 1) + " in bin " +
                         std::to_string(k + 1) + " holds " + std::to_string(tallies.within[cell]) +
                         " pairs within and " + std::to_string(tallies.touching[cell]) +
                         " touching it of the bin's " + std::to_string(tallies.total[k]));
            }
    }

    static bool sameCounts(const StoredCount& a, const StoredCount& b) {
        const auto sameRegions = [](const std::optional<RegionPairCounts>& x,
                                    const std::optional<RegionPairCounts>& y) {
            return x.has_value() == y.has_value() &&
                   (!x || (x->total == y->total && x->touching == y->touching &&
                           x->within == y->within && x->weightedTotal == y->weightedTotal &&
                           x->weightedTouching == y->weightedTouching &&
                           x->weightedWithin == y->weightedWithin));
        };
        return a.counts.raw == b.counts.raw && a.counts.weighted == b.counts.weighted &&
               sameRegions(a.regions, b.regions);
    }

    const CountStore& m_store;
};

} // namespace

void checkCountStorePlausible(const CountStore& store) {
    const PlausibilityCheck check(store);
    check.catalogs();
    for (const StoredCount& count : store.counts)
        check.count(count);
    check.duplicates();
}

} // namespace tpacf
