// SPDX-License-Identifier: GPL-3.0-or-later
#include "fcs_worker.h"

#include <tpacf/errors.h>
#include <tpacf/fcs_io.h>

#include <QElapsedTimer>

#include <algorithm>
#include <exception>
#include <vector>

namespace tpacf::ui {

FcsWorker::FcsWorker(QObject* parent) : QObject(parent) {
    qRegisterMetaType<FcsCountsPtr>();
}

bool FcsWorker::start(FcsRunRequest request) {
    if (!m_state.claim())
        return false;
    QMetaObject::invokeMethod(
        this, [this, request = std::move(request)] { execute(request); }, Qt::QueuedConnection);
    return true;
}

void FcsWorker::requestCancel() noexcept {
    m_state.requestCancel();
}

void FcsWorker::execute(const FcsRunRequest& request) {
    std::unique_ptr<fcs::MultiTauCorrelator> correlator;
    try {
        request.settings.validate();
        std::unique_ptr<fcs::FrameReader> reader;
        std::unique_ptr<fcs::FcsSimulator> simulator;
        std::size_t channels = 0;
        switch (request.source) {
        case FcsRunRequest::Source::Simulate:
            request.simulation.validate();
            simulator = std::make_unique<fcs::FcsSimulator>(request.simulation);
            channels = simulator->channels();
            break;
        case FcsRunRequest::Source::RawFile:
            reader = fcs::openRawFrames(request.path.toStdString(), request.rawChannels);
            channels = reader->channels();
            break;
        case FcsRunRequest::Source::AsciiFile:
            reader = fcs::openAsciiCounts(request.path.toStdString());
            channels = reader->channels();
            break;
        }
        correlator = request.makeCorrelator ? request.makeCorrelator(request.settings, channels)
                                            : fcs::makeCpuCorrelator(request.settings, channels);
        const std::size_t chunk = std::max<std::size_t>(1, request.chunkFrames);
        std::vector<std::uint8_t> frames;
        QElapsedTimer clock;
        clock.start();
        qint64 lastSent = -1000;
        for (;;) {
            if (m_state.cancelRequested())
                throw Cancelled();
            std::size_t got = 0;
            double fraction = -1;
            if (simulator) {
                const auto left = request.frames - simulator->framesGenerated();
                got = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, left));
                if (got)
                    simulator->generate(got, frames, m_state.cancelFlag());
                fraction = request.frames ? double(simulator->framesGenerated()) /
                                                double(request.frames)
                                          : 1.0;
            } else {
                got = reader->read(frames, chunk, m_state.cancelFlag());
                if (reader->fileBytes())
                    fraction = double(reader->bytesRead()) / double(reader->fileBytes());
            }
            if (got == 0)
                break;
            correlator->feed(std::span<const std::uint8_t>(frames.data(), got * channels));
            // Counts of 1024 channels are megabytes: a few redraws a second are live enough.
            if (clock.elapsed() - lastSent >= 100) {
                lastSent = clock.elapsed();
                Q_EMIT progress(std::make_shared<const fcs::MultiTauCounts>(correlator->counts()),
                                fraction);
            }
        }
        auto counts = std::make_shared<const fcs::MultiTauCounts>(correlator->counts());
        const double seconds = double(clock.nsecsElapsed()) * 1e-9;
        m_state.release();
        Q_EMIT finished(counts, QString::fromStdString(correlator->backendName()),
                        QString::fromStdString(correlator->deviceDescription()), seconds);
    } catch (const Cancelled&) {
        FcsCountsPtr counts;
        if (correlator)
            counts = std::make_shared<const fcs::MultiTauCounts>(correlator->counts());
        m_state.release();
        Q_EMIT cancelled(counts);
    } catch (const std::exception& error) {
        m_state.release();
        Q_EMIT failed(QString::fromStdString(error.what()));
    } catch (...) {
        m_state.release();
        Q_EMIT failed(tr("The correlation failed for an unknown reason."));
    }
}

} // namespace tpacf::ui
