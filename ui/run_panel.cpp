#include "run_panel.h"

#include <tpacf/correlation_job.h>

#include <QApplication>
#include <QHBoxLayout>
#include <QIcon>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QStyle>
#include <QVBoxLayout>

#include <cmath>

namespace tpacf::ui {

namespace {

// Theme icons where the desktop has them (Linux), the style's built-in ones elsewhere.
QIcon themedIcon(const QString& name, QStyle::StandardPixmap fallback) {
    return QIcon::fromTheme(name, qApp->style()->standardIcon(fallback));
}

} // namespace

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
    m_rateLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
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
    // Room for a two-line reason under the rate line, so the dock splitter never clips it.
    setMinimumHeight(m_runButton->minimumHeight() + m_progressBar->sizeHint().height() +
                     3 * fontMetrics().lineSpacing() + 4 * layout->spacing() + 12);
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
}

void RunPanel::setStale(bool stale) {
    m_staleLabel->setVisible(stale);
}

void RunPanel::showStarting(const QString& text) {
    m_progressBar->setValue(0);
    m_rateLabel->setText(text);
}

void RunPanel::showProgress(const JobProgressUpdate& update) {
    m_progressBar->setValue(int(std::lround(qBound(0.0, update.fraction, 1.0) * kProgressSteps)));
    if (update.preparing) {
        m_rateLabel->setText(tr("Preparing the catalogs (sorting into sky cells, listing the "
                                "cell pairs) · elapsed %1")
                                 .arg(formatDuration(update.elapsedSeconds)));
        return;
    }
    QString text = formatRate(update.pairsPerSecond);
    text +=
        tr(" · ETA %1")
            .arg(update.etaSeconds >= 0 ? formatDuration(update.etaSeconds) : QStringLiteral("–"));
    text += tr(" · elapsed %1").arg(formatDuration(update.elapsedSeconds));
    m_rateLabel->setText(text);
}

void RunPanel::showCancelling() {
    m_rateLabel->setText(tr("Cancelling…"));
    m_cancelButton->setEnabled(false);
}

void RunPanel::showFinished(const CorrelationResult& result) {
    m_progressBar->setValue(kProgressSteps);
    const QString culling = result.culled ? tr("culling on") : tr("culling off");
    m_rateLabel->setText(tr("Done in %1 s on %2 · %3")
                             .arg(result.elapsedSeconds, 0, 'f', 2)
                             .arg(QString::fromStdString(result.deviceDescription), culling));
}

void RunPanel::showFailed() {
    m_progressBar->setValue(0);
    m_rateLabel->setText(tr("Failed"));
}

void RunPanel::showCancelled() {
    m_progressBar->setValue(0);
    m_rateLabel->setText(tr("Cancelled"));
}

} // namespace tpacf::ui
