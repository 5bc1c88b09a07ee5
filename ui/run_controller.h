// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Runs CorrelationJobs for the window: owns the JobWorker and its thread, knows whether a run is
// in progress, keeps the last result with the inputs it was computed from (so a result whose
// inputs have since changed is known to be stale), and hands partial results on at most once per
// refresh tick, so a fast stream of progress reports never becomes a stream of redraws. It also
// keeps the counts of the last completed run (keyed by catalog content fingerprints, bins and
// regions in the CountStore), which the next run reuses where they match: changing only the data
// or only the estimator does not recount RR.
#include "catalog_loader.h"
#include "job_worker.h"

#include <tpacf/backend.h>
#include <tpacf/correlation_job.h>
#include <tpacf/count_store.h>

#include <QJsonObject>
#include <QObject>
#include <QThread>
#include <QTimer>

#include <memory>
#include <vector>

namespace tpacf::ui {

class CatalogSet;

/// What a result was computed from: the catalogs (by identity) and the settings that change
/// w(θ), in a canonical form. The backend is not part of it (every backend counts the same).
struct RunInputs {
    std::shared_ptr<const Catalog> data;
    std::vector<std::shared_ptr<const Catalog>> randoms;
    std::shared_ptr<const Catalog> data2; // the second sample (cross mode); null: none
    std::vector<std::shared_ptr<const Catalog>> randoms2;
    QJsonObject settings;
    bool operator==(const RunInputs&) const = default;
};

class RunController : public QObject {
    Q_OBJECT
public:
    enum class State { Idle, ReadingRegions, Running, Cancelling };
    enum class Outcome { None, Finished, Failed, Cancelled };
    static constexpr int kDefaultRefreshMs = 250; // live plots at 4 Hz

    /// Runs choose their backend from `backends`. `catalogs` (may be null) reads region labels
    /// for runs whose jackknife regions come from a column.
    explicit RunController(BackendRegistry backends, CatalogSet* catalogs = nullptr,
                           QObject* parent = nullptr);
    ~RunController() override;

    /// The params of a run of `catalogs` (data, randoms and the second sample where loaded); the
    /// caller adds bins, estimator, backend and errors.
    static CorrelationParams catalogParams(const CatalogSet& catalogs);
    /// Why the second sample cannot run as loaded (empty when it can or there is none): randoms
    /// of the second sample without its data catalog, or neither none nor as many sets as the
    /// first sample has (they are paired by position).
    static QString secondSampleProblem(bool hasData2, int randomCount, int random2Count);

    /// Starts a run of `params`, computed from `inputs`. With a non-empty `regionColumn` the
    /// catalogs are first read again with their region labels (the run has started meanwhile:
    /// cancel() works): the `catalogs` given to the constructor, which must hold params' catalogs
    /// (data, randoms, data2, randoms2) in that order. False, with nothing started, while a run
    /// is in progress.
    /// Every run collects its counts (params.collectCounts) and, unless params.reuse is set,
    /// reuses the count cache where it matches (ReusePolicy::WhereMatching: the rest is counted,
    /// never an error; the result's reusedCounts and notes say which), except for a run of the
    /// very inputs the cache was counted from (an explicit re-run, e.g. on another backend,
    /// counts afresh); an empty
    /// params.invocation becomes provenanceLine(params, inputs).
    bool start(CorrelationParams params, RunInputs inputs, const QString& regionColumn = {});
    /// Asks the run to stop: at once while region labels are read (cancelled() before this
    /// returns), otherwise when the job next polls (state Cancelling until then).
    void cancel();

    State state() const { return m_state; }
    bool isRunning() const { return m_state != State::Idle; }
    /// How the last run ended.
    Outcome lastOutcome() const { return m_outcome; }
    /// The last completed result (null before the first) and what it was computed from.
    ResultPtr result() const { return m_result; }
    const RunInputs& resultInputs() const { return m_resultInputs; }
    /// The data catalog the job of the run in progress reads (with region labels where they
    /// were read for it); null when idle. Still set while finished() is emitted.
    std::shared_ptr<const Catalog> jobData() const { return m_jobData; }

