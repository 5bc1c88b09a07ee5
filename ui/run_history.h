// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The runs of a session: every completed run with when it ended, a one-line summary of its
// settings and its result, kept in the session file (result_json.h) so that a reopened session
// shows its last result without counting again. The History dock lists them; a run can be shown
// again or added to Compare runs as an overlay.
#include "job_worker.h"

#include <QDateTime>
#include <QJsonArray>
#include <QList>
#include <QObject>
#include <QWidget>

class QListWidget;
class QPushButton;

namespace tpacf::ui {

struct RunRecord {
    QDateTime finished;
    QString summary; // "galaxies.txt × 2 randoms, 15 log bins 0.1′–100′, Landy-Szalay, jackknife 16"
    ResultPtr result;
};

/// The summary line of a result's settings.
QString runSummary(const CorrelationResult& result);

/// The history as the session holds it; records whose result cannot be read are left out and
/// counted in `dropped`.
QJsonArray historyToJson(const QList<RunRecord>& records);
QList<RunRecord> historyFromJson(const QJsonArray& array, int* dropped = nullptr);

class RunHistory : public QObject {
    Q_OBJECT
public:
    /// Older runs beyond this many are dropped (each keeps its counts and covariance).
    static constexpr int kMaxRecords = 20;
    explicit RunHistory(QObject* parent = nullptr);

    const QList<RunRecord>& records() const { return m_records; }
    void append(const ResultPtr& result, const QDateTime& finished = QDateTime::currentDateTime());
    void setRecords(QList<RunRecord> records);

Q_SIGNALS:
    void changed();

private:
    QList<RunRecord> m_records;
};

class RunHistoryPanel : public QWidget {
    Q_OBJECT
public:
    explicit RunHistoryPanel(RunHistory* history, QWidget* parent = nullptr);
    QListWidget* list() const { return m_list; }

Q_SIGNALS:
    /// Show the run's result as the current one (plots and table).
    void showRequested(int index);
    /// Add the run to Compare runs.
    void overlayRequested(int index);

private:
    void refresh();
    RunHistory* m_history;
    QListWidget* m_list = nullptr;
    QPushButton* m_show = nullptr;
    QPushButton* m_overlay = nullptr;
};

} // namespace tpacf::ui
