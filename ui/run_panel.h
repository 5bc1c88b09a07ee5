// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Run dock: Run and Cancel, progress with pairs/s, ETA and elapsed time, the outcome of the
// last run, why Run is disabled, and a line saying when the result shown is from previous inputs.
#include "job_worker.h"

#include <QWidget>

class QLabel;
class QProgressBar;
class QPushButton;

namespace tpacf::ui {

class RunPanel : public QWidget {
    Q_OBJECT
public:
    static constexpr int kProgressSteps = 1000;

    explicit RunPanel(QWidget* parent = nullptr);

    /// Run is enabled when `blockedReason` is empty (the reason is shown otherwise, in grey while
    /// `loading`: nothing is wrong then); Cancel while `running`.
    void setRunState(const QString& blockedReason, bool running, bool loading);
    void setStale(bool stale);

    void showStarting(const QString& text);
    void showProgress(const JobProgressUpdate& update);
    void showCancelling();
    void showFinished(const CorrelationResult& result);
    void showFailed();
    void showCancelled();

    QPushButton* runButton() const { return m_runButton; }
    QPushButton* cancelButton() const { return m_cancelButton; }
    QProgressBar* progressBar() const { return m_progressBar; }
    /// The status line under the progress bar (rate, ETA, outcome).
    QLabel* statusLabel() const { return m_rateLabel; }
    QLabel* reasonLabel() const { return m_reasonLabel; }
    QLabel* staleLabel() const { return m_staleLabel; }

    /// "1.50 Mpairs/s".
    static QString formatRate(double pairsPerSecond);
    /// "m:ss", or "h:mm:ss" from an hour on; "–" when unknown.
    static QString formatDuration(double seconds);

    /// The height the panel needs at `width` with the messages it shows now (wrapped); its
    /// minimum height follows it, so that no message is clipped.
    int contentHeightForWidth(int width) const;

Q_SIGNALS:
    void runRequested();
    void cancelRequested();

protected:
    bool event(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void fitToContents();
    void setStatusText(const QString& text);

    QPushButton* m_runButton = nullptr;
    QPushButton* m_cancelButton = nullptr;
    QProgressBar* m_progressBar = nullptr;
    QLabel* m_rateLabel = nullptr;
    QLabel* m_reasonLabel = nullptr;
    QLabel* m_staleLabel = nullptr;
};

} // namespace tpacf::ui
