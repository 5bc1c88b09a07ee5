// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Runs one tpacf::CorrelationJob at a time on the thread it lives on (the owner moves it to a
// QThread) and reports back through queued signals carrying value types.
#include "worker_state.h"

#include <tpacf/backend.h>
#include <tpacf/correlation_job.h>

#include <QMetaType>
#include <QObject>
#include <QString>

#include <atomic>
#include <memory>

namespace tpacf::ui {

using ResultPtr = std::shared_ptr<const CorrelationResult>;

/// One progress report of a running job, as the GUI shows it.
struct JobProgressUpdate {
    double fraction = 0; // 0..1
    quint64 pairsDone = 0;
    quint64 pairsTotal = 0;
    double pairsPerSecond = 0;
    double elapsedSeconds = 0;
    double etaSeconds = -1; // < 0: not known yet
    bool preparing = false; // the backend prepares the catalogs; nothing counted yet
    ResultPtr partial;      // estimate from the counts so far; null when none yet
    double partialCoverage = 0; // share of each count's pairs behind `partial` (the least)
    bool meanSeparation = false; // the counts are done; the mean separations are being summed
};

class JobWorker : public QObject {
    Q_OBJECT
  public:
    /// Runs choose their backend from `backends`.
    explicit JobWorker(BackendRegistry backends, QObject* parent = nullptr);

    /// Thread-safe. Queues a run on the worker's thread; false (and nothing queued) while a run
    /// is queued or running, so two runs never overlap.
    bool start(CorrelationParams params);
    /// Thread-safe. The job polls the flag between chunks (~100 ms), so it stops almost at once.
    void requestCancel() noexcept;
    /// Thread-safe. True from a successful start() until just before the final signal.
    bool isBusy() const noexcept { return m_state.busy(); }

  Q_SIGNALS:
    void progress(const tpacf::ui::JobProgressUpdate& update);
    void finished(const tpacf::ui::ResultPtr& result);
    void failed(const QString& message);
    void cancelled();

  private:
    void execute(const CorrelationParams& params);

    const BackendRegistry m_backends;
    WorkerState m_state;
};

} // namespace tpacf::ui

Q_DECLARE_METATYPE(tpacf::ui::JobProgressUpdate)
Q_DECLARE_METATYPE(tpacf::ui::ResultPtr)
