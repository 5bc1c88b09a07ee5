// SPDX-License-Identifier: GPL-3.0-or-later
#include "tpacf/correlation_job.h"

#include "job/job_counts.h"
#include "tpacf/cpu_pair_counter.h"
#include "tpacf/device_choice.h"
#include "tpacf/errors.h"
#include "tpacf/eta_estimator.h"
#include "tpacf/work_runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <utility>

namespace tpacf {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string describeCatalog(const Catalog& catalog) {
    return catalog.name().empty() ? std::string("(unnamed)") : "'" + catalog.name() + "'";
}

void requireCatalog(const std::shared_ptr<const Catalog>& catalog, const std::string& which) {
    if (!catalog)
        throw ConfigError(which + " is missing");
    if (catalog->empty())
        throw ConfigError(which + " " + describeCatalog(*catalog) + " is empty");
}

void validate(const CorrelationParams& params) {
    if (!params.data)
        throw ConfigError("no data catalog given");
    requireCatalog(params.data, "the data catalog");
    if (params.randoms.empty())
        throw ConfigError("at least one random catalog is needed");
    for (std::size_t i = 0; i < params.randoms.size(); ++i)
        requireCatalog(params.randoms[i], "random catalog " + std::to_string(i + 1));
    if (!params.data2) {
        if (!params.randoms2.empty())
            throw ConfigError("randoms of a second sample were given without the second data "
                              "catalog");
        return;
    }
    requireCatalog(params.data2, "the second data catalog");
    if (!params.randoms2.empty() && params.randoms2.size() != params.randoms.size())
        throw ConfigError("the second sample has " + std::to_string(params.randoms2.size()) +
                          " random catalogs and the first " + std::to_string(params.randoms.size()) +
                          ": give as many (they pair by position) or none (the second sample "
                          "then uses the first's)");
    for (std::size_t i = 0; i < params.randoms2.size(); ++i)
        requireCatalog(params.randoms2[i], "random catalog " + std::to_string(i + 1) +
                                               " of the second sample");
}

job::JobCatalogs catalogsOf(const CorrelationParams& params) {
    return {params.data, params.data2, params.randoms, params.randoms2};
}

// What catalogs.all()[index] is, for messages: "random catalog 2 'r2.txt'".
std::string roleOf(const job::JobCatalogs& catalogs, std::size_t index) {
    const std::size_t sets = catalogs.randoms.size();
    std::string role;
    if (index == 0)
        role = catalogs.cross() ? "the first data catalog" : "the data catalog";
    else if (index <= sets)
        role = "random catalog " + std::to_string(index);
    else if (index == sets + 1)
        role = "the second data catalog";
    else
        role = "random catalog " + std::to_string(index - sets - 1) + " of the second sample";
    return role + " " + describeCatalog(*catalogs.all()[index]);
}

// The job's catalogs as a count store knows them, in JobCatalogs::all() order: content
// fingerprints, and in a jackknife job the fingerprints of their regions (`regions`: one label
// vector per catalog, in its own point order). One worker per catalog.
std::vector<CountCatalog> countCatalogsOf(const job::JobCatalogs& catalogs,
                                          const std::vector<const std::vector<std::int32_t>*>& regions,
                                          std::size_t regionCount, int threads) {
    const std::vector<const Catalog*> all = catalogs.all();
    std::vector<CountCatalog> result(all.size());
    parallelForRanges(
        all.size(),
        [&](std::size_t begin, std::size_t end) {
            for (std::size_t i = begin; i < end; ++i)
                result[i] = regionCount > 0
                                ? CountCatalog::of(*all[i], *regions.at(i), regionCount)
                                : CountCatalog::of(*all[i]);
        },
        threads);
    return result;
}

// Which counts of the job come from the reused store, and which are counted.
struct ReusePlan {
    std::vector<std::optional<CountStore::Match>> stored; // per task; nullopt: counted
    std::vector<std::size_t> counted;                     // tasks to count, in task order
    std::vector<std::string> reusedLabels, countedLabels;
};

// The stored count task t takes under the strict rules: nullopt where the file does not hold
// it and it may be counted (DD, DR, RD of other data); a ConfigError naming the reason where
// reusing it is asked for and impossible (a random whose content is in no count, other
// regions, no weighted sums).
std::optional<CountStore::Match> strictMatch(const CountStore& store,
                                             const job::JobCatalogs& catalogs,
                                             const std::vector<job::TaskCatalogs>& layout,
                                             const std::vector<std::string>& labels,
                                             const std::vector<CountCatalog>& keys, std::size_t t,
                                             std::size_t regionCount, bool weighted) {
    const std::string source = store.sourceName();
    const CountCatalog& first = keys[layout[t].first];
    const CountCatalog* second = layout[t].second ? &keys[*layout[t].second] : nullptr;
    const auto match = store.find(first.content, second ? &second->content : nullptr);
    if (!match) {
        if (job::isRandomRandom(catalogs, t)) {
            for (const std::optional<std::size_t> index :
                 {std::optional<std::size_t>(layout[t].first), layout[t].second})
                if (index && !store.findCatalog(keys[*index].content))
                    throw ConfigError(roleOf(catalogs, *index) +
                                      ": its content (coordinates and weights as read) "
                                      "differs from every catalog in " +
                                      source + ", so " + labels[t] +
                                      " cannot be reused (give the random catalogs that "
                                      "counted them, or run without --reuse-counts)");
            throw ConfigError(labels[t] + " is not in " + source +
                              ": its catalogs are there, but not counted together");
        }
        return std::nullopt;
    }
    const StoredCount& stored = *match->count;
    // The content fingerprint covers N and the weights, but the file states them apart: a
    // file whose N or Σw differ from the catalog of that content was edited.
    for (const auto& [storedIndex, key] :
         {std::pair{std::optional<std::size_t>(stored.first), match->swapped ? second : &first},
          std::pair{stored.second, match->swapped ? &first : second}}) {
        if (!storedIndex || !key)
            continue;
        const CountCatalog& said = store.catalogs[*storedIndex];
        if (said.size != key->size || said.weighted != key->weighted ||
            !(said.weights == key->weights))
            throw InputError(source, 0, 0,
                             "implausible count file: it gives catalog " + said.name + " N = " +
                                 std::to_string(said.size) + " (Σw " +
                                 std::to_string(said.weights.sum) +
                                 "), but the catalog of that content has N = " +
                                 std::to_string(key->size) + " (Σw " +
                                 std::to_string(key->weights.sum) + "); the file was edited");
    }
    if (regionCount > 0) {
        // The stored catalogs' regions in this run's order of the two catalogs.
        const Fingerprint& storedA = store.catalogs[stored.first].regions;
        const Fingerprint* storedB =
            stored.second ? &store.catalogs[*stored.second].regions : nullptr;
        const Fingerprint& forFirst = match->swapped ? *storedB : storedA;
        const Fingerprint* forSecond = match->swapped ? &storedA : storedB;
        const bool sameRegions = forFirst == first.regions &&
                                 (!second || (forSecond && *forSecond == second->regions));
        if (!sameRegions || !stored.regions)
            throw ConfigError(labels[t] + ": the jackknife regions differ from those of the "
                                          "counts in " +
                              source +
                              " (its catalogs are the same, the region of some point is not)");
    }
    if (weighted && (first.weighted || (second && second->weighted)) &&
        !stored.counts.isWeighted())
        throw ConfigError(labels[t] + " in " + source + " has no weighted sums");
    return match;
}

// Every count counted afresh.
ReusePlan countEverything(const job::JobCatalogs& catalogs) {
    ReusePlan plan;
    plan.stored.resize(job::taskCatalogs(catalogs).size());
    for (std::size_t t = 0; t < plan.stored.size(); ++t)
        plan.counted.push_back(t);
    return plan;
}

// Throws ConfigError where the store as a whole cannot serve this run: a part of the work only,
// other bins, another number of regions.
void requireUsableStore(const CountStore& store, const Binning& binning, std::size_t regionCount) {
    const std::string source = store.sourceName();
    if (!store.whole()) {
        std::string missing;
        for (const std::uint32_t part : store.missingShares())
            missing += (missing.empty() ? "" : ", ") + std::to_string(part + 1);
        throw ConfigError(source + " holds " + store.describeShares() +
                          " of the work only (missing: " + missing +
                          "): combine all parts into one count file before reusing it");
    }
    store.requireBins(binning);
    if (regionCount > 0 && store.regionCount != regionCount)
        throw ConfigError("the jackknife regions differ from those of the counts in " + source +
                          ": this run has " + std::to_string(regionCount) + " regions, the file " +
                          (store.regionCount > 0 ? std::to_string(store.regionCount) + " regions"
                                                 : std::string("no regions (counted without "
                                                               "jackknife)")));
}

// Strict: any refusal is the run's error. WhereMatching: a refused count (or every count, where
// the store as a whole does not fit) is counted afresh.
ReusePlan planReuse(const CountStore* store, CorrelationParams::ReusePolicy policy,
                    const job::JobCatalogs& catalogs, const std::vector<CountCatalog>& keys,
                    const Binning& binning, std::size_t regionCount, bool weighted) {
    if (!store)
        return countEverything(catalogs);
    const bool strict = policy == CorrelationParams::ReusePolicy::Strict;
    try {
        requireUsableStore(*store, binning, regionCount);
    } catch (const ConfigError&) {
        if (strict)
            throw;
        return countEverything(catalogs);
    }
    const std::vector<job::TaskCatalogs> layout = job::taskCatalogs(catalogs);
    const std::vector<std::string> labels = job::countLabels(catalogs);
    ReusePlan plan;
    plan.stored.resize(layout.size());
    for (std::size_t t = 0; t < layout.size(); ++t) {
        std::optional<CountStore::Match> match;
        try {
            match = strictMatch(*store, catalogs, layout, labels, keys, t, regionCount, weighted);
        } catch (const ConfigError&) {
            if (strict)
                throw;
        }
        if (match) {
            plan.stored[t] = match;
            plan.reusedLabels.push_back(labels[t]);
        } else {
            plan.counted.push_back(t);
            plan.countedLabels.push_back(labels[t]);
        }
    }
    return plan;
}

std::string joinLabels(const std::vector<std::string>& labels) {
    std::string text;
    for (const std::string& label : labels)
        text += (text.empty() ? "" : ", ") + label;
    return text;
}

// What a reader of the result must not miss about its inputs.
std::vector<std::string> inputNotes(const CorrelationParams& params) {
    std::vector<std::string> notes;
    const auto negative = [&](const Catalog& catalog, const std::string& which) {
        const InputSummary summary = InputSummary::of(catalog);
        if (summary.negativeWeights > 0)
            notes.push_back(which + " " + describeCatalog(catalog) + " has " +
                            std::to_string(summary.negativeWeights) + " negative weight" +
                            (summary.negativeWeights == 1 ? "" : "s") + " (sum of weights " +
                            std::to_string(summary.weightSum) + ")");
    };
    negative(*params.data, "the data catalog");
    for (std::size_t i = 0; i < params.randoms.size(); ++i)
        negative(*params.randoms[i], "random catalog " + std::to_string(i + 1));
    if (params.data2) {
        negative(*params.data2, "the second data catalog");
        for (std::size_t i = 0; i < params.randoms2.size(); ++i)
            negative(*params.randoms2[i],
                     "random catalog " + std::to_string(i + 1) + " of the second sample");
        if (params.randoms2.empty())
            notes.push_back("the second sample uses the first sample's randoms: R1D2 is D2 "
                            "against R1 and R1R2 is R1R1");
    }
    return notes;
}

} // namespace

