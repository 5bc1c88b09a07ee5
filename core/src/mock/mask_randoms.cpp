// SPDX-License-Identifier: GPL-3.0-or-later
// Random points inside a mask (generateRandomsInMask, mock.h). A mask is runs of deep pixels
// (sky_mask.h), all of one area (HEALPix pixels are equal-area), so a point uniform on the
// sphere inside the mask, kept with probability c (thinning by completeness), is a run drawn
// with probability ∝ its pixel count × c, then one of its deep pixels uniformly: the run by
// Walker's alias table (O(1) a point), the point at that pixel's centre (pixels of 0.4
// milliarcseconds, far below any separation counted). No point is rejected, so block b of
// the output is always points b·B … (b+1)·B − 1, drawn from a generator seeded by (seed, b):
// the catalog is the same for any number of threads.
#include "tpacf/mock.h"

#include "base/random_streams.h"

#include "tpacf/errors.h"
#include "tpacf/sky_mask.h"
#include "tpacf/units.h"
#include "tpacf/work_runner.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

namespace tpacf {

namespace {

constexpr std::size_t kBlock = 1 << 16;

// Block b's points come from a stream of its own: xoshiro256** seeded by (seed, b).
detail::Xoshiro256 blockSource(std::uint64_t seed, std::uint64_t block) noexcept {
    return detail::Xoshiro256(detail::SplitMix64(seed ^ (block * 0xd1b54a32d192ed03ULL)));
}

// Walker's alias table over the runs, weight = pixels × completeness (Vose's construction);
// a slot's probability and alias side by side, so that a draw touches one cache line.
struct AliasTable {
    struct Slot {
        double keep = 1.0;        // probability of keeping the drawn slot
        std::uint32_t alias = 0;  // the slot taken otherwise
    };
    std::vector<Slot> slots;

    explicit AliasTable(const std::vector<SkyMask::Run>& runs) : slots(runs.size()) {
        const std::size_t n = runs.size();
        std::vector<double> scaled(n);
        long double total = 0;
        for (const auto& run : runs)
            total += static_cast<long double>(run.end - run.begin) * run.completeness;
        for (std::size_t i = 0; i < n; ++i)
            scaled[i] = static_cast<double>(static_cast<long double>(runs[i].end - runs[i].begin) *
                                            runs[i].completeness * n / total);
        std::vector<std::uint32_t> small, large;
        for (std::size_t i = 0; i < n; ++i)
            (scaled[i] < 1.0 ? small : large).push_back(static_cast<std::uint32_t>(i));
        while (!small.empty() && !large.empty()) {
            const std::uint32_t s = small.back(), l = large.back();
            small.pop_back();
            slots[s] = {scaled[s], l};
            scaled[l] = (scaled[l] + scaled[s]) - 1.0;
            if (scaled[l] < 1.0) {
                large.pop_back();
                small.push_back(l);
            }
        }
        // What is left is 1 up to rounding: kept always.
        for (const auto i : large)
            slots[i] = {1.0, i};
        for (const auto i : small)
            slots[i] = {1.0, i};
    }
    /// The slot a draw lands in (then resolved by `resolve`): apart, so that a batch of draws
    /// can fetch its slots before reading any.
    std::size_t slotOf(detail::Xoshiro256& random) const noexcept { return random.below(slots.size()); }
    std::size_t resolve(std::size_t slot, detail::Xoshiro256& random) const noexcept {
        return random.unit() < slots[slot].keep ? slot : slots[slot].alias;
    }
};

// Point i at the centre of a deep pixel: its unit vector as HEALPix gives it, RA and Dec from it.
void placePoint(Catalog::Columns& columns, std::size_t i, std::uint64_t pixel) noexcept {
    double x = 0, y = 0, z = 0;
    SkyMask::deepPixelCentre(pixel, x, y, z);
    double ra = std::atan2(y, x);
    if (ra < 0)
        ra += 2.0 * kPi;
    if (ra >= 2.0 * kPi) // -tiny + 2π rounds to 2π
        ra = 0.0;
    columns.ra[i] = ra;
    columns.dec[i] = std::asin(std::clamp(z, -1.0, 1.0));
    columns.x[i] = x;
    columns.y[i] = y;
    columns.z[i] = z;
}

} // namespace

Catalog generateRandomsInMask(std::size_t count, const SkyMask& mask, std::uint64_t seed,
                              std::string name, int threads) {
    if (mask.empty())
        throw ConfigError("the mask covers no part of the sky: no random point can be drawn");
    const AliasTable table(mask.runs());
    const auto& runs = mask.runs();
    Catalog::Columns columns;
    columns.ra.resize(count);
    columns.dec.resize(count);
    columns.x.resize(count);
    columns.y.resize(count);
    columns.z.resize(count);
    const std::size_t blocks = (count + kBlock - 1) / kBlock;
    parallelForRanges(
        blocks,
        [&](std::size_t firstBlock, std::size_t endBlock) {
            for (std::size_t block = firstBlock; block < endBlock; ++block) {
                detail::Xoshiro256 random = blockSource(seed, block);
                const std::size_t end = std::min(count, (block + 1) * kBlock);
                // In batches: the slots drawn, fetched, resolved into runs, those fetched, then
                // the points made, so that the cache misses of a batch overlap (a graded map's
                // table and runs are hundreds of MB).
                constexpr std::size_t kBatch = 32;
                std::size_t chosen[kBatch];
                for (std::size_t first = block * kBlock; first < end; first += kBatch) {
                    const std::size_t batch = std::min(kBatch, end - first);
                    for (std::size_t k = 0; k < batch; ++k) {
                        chosen[k] = table.slotOf(random);
                        __builtin_prefetch(&table.slots[chosen[k]]);
                    }
                    for (std::size_t k = 0; k < batch; ++k) {
                        chosen[k] = table.resolve(chosen[k], random);
                        __builtin_prefetch(&runs[chosen[k]]);
                    }
                    for (std::size_t k = 0; k < batch; ++k) {
                        const SkyMask::Run& run = runs[chosen[k]];
                        placePoint(columns, first + k,
                                   run.begin + random.below(run.end - run.begin));
                    }
                }
            }
        },
        threads, 1);
    return Catalog::fromBuiltColumns(std::move(name), std::move(columns));
}

std::string maskRandomsNote(const SkyMask& mask, std::uint64_t seed, std::size_t count) {
    return "randoms inside the mask " + mask.description() + ", seed " + std::to_string(seed) +
           ", " + std::to_string(count) + " points";
}

} // namespace tpacf
