// SPDX-License-Identifier: GPL-3.0-or-later
#include "run_panel.h"
#include "themed_icon.h"

#include <tpacf/correlation_job.h>

#include <QApplication>
#include <QHBoxLayout>
#include <QIcon>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QResizeEvent>
#include <QStyle>
#include <QVBoxLayout>

#include <cmath>

namespace tpacf::ui {

QString RunPanel::formatDuration(double seconds) {
    if (!std::isfinite(seconds) || seconds < 0)
        return QStringLiteral("–");
    const auto total = qint64(std::llround(seconds));
    if (total >= 3600)
        return QStringLiteral("%1:%2:%3")
            .arg(total / 3600)
            .arg((total / 60) % 60, 2, 10, QLatin1Char('0'))
            .arg(total % 60, 2, 10, QLatin1Char('0'));
    return QStringLiteral("%1:%2").arg(total / 60).arg(total % 60, 2, 10, QLatin1Char('0'));
}

QString RunPanel::formatRate(double pairsPerSecond) {
    const char* prefixes[] = {"", "k", "M", "G", "T"};
    int p = 0;
    while (pairsPerSecond >= 1000.0 && p < 4) {
        pairsPerSecond /= 1000.0;
        ++p;
    }
    return QStringLiteral("%1 %2pairs/s")
        .arg(pairsPerSecond, 0, 'f', pairsPerSecond < 10 ? 2 : 1)
        .arg(QLatin1String(prefixes[p]));
}

RunPanel::RunPanel(QWidget* parent) : QWidget(parent) {
    m_runButton = new QPushButton(
        themedIcon(QStringLiteral("media-playback-start"), QStyle::SP_MediaPlay), tr("Run"), this);
    m_runButton->setDefault(true);
    m_runButton->setMinimumHeight(32);
    QFont runFont = m_runButton->font();
    runFont.setBold(true);
    m_runButton->setFont(runFont);
    connect(m_runButton, &QPushButton::clicked, this, &RunPanel::runRequested);
    m_cancelButton = new QPushButton(
        themedIcon(QStringLiteral("process-stop"), QStyle::SP_MediaStop), tr("Cancel"), this);
    m_cancelButton->setMinimumHeight(32);
    connect(m_cancelButton, &QPushButton::clicked, this, &RunPanel::cancelRequested);
    m_progressBar = new QProgressBar(this);
    m_progressBar->setRange(0, kProgressSteps);
    m_progressBar->setValue(0);
    m_progressBar->setFormat(QStringLiteral("%p%"));
    m_rateLabel = new QLabel(this);
    m_rateLabel->setObjectName(QStringLiteral("runStatus"));
    m_rateLabel->setWordWrap(true); // "Preparing the catalogs (…)" is longer than the dock
    m_rateLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_rateLabel->hide(); // until there is something to say
    m_reasonLabel = new QLabel(this);
    m_reasonLabel->setWordWrap(true);
    m_reasonLabel->setObjectName(QStringLiteral("runBlockedReason"));
    m_reasonLabel->setStyleSheet(QStringLiteral("QLabel { color: #b00020; }"));
    m_staleLabel =
        new QLabel(tr("The result shown is from previous inputs: press Run to update it."), this);
    m_staleLabel->setObjectName(QStringLiteral("staleResult"));
    m_staleLabel->setWordWrap(true);
    m_staleLabel->setStyleSheet(QStringLiteral("QLabel { color: #8a5a00; }"));
    m_staleLabel->hide();
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_runButton, 2);
    buttons->addWidget(m_cancelButton, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->addLayout(buttons);
    layout->addWidget(m_progressBar);
    layout->addWidget(m_rateLabel);
    layout->addWidget(m_reasonLabel);
    layout->addWidget(m_staleLabel);
    layout->addStretch();
    // Every message wraps; the panel's minimum height follows what they need at its width
    // (fitToContents), so the dock, or the scroll area around it, never clips a line.
    fitToContents();
}

int RunPanel::contentHeightForWidth(int width) const {
    const QLayout* panelLayout = layout();
    return panelLayout->hasHeightForWidth() ? panelLayout->totalHeightForWidth(width)
                                            : panelLayout->totalSizeHint().height();
}

void RunPanel::fitToContents() {
    // A QWidget's minimum ignores height-for-width, so a wrapped label would be squeezed to
    // one line under a fixed minimum: set it from the layout at the current width.
    const int needed = contentHeightForWidth(width() > 0 ? width() : sizeHint().width());
    if (needed > 0 && needed != minimumHeight())
        setMinimumHeight(needed);
}

bool RunPanel::event(QEvent* event) {
    const bool handled = QWidget::event(event);
    // A label's new text, or a label shown or hidden, asks for a new layout: the height the
    // panel needs may have changed.
    if (event->type() == QEvent::LayoutRequest)
        fitToContents();
    return handled;
}

void RunPanel::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    if (event->oldSize().width() != event->size().width())
        fitToContents();
}