CorrelationJob::CorrelationJob(CorrelationParams params, BackendRegistry backends)
    : m_params(std::move(params)), m_backends(std::move(backends)) {}

CorrelationResult CorrelationJob::run(const ProgressCallback& onProgress,
                                      const std::atomic<bool>* cancelRequested) {
    const Clock::time_point start = Clock::now();
    std::vector<std::pair<std::string, double>> stages;
    Clock::time_point stageStart = start;
    const auto endStage = [&](const char* name) {
        const Clock::time_point now = Clock::now();
        stages.emplace_back(name, std::chrono::duration<double>(now - stageStart).count());
        stageStart = now;
    };
    validate(m_params);
    const Binning binning(m_params.bins);
    const JackknifeSettings& jackknife = m_params.jackknife;
    if (jackknife.regions < 0)
        throw ConfigError("jackknife: the region count " + std::to_string(jackknife.regions) +
                          " is negative");
    // Per-region counts and the covariance grow as K · bins and bins²: a combination that cannot
    // fit is refused before the regions are grown or a pair is counted, not after an hour and an
    // out-of-memory kill. A column's K is known once its labels are read (below).
    // Two samples count 1 + 3n pairs of catalogs where one counts 1 + 2n: as many as
    // (3n + 1)/2 random sets (rounded up) of one sample.
    // A weighted job keeps a weighted tally beside every raw one: twice the arrays, which
    // 2n + 1 sets of one unweighted sample cover (1 + 2(2n + 1) ≥ 2(1 + 2n)).
    std::size_t setsEquivalent =
        m_params.data2 ? (3 * m_params.randoms.size() + 2) / 2 : m_params.randoms.size();
    if (catalogsOf(m_params).weighted())
        setsEquivalent = 2 * setsEquivalent + 1;
    const auto checkMemory = [&](int regionCount) {
        checkJackknifeMemory(estimateJackknifeMemory(static_cast<std::size_t>(regionCount),
                                                     binning.count(), setsEquivalent,
                                                     m_params.backend.cpuThreads));
    };
    if (jackknife.regions >= kMinJackknifeRegions && jackknife.regions <= kMaxJackknifeRegions)
        checkMemory(jackknife.regions);
    // The GPUs a job uses follow its work where none were asked for: a small job does not wait
    // for every GPU of the host to start (device_choice.h).
    std::optional<CountWorkEstimate> work;
    if (m_params.backend.gpuDevices.empty() && backendModuleFor(m_params.backend, m_backends)) {
        const std::vector<CountTask> estimateTasks = job::countTasks(catalogsOf(m_params));
        work = estimateCountWork(estimateTasks, binning, m_params.backend.culling,
                                 1.0 / std::max<std::uint32_t>(1, m_params.share.parts));
    }
    BackendSelection backend =
        selectBackend(m_params.backend, m_backends, work ? &*work : nullptr);
    endStage("backend");
    if (jackknife.enabled() && !backend.counter->supportsRegions()) {
        // Error bars were asked for: "auto" accepts the CPU, an explicit backend does not.
        if (m_backends.resolve(m_params.backend.name) != kAutoBackend)
            throw ConfigError("the " + backend.counter->backendName() +
                              " backend cannot count pairs by jackknife region; use the CPU "
                              "backend for error bars");
        const std::string name = backend.counter->backendName();
        backend.counter = std::make_unique<CpuPairCounter>(m_params.backend.cpuThreads);
        backend.counter->setCulling(m_params.backend.culling);
        backend.precisionChoice = "the CPU backend counts in double";
        backend.deviceChoice.clear();
        if (!backend.notice.empty())
            backend.notice += "; ";
        backend.notice += "the " + name +
                          " backend cannot count pairs by jackknife region; using the CPU backend";
    }

    // Jackknife: regions for every point, and copies of the catalogs carrying them, ordered by
    // region (counting by region wants that order; the pairs are the same). Two samples share
    // the regions grown on the first.
    RegionAssignment regions;
    const job::JobCatalogs originals = catalogsOf(m_params);
    job::JobCatalogs counted = originals;
    // Count files and reuse know catalogs by content (and regions): fingerprints of the
    // catalogs as given, in their own point order.
    m_params.share.validate();
    if (m_params.reuse && !m_params.share.whole())
        throw ConfigError("a share of the work counts part of every count: it cannot reuse "
                          "counts (reuse them when the combined shares are reused)");
    // Fingerprints of every catalog, always: the result records them (provenance), and count
    // files and reuse key on them. About 5 ms per 10^6 points, one thread per catalog.
    std::vector<CountCatalog> catalogKeys;
    if (jackknife.enabled()) {
        std::vector<const Catalog*> others;
        for (const auto& random : m_params.randoms)
            others.push_back(random.get());
        if (m_params.data2)
            others.push_back(m_params.data2.get());
        for (const auto& random : m_params.randoms2)
            others.push_back(random.get());
        regions = assignJackknifeRegions(jackknife, *m_params.data, others,
                                         m_params.backend.cpuThreads);
        if (regions.count != jackknife.regions)
            checkMemory(regions.count);
        // Every catalog's copy on one set of workers (JobCatalogs::all() order: data, randoms,
        // data2, randoms2, the order of `others`).
        std::vector<const Catalog*> originalsInOrder{m_params.data.get()};
        originalsInOrder.insert(originalsInOrder.end(), others.begin(), others.end());
        std::vector<const std::vector<std::int32_t>*> labels{&regions.data};
        for (const auto& perCatalog : regions.randoms)
            labels.push_back(&perCatalog);
        std::vector<Catalog> copies =
            regionOrderedCopies(originalsInOrder, labels, m_params.backend.cpuThreads);
        std::size_t index = 0;
        const auto next = [&] {
            return std::make_shared<const Catalog>(std::move(copies[index++]));
        };
        counted.data = next();
        for (auto& random : counted.randoms)
            random = next();
        if (counted.data2)
            counted.data2 = next();
        for (auto& random : counted.randoms2)
            random = next();
        endStage("jackknife regions");
        catalogKeys = countCatalogsOf(originals, labels, static_cast<std::size_t>(regions.count),
                                      m_params.backend.cpuThreads);
        // The summary speaks of the data and the first sample's randoms.
        regions.randoms.resize(m_params.randoms.size());
    } else {
        catalogKeys = countCatalogsOf(originals, {}, 0, m_params.backend.cpuThreads);
    }
    endStage("fingerprints");
    const std::size_t regionCount = jackknife.enabled() ? static_cast<std::size_t>(regions.count) : 0;
    const ReusePlan plan = planReuse(m_params.reuse.get(), m_params.reusePolicy, originals,
                                     catalogKeys, binning, regionCount, originals.weighted());

    // Everything but the counts; partial results share it.
    CorrelationResult header;
    header.bins = m_params.bins;
    header.edges.assign(binning.edges().begin(), binning.edges().end());
    header.centres.assign(binning.centres().begin(), binning.centres().end());
    header.estimator = m_params.estimator;
    header.backendName = backend.counter->backendName();
    header.deviceDescription = backend.counter->deviceDescription();
    header.precision = backend.counter->precision();
    header.precisionChoice = backend.precisionChoice;
    header.backendNotice = backend.notice;
    header.cullingRequested = m_params.backend.culling;
    header.data = InputSummary::of(*m_params.data);
    for (const auto& random : m_params.randoms)
        header.randoms.push_back(InputSummary::of(*random));
    if (m_params.data2) {
        header.data2 = InputSummary::of(*m_params.data2);
        for (const auto& random : m_params.randoms2)
            header.randoms2.push_back(InputSummary::of(*random));
    }
    header.notes = inputNotes(m_params);
    if (!backend.deviceChoice.empty()) {
        header.deviceChoice = backend.deviceChoice;
        header.notes.push_back(backend.deviceChoice);
    }
    header.invocation = m_params.invocation;
    {
        // catalogKeys follow JobCatalogs::all(): data, randoms, data2, randoms2.
        std::vector<InputSummary*> inputs{&header.data};
        for (InputSummary& random : header.randoms)
            inputs.push_back(&random);
        if (m_params.data2)
            inputs.push_back(&header.data2);
        for (InputSummary& random : header.randoms2)
            inputs.push_back(&random);
        for (std::size_t i = 0; i < inputs.size() && i < catalogKeys.size(); ++i)
            inputs[i]->fingerprint = catalogKeys[i].content.hex();
    }
    // The layout flags of the counts, so that a result cancelled before any count still says
    // what it was.
    header.raw.cross = counted.cross();
    header.raw.weighted = counted.weighted();

    if (!plan.reusedLabels.empty()) {
        const CountStore& reuse = *m_params.reuse;
        if (reuse.precision != header.precision || reuse.backend != header.backendName)
            header.notes.push_back(
                "the reused counts were made by the " + reuse.backend + " backend in " +
                std::string(precisionName(reuse.precision)) + " precision, this run's by the " +
                header.backendName + " backend in " +
                std::string(precisionName(header.precision)) + " precision");
        header.reusedCounts.push_back(joinLabels(plan.reusedLabels) + " from " +
                                      m_params.reuse->sourceName());
        if (!plan.countedLabels.empty())
            header.notes.push_back("counted afresh: " + joinLabels(plan.countedLabels) +
                                   " (their catalogs differ from those in " +
                                   m_params.reuse->sourceName() + ")");
    }

    // One batch so the backend can schedule DD, every DR_i, RD_i and RR_i together; counts
    // taken from the reused store stay out of it and are merged back in task order.
    const std::vector<CountTask> tasks = job::countTasks(counted);
    std::vector<CountTask> batch;
    for (const std::size_t t : plan.counted)
        batch.push_back(tasks[t]);
    const auto storedCounts = [&](std::size_t t) -> const StoredCount& {
        return *plan.stored[t]->count;
    };

    // Auto culling is decided on the whole batch: counting the rest of a batch whose other
    // counts are reused decides as the whole batch would, so the counts are made alike.
    if (!plan.reusedLabels.empty() && !batch.empty() &&
        backend.counter->culling() == CullingMode::Auto) {
        std::uint64_t pairTotal = 0;
        for (const CountTask& task : tasks)
            pairTotal += task.pairTotal();
        backend.counter->setCulling(chooseCulling(CullingMode::Auto, binning.maxDegrees(), pairTotal)
                                        ? CullingMode::On
                                        : CullingMode::Off);
    }

    CountControl control;
    control.cancelRequested = cancelRequested;
    control.share = m_params.share;
    const double partialInterval = std::max(0.0, m_params.liveEstimateInterval);
    control.progressEvery =
        std::min(control.progressEvery, std::chrono::milliseconds(static_cast<long long>(
                                            std::max(1.0, 500.0 * partialInterval))));
    double lastPartial = -partialInterval;
    EtaEstimator eta;
    if (onProgress) {
        control.onProgress = [&](const CountProgress& progress) {
            JobProgress job;
            job.pairsDone = progress.pairsDone;
            job.pairsTotal = progress.pairsTotal;
            job.preparing = progress.preparing;
            // Work where the backend measures it (pairs culled away or counted whole while
            // planning take no time), else pairs.
            if (progress.preparing)
                job.fraction = 0.0;
            else if (progress.workTotal > 0)
                job.fraction = std::clamp(progress.workDone / progress.workTotal, 0.0, 1.0);
            else
                job.fraction = progress.pairsTotal > 0
                                   ? static_cast<double>(progress.pairsDone) /
                                         static_cast<double>(progress.pairsTotal)
                                   : 1.0;
            job.elapsedSeconds = secondsSince(start);
            eta.observe(job.elapsedSeconds, job.fraction, job.preparing);
            job.etaSeconds = eta.remainingSeconds();
            job.pairsPerSecond = job.elapsedSeconds > 0
                                     ? static_cast<double>(progress.pairsDone) / job.elapsedSeconds
                                     : 0.0;
            // The pairs behind the partial counts: their own where they lag the progress.
            const std::vector<std::uint64_t>& partialPairs = progress.partialPairsPerTask.empty()
                                                                 ? progress.pairsDonePerTask
                                                                 : progress.partialPairsPerTask;
            if (progress.partialsEvenlySpread && progress.partialCounts.size() == batch.size() &&
                partialPairs.size() == batch.size() &&
                job.elapsedSeconds - lastPartial >= partialInterval) {
                lastPartial = job.elapsedSeconds;
                auto partial = std::make_shared<CorrelationResult>(header);
                partial->culled = backend.counter->lastBatchCulled();
                std::vector<TaskCounts> counts(tasks.size());
                std::vector<std::uint64_t> pairsDone(tasks.size());
                const bool haveWeighted = progress.partialWeighted.size() == batch.size();
                for (std::size_t t = 0; t < tasks.size(); ++t) {
                    if (!plan.stored[t])
                        continue;
                    // A reused count is complete: all its pairs are visited.
                    counts[t].raw = storedCounts(t).counts.raw;
                    if (haveWeighted)
                        counts[t].weighted = storedCounts(t).counts.weighted;
                    pairsDone[t] = tasks[t].pairTotal();
                }
                for (std::size_t j = 0; j < batch.size(); ++j) {
                    const std::size_t t = plan.counted[j];
                    counts[t].raw = progress.partialCounts[j];
                    if (haveWeighted)
                        counts[t].weighted = progress.partialWeighted[j];
                    pairsDone[t] = partialPairs[j];
                }
                partial->raw = job::rawCountsOf(std::move(counts), counted);
                // A backend that reports raw counts alone while it runs: the live estimate is
                // then the unweighted one, until the final counts.
                if (partial->raw.weighted && !haveWeighted)
                    partial->raw.weighted = false;
                double coverage = 1.0;
                for (std::size_t t = 0; t < tasks.size(); ++t)
                    if (tasks[t].pairTotal() > 0)
                        coverage = std::min(coverage, static_cast<double>(pairsDone[t]) /
                                                          static_cast<double>(tasks[t].pairTotal()));
                job.partialCoverage = coverage;
                partial->normalised = normaliseByPairsVisited(partial->raw, pairsDone);
                partial->w = estimate(m_params.estimator, partial->normalised);
                partial->elapsedSeconds = job.elapsedSeconds;
                job.partial = std::move(partial);
            }
            onProgress(job);
        };
    }

    CorrelationResult result = header; // a copy: the progress callback still builds on header
    std::vector<RegionPairCounts> regionCounts(tasks.size());
    std::vector<TaskCounts> taskCounts(tasks.size()); // as counted (or stored), task order
    try {
        if (control.cancelled())
            throw Cancelled();
        if (jackknife.enabled()) {
            std::vector<RegionPairCounts> countedRegions;
            if (!batch.empty())
                countedRegions = backend.counter->countBatchByRegion(
                    batch, binning, static_cast<std::size_t>(regions.count), control);
            if (countedRegions.size() != batch.size())
                throw Error("the pair-count backend returned " +
                            std::to_string(countedRegions.size()) + " region histograms for " +
                            std::to_string(batch.size()) + " counts");
            for (std::size_t j = 0; j < batch.size(); ++j)
                regionCounts[plan.counted[j]] = std::move(countedRegions[j]);
            for (std::size_t t = 0; t < tasks.size(); ++t) {
                if (plan.stored[t])
                    regionCounts[t] = *storedCounts(t).regions;
                taskCounts[t] = {regionCounts[t].total, regionCounts[t].weightedTotal};
            }
        } else {
            std::vector<TaskCounts> countedTasks;
            if (!batch.empty())
                countedTasks = backend.counter->countBatch(batch, binning, control);
            if (countedTasks.size() != batch.size())
                throw Error("the pair-count backend returned " +
                            std::to_string(countedTasks.size()) + " histograms for " +
                            std::to_string(batch.size()) + " counts");
            for (std::size_t j = 0; j < batch.size(); ++j)
                taskCounts[plan.counted[j]] = std::move(countedTasks[j]);
            for (std::size_t t = 0; t < tasks.size(); ++t)
                if (plan.stored[t])
                    taskCounts[t] = storedCounts(t).counts;
        }
        // Counts all taken from the store: culled as they were counted.
        result.culled = batch.empty() ? (m_params.reuse && m_params.reuse->culled)
                                      : backend.counter->lastBatchCulled();
        if (!batch.empty())
            for (const std::string& note : backend.counter->lastBatchNotes())
                result.notes.push_back(note);
    } catch (const Cancelled&) {
        result.status = JobStatus::Cancelled;
        result.elapsedSeconds = secondsSince(start);
        return result;
    }
    endStage("count");
    if (m_params.collectCounts) {
        auto store = std::make_shared<CountStore>();
        store->setBins(binning);
        store->regionCount = regionCount;
        store->backend = header.backendName;
        store->precision = header.precision;
        store->culling = m_params.backend.culling;
        store->culled = result.culled;
        store->shareParts = m_params.share.parts;
        store->sharesHeld = {m_params.share.part};
        std::vector<std::size_t> index;
        for (const CountCatalog& key : catalogKeys)
            index.push_back(store->addCatalog(key));
        const std::vector<job::TaskCatalogs> layout = job::taskCatalogs(originals);
        const std::vector<std::string> labels = job::countLabels(originals);
        for (std::size_t t = 0; t < tasks.size(); ++t) {
            StoredCount count;
            count.label = labels[t];
            count.first = index[layout[t].first];
            if (layout[t].second)
                count.second = index[*layout[t].second];
            count.counts = taskCounts[t];
            if (jackknife.enabled())
                count.regions = regionCounts[t];
            store->counts.push_back(std::move(count));
        }
        result.counts = std::move(store);
    }
    result.raw = job::rawCountsOf(std::move(taskCounts), counted);
    result.normalised = normalise(result.raw);
    result.w = estimate(m_params.estimator, result.normalised);
    if (jackknife.enabled()) {
        result.jackknifeRegions = summariseRegions(regions);
        const JackknifeCounts counts = job::jackknifeCountsOf(
            std::move(regionCounts), counted, static_cast<std::size_t>(regions.count));
        result.jackknifeSamples = leaveOneOutSamples(m_params.estimator, counts);
        JackknifeStatistics stats = jackknifeStatistics(result.jackknifeSamples);
        result.wError = std::move(stats.sigma);
        result.covariance = std::move(stats.covariance);
    }
    endStage("estimate");
    result.stageSeconds = std::move(stages);
    result.elapsedSeconds = secondsSince(start);
    return result;
}

} // namespace tpacf
