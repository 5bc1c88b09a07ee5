// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The time left of a running count, from its progress: the rate since counting began (the
// preparation before it is no guide to the counting), applied to the work left. Pure: fed the
// clock by its caller, so it is tested with made-up and recorded traces.

namespace tpacf {

class EtaEstimator {
public:
    /// One progress report: `seconds` since the job started, `fraction` of the counting work
    /// done (0..1); `preparing`: the backend has not started counting yet.
    void observe(double seconds, double fraction, bool preparing = false) noexcept;

    /// Seconds left; negative while not known (preparing, or less than kMinFraction of the
    /// work or kMinSeconds of counting seen), 0 once done.
    double remainingSeconds() const noexcept;

    /// Below these the rate is mostly start-up noise.
    static constexpr double kMinFraction = 0.01;
    static constexpr double kMinSeconds = 0.5;

private:
    double m_lastPreparing = 0; // seconds at the last report of preparation
    double m_countStart = -1;   // when counting began; < 0 while preparing
    double m_seconds = 0;
    double m_fraction = 0;
};

} // namespace tpacf
