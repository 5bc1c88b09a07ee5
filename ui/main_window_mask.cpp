// SPDX-License-Identifier: GPL-3.0-or-later
// File ▸ Set Mask… and Clear Mask: a HEALPix map or MOC read on a worker thread, drawn by the
// sky preview, handed to every run (the job cuts the catalogs to it, as tpacf run --mask) and
// kept in sessions.
#include "main_window.h"

#include "sky_plot.h"

#include <tpacf/sky_mask.h>

#include <QDir>
#include <QFileDialog>
#include <QFutureWatcher>
#include <QPromise>
#include <QThreadPool>

namespace tpacf::ui {

void MainWindow::setMaskDialog() {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Set Mask"), m_lastDirectory,
        tr("HEALPix maps and MOCs (*.fits *.fit *.fts *.fits.gz);;All files (*)"));
    if (!path.isEmpty())
        setMaskFile(path);
}

void MainWindow::setMaskFile(const QString& path, double threshold) {
    const quint64 generation = ++m_maskGeneration;
    struct Outcome {
        std::shared_ptr<const SkyMask> mask;
        QString error;
    };
    auto promise = std::make_shared<QPromise<Outcome>>();
    QFuture<Outcome> future = promise->future();
    promise->start();
    QThreadPool::globalInstance()->start([promise, path] {
        Outcome outcome;
        try {
            outcome.mask = std::make_shared<const SkyMask>(readSkyMask(path.toStdString()));
        } catch (const std::exception& error) {
            outcome.error = QString::fromStdString(error.what());
        }
        promise->addResult(outcome);
        promise->finish();
    });
    auto* watcher = new QFutureWatcher<Outcome>(this);
    connect(watcher, &QFutureWatcher<Outcome>::finished, this,
            [this, watcher, generation, path, threshold] {
                watcher->deleteLater();
                if (generation != m_maskGeneration) // replaced or cleared meanwhile
                    return;
                const Outcome outcome = watcher->future().result();
                if (!outcome.error.isEmpty()) {
                    reportMessage(MessageSeverity::Error,
                                  tr("The mask was not set: %1").arg(outcome.error));
                    Q_EMIT maskChanged();
                    return;
                }
                m_mask = outcome.mask;
                m_maskPath = path;
                m_maskThreshold = threshold;
                m_skyPlot->setMask(m_mask);
                m_clearMaskAction->setEnabled(true);
                logLine(MessageSeverity::Info,
                        tr("Mask: %1, %2 % of the sky. Every run cuts its catalogs to it.")
                            .arg(QString::fromStdString(m_mask->description()))
                            .arg(100.0 * m_mask->skyFraction(), 0, 'g', 4));
                updateRunState(); // a result counted without this mask is now stale
                Q_EMIT maskChanged();
            });
    watcher->setFuture(future);
}

void MainWindow::clearMask() {
    ++m_maskGeneration;
    const bool had = m_mask != nullptr;
    m_mask.reset();
    m_maskPath.clear();
    m_maskThreshold = 0.0;
    m_skyPlot->setMask(nullptr);
    m_clearMaskAction->setEnabled(false);
    if (had)
        logLine(MessageSeverity::Info, tr("Mask cleared: runs count the catalogs whole."));
    updateRunState();
    Q_EMIT maskChanged();
}

} // namespace tpacf::ui
