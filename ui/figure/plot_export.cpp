// SPDX-License-Identifier: GPL-3.0-or-later
#include "plot_export.h"

#include "tpacf/errors.h"
#include "tpacf/output_file.h"

#include <qcustomplot.h>

#include <QApplication>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QImageWriter>
#include <QPageLayout>
#include <QPageSize>
#include <QPdfWriter>

#if TPACF_UI_HAVE_SVG
#include <QSvgGenerator>
#endif

#include <cmath>
#include <functional>
#include <limits>

namespace tpacf::ui {

namespace {

// Layout pixels per inch: what QCustomPlot's pens, markers and margins are designed for, and the
// resolution fonts in points are resolved at while the figure is laid out and drawn.
constexpr double kLayoutDpi = 96.0;

QString tr(const char* text) {
    return QCoreApplication::translate("tpacf::ui::PlotExport", text);
}

/// Lets `write` fill a temporary file beside `path` (Qt's writers take a file name) and renames
/// it over `path` only when it succeeded: a failed export never leaves a truncated figure, nor
/// costs the previous one.
bool writeStaged(const QString& path,
                 const std::function<bool(const QString& temporary, QString* problem)>& write,
                 QString* error) {
    const auto failed = [&](const QString& problem) {
        *error = tr("Cannot write %1: %2").arg(path, problem);
        return false;
    };
    try {
        StagedOutputFile staged(QFile::encodeName(path).toStdString());
        QString problem;
        if (!write(QFile::decodeName(staged.temporaryPath().c_str()), &problem))
            return failed(problem);
        staged.commit();
        return true;
    } catch (const InputError& failure) {
        return failed(QString::fromStdString(failure.problem()));
    }
}

/// Draws `plot`, laid out at `layout` pixels, onto `painter` scaled to fill `device` pixels.
void drawScaled(QCustomPlot* plot, QCPPainter& painter, QSize layout, QSizeF device) {
    // Non-cosmetic: pens scale with the figure, so a 1 px line is 1/96 in on any device.
    painter.setMode(QCPPainter::pmNonCosmetic);
    painter.scale(device.width() / layout.width(), device.height() / layout.height());
    plot->toPainter(&painter, layout.width(), layout.height());
}

QImage renderImage(QCustomPlot* plot, QSize layout, QSize pixels) {
    QImage image(pixels, QImage::Format_ARGB32_Premultiplied);
    // Fonts in points are resolved at the layout's 96 dpi, then scaled with everything else;
    // the PNG's own DPI tag goes on after drawing.
    const int layoutDotsPerMeter = int(std::lround(kLayoutDpi / 0.0254));
    image.setDotsPerMeterX(layoutDotsPerMeter);
    image.setDotsPerMeterY(layoutDotsPerMeter);
    image.fill(Qt::white);
    {
        QCPPainter painter(&image);
        drawScaled(plot, painter, layout, QSizeF(pixels));
    }
    return image;
}

bool writePng(QCustomPlot* plot, const QString& path, QSize layout, QSize pixels, int dpi,
              QString* error) {
    QImage image = renderImage(plot, layout, pixels);
    const int dotsPerMeter = int(std::lround(dpi / 0.0254));
    image.setDotsPerMeterX(dotsPerMeter);
    image.setDotsPerMeterY(dotsPerMeter);
    return writeStaged(
        path,
        [&image](const QString& temporary, QString* problem) {
            QImageWriter writer(temporary, "png");
            if (writer.write(image))
                return true;
            *problem = writer.errorString();
            return false;
        },
        error);
}

bool writePdf(QCustomPlot* plot, const QString& path, QSize layout, QSizeF inches,
              const QString& title, QString* error) {
    return writeStaged(
        path,
        [&](const QString& temporary, QString* problem) {
            // QCustomPlot::savePdf sizes the page in points from the layout's pixels (6 in at 96
            // px/in became an 8 in page): the page is set here in inches, drawn at 96 dpi.
            QPdfWriter writer(temporary);
            writer.setCreator(QStringLiteral("TPACF Studio"));
            writer.setTitle(title);
            writer.setResolution(int(kLayoutDpi));
            const QPageSize size(inches, QPageSize::Inch, QString(), QPageSize::ExactMatch);
            if (!writer.setPageLayout(QPageLayout(size, QPageLayout::Portrait,
                                                  QMarginsF(0, 0, 0, 0), QPageLayout::Inch))) {
                *problem = tr("the PDF page size could not be set");
                return false;
            }
            QCPPainter painter;
            if (!painter.begin(&writer)) {
                *problem = tr("the PDF could not be written");
                return false;
            }
            drawScaled(plot, painter, layout, QSizeF(writer.width(), writer.height()));
            return painter.end();
        },
        error);
}

bool writeSvg([[maybe_unused]] QCustomPlot* plot, const QString& path,
              [[maybe_unused]] QSize layout, [[maybe_unused]] const QString& title,
              QString* error) {
#if TPACF_UI_HAVE_SVG
    return writeStaged(
        path,
        [&](const QString& temporary, QString* problem) {
            QSvgGenerator generator;
            generator.setFileName(temporary);
            // At 96 dpi the SVG's width and height (in mm) are the figure's printed size.
            generator.setResolution(int(kLayoutDpi));
            generator.setSize(layout);
            generator.setViewBox(QRect(QPoint(0, 0), layout));
            generator.setTitle(title);
            generator.setDescription(QStringLiteral("TPACF Studio"));
            QCPPainter painter;
            if (!painter.begin(&generator)) {
                *problem = tr("the SVG could not be written");
                return false;
            }
            drawScaled(plot, painter, layout, QSizeF(layout));
            return painter.end();
        },
        error);
#else
    *error = tr("Cannot write %1: this build has no SVG support (Qt Svg); use .pdf for a vector "
                "figure")
                 .arg(path);
    return false;
#endif
}

QFont figureFont(const FigureStyle& style, double scale = 1.0) {
    QFont font = QApplication::font();
    if (!style.fontFamily.isEmpty())
        font.setFamily(style.fontFamily);
    font.setPointSizeF(style.fontPt * scale);
    return font;
}

/// The legend out of the axes, below them, its entries side by side as far as the width allows.
void moveLegendBelow(QCustomPlot* plot, QSize layout) {
    QCPLegend* legend = plot->legend;
    QCPLayoutGrid* grid = plot->plotLayout();
    const int row = grid->rowCount();
    grid->insertRow(row);
    grid->addElement(row, 0, legend); // takes it out of the axis rect's inset layout
    grid->setRowStretchFactor(row, 0.001);
    legend->setBorderPen(Qt::NoPen);
    legend->setBrush(Qt::NoBrush);
    for (int columns = legend->itemCount(); columns >= 1; --columns) {
        legend->setWrap(columns);
        // setWrap() alone leaves the items where they are: setting the order re-lays them out.
        legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
        if (legend->minimumOuterSizeHint().width() <= layout.width() - 8)
            break;
    }
}

/// A clear corner of the axes for the legend; below the axes when each would hide some of the
/// data.
void placeLegendAuto(QCustomPlot* plot, QSize layout) {
    if (!placeLegendInClearCorner(plot))
        moveLegendBelow(plot, layout);
}

} // namespace

bool placeLegendInClearCorner(QCustomPlot* plot) {
    QCPLayoutInset* insets = plot->axisRect()->insetLayout();
    const Qt::Alignment first = insets->insetAlignment(0);
    QList<Qt::Alignment> corners{first};
    for (const Qt::Alignment corner :
         {Qt::AlignTop | Qt::AlignRight, Qt::AlignTop | Qt::AlignLeft,
          Qt::AlignBottom | Qt::AlignLeft, Qt::AlignBottom | Qt::AlignRight})
        if (corner != first)
            corners.append(corner);
    for (const Qt::Alignment corner : std::as_const(corners)) {
        insets->setInsetAlignment(0, corner);
        plot->replot(); // lays the legend out in this corner
        // A marker's radius around the box: a point just outside it is still hidden in part.
        const double pad = 4;
        if (dataUnder(plot, QRectF(plot->legend->outerRect()).adjusted(-pad, -pad, pad, pad)) == 0)
            return true;
    }
    insets->setInsetAlignment(0, first);
    return false;
}

QSize plotLayoutSize(const PlotExportSettings& settings) {
    const double factor = kLayoutDpi / qMax(1, settings.dpi);
    return {qMax(1, int(std::lround(settings.widthPx * factor))),
            qMax(1, int(std::lround(settings.heightPx * factor)))};
}

QSize figureLayoutSize(const FigureStyle& style) {
    return {qMax(1, int(std::lround(style.widthIn * kLayoutDpi))),
            qMax(1, int(std::lround(style.heightIn * kLayoutDpi)))};
}

FigureStyle withExportSize(FigureStyle style, const PlotExportSettings& settings) {
    const int dpi = qMax(1, settings.dpi);
    style.dpi = dpi;
    style.widthIn = double(settings.widthPx) / dpi;
    style.heightIn = double(settings.heightPx) / dpi;
    return style;
}

std::optional<FigureFormat> figureFormatFor(const QString& path) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("png"))
        return FigureFormat::Png;
    if (suffix == QLatin1String("pdf"))
        return FigureFormat::Pdf;
    if (suffix == QLatin1String("svg"))
        return FigureFormat::Svg;
    return std::nullopt;
}

