// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The app's w(θ) figure without the app: draws a result with the Plots panel's own code and
// writes it as PNG or PDF. For `tpacf run --plot`; needs a QApplication (offscreen will do).
#include "job_worker.h"
#include "plot_export.h"

#include <QString>

namespace tpacf::ui {

/// Writes the w(θ) plot of `result` to `path`, PNG or PDF by its suffix, exactly as the app's
/// Plots panel draws it (jackknife error bars where the result has them; log axes for log bins)
/// and exports it at `settings`. Returns false with `error` set when it cannot.
bool exportCorrelationPlot(const ResultPtr& result, const QString& path,
                           const PlotExportSettings& settings, QString* error);

} // namespace tpacf::ui
