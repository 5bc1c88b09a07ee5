// SPDX-License-Identifier: GPL-3.0-or-later
#include "tpacf/correlation_job.h"

#include "job/job_separations.h"
#include "job/job_stages.h"
#include "job/live_progress.h"
#include "tpacf/errors.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

namespace tpacf {

namespace {

void requireCatalog(const std::shared_ptr<const Catalog>& catalog, const std::string& which) {
    if (!catalog)
        throw ConfigError(which + " is missing");
    if (catalog->empty())
        throw ConfigError(which + " " + job::describeCatalog(*catalog) + " is empty");
}

void validate(const CorrelationParams& params) {
    if (!params.data)
        throw ConfigError("no data catalog given");
    if (params.jackknife.enabled())
        (void)params.jackknife.crossWeight(); // a weighting the method does not take: now
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

} // namespace

CorrelationJob::CorrelationJob(CorrelationParams params, BackendRegistry backends)
    : m_params(std::move(params)), m_backends(std::move(backends)) {}

namespace {

// The params with every catalog cut to the mask, and the note that says what each kept.
CorrelationParams maskedParams(const CorrelationParams& params, std::string& note) {
    CorrelationParams masked = params;
    if (!params.mask)
        return masked;
    std::vector<MaskedCount> counts;
    const auto cut = [&](std::shared_ptr<const Catalog>& catalog, const std::string& label) {
        if (!catalog)
            return;
        MaskedCatalog kept = cutToMask(*catalog, *params.mask, params.maskThreshold,
                                       params.backend.cpuThreads);
        counts.push_back({label, kept.kept, catalog->size()});
        catalog = std::make_shared<const Catalog>(std::move(kept.catalog));
    };
    const bool cross = masked.data2 != nullptr;
    cut(masked.data, cross ? "D1" : "data");
    const auto sets = [&](std::vector<std::shared_ptr<const Catalog>>& catalogs,
                          const std::string& name) {
        for (std::size_t i = 0; i < catalogs.size(); ++i)
            cut(catalogs[i], catalogs.size() == 1 ? name : name + " " + std::to_string(i + 1));
    };
    sets(masked.randoms, cross ? "R1" : "randoms");
    cut(masked.data2, "D2");
    sets(masked.randoms2, "R2");
    note = maskingNote(*params.mask, params.maskThreshold, counts);
    return masked;
}

} // namespace

CorrelationResult CorrelationJob::run(const ProgressCallback& onProgress,
                                      const std::atomic<bool>* cancelRequested) {
    job::StageClock clock;
    validate(m_params);
    std::string maskNote;
    const CorrelationParams params = maskedParams(m_params, maskNote);
    if (params.mask)
        clock.end("mask");
    const Binning binning(params.bins);
    const JackknifeSettings& jackknife = params.jackknife;
    if (params.meanSeparation && !params.share.whole())
        throw ConfigError("the mean separation per bin (--mean-theta) needs the whole batch: the "
                          "sums of one share alone mean nothing, and count files do not carry "
                          "them");
    if (jackknife.regions < 0)
        throw ConfigError("jackknife: the region count " + std::to_string(jackknife.regions) +
                          " is negative");
    // A combination that cannot fit is refused before the regions are grown or a pair is
    // counted, not after an hour and an out-of-memory kill. A column's K is known once its
    // labels are read (prepareInputs checks it then).
    if (jackknife.regions >= kMinJackknifeRegions && jackknife.regions <= kMaxJackknifeRegions)
        job::checkJobMemory(params, binning, jackknife.regions);
    BackendSelection backend = job::chooseJobBackend(params, m_backends, binning);
    clock.end("backend");
    job::JobInputs inputs = job::prepareInputs(params, binning, clock);
    const job::ReusePlan plan =
        job::planReuse(params.reuse.get(), params.reusePolicy, inputs.originals, inputs.keys,
                       binning, inputs.regionCount, inputs.originals.weighted());
    CorrelationResult header = job::describeJob(params, binning, backend, inputs, plan);
    if (!maskNote.empty())
        header.notes.insert(header.notes.begin(), maskNote);

    // Counts taken from the reused store stay out of the batch and are merged back in task order.
    const std::vector<CountTask> tasks = job::countTasks(inputs.counted);
    job::cullLikeWholeBatch(*backend.counter, tasks, plan, binning);
    CountControl control = job::countControl(params, cancelRequested);
    std::optional<job::LiveProgress> live;
    if (onProgress) {
        live.emplace(header, tasks, plan, inputs.counted, params.estimator, *backend.counter,
                     std::max(0.0, params.liveEstimateInterval), clock.start(), onProgress);
        control.onProgress = [&live](const CountProgress& progress) { (*live)(progress); };
    }

    CorrelationResult result = header;
    job::JobTally tally;
    try {
        tally = job::countJob(*backend.counter, tasks, plan, binning, inputs.regionCount, control);
    } catch (const Cancelled&) {
        result.status = JobStatus::Cancelled;
        result.elapsedSeconds = clock.elapsedSeconds();
        return result;
    }
    // Counts all taken from the store: culled as they were counted.
    const bool counted = !plan.counted.empty();
    result.culled = counted ? backend.counter->lastBatchCulled()
                            : (params.reuse && params.reuse->culled);
    if (counted)
        for (const std::string& note : backend.counter->lastBatchNotes())
            result.notes.push_back(note);
    clock.end("count");
    if (params.meanSeparation) {
        try {
            job::measureSeparations(result, *backend.counter, tasks, inputs.counted, binning,
                                    control, onProgress);
        } catch (const Cancelled&) {
            result.status = JobStatus::Cancelled;
            result.elapsedSeconds = clock.elapsedSeconds();
            return result;
        }
        clock.end("mean separation");
    }
    if (params.collectCounts)
        result.counts = job::storeOf(params, binning, inputs, result, tally);
    job::estimateInto(result, params, inputs, std::move(tally));
    clock.end("estimate");
    result.stageSeconds = clock.take();
    result.elapsedSeconds = clock.elapsedSeconds();
    return result;
}

} // namespace tpacf