bool svgSupported() {
#if TPACF_UI_HAVE_SVG
    return true;
#else
    return false;
#endif
}

QString figureFileFilter() {
    QString filter = tr("PNG image (*.png);;PDF vector (*.pdf)");
    if (svgSupported())
        filter += tr(";;SVG vector (*.svg)");
    return filter;
}

int dataUnder(QCustomPlot* plot, const QRectF& area) {
    int hidden = 0;
    for (int i = 0; i < plot->plottableCount(); ++i) {
        QCPAbstractPlottable* plottable = plot->plottable(i);
        QCPPlottableInterface1D* points = plottable->interface1D();
        if (!plottable->visible() || !points)
            continue;
        const bool bars = qobject_cast<QCPErrorBars*>(plottable) != nullptr;
        QCPAxis* valueAxis = plottable->valueAxis();
        for (int k = 0; k < points->dataCount(); ++k) {
            const double key = points->dataMainKey(k);
            const double value = points->dataMainValue(k);
            if (!std::isfinite(key) || !std::isfinite(value))
                continue;
            const QPointF centre = plottable->coordsToPixels(key, value);
            if (!bars) {
                hidden += area.contains(centre) ? 3 : 0;
                continue;
            }
            QCPRange span = points->dataValueRange(k);
            if (valueAxis->scaleType() == QCPAxis::stLogarithmic && span.lower <= 0)
                span.lower = valueAxis->range().lower; // drawn down to the frame
            const double top = valueAxis->coordToPixel(span.upper);
            const double bottom = valueAxis->coordToPixel(span.lower);
            const bool inColumn = centre.x() >= area.left() && centre.x() <= area.right();
            if (inColumn && qMax(top, bottom) >= area.top() && qMin(top, bottom) <= area.bottom())
                ++hidden;
        }
    }
    return hidden;
}

