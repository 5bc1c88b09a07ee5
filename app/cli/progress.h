// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Progress of long counts (percent, pairs/s, ETA): a one-line bar redrawn on a terminal, or, where
// stderr is a log (a batch job), a timestamped line every few seconds. Logs and pipes never fill
// with carriage returns, and a long run in a batch job still says how it goes.
#include "tpacf/eta_estimator.h"

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <string>

namespace tpacf::cli {

/// How progress is shown: a redrawn bar (stderr is a terminal), a line every `lineInterval`
/// seconds (> 0; stderr is a log), or nothing.
struct ProgressDisplay {
    bool bar = false;
    double lineInterval = 0;
};
/// The display a command picks: nothing when quiet; the bar on a terminal; otherwise lines every
/// `interval` seconds (--progress-interval; 0: none).
ProgressDisplay progressDisplay(bool terminal, bool quiet, double interval);

/// The default of --progress-interval, in seconds.
inline constexpr double kDefaultProgressInterval = 10;

class ProgressBar {
  public:
    /// `enabled`: draw the bar at all (stderr is a TTY and the user did not ask for quiet).
    ProgressBar(std::ostream& out, bool enabled, std::string label);
    ProgressBar(std::ostream& out, ProgressDisplay display, std::string label);
    ~ProgressBar();
    ProgressBar(const ProgressBar&) = delete;
    ProgressBar& operator=(const ProgressBar&) = delete;

    /// Redraws at most ~8 times a second, and not during the first half second, so short runs
    /// stay silent. `pairsPerSecond` <= 0: computed from the elapsed time. `preparing`: the
    /// backend has not started counting (the bar says so; the ETA waits for the counting).
    /// The ETA is the Studio's (EtaEstimator), from the rate since counting began.
    void update(double fraction, std::uint64_t pairsDone, double pairsPerSecond = 0,
                bool preparing = false);
    /// The stage changes (the counts are done, the mean separations begin): later updates show
    /// `label`, and the ETA starts over from that stage's rate.
    void startStage(std::string label);
    /// Erases the bar (idempotent).
    void finish();
    /// The count is done: erases the bar; in line mode, where lines were written, a last one
    /// says so and how long it took.
    void done();

    /// The bar as text, without the leading carriage return (tests, and the drawing itself).
    static std::string render(const std::string& label, double fraction, double pairsPerSecond,
                              double etaSeconds, int width);
    /// One log line, without its time stamp: "counting 42.0 %, 1.23 T pairs/s, ETA 0:12".
    static std::string renderLine(const std::string& stage, double fraction,
                                  double pairsPerSecond, double etaSeconds);

  private:
    void writeLine(const std::string& text);

    std::ostream& m_out;
    bool m_enabled;
    std::string m_label;
    std::chrono::steady_clock::time_point m_start, m_lastDraw;
    double m_lineInterval = 0; // > 0: a log, one line every so many seconds (the bar is off)
    std::chrono::steady_clock::time_point m_lastLine;
    bool m_linesWritten = false;
    EtaEstimator m_eta;
    bool m_drawn = false;
    std::size_t m_lastLength = 0;
};

/// "1.23 G" style, for rates in a narrow column.
std::string formatRate(double perSecond);
/// "h:mm:ss" or "m:ss"; "--:--" when unknown.
std::string formatDuration(double seconds);

} // namespace tpacf::cli