    /// Takes `result`, computed from `inputs`, as the last completed result without running (a
    /// session reopened with its results): from then on it is stale when the inputs shown
    /// differ from those, like a result of this controller's own. Ignored while running.
    void adoptResult(ResultPtr result, const RunInputs& inputs);
    /// The inputs the window shows now: the result is stale when they differ from resultInputs().
    void setCurrentInputs(const RunInputs& inputs);
    bool isResultStale() const { return m_stale; }

    /// The source name of the cached counts, as the result's reusedCounts cite it
    /// ("RR_1 from the counts of the previous run").
    static constexpr const char* kCountCacheSource = "the counts of the previous run";
    /// The counts of the last completed run (null before the first, or once cleared): what the
    /// next run reuses where its catalogs, bins and regions match.
    std::shared_ptr<const CountStore> countCache() const { return m_countCache; }
    /// Forgets the cached counts: the next run counts everything. A run in progress keeps the
    /// counts it was given, and its own become the cache when it completes.
    void clearCountCache() {
        m_countCache.reset();
        m_countCacheInputs = {};
    }
    /// Whether the run of result() was offered the cached counts: with its reusedCounts empty,
    /// none of them matched (other bins, regions or catalogs), which is not the same as there
    /// having been none (the first run, a forgotten cache, an explicit re-run).
    bool resultWasOfferedCache() const { return m_resultOfferedCache; }
    /// The provenance of a Studio run: "TPACF Studio <version> session " and, in compact JSON,
    /// the catalogs (by name), `inputs.settings`, the bins and estimator where the settings lack
    /// them, and the backend.
    static std::string provenanceLine(const CorrelationParams& params, const RunInputs& inputs);

    void setRefreshInterval(int ms) { m_refreshTimer.setInterval(ms); }
    int refreshInterval() const { return m_refreshTimer.interval(); }
    JobWorker* worker() const { return m_worker; }

Q_SIGNALS:
    /// The job itself starts (after the region labels were read, where they were needed).
    void jobStarted();
    void progress(const tpacf::ui::JobProgressUpdate& update);
    /// The latest partial result, at most once per refresh tick and only when it is new.
    void partialResult(const tpacf::ui::ResultPtr& partial);
    /// The run has ended (isRunning() is false in each of these).
    void finished(const tpacf::ui::ResultPtr& result);
    void failed(const QString& message);
    void cancelled();
    void staleChanged(bool stale);

private:
    void startJob(CorrelationParams params);
    /// Sets collectCounts, the reuse of the count cache and the invocation.
    void prepare(CorrelationParams& params, const RunInputs& inputs) const;
    void onRegionLabelsRead(quint64 id, const CatalogList& catalogs);
    void onRegionLabelsFailed(quint64 id, const QString& message);
    void onProgress(const JobProgressUpdate& update);
    void onFinished(const ResultPtr& result);
    void onFailed(const QString& message);
    void onCancelled();
    void deliverPartial();
    void stop(Outcome outcome);
    void updateStale();

    QThread m_workerThread;
    JobWorker* m_worker = nullptr;
    CatalogSet* m_catalogs;
    State m_state = State::Idle;
    Outcome m_outcome = Outcome::None;
    quint64 m_regionReadId = 0;     // a run waiting for its region labels to be read
    QString m_regionColumn;         // their column
    CorrelationParams m_pendingRun; // that run
    std::shared_ptr<const Catalog> m_jobData;
    ResultPtr m_result;
    RunInputs m_resultInputs; // what m_result was computed from
    RunInputs m_runInputs;    // what the run in progress computes from
    RunInputs m_currentInputs;
    /// Content fingerprints of the catalogs compared so far (a catalog read again is the same
    /// input): kept while the catalog lives.
    mutable std::vector<std::pair<std::weak_ptr<const Catalog>, Fingerprint>> m_fingerprints;
    bool sameCatalog(const std::shared_ptr<const Catalog>& a,
                     const std::shared_ptr<const Catalog>& b) const;
    bool sameInputs(const RunInputs& a, const RunInputs& b) const;
    std::shared_ptr<const CountStore> m_countCache; // the last completed run's counts
    RunInputs m_countCacheInputs;                   // what they were counted from
    bool m_runOfferedCache = false;                 // the run in progress was given m_countCache
    bool m_resultOfferedCache = false;              // m_result's run was
    bool m_stale = false;
    ResultPtr m_latestPartial;
    bool m_partialDirty = false;
    QTimer m_refreshTimer;
};

} // namespace tpacf::ui
