// SPDX-License-Identifier: GPL-3.0-or-later
#include "tpacf/jackknife.h"

#include "statistics/region_weighting.h"

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
#include <utility>

namespace tpacf {

namespace {

// The covariance block accumulated at a time: 64 rows × 256 columns of doubles (128 KiB) stay in
// a core's L2 while the deviations of all K samples stream past (measured on 3000 × 3000 with
// K = 3000: 16 × 256 and 8 × 1024 blocks are 30 % slower, larger ones no faster).
constexpr std::size_t kCovarianceRows = 64;
constexpr std::size_t kCovarianceColumns = 256;

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

RawCounts leaveOneOutCounts(const JackknifeCounts& counts, std::size_t region,
                            CrossRegionWeight crossWeight) {
    detail::requireRandomSets(counts);
    const RawCounts& whole = counts.whole;
    const std::size_t sets = whole.randomSizes.size();
    if (region >= counts.dd.regionCount || region >= counts.data.points.size())
        throw ConfigError("jackknife counts: region " + std::to_string(region) + " out of range");
    // Pairs between the region and the rest counted in part: weighted sums and their totals.
    // Dropped (simple): the integer counts and sizes without the region, as they always were.
    const double cross = jackknifeCrossWeight(crossWeight, static_cast<int>(counts.dd.regionCount));
    if (cross != 0.0)
        return detail::weighedSample(counts, detail::LeaveOneOutWeighting(region, cross));
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
                                                    const JackknifeCounts& counts,
                                                    CrossRegionWeight crossWeight) {
    std::vector<std::vector<double>> samples;
    samples.reserve(counts.dd.regionCount);
    for (std::size_t region = 0; region < counts.dd.regionCount; ++region)
        samples.push_back(
            estimate(estimator, normalise(leaveOneOutCounts(counts, region, crossWeight))));
    return samples;
}

namespace {

// Mean, covariance scale · Σ_k (w_k − w̄)(w_k − w̄)ᵀ and σ of the samples: the jackknife's scale
// is (K−1)/K, the bootstrap's 1/(B−1).
JackknifeStatistics sampleStatistics(const std::vector<std::vector<double>>& samples,
                                     double (*scaleOf)(std::size_t), const char* what) {
    const std::size_t k = samples.size();
    if (k < 2)
        throw ConfigError(std::string(what) + " statistics need at least 2 samples (got " +
                          std::to_string(k) + ")");
    const std::size_t bins = samples.front().size();
    for (const auto& sample : samples)
        if (sample.size() != bins)
            throw ConfigError(std::string(what) + " samples of different lengths");
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
    const double factor = scaleOf(k);
    for (std::size_t i = 0; i < bins; ++i)
        for (std::size_t j = i; j < bins; ++j)
            cov[i * bins + j] = cov[j * bins + i] = factor * cov[i * bins + j];
    stats.sigma.resize(bins);
    for (std::size_t b = 0; b < bins; ++b)
        stats.sigma[b] = std::sqrt(cov[b * bins + b]);
    return stats;
}

} // namespace

JackknifeStatistics jackknifeStatistics(const std::vector<std::vector<double>>& samples) {
    return sampleStatistics(
        samples, [](std::size_t k) { return static_cast<double>(k - 1) / static_cast<double>(k); },
        "jackknife");
}

JackknifeStatistics bootstrapStatistics(const std::vector<std::vector<double>>& samples) {
    return sampleStatistics(
        samples, [](std::size_t b) { return 1.0 / static_cast<double>(b - 1); }, "bootstrap");
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
