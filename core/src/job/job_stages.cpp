// SPDX-License-Identifier: GPL-3.0-or-later
#include "job/job_stages.h"

#include "tpacf/bootstrap.h"

#include "tpacf/cpu_pair_counter.h"
#include "tpacf/device_choice.h"
#include "tpacf/errors.h"
#include "tpacf/work_runner.h"

#include <algorithm>

namespace tpacf::job {

namespace {

// The job's catalogs as a count store knows them, in JobCatalogs::all() order: content
// fingerprints, and in a jackknife job the fingerprints of their regions (`regions`: one label
// vector per catalog, in its own point order). One worker per catalog.
std::vector<CountCatalog> countCatalogsOf(const JobCatalogs& catalogs,
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

// Catalogs counted against each other, by JobCatalogs::all() index: everything but the data.
std::vector<const Catalog*> othersOf(const CorrelationParams& params) {
    std::vector<const Catalog*> others;
    for (const auto& random : params.randoms)
        others.push_back(random.get());
    if (params.data2)
        others.push_back(params.data2.get());
    for (const auto& random : params.randoms2)
        others.push_back(random.get());
    return others;
}

// Every catalog's region-ordered copy, made on one set of workers, in place of the originals.
void orderByRegion(const CorrelationParams& params, JobInputs& inputs,
                   const std::vector<const std::vector<std::int32_t>*>& labels) {
    std::vector<const Catalog*> originalsInOrder = inputs.originals.all();
    std::vector<Catalog> copies =
        regionOrderedCopies(originalsInOrder, labels, params.backend.cpuThreads);
    std::size_t index = 0;
    const auto next = [&] { return std::make_shared<const Catalog>(std::move(copies[index++])); };
    inputs.counted.data = next();
    for (auto& random : inputs.counted.randoms)
        random = next();
    if (inputs.counted.data2)
        inputs.counted.data2 = next();
    for (auto& random : inputs.counted.randoms2)
        random = next();
}

// The fingerprints of the inputs, in the result's input summaries.
void recordFingerprints(CorrelationResult& header, const std::vector<CountCatalog>& keys,
                        bool cross) {
    // keys follow JobCatalogs::all(): data, randoms, data2, randoms2.
    std::vector<InputSummary*> inputs{&header.data};
    for (InputSummary& random : header.randoms)
        inputs.push_back(&random);
    if (cross)
        inputs.push_back(&header.data2);
    for (InputSummary& random : header.randoms2)
        inputs.push_back(&random);
    for (std::size_t i = 0; i < inputs.size() && i < keys.size(); ++i)
        inputs[i]->fingerprint = keys[i].content.hex();
}

// What the reused counts mean for the reader: where they came from, what was counted afresh,
// and a backend or precision other than this run's.
void noteReuse(CorrelationResult& header, const CountStore& reuse, const ReusePlan& plan) {
    if (plan.reusedLabels.empty())
        return;
    if (reuse.precision != header.precision || reuse.backend != header.backendName)
        header.notes.push_back("the reused counts were made by the " + reuse.backend +
                               " backend in " + std::string(precisionName(reuse.precision)) +
                               " precision, this run's by the " + header.backendName +
                               " backend in " + std::string(precisionName(header.precision)) +
                               " precision");
    header.reusedCounts.push_back(joinLabels(plan.reusedLabels) + " from " + reuse.sourceName());
    if (!plan.countedLabels.empty())
        header.notes.push_back("counted afresh: " + joinLabels(plan.countedLabels) +
                               " (their catalogs differ from those in " + reuse.sourceName() +
                               ")");
}

std::string countMismatch(std::size_t returned, const char* what, std::size_t asked) {
    return "the pair-count backend returned " + std::to_string(returned) + " " + what + " for " +
           std::to_string(asked) + " counts";
}

} // namespace

void StageClock::end(const char* name) {
    const Clock::time_point now = Clock::now();
    m_stages.emplace_back(name, std::chrono::duration<double>(now - m_stageStart).count());
    m_stageStart = now;
}

double StageClock::elapsedSeconds() const {
    return std::chrono::duration<double>(Clock::now() - m_start).count();
}

void checkJobMemory(const CorrelationParams& params, const Binning& binning, int regionCount) {
    // Two samples count 1 + 3n pairs of catalogs where one counts 1 + 2n: as many as
    // (3n + 1)/2 random sets (rounded up) of one sample.
    // A weighted job keeps a weighted tally beside every raw one: twice the arrays, which
    // 2n + 1 sets of one unweighted sample cover (1 + 2(2n + 1) ≥ 2(1 + 2n)).
    std::size_t setsEquivalent =
        params.data2 ? (3 * params.randoms.size() + 2) / 2 : params.randoms.size();
    if (JobCatalogs{params.data, params.data2, params.randoms, params.randoms2}.weighted())
        setsEquivalent = 2 * setsEquivalent + 1;
    checkJackknifeMemory(estimateJackknifeMemory(static_cast<std::size_t>(regionCount),
                                                 binning.count(), setsEquivalent,
                                                 params.backend.cpuThreads));
}

BackendSelection chooseJobBackend(const CorrelationParams& params, const BackendRegistry& backends,
                                  const Binning& binning) {
    // The GPUs a job uses follow its work where none were asked for: a small job does not wait
    // for every GPU of the host to start (device_choice.h).
    std::optional<CountWorkEstimate> work;
    if (params.backend.gpuDevices.empty() && backendModuleFor(params.backend, backends)) {
        const std::vector<CountTask> estimateTasks =
            countTasks({params.data, params.data2, params.randoms, params.randoms2});
        work = estimateCountWork(estimateTasks, binning, params.backend.culling,
                                 1.0 / std::max<std::uint32_t>(1, params.share.parts));
    }
    BackendSelection backend = selectBackend(params.backend, backends, work ? &*work : nullptr);
    if (!params.jackknife.enabled() || backend.counter->supportsRegions())
        return backend;
    // Error bars were asked for: "auto" accepts the CPU, an explicit backend does not.
    if (backends.resolve(params.backend.name) != kAutoBackend)
        throw ConfigError("the " + backend.counter->backendName() +
                          " backend cannot count pairs by jackknife region; use the CPU "
                          "backend for error bars");
    const std::string name = backend.counter->backendName();
    backend.counter = std::make_unique<CpuPairCounter>(params.backend.cpuThreads);
    backend.counter->setCulling(params.backend.culling);
    backend.precisionChoice = "the CPU backend counts in double";
    backend.deviceChoice.clear();
    if (!backend.notice.empty())
        backend.notice += "; ";
    backend.notice +=
        "the " + name + " backend cannot count pairs by jackknife region; using the CPU backend";
    return backend;
}

JobInputs prepareInputs(const CorrelationParams& params, const Binning& binning, StageClock& clock) {
    JobInputs inputs;
    inputs.originals = {params.data, params.data2, params.randoms, params.randoms2};
    inputs.counted = inputs.originals;
    params.share.validate();
    if (params.reuse && !params.share.whole())
        throw ConfigError("a share of the work counts part of every count: it cannot reuse "
                          "counts (reuse them when the combined shares are reused)");
    const JackknifeSettings& jackknife = params.jackknife;
    if (!jackknife.enabled()) {
        inputs.keys = countCatalogsOf(inputs.originals, {}, 0, params.backend.cpuThreads);
        clock.end("fingerprints");
        return inputs;
    }
    const std::vector<const Catalog*> others = othersOf(params);
    inputs.regions =
        assignJackknifeRegions(jackknife, *params.data, others, params.backend.cpuThreads);
    if (inputs.regions.count != jackknife.regions)
        checkJobMemory(params, binning, inputs.regions.count);
    inputs.regionCount = static_cast<std::size_t>(inputs.regions.count);
    // Labels in JobCatalogs::all() order: data, randoms, data2, randoms2 (the order of others).
    std::vector<const std::vector<std::int32_t>*> labels{&inputs.regions.data};
    for (const auto& perCatalog : inputs.regions.randoms)
        labels.push_back(&perCatalog);
    orderByRegion(params, inputs, labels);
    clock.end("jackknife regions");
    inputs.keys =
        countCatalogsOf(inputs.originals, labels, inputs.regionCount, params.backend.cpuThreads);
    // The summary speaks of the data and the first sample's randoms.
    inputs.regions.randoms.resize(params.randoms.size());
    clock.end("fingerprints");
    return inputs;
}

CorrelationResult describeJob(const CorrelationParams& params, const Binning& binning,
                              const BackendSelection& backend, const JobInputs& inputs,
                              const ReusePlan& plan) {
    CorrelationResult header;
    header.bins = params.bins;
    header.edges.assign(binning.edges().begin(), binning.edges().end());
    header.centres.assign(binning.centres().begin(), binning.centres().end());
    header.estimator = params.estimator;
    header.backendName = backend.counter->backendName();
    header.deviceDescription = backend.counter->deviceDescription();
    header.precision = backend.counter->precision();
    header.precisionChoice = backend.precisionChoice;
    header.backendNotice = backend.notice;
    header.cullingRequested = params.backend.culling;
    header.data = InputSummary::of(*params.data);
    for (const auto& random : params.randoms)
        header.randoms.push_back(InputSummary::of(*random));
    if (params.data2) {
        header.data2 = InputSummary::of(*params.data2);
        for (const auto& random : params.randoms2)
            header.randoms2.push_back(InputSummary::of(*random));
    }
    header.notes = inputNotes(params);
    if (!backend.deviceChoice.empty()) {
        header.deviceChoice = backend.deviceChoice;
        header.notes.push_back(backend.deviceChoice);
    }
    header.invocation = params.invocation;
    header.jobFilePath = params.jobFilePath;
    header.jobFileText = params.jobFileText;
    recordFingerprints(header, inputs.keys, params.data2 != nullptr);
    // The layout flags of the counts, so that a result cancelled before any count still says
    // what it was.
    header.raw.cross = inputs.counted.cross();
    header.raw.weighted = inputs.counted.weighted();
    if (params.reuse)
        noteReuse(header, *params.reuse, plan);
    return header;
}

void cullLikeWholeBatch(PairCounter& counter, const std::vector<CountTask>& tasks,
                        const ReusePlan& plan, const Binning& binning) {
    if (plan.reusedLabels.empty() || plan.counted.empty() || counter.culling() != CullingMode::Auto)
        return;
    std::uint64_t pairTotal = 0;
    for (const CountTask& task : tasks)
        pairTotal += task.pairTotal();
    counter.setCulling(chooseCulling(CullingMode::Auto, binning.maxDegrees(), pairTotal)
                           ? CullingMode::On
                           : CullingMode::Off);
}

CountControl countControl(const CorrelationParams& params, const std::atomic<bool>* cancelRequested) {
    CountControl control;
    control.cancelRequested = cancelRequested;
    control.share = params.share;
    const double partialInterval = std::max(0.0, params.liveEstimateInterval);
    control.progressEvery =
        std::min(control.progressEvery, std::chrono::milliseconds(static_cast<long long>(
                                            std::max(1.0, 500.0 * partialInterval))));
    return control;
}

JobTally countJob(PairCounter& counter, const std::vector<CountTask>& tasks, const ReusePlan& plan,
                  const Binning& binning, std::size_t regionCount, const CountControl& control) {
    if (control.cancelled())
        throw Cancelled();
    std::vector<CountTask> batch;
    for (const std::size_t t : plan.counted)
        batch.push_back(tasks[t]);
    JobTally tally;
    tally.taskCounts.resize(tasks.size());
    if (regionCount > 0) {
        tally.regionCounts.resize(tasks.size());
        std::vector<RegionPairCounts> counted;
        if (!batch.empty())
            counted = counter.countBatchByRegion(batch, binning, regionCount, control);
        if (counted.size() != batch.size())
            throw Error(countMismatch(counted.size(), "region histograms", batch.size()));
        for (std::size_t j = 0; j < batch.size(); ++j)
            tally.regionCounts[plan.counted[j]] = std::move(counted[j]);
        for (std::size_t t = 0; t < tasks.size(); ++t) {
            if (plan.stored[t])
                tally.regionCounts[t] = *plan.stored[t]->count->regions;
            tally.taskCounts[t] = {tally.regionCounts[t].total, tally.regionCounts[t].weightedTotal};
        }
        return tally;
    }
    std::vector<TaskCounts> counted;
    if (!batch.empty())
        counted = counter.countBatch(batch, binning, control);
    if (counted.size() != batch.size())
        throw Error(countMismatch(counted.size(), "histograms", batch.size()));
    for (std::size_t j = 0; j < batch.size(); ++j)
        tally.taskCounts[plan.counted[j]] = std::move(counted[j]);
    for (std::size_t t = 0; t < tasks.size(); ++t)
        if (plan.stored[t])
            tally.taskCounts[t] = plan.stored[t]->count->counts;
    return tally;
}

std::shared_ptr<CountStore> storeOf(const CorrelationParams& params, const Binning& binning,
                                    const JobInputs& inputs, const CorrelationResult& result,
                                    const JobTally& tally) {
    auto store = std::make_shared<CountStore>();
    store->setBins(binning);
    store->regionCount = inputs.regionCount;
    store->backend = result.backendName;
    store->precision = result.precision;
    store->culling = params.backend.culling;
    store->culled = result.culled;
    store->shareParts = params.share.parts;
    store->sharesHeld = {params.share.part};
    std::vector<std::size_t> index;
    for (const CountCatalog& key : inputs.keys)
        index.push_back(store->addCatalog(key));
    const std::vector<TaskCatalogs> layout = taskCatalogs(inputs.originals);
    const std::vector<std::string> labels = countLabels(inputs.originals);
    for (std::size_t t = 0; t < layout.size(); ++t) {
        StoredCount count;
        count.label = labels[t];
        count.first = index[layout[t].first];
        if (layout[t].second)
            count.second = index[*layout[t].second];
        count.counts = tally.taskCounts[t];
        if (inputs.regionCount > 0)
            count.regions = tally.regionCounts[t];
        store->counts.push_back(std::move(count));
    }
    return store;
}

void estimateInto(CorrelationResult& result, const CorrelationParams& params, JobInputs& inputs,
                  JobTally tally) {
    result.raw = rawCountsOf(std::move(tally.taskCounts), inputs.counted);
    result.normalised = normalise(result.raw);
    result.w = estimate(params.estimator, result.normalised);
    if (inputs.regionCount == 0)
        return;
    result.jackknifeRegions = summariseRegions(inputs.regions);
    result.jackknifeRegions.settings = params.jackknife;
    const JackknifeCounts counts =
        jackknifeCountsOf(std::move(tally.regionCounts), inputs.counted, inputs.regionCount);
    JackknifeStatistics stats;
    if (params.jackknife.bootstrapSamples > 0) {
        result.bootstrapSelections =
            bootstrapSelections(inputs.regionCount, params.jackknife.bootstrapSamples,
                                params.jackknife.bootstrapSeed);
        result.jackknifeSamples =
            bootstrapSamples(params.estimator, counts, result.bootstrapSelections);
        stats = bootstrapStatistics(result.jackknifeSamples);
    } else {
        result.jackknifeSamples =
            leaveOneOutSamples(params.estimator, counts, params.jackknife.crossWeight());
        stats = jackknifeStatistics(result.jackknifeSamples);
    }
    result.wError = std::move(stats.sigma);
    result.covariance = std::move(stats.covariance);
}

} // namespace tpacf::job