void RunPanel::setStatusText(const QString& text) {
    m_rateLabel->setText(text);
    m_rateLabel->setVisible(!text.isEmpty()); // an empty line would push the reason down
}

void RunPanel::setRunState(const QString& blockedReason, bool running, bool loading) {
    const bool runnable = blockedReason.isEmpty();
    m_runButton->setEnabled(runnable);
    m_runButton->setToolTip(runnable ? tr("Compute w(θ) (Ctrl+R)") : blockedReason);
    m_cancelButton->setEnabled(running);
    m_reasonLabel->setText(running ? QString() : blockedReason);
    // Red for what the user must fix; a neutral grey while catalogs are read (nothing is wrong).
    const QString reasonStyle = loading && !running ? QStringLiteral("QLabel { color: #555555; }")
                                                    : QStringLiteral("QLabel { color: #b00020; }");
    if (m_reasonLabel->styleSheet() != reasonStyle) // a new style sheet re-polishes the label
        m_reasonLabel->setStyleSheet(reasonStyle);
    m_reasonLabel->setVisible(!running && !blockedReason.isEmpty());
    fitToContents();
}

void RunPanel::setStale(bool stale) {
    m_staleLabel->setVisible(stale);
    fitToContents();
}

void RunPanel::showStarting(const QString& text) {
    m_progressBar->setValue(0);
    setStatusText(text);
}

void RunPanel::showProgress(const JobProgressUpdate& update) {
    m_progressBar->setValue(int(std::lround(qBound(0.0, update.fraction, 1.0) * kProgressSteps)));
    if (update.preparing) {
        setStatusText(tr("Preparing the catalogs (sorting into sky cells, listing the "
                         "cell pairs) · elapsed %1")
                          .arg(formatDuration(update.elapsedSeconds)));
        return;
    }
    // After the counts, the pass of Mean separation per bin: its own progress, said so.
    QString text = update.meanSeparation ? tr("Mean separation per bin: ") : QString();
    text += formatRate(update.pairsPerSecond);
    text +=
        tr(" · ETA %1")
            .arg(update.etaSeconds >= 0 ? formatDuration(update.etaSeconds) : QStringLiteral("–"));
    text += tr(" · elapsed %1").arg(formatDuration(update.elapsedSeconds));
    setStatusText(text);
}

void RunPanel::showCancelling() {
    setStatusText(tr("Cancelling…"));
    m_cancelButton->setEnabled(false);
}

void RunPanel::showFinished(const CorrelationResult& result) {
    m_progressBar->setValue(kProgressSteps);
    const QString culling = result.culled ? tr("culling on") : tr("culling off");
    setStatusText(tr("Done in %1 s on %2 · %3")
                      .arg(result.elapsedSeconds, 0, 'f', 2)
                      .arg(QString::fromStdString(result.deviceDescription), culling));
}

void RunPanel::showFailed() {
    m_progressBar->setValue(0);
    setStatusText(tr("Failed"));
}

void RunPanel::showCancelled() {
    m_progressBar->setValue(0);
    setStatusText(tr("Cancelled"));
}

} // namespace tpacf::ui
