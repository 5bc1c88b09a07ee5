// SPDX-License-Identifier: GPL-3.0-or-later
// Jackknife regions: k-means centres grown on a subsample of the data, every point of every
// catalog to its nearest centre, catalogs copied in region order, and each catalog's share of
// every region. Every result here is the same for any thread count: threads only split work
// whose parts do not depend on one another, and sums stay in point order.
#include "tpacf/jackknife.h"

#include "jackknife_nearest.h"
#include "region_definitions.h"
#include "base/random_streams.h"

#include "tpacf/errors.h"
#include "tpacf/work_runner.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <unordered_set>
#include <utility>

namespace tpacf {

namespace {

using jackknife_detail::CentreArrays;
using jackknife_detail::nearestCentres;
using jackknife_detail::pointsPerWorker;

// The k-means subsample: enough points per region that the centres settle, few enough that
// Lloyd's O(sample · K) steps stay well under a second at K = 500.
constexpr std::size_t kMinSample = 10000;
constexpr std::size_t kSamplePerRegion = 40;
constexpr int kMaxLloydSteps = 50;
// A region holding less than this fraction of the mean count is reported as tiny.
constexpr double kTinyFraction = 0.25;
// The pieces a catalog is cut into for the counting sort and the region shares: a fixed size,
// so that the pieces (not the threads) decide where a catalog is cut.
constexpr std::size_t kSortChunk = std::size_t{1} << 16;

using detail::SplitMix64;

std::string quoted(const std::string& name) {
    return name.empty() ? std::string("(unnamed)") : "'" + name + "'";
}

std::vector<std::uint64_t> perRegion(const std::vector<std::int32_t>& regions, int count) {
    std::vector<std::uint64_t> n(static_cast<std::size_t>(count), 0);
    for (std::int32_t r : regions)
        ++n[static_cast<std::size_t>(r)];
    return n;
}

// A piece [begin, end) of catalog `catalog`, for work spread over several catalogs at once.
struct Chunk {
    std::size_t catalog, begin, end;
};

std::vector<Chunk> chunksOf(const std::vector<std::size_t>& sizes) {
    std::vector<Chunk> chunks;
    for (std::size_t c = 0; c < sizes.size(); ++c)
        for (std::size_t begin = 0; begin < sizes[c]; begin += kSortChunk)
            chunks.push_back({c, begin, std::min(sizes[c], begin + kSortChunk)});
    return chunks;
}

} // namespace

std::vector<RegionCentre> kMeansRegionCentres(const Catalog& data, int regions, std::uint64_t seed,
                                              int threads) {
    validateJackknifeRegionCount(regions);
    const std::size_t k = static_cast<std::size_t>(regions);
    const std::size_t n = data.size();
    if (k > n)
        throw ConfigError("jackknife: " + std::to_string(regions) + " regions for " +
                          std::to_string(n) + " data points in " + quoted(data.name()) +
                          "; use fewer regions");

    SplitMix64 random(seed);
    // Subsample without replacement by Floyd's algorithm: O(sample) memory whatever N is (an
    // index array of N would cost 800 MB at N = 10^8). Sorted, so the sample is in catalog order.
    const std::size_t sampleSize = std::min(n, std::max(kMinSample, kSamplePerRegion * k));
    std::vector<std::size_t> index;
    if (sampleSize == n) {
        index.resize(n);
        std::iota(index.begin(), index.end(), std::size_t{0});
    } else {
        std::unordered_set<std::size_t> chosen;
        chosen.reserve(2 * sampleSize);
        for (std::size_t j = n - sampleSize; j < n; ++j) {
            const std::size_t t = random.below(j + 1);
            chosen.insert(chosen.count(t) ? j : t);
        }
        index.assign(chosen.begin(), chosen.end());
        std::sort(index.begin(), index.end());
    }
    std::vector<double> sx(sampleSize), sy(sampleSize), sz(sampleSize);
    for (std::size_t i = 0; i < sampleSize; ++i) {
        sx[i] = data.x()[index[i]];
        sy[i] = data.y()[index[i]];
        sz[i] = data.z()[index[i]];
    }
    index = {};

    // k-means++: each new centre drawn with probability ∝ squared distance to the nearest one.
    std::vector<RegionCentre> centres;
    centres.reserve(k);
    const auto sampled = [&](std::size_t i) { return RegionCentre{sx[i], sy[i], sz[i]}; };
    const auto chord2 = [&](std::size_t i, const RegionCentre& c) {
        const double dx = sx[i] - c.x, dy = sy[i] - c.y, dz = sz[i] - c.z;
        return dx * dx + dy * dy + dz * dz;
    };
    centres.push_back(sampled(random.below(sampleSize)));
    std::vector<double> distance2(sampleSize);
    for (std::size_t i = 0; i < sampleSize; ++i)
        distance2[i] = chord2(i, centres.front());
    while (centres.size() < k) {
        const double total = std::accumulate(distance2.begin(), distance2.end(), 0.0);
        if (!(total > 0))
            throw ConfigError("jackknife: the data in " + quoted(data.name()) + " have only " +
                              std::to_string(centres.size()) + " distinct positions in the " +
                              std::to_string(sampleSize) + " sampled; cannot grow " +
                              std::to_string(regions) + " regions");
        double target = random.unit() * total;
        std::size_t pick = 0;
        for (; pick + 1 < sampleSize; ++pick) {
            target -= distance2[pick];
            if (target < 0 && distance2[pick] > 0)
                break;
        }
        while (distance2[pick] == 0) // rounding ran off the end: take the last candidate
            --pick;
        centres.push_back(sampled(pick));
        for (std::size_t i = 0; i < sampleSize; ++i)
            distance2[i] = std::min(distance2[i], chord2(i, centres.back()));
    }
    distance2 = {};

    // Lloyd steps; the mean of a cluster projected back onto the sphere. A cluster that loses
    // every point keeps its centre (it is reported later as an empty region if it stays so).
    // Labels may be found on several threads (each point's alone); the sums run in sample
    // order on this one, so the centres do not depend on the thread count.
    std::vector<std::int32_t> label(sampleSize, -1), previous;
    for (int step = 0; step < kMaxLloydSteps; ++step) {
        previous.swap(label);
        label.resize(sampleSize);
        const CentreArrays arrays(centres);
        parallelForRanges(
            sampleSize,
            [&](std::size_t begin, std::size_t end) {
                nearestCentres(sx.data() + begin, sy.data() + begin, sz.data() + begin, end - begin,
                               arrays, label.data() + begin);
            },
            threads, pointsPerWorker(k));
        if (label == previous)
            break;
        std::vector<double> sumX(k, 0.0), sumY(k, 0.0), sumZ(k, 0.0);
        for (std::size_t i = 0; i < sampleSize; ++i) {
            const auto c = static_cast<std::size_t>(label[i]);
            sumX[c] += sx[i];
            sumY[c] += sy[i];
            sumZ[c] += sz[i];
        }
        for (std::size_t c = 0; c < k; ++c) {
            const double norm =
                std::sqrt(sumX[c] * sumX[c] + sumY[c] * sumY[c] + sumZ[c] * sumZ[c]);
            if (norm > 0)
                centres[c] = {sumX[c] / norm, sumY[c] / norm, sumZ[c] / norm};
        }
    }
    return centres;
}

RegionAssignment remapRegionLabels(const Catalog& data, std::span<const Catalog* const> randoms,
                                   const std::string& column) {
    const auto labelsOf = [&](const Catalog& catalog) {
        if (catalog.region().size() != catalog.size())
            throw ConfigError("jackknife: catalog " + quoted(catalog.name()) +
                              " has no region column '" + column + "'");
        return catalog.region();
    };
    std::vector<std::int32_t> labels;
    for (std::int32_t label : labelsOf(data))
        labels.push_back(label);
    for (const Catalog* random : randoms)
        for (std::int32_t label : labelsOf(*random))
            labels.push_back(label);
    std::sort(labels.begin(), labels.end());
    labels.erase(std::unique(labels.begin(), labels.end()), labels.end());
    if (labels.size() < 2)
        throw ConfigError("jackknife: region column '" + column + "' holds " +
                          std::to_string(labels.size()) +
                          " distinct label(s); at least 2 regions are needed");
    if (labels.size() > static_cast<std::size_t>(kMaxJackknifeRegions))
        throw ConfigError(
            "jackknife: region column '" + column + "' holds " + std::to_string(labels.size()) +
            " distinct labels, more than the limit of " + std::to_string(kMaxJackknifeRegions));

    const auto remap = [&](const Catalog& catalog) {
        std::vector<std::int32_t> regions(catalog.size());
        for (std::size_t i = 0; i < regions.size(); ++i)
            regions[i] = static_cast<std::int32_t>(
                std::lower_bound(labels.begin(), labels.end(), catalog.region()[i]) -
                labels.begin());
        return regions;
    };
    RegionAssignment assignment;
    assignment.count = static_cast<int>(labels.size());
    assignment.method = "column '" + column + "'";
    assignment.data = remap(data);
    for (const Catalog* random : randoms)
        assignment.randoms.push_back(remap(*random));
    assignment.columnLabels = std::move(labels);
    return assignment;
}

RegionAssignment assignJackknifeRegions(const JackknifeSettings& settings, const Catalog& data,
                                        std::span<const Catalog* const> randoms, int threads) {
    if (settings.regions < 0)
        throw ConfigError("jackknife: the region count " + std::to_string(settings.regions) +
                          " is negative");
    if (!settings.regionColumn.empty()) {
        if (settings.given || settings.healpixNside > 0)
            throw ConfigError("jackknife: regions from column '" + settings.regionColumn +
                              "' and regions from a file or HEALPix pixels: give one");
        RegionAssignment assignment = remapRegionLabels(data, randoms, settings.regionColumn);
        if (settings.regions > 0 && settings.regions != assignment.count)
            throw ConfigError("jackknife: " + std::to_string(settings.regions) +
                              " regions asked for, but region column '" + settings.regionColumn +
                              "' holds " + std::to_string(assignment.count) +
                              " distinct labels; give one or the other");
        return assignment;
    }
    std::vector<const Catalog*> all{&data};
    all.insert(all.end(), randoms.begin(), randoms.end());
    auto definition = std::make_shared<RegionsDefinition>();
    if (settings.given) {
        detail::checkGivenRegions(settings, *settings.given);
        *definition = *settings.given;
    } else if (settings.healpixNside > 0) {
        *definition = healpixRegions(data, settings.regions, settings.healpixNside, threads);
    } else {
        validateJackknifeRegionCount(settings.regions);
        definition->centres = kMeansRegionCentres(data, settings.regions, settings.seed, threads);
        definition->method = "k-means (seed " + std::to_string(settings.seed) + ")";
    }
    std::vector<std::vector<std::int32_t>> regions;
    if (definition->kind == RegionsDefinition::Kind::KMeans)
        regions = nearestCentreRegionsOf(all, definition->centres, threads);
    else
        for (const Catalog* catalog : all)
            regions.push_back(regionsOf(*catalog, *definition, threads));
    if (definition->kind == RegionsDefinition::Kind::KMeans) {
        if (settings.given)
            detail::refuseFarPoints(all, regions, *definition);
        else
            definition->radii = detail::regionRadii(all, regions, definition->centres);
    }
    RegionAssignment assignment;
    assignment.count = definition->count();
    assignment.method = settings.given ? "regions given: " + definition->method : definition->method;
    assignment.data = std::move(regions.front());
    for (std::size_t i = 1; i < regions.size(); ++i)
        assignment.randoms.push_back(std::move(regions[i]));
    assignment.definition = std::move(definition);
    return assignment;
}

JackknifeRegionsSummary summariseRegions(const RegionAssignment& assignment) {
    JackknifeRegionsSummary summary;
    summary.count = assignment.count;
    summary.method = assignment.method;
    summary.dataPerRegion = perRegion(assignment.data, assignment.count);
    summary.randomPerRegion.assign(static_cast<std::size_t>(assignment.count), 0);
    for (const auto& random : assignment.randoms) {
        const auto n = perRegion(random, assignment.count);
        for (std::size_t r = 0; r < n.size(); ++r)
            summary.randomPerRegion[r] += n[r];
    }
    summary.dataRegions = std::make_shared<const std::vector<std::int32_t>>(assignment.data);
    summary.definition = assignment.definition;

    const auto name = [&](std::size_t r) {
        std::string text = "jackknife region " + std::to_string(r);
        if (r < assignment.columnLabels.size())
            text += " (label " + std::to_string(assignment.columnLabels[r]) + ")";
        return text;
    };
    const auto check = [&](const std::vector<std::uint64_t>& n, const char* what) {
        const double mean =
            static_cast<double>(std::accumulate(n.begin(), n.end(), std::uint64_t{0})) /
            static_cast<double>(n.size());
        for (std::size_t r = 0; r < n.size(); ++r) {
            if (n[r] == 0)
                summary.warnings.push_back(name(r) + " holds no " + what + " points");
            else if (static_cast<double>(n[r]) < kTinyFraction * mean)
                summary.warnings.push_back(
                    name(r) + " holds only " + std::to_string(n[r]) + " " + what +
                    " points (mean " +
                    std::to_string(static_cast<std::uint64_t>(std::llround(mean))) + ")");
        }
    };
    check(summary.dataPerRegion, "data");
    if (!assignment.randoms.empty())
        check(summary.randomPerRegion, "random");
    return summary;
}

std::vector<Catalog> regionOrderedCopies(std::span<const Catalog* const> catalogs,
                                         std::span<const std::vector<std::int32_t>* const> regions,
                                         int threads) {
    if (regions.size() != catalogs.size())
        throw ConfigError(std::to_string(regions.size()) + " region lists for " +
                          std::to_string(catalogs.size()) + " catalogs");
    std::vector<std::size_t> sizes;
    for (std::size_t c = 0; c < catalogs.size(); ++c) {
        const std::size_t n = catalogs[c]->size();
        if (regions[c]->size() != n)
            throw ConfigError("catalog " + quoted(catalogs[c]->name()) + ": " +
                              std::to_string(regions[c]->size()) + " regions for " +
                              std::to_string(n) + " points");
        sizes.push_back(n);
    }
    // A counting sort, stable, O(N + regions) and no index array, in two passes over fixed
    // pieces: each piece counts its points per region; the offsets then follow from the counts
    // of all pieces in order (region by region, piece by piece), so each piece scatters its
    // points where a sequential pass would put them.
    const std::vector<Chunk> chunks = chunksOf(sizes);
    std::vector<std::vector<std::size_t>> count(chunks.size());
    // The first negative label of a piece, by point index (n: none).
    std::vector<std::size_t> negative(chunks.size());
    parallelForRanges(
        chunks.size(),
        [&](std::size_t begin, std::size_t end) {
            for (std::size_t j = begin; j < end; ++j) {
                const Chunk& chunk = chunks[j];
                const std::int32_t* r = regions[chunk.catalog]->data();
                std::vector<std::size_t>& n = count[j];
                negative[j] = sizes[chunk.catalog];
                for (std::size_t i = chunk.begin; i < chunk.end; ++i) {
                    if (r[i] < 0) {
                        negative[j] = i;
                        break;
                    }
                    const auto label = static_cast<std::size_t>(r[i]);
                    if (label >= n.size())
                        n.resize(label + 1, 0);
                    ++n[label];
                }
            }
        },
        threads);
    for (std::size_t j = 0; j < chunks.size(); ++j)
        if (negative[j] < sizes[chunks[j].catalog]) {
            const std::size_t c = chunks[j].catalog;
            throw ConfigError("catalog " + quoted(catalogs[c]->name()) + ": negative region " +
                              std::to_string((*regions[c])[negative[j]]));
        }
    // Offsets: count[j][r] becomes where piece j's first point of region r goes.
    for (std::size_t first = 0; first < chunks.size();) {
        std::size_t last = first;
        std::size_t labels = 0;
        while (last < chunks.size() && chunks[last].catalog == chunks[first].catalog)
            labels = std::max(labels, count[last++].size());
        std::size_t next = 0;
        for (std::size_t r = 0; r < labels; ++r)
            for (std::size_t j = first; j < last; ++j)
                if (r < count[j].size()) {
                    const std::size_t n = count[j][r];
                    count[j][r] = next;
                    next += n;
                }
        first = last;
    }
    using Columns = Catalog::Columns;
    // Fresh memory costs a page fault per 4 KiB on first touch (on a 16-core H100 host 0.6 ms
    // per MB, more than the scatter itself): the catalogs' columns are sized on several threads.
    std::vector<Columns> columns(catalogs.size());
    parallelForRanges(
        catalogs.size(),
        [&](std::size_t begin, std::size_t end) {
            for (std::size_t c = begin; c < end; ++c) {
                columns[c].ra.resize(sizes[c]);
                columns[c].dec.resize(sizes[c]);
                columns[c].x.resize(sizes[c]);
                columns[c].y.resize(sizes[c]);
                columns[c].z.resize(sizes[c]);
                columns[c].weight.resize(catalogs[c]->hasWeights() ? sizes[c] : 0);
                columns[c].region.resize(sizes[c]);
            }
        },
        threads);
    parallelForRanges(
        chunks.size(),
        [&](std::size_t begin, std::size_t end) {
            for (std::size_t j = begin; j < end; ++j) {
                const Chunk& chunk = chunks[j];
                const Catalog& catalog = *catalogs[chunk.catalog];
                const std::int32_t* r = regions[chunk.catalog]->data();
                Columns& out = columns[chunk.catalog];
                std::vector<std::size_t>& next = count[j];
                const bool weighted = !out.weight.empty();
                for (std::size_t i = chunk.begin; i < chunk.end; ++i) {
                    const std::size_t to = next[static_cast<std::size_t>(r[i])]++;
                    out.ra[to] = catalog.ra()[i];
                    out.dec[to] = catalog.dec()[i];
                    out.x[to] = catalog.x()[i];
                    out.y[to] = catalog.y()[i];
                    out.z[to] = catalog.z()[i];
                    if (weighted)
                        out.weight[to] = catalog.weight()[i];
                    out.region[to] = r[i];
                }
            }
        },
        threads);
    // The points move with their unit vectors: nothing is computed again (the sines were a
    // large part of the copies' time), and every value is bit for bit the original's.
    std::vector<Catalog> copies;
    copies.reserve(catalogs.size());
    for (std::size_t c = 0; c < catalogs.size(); ++c)
        copies.push_back(
            Catalog::fromBuiltColumns(catalogs[c]->name(), std::move(columns[c])));
    return copies;
}

Catalog regionOrderedCopy(const Catalog& catalog, const std::vector<std::int32_t>& regions,
                          int threads) {
    const Catalog* one[] = {&catalog};
    const std::vector<std::int32_t>* labels[] = {&regions};
    return std::move(regionOrderedCopies(one, labels, threads).front());
}

RegionShares RegionShares::of(const Catalog& catalog, std::size_t regionCount, int threads) {
    const auto regions = catalog.region();
    if (regions.size() != catalog.size())
        throw ConfigError("jackknife: catalog '" + catalog.name() + "' carries no regions");
    // Points per region over fixed pieces (integers: the sum is the same in any grouping), and
    // whether the labels are in order, as a region-ordered copy has them.
    const std::vector<Chunk> chunks = chunksOf({regions.size()});
    std::vector<std::vector<std::uint64_t>> count(chunks.size());
    std::vector<std::size_t> bad(chunks.size());
    std::vector<char> ordered(chunks.size());
    parallelForRanges(
        chunks.size(),
        [&](std::size_t begin, std::size_t end) {
            for (std::size_t j = begin; j < end; ++j) {
                std::vector<std::uint64_t>& n = count[j];
                n.assign(regionCount, 0);
                bad[j] = regions.size();
                bool sorted = true;
                for (std::size_t i = chunks[j].begin; i < chunks[j].end; ++i) {
                    const auto r = static_cast<std::size_t>(regions[i]);
                    if (regions[i] < 0 || r >= regionCount) {
                        bad[j] = i;
                        break;
                    }
                    ++n[r];
                    sorted = sorted && (i == chunks[j].begin || regions[i - 1] <= regions[i]);
                }
                ordered[j] = sorted;
            }
        },
        threads);
    RegionShares shares;
    shares.points.assign(regionCount, 0);
    shares.weights.assign(regionCount, WeightSums{});
    bool sorted = true;
    for (std::size_t j = 0; j < chunks.size(); ++j) {
        if (bad[j] < regions.size())
            throw ConfigError("jackknife: catalog '" + catalog.name() + "' has region " +
                              std::to_string(regions[bad[j]]) + " outside 0.." +
                              std::to_string(regionCount - 1));
        for (std::size_t r = 0; r < regionCount; ++r)
            shares.points[r] += count[j][r];
        sorted = sorted && ordered[j] &&
                 (j == 0 || regions[chunks[j].begin - 1] <= regions[chunks[j].begin]);
    }
    count = {};
    if (!catalog.hasWeights()) {
        // Σ1 and Σ1² summed one by one are the count exactly (below 2^53).
        for (std::size_t r = 0; r < regionCount; ++r)
            shares.weights[r] = {static_cast<double>(shares.points[r]),
                                 static_cast<double>(shares.points[r])};
        return shares;
    }
    const auto sumRange = [&](WeightSums& sums, std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
            const double w = catalog.weight()[i];
            sums.sum += w;
            sums.sumSquares += w * w;
        }
    };
    if (!sorted) {
        for (std::size_t i = 0; i < regions.size(); ++i)
            sumRange(shares.weights[static_cast<std::size_t>(regions[i])], i, i + 1);
        return shares;
    }
    // In region order every region is one run of points: the runs are summed on their own, each
    // in point order, as the sequential loop sums them.
    std::vector<std::size_t> start(regionCount + 1, 0);
    for (std::size_t r = 0; r < regionCount; ++r)
        start[r + 1] = start[r] + shares.points[r];
    parallelForRanges(
        regionCount,
        [&](std::size_t begin, std::size_t end) {
            for (std::size_t r = begin; r < end; ++r)
                sumRange(shares.weights[r], start[r], start[r + 1]);
        },
        threads, std::max<std::size_t>(1, regionCount * kSortChunk / (regions.size() + 1)));
    return shares;
}

} // namespace tpacf
