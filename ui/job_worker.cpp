// SPDX-License-Identifier: GPL-3.0-or-later
#include "job_worker.h"

#include <tpacf/errors.h>

#include <QElapsedTimer>

namespace tpacf::ui {

namespace {
// Backends report about every 100 ms per chunk; more than ~20 updates a second only floods the
// GUI's event queue (plots redraw at 4 Hz anyway).
constexpr qint64 kMinProgressIntervalMs = 50;
} // namespace

JobWorker::JobWorker(BackendRegistry backends, QObject* parent)
    : QObject(parent), m_backends(std::move(backends)) {
    qRegisterMetaType<JobProgressUpdate>();
    qRegisterMetaType<ResultPtr>();
}

bool JobWorker::start(CorrelationParams params) {
    if (!m_state.claim())
        return false;
    QMetaObject::invokeMethod(
        this, [this, params = std::move(params)] { execute(params); }, Qt::QueuedConnection);
    return true;
}

void JobWorker::requestCancel() noexcept {
    m_state.requestCancel();
}

void JobWorker::execute(const CorrelationParams& params) {
    // The worker is released before each final signal so that a slot reacting to it can start the
    // next run at once.
    auto finish = [this] { m_state.release(); };
    if (m_state.cancelRequested()) {
        finish();
        Q_EMIT cancelled();
        return;
    }
    try {
        CorrelationJob job(params, m_backends);
        QElapsedTimer sinceLastUpdate;
        sinceLastUpdate.start();
        bool first = true;
        const auto onProgress = [&](const JobProgress& jobProgress) {
            // Live estimates always pass (the job makes at most four a second).
            if (!first && jobProgress.fraction < 1.0 && !jobProgress.partial &&
                sinceLastUpdate.elapsed() < kMinProgressIntervalMs)
                return;
            first = false;
            sinceLastUpdate.restart();
            JobProgressUpdate update;
            update.fraction = jobProgress.fraction;
            update.pairsDone = jobProgress.pairsDone;
            update.pairsTotal = jobProgress.pairsTotal;
            update.pairsPerSecond = jobProgress.pairsPerSecond;
            update.elapsedSeconds = jobProgress.elapsedSeconds;
            update.etaSeconds = jobProgress.etaSeconds;
            update.preparing = jobProgress.preparing;
            update.partial = jobProgress.partial;
            update.partialCoverage = jobProgress.partialCoverage;
            update.meanSeparation = jobProgress.meanSeparation;
            Q_EMIT progress(update);
        };
        auto result =
            std::make_shared<const CorrelationResult>(job.run(onProgress, m_state.cancelFlag()));
        finish();
        if (result->status == JobStatus::Cancelled)
            Q_EMIT cancelled();
        else
            Q_EMIT finished(result);
    } catch (const Cancelled&) {
        finish();
        Q_EMIT cancelled();
    } catch (const std::exception& error) {
        finish();
        Q_EMIT failed(QString::fromStdString(error.what()));
    } catch (...) {
        finish();
        Q_EMIT failed(tr("The run stopped with an unknown error."));
    }
}

} // namespace tpacf::ui