void styleFigure(QCustomPlot* plot, const FigureStyle& style) {
    const QSize layout = figureLayoutSize(style);
    plot->setViewport(QRect(QPoint(0, 0), layout));
    const QFont font = figureFont(style);
    QList<QCPTextElement*> titles;
    for (QCPLayoutElement* element : plot->plotLayout()->elements(true)) {
        if (auto* rect = qobject_cast<QCPAxisRect*>(element)) {
            for (QCPAxis* axis : rect->axes()) {
                axis->setLabelFont(font);
                axis->setTickLabelFont(font);
            }
        } else if (auto* scale = qobject_cast<QCPColorScale*>(element)) {
            scale->axis()->setLabelFont(font);
            scale->axis()->setTickLabelFont(font);
        } else if (auto* text = qobject_cast<QCPTextElement*>(element)) {
            titles.append(text);
        }
    }
    QFont titleFont = figureFont(style, 1.1);
    titleFont.setBold(true);
    for (QCPTextElement* title : std::as_const(titles)) {
        if (style.title) {
            title->setFont(titleFont);
        } else if (plot->plotLayout()->take(title)) {
            delete title;
        }
    }
    plot->plotLayout()->simplify(); // the title's empty row goes
    QCPLegend* legend = plot->legend;
    const QFont legendFont = figureFont(style, 0.9);
    legend->setFont(legendFont);
    // Icons and spacing in proportion to the text: QCustomPlot's screen defaults (32 × 18 px
    // icons, 8 px margins) take a third of a single-column figure's height.
    const int textPx = qMax(4, QFontMetrics(legendFont).height());
    legend->setIconSize(textPx * 2, textPx);
    legend->setIconTextPadding(qMax(2, textPx / 2));
    legend->setRowSpacing(0);
    legend->setColumnSpacing(textPx);
    legend->setMargins(QMargins(textPx / 2, textPx / 4, textPx / 2, textPx / 4));
    for (int i = 0; i < legend->itemCount(); ++i)
        legend->item(i)->setMargins(QMargins(1, 1, 1, 1));
    if (!legend->visible())
        return;
    switch (style.legend) {
    case FigureStyle::Legend::Off:
        legend->setVisible(false);
        break;
    case FigureStyle::Legend::Outside:
        moveLegendBelow(plot, layout);
        break;
    case FigureStyle::Legend::Auto:
        placeLegendAuto(plot, layout);
        break;
    }
    plot->replot();
}

