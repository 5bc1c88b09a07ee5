#include "tpacf/correlation_job.h"

#include "tpacf/cpu_pair_counter.h"
#include "tpacf/errors.h"

#include <chrono>
#include <cmath>
#include <utility>

namespace tpacf {

namespace {

using Clock = std::chrono::steady_clock;

// Live estimates are for the eye: four a second keep a plot moving without flooding the GUI's
// event queue or spending the calling thread on estimates nobody sees.
constexpr double kPartialInterval = 0.25;

double secondsSince(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string describeCatalog(const Catalog& catalog) {
    return catalog.name().empty() ? std::string("(unnamed)") : "'" + catalog.name() + "'";
}

void validate(const CorrelationParams& params) {
    if (!params.data)
        throw ConfigError("no data catalog given");
    if (params.data->empty())
        throw ConfigError("the data catalog " + describeCatalog(*params.data) + " is empty");
    if (params.randoms.empty())
        throw ConfigError("at least one random catalog is needed");
    for (std::size_t i = 0; i < params.randoms.size(); ++i) {
        const auto& random = params.randoms[i];
        const std::string which = "random catalog " + std::to_string(i + 1);
        if (!random)
            throw ConfigError(which + " is missing");
        if (random->empty())
            throw ConfigError(which + " " + describeCatalog(*random) + " is empty");
    }
}

// Splits countBatch's output, in the order DD, DR_1..n, RR_1..n, into RawCounts.
RawCounts rawCountsOf(std::vector<PairCounts> counts, const CorrelationParams& params) {
    const std::size_t sets = params.randoms.size();
    if (counts.size() != 1 + 2 * sets)
        throw Error("the pair-count backend returned " + std::to_string(counts.size()) +
                    " histograms for " + std::to_string(1 + 2 * sets) + " counts");
    RawCounts raw;
    raw.dataSize = params.data->size();
    for (const auto& random : params.randoms)
        raw.randomSizes.push_back(random->size());
    raw.dd = std::move(counts[0]);
    for (std::size_t set = 0; set < sets; ++set) {
        raw.dr.push_back(std::move(counts[1 + set]));
        raw.rr.push_back(std::move(counts[1 + sets + set]));
    }
    return raw;
}

// The raw counts of countBatch's results, task by task.
std::vector<PairCounts> rawOf(std::vector<TaskCounts> counts) {
    std::vector<PairCounts> raw;
    raw.reserve(counts.size());
    for (TaskCounts& task : counts)
        raw.push_back(std::move(task.raw));
    return raw;
}

std::vector<std::uint64_t> sumOverSets(const std::vector<PairCounts>& perSet, std::size_t bins) {
    std::vector<std::uint64_t> sum(bins, 0);
    for (const PairCounts& counts : perSet)
        for (std::size_t bin = 0; bin < bins && bin < counts.size(); ++bin)
            sum[bin] += counts[bin];
    return sum;
}

} // namespace

std::vector<std::uint64_t> CorrelationResult::drSummed() const {
    return sumOverSets(raw.dr, binCount());
}

std::vector<std::uint64_t> CorrelationResult::rrSummed() const {
    return sumOverSets(raw.rr, binCount());
}

std::size_t CorrelationResult::binsWithoutSigma() const noexcept {
    std::size_t count = 0;
    for (std::size_t k = 0; k < w.size() && k < wError.size(); ++k)
        count += std::isfinite(w[k]) && !std::isfinite(wError[k]) ? 1 : 0;
    return count;
}

CorrelationJob::CorrelationJob(CorrelationParams params, BackendRegistry backends)
    : m_params(std::move(params)), m_backends(std::move(backends)) {}

CorrelationResult CorrelationJob::run(const ProgressCallback& onProgress,
                                      const std::atomic<bool>* cancelRequested) {
    const Clock::time_point start = Clock::now();
    validate(m_params);
    const Binning binning(m_params.bins);
    const JackknifeSettings& jackknife = m_params.jackknife;
    if (jackknife.regions < 0)
        throw ConfigError("jackknife: the region count " + std::to_string(jackknife.regions) +
                          " is negative");
    // Per-region counts and the covariance grow as K · bins and bins²: a combination that cannot
    // fit is refused before the regions are grown or a pair is counted, not after an hour and an
    // out-of-memory kill. A column's K is known once its labels are read (below).
    const auto checkMemory = [&](int regionCount) {
        checkJackknifeMemory(estimateJackknifeMemory(static_cast<std::size_t>(regionCount),
                                                     binning.count(), m_params.randoms.size(),
                                                     m_params.backend.cpuThreads));
    };
    if (jackknife.regions >= kMinJackknifeRegions && jackknife.regions <= kMaxJackknifeRegions)
        checkMemory(jackknife.regions);
    BackendSelection backend = selectBackend(m_params.backend, m_backends);
    if (jackknife.enabled() && !backend.counter->supportsRegions()) {
        // Error bars were asked for: "auto" accepts the CPU, an explicit backend does not.
        if (m_backends.resolve(m_params.backend.name) != kAutoBackend)
            throw ConfigError("the " + backend.counter->backendName() +
                              " backend cannot count pairs by jackknife region; use the CPU "
                              "backend for error bars");
        const std::string name = backend.counter->backendName();
        backend.counter = std::make_unique<CpuPairCounter>(m_params.backend.cpuThreads);
        backend.counter->setCulling(m_params.backend.culling);
        if (!backend.notice.empty())
            backend.notice += "; ";
        backend.notice += "the " + name +
                          " backend cannot count pairs by jackknife region; using the CPU backend";
    }

    // Jackknife: regions for every point, and copies of the catalogs carrying them, ordered by
    // region (counting by region wants that order; the pairs are the same).
    RegionAssignment regions;
    std::shared_ptr<const Catalog> countedData = m_params.data;
    std::vector<std::shared_ptr<const Catalog>> countedRandoms = m_params.randoms;
    if (jackknife.enabled()) {
        std::vector<const Catalog*> randomCatalogs;
        for (const auto& random : m_params.randoms)
            randomCatalogs.push_back(random.get());
        regions = assignJackknifeRegions(jackknife, *m_params.data, randomCatalogs,
                                         m_params.backend.cpuThreads);
        if (regions.count != jackknife.regions)
            checkMemory(regions.count);
        countedData =
            std::make_shared<const Catalog>(regionOrderedCopy(*m_params.data, regions.data));
        for (std::size_t set = 0; set < countedRandoms.size(); ++set)
            countedRandoms[set] = std::make_shared<const Catalog>(
                regionOrderedCopy(*m_params.randoms[set], regions.randoms[set]));
    }

    // Everything but the counts; partial results share it.
    CorrelationResult header;
    header.bins = m_params.bins;
    header.edges.assign(binning.edges().begin(), binning.edges().end());
    header.centres.assign(binning.centres().begin(), binning.centres().end());
    header.estimator = m_params.estimator;
    header.backendName = backend.counter->backendName();
    header.deviceDescription = backend.counter->deviceDescription();
    header.precision = backend.counter->precision();
    header.backendNotice = backend.notice;
    header.cullingRequested = m_params.backend.culling;
    header.data = {m_params.data->name(), m_params.data->size()};
    for (const auto& random : m_params.randoms)
        header.randoms.push_back({random->name(), random->size()});

    // One batch so the backend can schedule DD, every DR_i and every RR_i together.
    std::vector<CountTask> tasks;
    tasks.push_back({countedData.get(), nullptr});
    for (const auto& random : countedRandoms)
        tasks.push_back({countedData.get(), random.get()});
    for (const auto& random : countedRandoms)
        tasks.push_back({random.get(), nullptr});

    CountControl control;
    control.cancelRequested = cancelRequested;
    double lastPartial = -kPartialInterval;
    if (onProgress) {
        control.onProgress = [&](const CountProgress& progress) {
            JobProgress job;
            job.pairsDone = progress.pairsDone;
            job.pairsTotal = progress.pairsTotal;
            job.fraction = progress.pairsTotal > 0 ? static_cast<double>(progress.pairsDone) /
                                                         static_cast<double>(progress.pairsTotal)
                                                   : 1.0;
            job.elapsedSeconds = secondsSince(start);
            job.pairsPerSecond = job.elapsedSeconds > 0
                                     ? static_cast<double>(progress.pairsDone) / job.elapsedSeconds
                                     : 0.0;
            if (progress.partialCounts.size() == tasks.size() &&
                job.elapsedSeconds - lastPartial >= kPartialInterval) {
                lastPartial = job.elapsedSeconds;
                auto partial = std::make_shared<CorrelationResult>(header);
                partial->culled = backend.counter->lastBatchCulled();
                partial->raw = rawCountsOf(progress.partialCounts, m_params);
                partial->normalised =
                    normaliseByPairsVisited(partial->raw, progress.pairsDonePerTask);
                partial->w = estimate(m_params.estimator, partial->normalised);
                partial->elapsedSeconds = job.elapsedSeconds;
                job.partial = std::move(partial);
            }
            onProgress(job);
        };
    }

    CorrelationResult result = header; // a copy: the progress callback still builds on header
    std::vector<RegionPairCounts> regionCounts;
    try {
        if (jackknife.enabled()) {
            if (control.cancelled())
                throw Cancelled();
            regionCounts = backend.counter->countBatchByRegion(
                tasks, binning, static_cast<std::size_t>(regions.count), control);
            if (regionCounts.size() != tasks.size())
                throw Error("the pair-count backend returned " +
                            std::to_string(regionCounts.size()) + " region histograms for " +
                            std::to_string(tasks.size()) + " counts");
            std::vector<PairCounts> totals;
            for (const RegionPairCounts& counts : regionCounts)
                totals.push_back(counts.total);
            result.raw = rawCountsOf(std::move(totals), m_params);
        } else {
            result.raw =
                rawCountsOf(rawOf(backend.counter->countBatch(tasks, binning, control)), m_params);
        }
        result.culled = backend.counter->lastBatchCulled();
    } catch (const Cancelled&) {
        result.status = JobStatus::Cancelled;
        result.elapsedSeconds = secondsSince(start);
        return result;
    }
    result.normalised = normalise(result.raw);
    result.w = estimate(m_params.estimator, result.normalised);
    if (jackknife.enabled()) {
        const std::size_t sets = m_params.randoms.size();
        result.jackknifeRegions = summariseRegions(regions);
        JackknifeCounts counts;
        counts.dd = std::move(regionCounts[0]);
        for (std::size_t set = 0; set < sets; ++set) {
            counts.dr.push_back(std::move(regionCounts[1 + set]));
            counts.rr.push_back(std::move(regionCounts[1 + sets + set]));
        }
        counts.dataPerRegion = result.jackknifeRegions.dataPerRegion;
        for (const auto& random : regions.randoms) {
            std::vector<std::uint64_t> n(static_cast<std::size_t>(regions.count), 0);
            for (std::int32_t r : random)
                ++n[static_cast<std::size_t>(r)];
            counts.randomPerRegion.push_back(std::move(n));
        }
        counts.dataSize = result.raw.dataSize;
        counts.randomSizes = result.raw.randomSizes;
        result.jackknifeSamples = leaveOneOutSamples(m_params.estimator, counts);
        JackknifeStatistics stats = jackknifeStatistics(result.jackknifeSamples);
        result.wError = std::move(stats.sigma);
        result.covariance = std::move(stats.covariance);
    }
    result.elapsedSeconds = secondsSince(start);
    return result;
}

} // namespace tpacf
