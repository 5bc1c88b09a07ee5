// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A one-line terminal progress bar (percent, pairs/s, ETA) for long counts. It draws only when
// told the stream is a terminal, so logs and pipes never fill with carriage returns.
#include "tpacf/eta_estimator.h"

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <string>

namespace tpacf::cli {

class ProgressBar {
  public:
    /// `enabled`: draw at all (stderr is a TTY and the user did not ask for quiet).
    ProgressBar(std::ostream& out, bool enabled, std::string label);
    ~ProgressBar();
    ProgressBar(const ProgressBar&) = delete;
    ProgressBar& operator=(const ProgressBar&) = delete;

    /// Redraws at most ~8 times a second, and not during the first half second, so short runs
    /// stay silent. `pairsPerSecond` <= 0: computed from the elapsed time. `preparing`: the
    /// backend has not started counting (the bar says so; the ETA waits for the counting).
    /// The ETA is the Studio's (EtaEstimator), from the rate since counting began.
    void update(double fraction, std::uint64_t pairsDone, double pairsPerSecond = 0,
                bool preparing = false);
    /// Erases the bar (idempotent).
    void finish();

    /// The bar as text, without the leading carriage return (tests, and the drawing itself).
    static std::string render(const std::string& label, double fraction, double pairsPerSecond,
                              double etaSeconds, int width);

  private:
    std::ostream& m_out;
    bool m_enabled;
    std::string m_label;
    std::chrono::steady_clock::time_point m_start, m_lastDraw;
    EtaEstimator m_eta;
    bool m_drawn = false;
    std::size_t m_lastLength = 0;
};

/// "1.23 G" style, for rates in a narrow column.
std::string formatRate(double perSecond);
/// "h:mm:ss" or "m:ss"; "--:--" when unknown.
std::string formatDuration(double seconds);

} // namespace tpacf::cli