bool writeFigure(QCustomPlot* plot, const QString& path, const FigureStyle& style,
                 const QString& title, QString* error) {
    if (const QString problem = style.problem(); !problem.isEmpty()) {
        *error = tr("Cannot write %1: %2").arg(path, problem);
        return false;
    }
    const QSize layout = figureLayoutSize(style);
    const std::optional<FigureFormat> format = figureFormatFor(path);
    if (!format) {
        *error = tr("Cannot write %1: the name must end in %2")
                     .arg(path, svgSupported() ? tr(".png, .pdf or .svg") : tr(".png or .pdf"));
        return false;
    }
    switch (*format) {
    case FigureFormat::Png:
        break;
    case FigureFormat::Pdf:
        return writePdf(plot, path, layout, QSizeF(style.widthIn, style.heightIn), title, error);
    case FigureFormat::Svg:
        return writeSvg(plot, path, layout, title, error);
    }
    return writePng(plot, path, layout, QSize(style.widthPx(), style.heightPx()), style.dpi, error);
}

QImage renderFigure(QCustomPlot* plot, const FigureStyle& style, QSize pixels) {
    return renderImage(plot, figureLayoutSize(style), pixels);
}

bool savePlotPng(QCustomPlot* plot, const QString& path, const PlotExportSettings& settings,
                 QString* error) {
    if (settings.widthPx <= 0 || settings.heightPx <= 0 || settings.dpi <= 0) {
        *error = tr("Invalid image size.");
        return false;
    }
    const bool ok = writePng(plot, path, plotLayoutSize(settings),
                             QSize(settings.widthPx, settings.heightPx), settings.dpi, error);
    plot->replot(); // restore the on-screen layout toPainter() changed
    return ok;
}

bool savePlotPdf(QCustomPlot* plot, const QString& path, const PlotExportSettings& settings,
                 const QString& title, QString* error) {
    if (settings.widthPx <= 0 || settings.heightPx <= 0 || settings.dpi <= 0) {
        *error = tr("Invalid figure size.");
        return false;
    }
    const QSizeF inches(double(settings.widthPx) / settings.dpi,
                        double(settings.heightPx) / settings.dpi);
    const bool ok = writePdf(plot, path, plotLayoutSize(settings), inches, title, error);
    plot->replot();
    return ok;
}

} // namespace tpacf::ui
