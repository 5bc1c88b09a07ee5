#include "tpacf/jackknife.h"

#include "tpacf/cpu_pair_counter.h"
#include "tpacf/errors.h"
#include "tpacf/work_runner.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <limits>
#include <numeric>
#include <unordered_set>
#include <utility>

namespace tpacf {

namespace {

// The k-means subsample: enough points per region that the centres settle, few enough that
// Lloyd's O(sample · K) steps stay well under a second at K = 500.
constexpr std::size_t kMinSample = 10000;
constexpr std::size_t kSamplePerRegion = 40;
constexpr int kMaxLloydSteps = 50;
// A region holding less than this fraction of the mean count is reported as tiny.
constexpr double kTinyFraction = 0.25;
// The covariance block accumulated at a time: 64 rows × 256 columns of doubles (128 KiB) stay in
// a core's L2 while the deviations of all K samples stream past (measured on 3000 × 3000 with
// K = 3000: 16 × 256 and 8 × 1024 blocks are 30 % slower, larger ones no faster).
constexpr std::size_t kCovarianceRows = 64;
constexpr std::size_t kCovarianceColumns = 256;

// SplitMix64: a small generator whose output is the same on every platform and standard
// library (std::uniform_int_distribution is not), so regions do not depend on the toolchain.
class SplitMix64 {
public:
    explicit SplitMix64(std::uint64_t seed) : m_state(seed) {}
    std::uint64_t next() noexcept {
        std::uint64_t z = (m_state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    /// Uniform in [0, n) (n > 0), by rejection so no value is favoured.
    std::uint64_t below(std::uint64_t n) noexcept {
        const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() -
                                    std::numeric_limits<std::uint64_t>::max() % n;
        std::uint64_t value;
        do
            value = next();
        while (value >= limit);
        return value % n;
    }
    /// Uniform in [0, 1).
    double unit() noexcept { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

private:
    std::uint64_t m_state;
};

struct Vec3 {
    double x, y, z;
};

double dot(const Vec3& a, const RegionCentre& c) noexcept {
    return a.x * c.x + a.y * c.y + a.z * c.z;
}

double chord2(const Vec3& a, const RegionCentre& c) noexcept {
    const double dx = a.x - c.x, dy = a.y - c.y, dz = a.z - c.z;
    return dx * dx + dy * dy + dz * dz;
}

std::int32_t nearest(const Vec3& p, std::span<const RegionCentre> centres) noexcept {
    std::int32_t best = 0;
    double bestDot = -std::numeric_limits<double>::infinity();
    for (std::size_t c = 0; c < centres.size(); ++c) {
        const double d = dot(p, centres[c]);
        if (d > bestDot) {
            bestDot = d;
            best = static_cast<std::int32_t>(c);
        }
    }
    return best;
}

std::string quoted(const std::string& name) {
    return name.empty() ? std::string("(unnamed)") : "'" + name + "'";
}

std::vector<std::uint64_t> perRegion(const std::vector<std::int32_t>& regions, int count) {
    std::vector<std::uint64_t> n(static_cast<std::size_t>(count), 0);
    for (std::int32_t r : regions)
        ++n[static_cast<std::size_t>(r)];
    return n;
}

} // namespace

void validateJackknifeRegionCount(int regions) {
    if (regions < kMinJackknifeRegions)
        throw ConfigError("jackknife needs at least " + std::to_string(kMinJackknifeRegions) +
                          " regions (got " + std::to_string(regions) + ")");
    if (regions > kMaxJackknifeRegions)
        throw ConfigError("jackknife: " + std::to_string(regions) +
                          " regions is more than the limit of " +
                          std::to_string(kMaxJackknifeRegions));
}

JackknifeMemory estimateJackknifeMemory(std::size_t regions, std::size_t bins,
                                        std::size_t randomSets, int threads) {
    // Products in long double: absurd inputs must give a huge estimate, not a wrapped small one.
    using Wide = long double;
    const auto clamp64 = [](Wide bytes) {
        constexpr auto most = std::numeric_limits<std::uint64_t>::max();
        return bytes >= static_cast<Wide>(most) ? most : static_cast<std::uint64_t>(bytes);
    };
    const Wide counter = sizeof(std::uint64_t);
    const Wide k = static_cast<Wide>(regions), b = static_cast<Wide>(bins);
    const Wide counts = 1 + 2 * static_cast<Wide>(randomSets); // DD, every DR_i and RR_i
    const Wide workers = threads > 0 ? threads : static_cast<Wide>(hardwareThreads());
    const Wide perRegionArray = k * b * counter; // one K × bins array of counters

    JackknifeMemory memory;
    memory.regions = regions;
    memory.bins = bins;
    memory.randomSets = randomSets;
    memory.threads = static_cast<std::size_t>(workers);
    // CPU backend: three tallies per count (the culled plan's whole-cell counts become them),
    // and per thread the rows (bins + 2 slots) of at most kRegionRowsPerThread regions a side,
    // with a row index per region and side.
    const Wide rowsPerThread = std::min(k, static_cast<Wide>(kRegionRowsPerThread));
    const Wide cpu =
        counts * 3 * perRegionArray +
        workers * (3 * rowsPerThread * (b + 2) * counter + 2 * k * sizeof(std::int32_t));
    // A GPU module (today's CUDA one): the host copy of (1 + 2K) rows of counters per count, and
    // its split. The estimate takes the larger, whichever backend the job ends up on.
    const Wide gpuModule = 2 * counts * (1 + 2 * k) * b * counter;
    memory.counting = clamp64(std::max(cpu, gpuModule));
    const Wide covariance = b * b * sizeof(double);
    const Wide samples = k * b * sizeof(double);
    // The counts kept (touching and within per region, the totals), the samples, their
    // deviations and the covariance, all at once while the covariance is summed.
    memory.statistics =
        clamp64(counts * (2 * perRegionArray + b * counter) + 2 * samples + covariance);
    // The GUI draws the covariance as a colour map of itself or of the correlation matrix.
    memory.result = clamp64(samples + 3 * covariance);
    return memory;
}

std::uint64_t JackknifeMemory::peak() const noexcept {
    return std::max({counting, statistics, result});
}

std::string JackknifeMemory::describe() const {
    const auto plural = [](std::size_t n, const char* one, const char* many) {
        return std::to_string(n) + " " + (n == 1 ? one : many);
    };
    return "jackknife with K = " + std::to_string(regions) + " regions, " +
           plural(bins, "bin", "bins") + " and " + plural(randomSets, "random set", "random sets") +
           " needs about " + formatBytes(peak()) + " of memory besides the catalogs (counting on " +
           plural(threads, "thread", "threads") + " " + formatBytes(counting) + ", covariance " +
           formatBytes(statistics) + ", result " + formatBytes(result) + ")";
}

std::uint64_t physicalMemoryBytes() {
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long pageSize = ::sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || pageSize <= 0)
        return 0;
    return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(pageSize);
}

void checkJackknifeMemory(const JackknifeMemory& memory, std::uint64_t limitBytes) {
    std::string limit;
    if (limitBytes == 0) {
        const std::uint64_t physical = physicalMemoryBytes();
        if (physical == 0)
            return;
        limitBytes =
            static_cast<std::uint64_t>(kJackknifeMemoryShare * static_cast<double>(physical));
        limit = formatBytes(limitBytes) + " (" +
                std::to_string(static_cast<int>(std::lround(kJackknifeMemoryShare * 100))) +
                " % of the " + formatBytes(physical) + " of this machine)";
    } else {
        limit = formatBytes(limitBytes);
    }
    if (memory.peak() <= limitBytes)
        return;
    throw ConfigError(memory.describe() + ", more than the " + limit +
                      " a job may use; use fewer regions, bins or random sets");
}

std::string formatBytes(std::uint64_t bytes) {
    static constexpr const char* kUnits[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double value = static_cast<double>(bytes);
    std::size_t unit = 0;
    while (value >= 1024 && unit + 1 < std::size(kUnits)) {
        value /= 1024;
        ++unit;
    }
    if (unit == 0)
        return std::to_string(bytes) + " bytes";
    // Three significant figures at most: "9.1 GiB", "648 MiB".
    char text[32];
    std::snprintf(text, sizeof text, value < 10 ? "%.1f %s" : "%.0f %s", value, kUnits[unit]);
    return text;
}

std::vector<RegionCentre> kMeansRegionCentres(const Catalog& data, int regions,
                                              std::uint64_t seed) {
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
    std::vector<Vec3> sample(sampleSize);
    for (std::size_t i = 0; i < sampleSize; ++i)
        sample[i] = {data.x()[index[i]], data.y()[index[i]], data.z()[index[i]]};

    // k-means++: each new centre drawn with probability ∝ squared distance to the nearest one.
    std::vector<RegionCentre> centres;
    centres.reserve(k);
    const auto asCentre = [](const Vec3& p) { return RegionCentre{p.x, p.y, p.z}; };
    centres.push_back(asCentre(sample[random.below(sampleSize)]));
    std::vector<double> distance2(sampleSize);
    for (std::size_t i = 0; i < sampleSize; ++i)
        distance2[i] = chord2(sample[i], centres.front());
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
        centres.push_back(asCentre(sample[pick]));
        for (std::size_t i = 0; i < sampleSize; ++i)
            distance2[i] = std::min(distance2[i], chord2(sample[i], centres.back()));
    }

    // Lloyd steps; the mean of a cluster projected back onto the sphere. A cluster that loses
    // every point keeps its centre (it is reported later as an empty region if it stays so).
    std::vector<std::int32_t> label(sampleSize, -1);
    for (int step = 0; step < kMaxLloydSteps; ++step) {
        bool changed = false;
        for (std::size_t i = 0; i < sampleSize; ++i) {
            const std::int32_t best = nearest(sample[i], centres);
            changed = changed || best != label[i];
            label[i] = best;
        }
        if (!changed)
            break;
        std::vector<Vec3> sum(k, Vec3{0, 0, 0});
        for (std::size_t i = 0; i < sampleSize; ++i) {
            Vec3& s = sum[static_cast<std::size_t>(label[i])];
            s.x += sample[i].x;
            s.y += sample[i].y;
            s.z += sample[i].z;
        }
        for (std::size_t c = 0; c < k; ++c) {
            const double norm =
                std::sqrt(sum[c].x * sum[c].x + sum[c].y * sum[c].y + sum[c].z * sum[c].z);
            if (norm > 0)
                centres[c] = {sum[c].x / norm, sum[c].y / norm, sum[c].z / norm};
        }
    }
    return centres;
}

std::vector<std::int32_t> nearestCentreRegions(const Catalog& catalog,
                                               std::span<const RegionCentre> centres, int threads) {
    if (centres.empty())
        throw ConfigError("no region centres given");
    const std::size_t n = catalog.size();
    std::vector<std::int32_t> regions(n);
    const auto assignRange = [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i)
            regions[i] = nearest({catalog.x()[i], catalog.y()[i], catalog.z()[i]}, centres);
    };
    // Threads only pay off on large catalogs: O(N · K) with K up to a few hundred, so a worker
    // gets at least ~4 million point-centre distances.
    const std::size_t minPointsPerWorker =
        std::max<std::size_t>(1, std::size_t{4000000} / centres.size());
    parallelForRanges(n, assignRange, threads, minPointsPerWorker);
    return regions;
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
        RegionAssignment assignment = remapRegionLabels(data, randoms, settings.regionColumn);
        if (settings.regions > 0 && settings.regions != assignment.count)
            throw ConfigError("jackknife: " + std::to_string(settings.regions) +
                              " regions asked for, but region column '" + settings.regionColumn +
                              "' holds " + std::to_string(assignment.count) +
                              " distinct labels; give one or the other");
        return assignment;
    }
    validateJackknifeRegionCount(settings.regions);
    const std::vector<RegionCentre> centres =
        kMeansRegionCentres(data, settings.regions, settings.seed);
    RegionAssignment assignment;
    assignment.count = settings.regions;
    assignment.method = "k-means (seed " + std::to_string(settings.seed) + ")";
    assignment.data = nearestCentreRegions(data, centres, threads);
    for (const Catalog* random : randoms)
        assignment.randoms.push_back(nearestCentreRegions(*random, centres, threads));
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

Catalog regionOrderedCopy(const Catalog& catalog, const std::vector<std::int32_t>& regions) {
    const std::size_t n = catalog.size();
    if (regions.size() != n)
        throw ConfigError("catalog " + quoted(catalog.name()) + ": " +
                          std::to_string(regions.size()) + " regions for " + std::to_string(n) +
                          " points");
    // A counting sort: stable, O(N + regions), no index array.
    std::int32_t maxRegion = -1;
    for (std::int32_t r : regions) {
        if (r < 0)
            throw ConfigError("catalog " + quoted(catalog.name()) + ": negative region " +
                              std::to_string(r));
        maxRegion = std::max(maxRegion, r);
    }
    std::vector<std::size_t> next(static_cast<std::size_t>(maxRegion) + 2, 0);
    for (std::int32_t r : regions)
        ++next[static_cast<std::size_t>(r) + 1];
    for (std::size_t r = 1; r < next.size(); ++r)
        next[r] += next[r - 1];
    std::vector<double> ra(n), dec(n), weight(catalog.hasWeights() ? n : 0);
    std::vector<std::int32_t> region(n);
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t to = next[static_cast<std::size_t>(regions[i])]++;
        ra[to] = catalog.ra()[i];
        dec[to] = catalog.dec()[i];
        if (!weight.empty())
            weight[to] = catalog.weight()[i];
        region[to] = regions[i];
    }
    // RA is already in [0, 2π) and Dec checked, so fromRadians recomputes the same unit
    // vectors bit for bit (same inputs, same operations).
    return Catalog::fromRadians(catalog.name(), std::move(ra), std::move(dec), std::move(weight),
                                std::move(region));
}

RegionShares RegionShares::of(const Catalog& catalog, std::size_t regionCount) {
    const auto regions = catalog.region();
    if (regions.size() != catalog.size())
        throw ConfigError("jackknife: catalog '" + catalog.name() + "' carries no regions");
    RegionShares shares;
    shares.points.assign(regionCount, 0);
    shares.weights.assign(regionCount, WeightSums{});
    for (std::size_t i = 0; i < regions.size(); ++i) {
        const auto r = static_cast<std::size_t>(regions[i]);
        if (regions[i] < 0 || r >= regionCount)
            throw ConfigError("jackknife: catalog '" + catalog.name() + "' has region " +
                              std::to_string(regions[i]) + " outside 0.." +
                              std::to_string(regionCount - 1));
        ++shares.points[r];
        const double w = pointWeight(catalog, i);
        shares.weights[r].sum += w;
        shares.weights[r].sumSquares += w * w;
    }
    return shares;
}

namespace {

// The shares of one catalog without one region.
std::uint64_t pointsWithout(std::uint64_t size, const RegionShares& shares, std::size_t region) {
    return size - shares.points.at(region);
}

WeightSums weightsWithout(const WeightSums& whole, const RegionShares& shares,
                          std::size_t region) {
    const WeightSums& part = shares.weights.at(region);
    return {whole.sum - part.sum, whole.sumSquares - part.sumSquares};
}

} // namespace

RawCounts leaveOneOutCounts(const JackknifeCounts& counts, std::size_t region) {
    const RawCounts& whole = counts.whole;
    const std::size_t sets = whole.randomSizes.size();
    if (counts.dr.size() != sets || counts.rr.size() != sets || counts.randoms.size() != sets ||
        (whole.cross && (counts.rd.size() != sets ||
                         (whole.secondRandoms() && counts.randoms2.size() != sets))))
        throw ConfigError("jackknife counts: inconsistent numbers of random sets");
    if (region >= counts.dd.regionCount || region >= counts.data.points.size())
        throw ConfigError("jackknife counts: region " + std::to_string(region) + " out of range");
    const auto without = [&](const RegionPairCounts& c) {
        PairCounts out(c.binCount);
        for (std::size_t bin = 0; bin < c.binCount; ++bin)
            out[bin] = c.leaveOneOut(region, bin);
        return out;
    };
    const auto weightedWithout = [&](const RegionPairCounts& c) {
        if (!c.isWeighted())
            throw ConfigError("jackknife counts: a weighted job's count has no weighted tallies");
        WeightedCounts out(c.binCount);
        for (std::size_t bin = 0; bin < c.binCount; ++bin)
            out[bin] = c.weightedLeaveOneOut(region, bin);
        return out;
    };
    RawCounts raw;
    raw.cross = whole.cross;
    raw.weighted = whole.weighted;
    raw.dataSize = pointsWithout(whole.dataSize, counts.data, region);
    raw.dd = without(counts.dd);
    if (whole.cross)
        raw.data2Size = pointsWithout(whole.data2Size, counts.data2, region);
    if (whole.weighted) {
        raw.ddWeighted = weightedWithout(counts.dd);
        raw.dataWeights = weightsWithout(whole.dataWeights, counts.data, region);
        if (whole.cross)
            raw.data2Weights = weightsWithout(whole.data2Weights, counts.data2, region);
    }
    for (std::size_t set = 0; set < sets; ++set) {
        raw.dr.push_back(without(counts.dr[set]));
        raw.rr.push_back(without(counts.rr[set]));
        raw.randomSizes.push_back(
            pointsWithout(whole.randomSizes[set], counts.randoms[set], region));
        if (whole.cross)
            raw.rd.push_back(without(counts.rd[set]));
        if (whole.secondRandoms())
            raw.random2Sizes.push_back(
                pointsWithout(whole.random2Sizes[set], counts.randoms2[set], region));
        if (whole.weighted) {
            raw.drWeighted.push_back(weightedWithout(counts.dr[set]));
            raw.rrWeighted.push_back(weightedWithout(counts.rr[set]));
            raw.randomWeights.push_back(
                weightsWithout(whole.randomWeights.at(set), counts.randoms[set], region));
            if (whole.cross)
                raw.rdWeighted.push_back(weightedWithout(counts.rd[set]));
            if (whole.secondRandoms())
                raw.random2Weights.push_back(
                    weightsWithout(whole.random2Weights.at(set), counts.randoms2[set], region));
        }
    }
    return raw;
}

std::vector<std::vector<double>> leaveOneOutSamples(Estimator estimator,
                                                    const JackknifeCounts& counts) {
    std::vector<std::vector<double>> samples;
    samples.reserve(counts.dd.regionCount);
    for (std::size_t region = 0; region < counts.dd.regionCount; ++region)
        samples.push_back(estimate(estimator, normalise(leaveOneOutCounts(counts, region))));
    return samples;
}

JackknifeStatistics jackknifeStatistics(const std::vector<std::vector<double>>& samples) {
    const std::size_t k = samples.size();
    if (k < 2)
        throw ConfigError("jackknife statistics need at least 2 samples (got " + std::to_string(k) +
                          ")");
    const std::size_t bins = samples.front().size();
    for (const auto& sample : samples)
        if (sample.size() != bins)
            throw ConfigError("jackknife samples of different lengths");
    JackknifeStatistics stats;
    stats.mean.assign(bins, 0.0);
    for (const auto& sample : samples)
        for (std::size_t b = 0; b < bins; ++b)
            stats.mean[b] += sample[b];
    for (double& m : stats.mean)
        m /= static_cast<double>(k);

    // Deviations in one contiguous K × bins array: the accumulation below reads a row segment
    // of one sample per step, where the samples' own vectors would be K scattered allocations.
    std::vector<double> deviation(k * bins);
    for (std::size_t s = 0; s < k; ++s)
        for (std::size_t b = 0; b < bins; ++b)
            deviation[s * bins + b] = samples[s][b] - stats.mean[b];

    // The upper triangle, block by block: a kCovarianceRows × kCovarianceColumns block of C stays
    // in cache while every sample's deviations stream past it, and the inner loop runs along a
    // row of C and a row of deviations (contiguous, independent elements: it vectorises). Each
    // C_ij still sums its K terms in sample order, from 0, as the formula does term by term, so
    // the result is the same to the last bit (core is built without FMA contraction); four
    // samples per pass only save loads and stores of C.
    stats.covariance.assign(bins * bins, 0.0);
    double* const cov = stats.covariance.data();
    const double* const dev = deviation.data();
    for (std::size_t rowBegin = 0; rowBegin < bins; rowBegin += kCovarianceRows) {
        const std::size_t rowEnd = std::min(bins, rowBegin + kCovarianceRows);
        for (std::size_t colBegin = rowBegin / kCovarianceColumns * kCovarianceColumns;
             colBegin < bins; colBegin += kCovarianceColumns) {
            const std::size_t colEnd = std::min(bins, colBegin + kCovarianceColumns);
            std::size_t s = 0;
            for (; s + 4 <= k; s += 4) {
                const double* __restrict d0 = dev + s * bins;
                const double* __restrict d1 = d0 + bins;
                const double* __restrict d2 = d1 + bins;
                const double* __restrict d3 = d2 + bins;
                for (std::size_t i = rowBegin; i < rowEnd; ++i) {
                    const double a0 = d0[i], a1 = d1[i], a2 = d2[i], a3 = d3[i];
                    double* __restrict c = cov + i * bins;
                    for (std::size_t j = std::max(colBegin, i); j < colEnd; ++j)
                        c[j] = (((c[j] + a0 * d0[j]) + a1 * d1[j]) + a2 * d2[j]) + a3 * d3[j];
                }
            }
            for (; s < k; ++s) {
                const double* __restrict d0 = dev + s * bins;
                for (std::size_t i = rowBegin; i < rowEnd; ++i) {
                    const double a0 = d0[i];
                    double* __restrict c = cov + i * bins;
                    for (std::size_t j = std::max(colBegin, i); j < colEnd; ++j)
                        c[j] = c[j] + a0 * d0[j];
                }
            }
        }
    }
    deviation = {};
    // Scaled once per pair (i, j) and mirrored, so the matrix is exactly symmetric.
    const double factor = static_cast<double>(k - 1) / static_cast<double>(k);
    for (std::size_t i = 0; i < bins; ++i)
        for (std::size_t j = i; j < bins; ++j)
            cov[i * bins + j] = cov[j * bins + i] = factor * cov[i * bins + j];
    stats.sigma.resize(bins);
    for (std::size_t b = 0; b < bins; ++b)
        stats.sigma[b] = std::sqrt(cov[b * bins + b]);
    return stats;
}

std::vector<double> correlationMatrix(std::span<const double> covariance, std::size_t bins) {
    if (covariance.size() != bins * bins)
        throw ConfigError("covariance of " + std::to_string(covariance.size()) +
                          " entries is not " + std::to_string(bins) + " x " + std::to_string(bins));
    std::vector<double> correlation(bins * bins);
    for (std::size_t i = 0; i < bins; ++i)
        for (std::size_t j = 0; j < bins; ++j) {
            const double norm =
                std::sqrt(covariance[i * bins + i]) * std::sqrt(covariance[j * bins + j]);
            // The diagonal is 1 by definition; √C·√C need not round back to C exactly.
            correlation[i * bins + j] = !(norm > 0) ? std::numeric_limits<double>::quiet_NaN()
                                        : i == j    ? 1.0
                                                    : covariance[i * bins + j] / norm;
        }
    return correlation;
}

} // namespace tpacf
