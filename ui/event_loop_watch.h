// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// How responsive the window stayed: a timer that should fire every few milliseconds notes each
// time the event loop could not run it for longer (a stall: nothing was repainted, no click was
// answered), with what the window was doing then. The benchmark of big catalogs
// (scripts/bench-studio-big.sh) reads its report; tpacf-studio --stall-log FILE writes it.
#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QTimer>

#include <functional>
#include <vector>

namespace tpacf::ui {

class EventLoopWatch : public QObject {
    Q_OBJECT
public:
    /// One stall: when it ended (ms since the watch started), how long the loop was away, and
    /// what `describeState` said just after.
    struct Stall {
        qint64 endedMs = 0;
        qint64 lengthMs = 0;
        QString state;
    };

    /// Ticks every `tickMs`; a gap longer than `tickMs + thresholdMs` between ticks is a stall.
    EventLoopWatch(std::function<QString()> describeState, int tickMs = 5, int thresholdMs = 50,
                   QObject* parent = nullptr);

    const std::vector<Stall>& stalls() const { return m_stalls; }
    /// The longest time the loop was away (ms), stalls or not.
    qint64 longestGapMs() const { return m_longestGapMs; }
    /// A plain-text report: the longest gap, and each stall on a line.
    QString report() const;

private:
    void tick();

    std::function<QString()> m_describeState;
    int m_tickMs, m_thresholdMs;
    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_lastTickMs = 0;
    qint64 m_longestGapMs = 0;
    std::vector<Stall> m_stalls;
};

} // namespace tpacf::ui
