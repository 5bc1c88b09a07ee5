// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Streams photon frames (a file or the simulator) through a multi-tau correlator on the thread it
// lives on (the FCS window moves it to its own QThread), sending the counts after each chunk so
// that the window can redraw G(tau) while the stream is still coming: a running experiment.
#include "worker_state.h"

#include <tpacf/fcs_simulation.h>
#include <tpacf/multitau.h>

#include <QMetaType>
#include <QObject>
#include <QString>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>

namespace tpacf::ui {

using FcsCountsPtr = std::shared_ptr<const fcs::MultiTauCounts>;

struct FcsRunRequest {
    enum class Source { Simulate, RawFile, AsciiFile };
    Source source = Source::Simulate;
    fcs::FcsSimulationParams simulation;   // Simulate
    std::uint64_t frames = 1u << 18;        // Simulate
    QString path;                           // RawFile, AsciiFile
    std::size_t rawChannels = 1024;         // RawFile
    fcs::MultiTauSettings settings;
    std::size_t chunkFrames = 1u << 14;
    /// Called on the worker thread once the channel count is known; null: the CPU reference.
    std::function<std::unique_ptr<fcs::MultiTauCorrelator>(const fcs::MultiTauSettings&,
                                                           std::size_t channels)>
        makeCorrelator;
};

class FcsWorker : public QObject {
    Q_OBJECT
public:
    explicit FcsWorker(QObject* parent = nullptr);

    /// Thread-safe. Queues a run; false (nothing queued) while one is queued or running.
    bool start(FcsRunRequest request);
    /// Thread-safe. The stream stops between chunks (or inside a read); ends with cancelled().
    void requestCancel() noexcept;
    bool isBusy() const noexcept { return m_state.busy(); }

Q_SIGNALS:
    /// The counts so far; `fraction` of the stream done (-1 where unknown, e.g. ASCII).
    void progress(const tpacf::ui::FcsCountsPtr& counts, double fraction);
    void finished(const tpacf::ui::FcsCountsPtr& counts, const QString& backend,
                  const QString& device, double seconds);
    void cancelled(const tpacf::ui::FcsCountsPtr& counts);
    void failed(const QString& message);

private:
    void execute(const FcsRunRequest& request);

    WorkerState m_state;
};

} // namespace tpacf::ui

Q_DECLARE_METATYPE(tpacf::ui::FcsCountsPtr)
