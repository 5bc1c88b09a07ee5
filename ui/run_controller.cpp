// SPDX-License-Identifier: GPL-3.0-or-later
#include "run_controller.h"

#include "catalog_set.h"

#include <tpacf/version.h>

#include <QJsonArray>
#include <QJsonDocument>

namespace tpacf::ui {

RunController::RunController(BackendRegistry backends, CatalogSet* catalogs, QObject* parent)
    : QObject(parent), m_catalogs(catalogs) {
    // The worker lives on its own thread for the controller's lifetime; signals cross queued.
    m_worker = new JobWorker(std::move(backends));
    m_worker->moveToThread(&m_workerThread);
    connect(&m_workerThread, &QThread::finished, m_worker, &QObject::deleteLater);
    connect(m_worker, &JobWorker::progress, this, &RunController::onProgress, Qt::QueuedConnection);
    connect(m_worker, &JobWorker::finished, this, &RunController::onFinished, Qt::QueuedConnection);
    connect(m_worker, &JobWorker::failed, this, &RunController::onFailed, Qt::QueuedConnection);
    connect(m_worker, &JobWorker::cancelled, this, &RunController::onCancelled,
            Qt::QueuedConnection);
    m_workerThread.setObjectName(QStringLiteral("tpacf-job"));
    m_workerThread.start();

    if (m_catalogs) {
        connect(m_catalogs, &CatalogSet::regionLabelsRead, this,
                &RunController::onRegionLabelsRead);
        connect(m_catalogs, &CatalogSet::regionLabelsFailed, this,
                &RunController::onRegionLabelsFailed);
    }

    m_refreshTimer.setInterval(kDefaultRefreshMs);
    connect(&m_refreshTimer, &QTimer::timeout, this, &RunController::deliverPartial);
}

RunController::~RunController() {
    // Stop a running job promptly, then let the thread finish its event loop.
    m_worker->requestCancel();
    m_workerThread.quit();
    m_workerThread.wait();
}

CorrelationParams RunController::catalogParams(const CatalogSet& catalogs) {
    CorrelationParams params;
    params.data = catalogs.dataCatalog();
    params.randoms = catalogs.randomCatalogs();
    params.data2 = catalogs.data2Catalog();
    params.randoms2 = catalogs.random2Catalogs();
    return params;
}

QString RunController::secondSampleProblem(bool hasData2, int randomCount, int random2Count) {
    if (!hasData2 && random2Count > 0)
        return tr("Run disabled: the second sample has random catalogs but no data catalog. Open "
                  "its data catalog or remove the second sample.");
    if (hasData2 && random2Count != 0 && random2Count != randomCount)
        return tr("Run disabled: the second sample has %1 random catalogs and the first %2; "
                  "they are paired by position. Give the second sample as many random "
                  "catalogs as the first, or none (it then uses the first's).")
            .arg(random2Count)
            .arg(randomCount);
    return {};
}

std::string RunController::provenanceLine(const CorrelationParams& params,
                                          const RunInputs& inputs) {
    const auto name = [](const std::shared_ptr<const Catalog>& catalog) {
        return catalog ? QString::fromStdString(catalog->name()) : QString();
    };
    const auto names = [&](const std::vector<std::shared_ptr<const Catalog>>& catalogs) {
        QJsonArray array;
        for (const std::shared_ptr<const Catalog>& catalog : catalogs)
            array.append(name(catalog));
        return array;
    };
    QJsonObject object = inputs.settings;
    QJsonObject catalogs;
    catalogs[QStringLiteral("data")] = name(params.data);
    catalogs[QStringLiteral("randoms")] = names(params.randoms);
    if (params.data2)
        catalogs[QStringLiteral("data2")] = name(params.data2);
    if (!params.randoms2.empty())
        catalogs[QStringLiteral("randoms2")] = names(params.randoms2);
    object[QStringLiteral("catalogs")] = catalogs;
    if (!object.contains(QStringLiteral("bins")))
        object[QStringLiteral("bins")] = QString::fromStdString(params.bins.describe());
    if (!object.contains(QStringLiteral("estimator")))
        object[QStringLiteral("estimator")] =
            QString::fromLatin1(estimatorKey(params.estimator).data(),
                                qsizetype(estimatorKey(params.estimator).size()));
    if (!object.contains(QStringLiteral("backend")))
        object[QStringLiteral("backend")] = QString::fromStdString(params.backend.name);
    const QByteArray json = QJsonDocument(object).toJson(QJsonDocument::Compact);
    return "TPACF Studio " + std::string(tpacf::version()) + " session " + json.toStdString();
}

void RunController::prepare(CorrelationParams& params, const RunInputs& inputs) const {
    params.collectCounts = true;
    // The job takes what matches (same random content, bins and regions) and counts the rest.
    // A run of the very inputs the cache came from is a re-run the user asked for: it counts.
    if (!params.reuse && m_countCache && params.share.whole() && inputs != m_countCacheInputs) {
        params.reuse = m_countCache;
        params.reusePolicy = CorrelationParams::ReusePolicy::WhereMatching;
    }
    if (params.invocation.empty())
        params.invocation = provenanceLine(params, inputs);
}

bool RunController::start(CorrelationParams params, RunInputs inputs, const QString& regionColumn) {
    if (isRunning())
        return false;
    prepare(params, inputs);
    const bool offeredCache = m_countCache && params.reuse == m_countCache;
    if (!regionColumn.isEmpty()) {
        if (!m_catalogs)
            return false;
        // Region labels are read with the catalogs: read them again, with the column, on the
        // loader's thread. The job follows once the files are read.
        m_pendingRun = std::move(params);
        m_regionColumn = regionColumn;
        m_regionReadId = m_catalogs->readRegionLabels(regionColumn);
        m_state = State::ReadingRegions;
    } else {
        const std::shared_ptr<const Catalog> jobData = params.data;
        if (!m_worker->start(std::move(params)))
            return false;
        m_jobData = jobData;
        m_state = State::Running;
    }
    m_runInputs = std::move(inputs);
    m_runOfferedCache = offeredCache;
    m_latestPartial.reset();
    m_partialDirty = false;
    m_refreshTimer.start();
    updateStale();
    if (m_state == State::Running)
        Q_EMIT jobStarted();
    return true;
}

void RunController::startJob(CorrelationParams params) {
    const std::shared_ptr<const Catalog> jobData = params.data;
    if (!m_worker->start(std::move(params))) {
        onFailed(tr("A run is already in progress."));
        return;
    }
    m_jobData = jobData;
    m_state = State::Running;
    Q_EMIT jobStarted();
}

void RunController::cancel() {
    if (m_state == State::ReadingRegions) { // nothing to wait for
        m_catalogs->cancelRead(m_regionReadId);
        m_regionReadId = 0;
        m_pendingRun = {};
        onCancelled();
        return;
    }
    if (m_state != State::Running)
        return;
    m_worker->requestCancel();
    m_state = State::Cancelling;
}

void RunController::onRegionLabelsRead(quint64 id, const CatalogList& catalogs) {
    if (id != m_regionReadId || m_state != State::ReadingRegions)
        return;
    m_regionReadId = 0;
    if (catalogs.isEmpty())
        return;
    CorrelationParams params = std::move(m_pendingRun);
    m_pendingRun = {};
    // The catalogs come back in the order the set read them: data, randoms, data2, randoms2.
    const std::size_t randoms = params.randoms.size();
    const std::size_t second = (params.data2 ? 1 : 0) + params.randoms2.size();
    if (std::size_t(catalogs.size()) != 1 + randoms + second) {
        onFailed(tr("The catalogs changed while their region labels were read; press Run again."));
        return;
    }
    auto next = catalogs.cbegin();
    params.data = *next++;
    params.randoms.assign(next, next + qsizetype(randoms));
    next += qsizetype(randoms);
    if (params.data2)
        params.data2 = *next++;
    params.randoms2.assign(next, catalogs.cend());
    startJob(std::move(params));
}

void RunController::onRegionLabelsFailed(quint64 id, const QString& message) {
    if (id != m_regionReadId || m_state != State::ReadingRegions)
        return;
    m_regionReadId = 0;
    m_pendingRun = {};
    onFailed(tr("Cannot read the region column '%1'. %2").arg(m_regionColumn, message));
}

void RunController::onProgress(const JobProgressUpdate& update) {
    if (!isRunning())
        return; // a late report of a run that already ended
    if (update.partial) {
        // Only remembered here; the refresh timer hands it on.
        m_latestPartial = update.partial;
        m_partialDirty = true;
    }
    Q_EMIT progress(update);
}

void RunController::deliverPartial() {
    if (!m_partialDirty || !m_latestPartial)
        return;
    m_partialDirty = false;
    Q_EMIT partialResult(m_latestPartial);
}

void RunController::stop(Outcome outcome) {
    m_state = State::Idle;
    m_outcome = outcome;
    m_refreshTimer.stop();
    m_latestPartial.reset();
    m_partialDirty = false;
    updateStale();
}

void RunController::onFinished(const ResultPtr& result) {
    // Its counts (reused ones included) serve the next run, cited as the previous run's.
    if (result && result->status == JobStatus::Completed && result->counts &&
        result->counts->whole()) {
        auto cache = std::make_shared<CountStore>(*result->counts);
        cache->source = kCountCacheSource;
        m_countCache = std::move(cache);
        m_countCacheInputs = m_runInputs;
    }
    m_result = result;
    m_resultInputs = m_runInputs;
    m_resultOfferedCache = m_runOfferedCache;
    stop(Outcome::Finished);
    Q_EMIT finished(result);
    m_jobData.reset();
}

void RunController::onFailed(const QString& message) {
    m_jobData.reset();
    stop(Outcome::Failed);
    Q_EMIT failed(message);
}

void RunController::onCancelled() {
    m_jobData.reset();
    stop(Outcome::Cancelled);
    Q_EMIT cancelled();
}

void RunController::setCurrentInputs(const RunInputs& inputs) {
    m_currentInputs = inputs;
    updateStale();
}

bool RunController::sameCatalog(const std::shared_ptr<const Catalog>& a,
                                const std::shared_ptr<const Catalog>& b) const {
    if (a == b)
        return true;
    if (!a || !b || a->size() != b->size())
        return false;
    // The same file read again (a session reopened, a catalog reloaded) is a new object with the
    // same content: compare fingerprints, each computed once per catalog.
    const auto fingerprintOf = [this](const std::shared_ptr<const Catalog>& catalog) {
        for (const auto& [known, fingerprint] : m_fingerprints)
            if (known.lock() == catalog)
                return fingerprint;
        std::erase_if(m_fingerprints, [](const auto& entry) { return entry.first.expired(); });
        m_fingerprints.emplace_back(catalog, contentFingerprint(*catalog));
        return m_fingerprints.back().second;
    };
    return fingerprintOf(a) == fingerprintOf(b);
}

bool RunController::sameInputs(const RunInputs& a, const RunInputs& b) const {
    const auto sameList = [this](const std::vector<std::shared_ptr<const Catalog>>& x,
                                 const std::vector<std::shared_ptr<const Catalog>>& y) {
        if (x.size() != y.size())
            return false;
        for (std::size_t i = 0; i < x.size(); ++i)
            if (!sameCatalog(x[i], y[i]))
                return false;
        return true;
    };
    return a.settings == b.settings && sameCatalog(a.data, b.data) &&
           sameCatalog(a.data2, b.data2) && sameList(a.randoms, b.randoms) &&
           sameList(a.randoms2, b.randoms2);
}

void RunController::adoptResult(ResultPtr result, const RunInputs& inputs) {
    if (isRunning())
        return;
    m_result = std::move(result);
    m_resultInputs = inputs;
    m_resultOfferedCache = false;
    updateStale();
}

void RunController::updateStale() {
    // A result whose inputs changed stays, marked rather than cleared: it may be an hour of GPU
    // time and the user often compares it with the next run. Changing the inputs back unmarks it.
    const bool stale = m_result && !isRunning() && !sameInputs(m_currentInputs, m_resultInputs);
    if (stale == m_stale)
        return;
    m_stale = stale;
    Q_EMIT staleChanged(stale);
}

} // namespace tpacf::ui
