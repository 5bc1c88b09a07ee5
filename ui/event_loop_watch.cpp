// SPDX-License-Identifier: GPL-3.0-or-later
#include "event_loop_watch.h"

#include <QStringList>

namespace tpacf::ui {

EventLoopWatch::EventLoopWatch(std::function<QString()> describeState, int tickMs,
                               int thresholdMs, QObject* parent)
    : QObject(parent), m_describeState(std::move(describeState)), m_tickMs(tickMs),
      m_thresholdMs(thresholdMs) {
    m_timer.setTimerType(Qt::PreciseTimer);
    m_timer.setInterval(m_tickMs);
    connect(&m_timer, &QTimer::timeout, this, &EventLoopWatch::tick);
    m_clock.start();
    m_timer.start();
}

void EventLoopWatch::tick() {
    const qint64 now = m_clock.elapsed();
    // The gap beyond the tick itself: the time the loop spent elsewhere.
    const qint64 gap = now - m_lastTickMs - m_tickMs;
    m_lastTickMs = now;
    m_longestGapMs = std::max(m_longestGapMs, gap);
    if (gap > m_thresholdMs)
        m_stalls.push_back({now, gap, m_describeState ? m_describeState() : QString()});
}

QString EventLoopWatch::report() const {
    QStringList lines;
    lines << QStringLiteral("watched %1 ms, tick %2 ms: longest gap %3 ms, %4 stalls over %5 ms")
                 .arg(m_clock.elapsed())
                 .arg(m_tickMs)
                 .arg(m_longestGapMs)
                 .arg(m_stalls.size())
                 .arg(m_thresholdMs);
    for (const Stall& stall : m_stalls)
        lines << QStringLiteral("stall %1 ms ending at %2 ms: %3")
                     .arg(stall.lengthMs)
                     .arg(stall.endedMs)
                     .arg(stall.state);
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

} // namespace tpacf::ui
