// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Runs the Kernel Lab (tpacf::lab::runLab) on the thread it lives on (the lab window moves it to
// its own QThread), so that a slow rung never freezes the window; queued signals carry values.
#include "worker_state.h"
#include "kernel_lab_demos.h"

#include <tpacf/bins.h>
#include <tpacf/catalog.h>
#include <tpacf/lab.h>

#include <QMetaType>
#include <QObject>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace tpacf::ui {

using LabReportPtr = std::shared_ptr<const lab::LabReport>;
/// Variants are shared between the window (which lists them) and the worker (which runs them):
/// the window only reads their descriptions, the worker alone calls count().
using SharedLabVariant = std::shared_ptr<lab::LabVariant>;

/// What one lab run counts: loaded catalogs (cut to their first `maxPoints` points where larger)
/// or, without `first`, a uniform full-sky catalog of `maxPoints` points generated on the worker.
struct LabRunRequest {
    std::shared_ptr<const Catalog> first;
    std::shared_ptr<const Catalog> second; // null: the auto count of `first`
    std::size_t maxPoints = 5000;
    std::uint64_t seed = 1;
    BinSpec bins;
    int repeats = 3;
    std::vector<SharedLabVariant> variants; // run in this order
};

/// The catalogs a request counts, as the worker builds them (exposed for the window's summary
/// and for tests): `catalog` cut to its first `maxPoints` points, or itself when not larger.
std::shared_ptr<const Catalog> firstPoints(const std::shared_ptr<const Catalog>& catalog,
                                           std::size_t maxPoints);

class KernelLabWorker : public QObject {
    Q_OBJECT
public:
    explicit KernelLabWorker(QObject* parent = nullptr);

    /// Thread-safe. Queues a run; false (nothing queued) while one is queued or running.
    bool start(LabRunRequest request);
    /// Thread-safe. Queues a precision demonstration, under the same rule as start() (a lab run
    /// and a demonstration never overlap); it ends with demoFinished(), cancelled() or failed().
    bool startDemo(LabDemoRequest request);
    /// Thread-safe. runLab and the variants poll the flag; the run ends with cancelled().
    void requestCancel() noexcept;
    bool isBusy() const noexcept { return m_state.busy(); }

Q_SIGNALS:
    /// `done` of `total` variants counted (0 once the reference is counted).
    void progress(int done, int total);
    void finished(const tpacf::ui::LabReportPtr& report);
    void demoFinished(const tpacf::ui::LabDemoResultPtr& result);
    void failed(const QString& message);
    void cancelled();

private:
    void execute(const LabRunRequest& request);
    void executeDemo(const LabDemoRequest& request);
    /// Runs `work` (which returns the signal to send on success) with the cancel, error and
    /// busy-flag handling both kinds of run share.
    void runGuarded(const std::function<std::function<void()>()>& work,
                    const QString& unknownError);

    WorkerState m_state;
};

} // namespace tpacf::ui

Q_DECLARE_METATYPE(tpacf::ui::LabReportPtr)
