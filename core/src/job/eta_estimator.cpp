// SPDX-License-Identifier: GPL-3.0-or-later
#include "tpacf/eta_estimator.h"

#include <algorithm>
#include <cmath>

namespace tpacf {

void EtaEstimator::observe(double seconds, double fraction, bool preparing) noexcept {
    if (!std::isfinite(seconds) || !std::isfinite(fraction))
        return;
    m_seconds = seconds;
    m_fraction = std::clamp(fraction, 0.0, 1.0);
    if (preparing) {
        m_lastPreparing = seconds;
        m_countStart = -1;
        return;
    }
    // Counting began after the last report of preparation (or when the job did, without any).
    if (m_countStart < 0)
        m_countStart = m_lastPreparing;
}

double EtaEstimator::remainingSeconds() const noexcept {
    if (m_fraction >= 1.0)
        return 0.0;
    const double counting = m_seconds - m_countStart;
    if (m_countStart < 0 || m_fraction < kMinFraction || counting < kMinSeconds)
        return -1.0;
    return counting * (1.0 - m_fraction) / m_fraction;
}

} // namespace tpacf
