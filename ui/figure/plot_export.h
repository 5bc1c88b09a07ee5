// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Plot export at publication size: PNG (exact pixels, tagged with the DPI), PDF (the page
// exactly the figure's size in inches) and SVG (where Qt Svg is built in), laid out at the
// printed size so that fonts and markers keep their physical sizes. A FigureStyle gives size,
// fonts, title and legend placement; the plot as drawn (CorrelationFigure, or Studio's hidden
// copy of a panel) gives axes, markers and the fit. Part of tpacf_figure: any QCustomPlot.
#include "figure_style.h"

#include <QImage>
#include <QSize>
#include <QString>

#include <optional>

class QCustomPlot;

namespace tpacf::ui {

/// The size of a plain export in pixels and DPI (the Kernel Lab's figures; the window's
/// exportPlot() overload that takes it uses the panel's export style at this size).
struct PlotExportSettings {
    int widthPx = 1800; // a 6 × 4 inch figure at 300 dpi
    int heightPx = 1200;
    int dpi = 300;
};

/// The size, in layout pixels (96 per inch), the figure is laid out at before it is scaled to
/// the paper: (widthPx/dpi) × (heightPx/dpi) inches.
QSize plotLayoutSize(const PlotExportSettings& settings);
QSize figureLayoutSize(const FigureStyle& style);
/// The style's size taken from `settings` (width and height in inches = pixels / dpi).
FigureStyle withExportSize(FigureStyle style, const PlotExportSettings& settings);

enum class FigureFormat { Png, Pdf, Svg };
/// The format a file name asks for by its suffix (any case); nullopt for any other suffix.
std::optional<FigureFormat> figureFormatFor(const QString& path);
/// Whether this build writes SVG (Qt Svg found at build time).
bool svgSupported();
/// "PNG image (*.png);;PDF vector (*.pdf)[;;SVG vector (*.svg)]" for file dialogs.
QString figureFileFilter();

/// Writes `plot` as it is at the style's size: PNG of exactly widthPx() × heightPx() pixels
/// tagged with style.dpi, PDF with a page of widthIn × heightIn inches (to the PDF's whole
/// point), SVG of that size. `title` goes into the PDF's and SVG's metadata.
bool writeFigure(QCustomPlot* plot, const QString& path, const FigureStyle& style,
                 const QString& title, QString* error);
/// The figure as a PNG of that style would hold it, scaled to `pixels` (the dialog's preview).
QImage renderFigure(QCustomPlot* plot, const FigureStyle& style, QSize pixels);

/// Lays `plot` out for paper: the style's fonts, the title line kept or taken out, and the
/// legend placed (auto: the corner where it hides no point, error bar or curve, else below the
/// axes; outside: below; off: none). Meant for a hidden copy: it changes the plot's layout.
void styleFigure(QCustomPlot* plot, const FigureStyle& style);
/// How much of the data the rectangle `area` (layout pixels) would hide: 3 per marker or curve
/// sample inside, 1 per error bar crossing it. 0: it hides nothing.
int dataUnder(QCustomPlot* plot, const QRectF& area);
/// Puts the legend in a corner of the axes where it hides no point, error bar or curve (the one
/// it is in first, then top right, top left, bottom left, bottom right); false, the legend back
/// in its first corner, where every corner hides some.
bool placeLegendInClearCorner(QCustomPlot* plot);

/// Writes exactly widthPx × heightPx pixels, tagged with `dpi`, of `plot` as it is.
bool savePlotPng(QCustomPlot* plot, const QString& path, const PlotExportSettings& settings,
                 QString* error);
/// Vector PDF of the same figure: a page of (widthPx/dpi) × (heightPx/dpi) inches.
bool savePlotPdf(QCustomPlot* plot, const QString& path, const PlotExportSettings& settings,
                 const QString& title, QString* error);

} // namespace tpacf::ui
