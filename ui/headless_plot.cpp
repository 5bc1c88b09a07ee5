// SPDX-License-Identifier: GPL-3.0-or-later
#include "headless_plot.h"

#include "plot_export.h"

#include <QCoreApplication>

namespace tpacf::ui {

bool exportCorrelationPlot(const ResultPtr& result, const QString& path, const FigureStyle& style,
                           const std::optional<FitCurve>& fit, QString* error) {
    if (!result) {
        *error = QCoreApplication::translate("tpacf::ui::PlotExport", "Cannot write %1: no result")
                     .arg(path);
        return false;
    }
    // The panel itself, never shown: the figure is the app's by construction, not a copy of it.
    PlotPanel panel;
    panel.setResult(result, false);
    panel.setFitCurve(fit);
    return exportFigure(panel, PlotPanel::Plot::Correlation, style, path, error);
}

} // namespace tpacf::ui
