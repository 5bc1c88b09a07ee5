// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The app's w(θ) figure without the app: draws a result with the Plots panel's own code and
// writes it as PNG, PDF or SVG. For `tpacf run --plot`; needs a QApplication (offscreen will do).
#include "figure_style.h"
#include "job_worker.h"
#include "plot_panel.h"

#include <QString>

#include <optional>

namespace tpacf::ui {

/// Writes the w(θ) plot of `result` to `path`, PNG, PDF or SVG by its suffix, exactly as the
/// app's Plots panel draws it (jackknife error bars where the result has them; log axes for log
/// bins; the fitted curve where `fit` is given) and exports it with `style`. Returns false with
/// `error` set when it cannot.
bool exportCorrelationPlot(const ResultPtr& result, const QString& path, const FigureStyle& style,
                           const std::optional<FitCurve>& fit, QString* error);

} // namespace tpacf::ui
