// SPDX-License-Identifier: GPL-3.0-or-later
#include "plot_export.h"

#include "tpacf/errors.h"
#include "tpacf/output_file.h"

#include <qcustomplot.h>

#include <QDialogButtonBox>
#include <QFile>
#include <QFormLayout>
#include <QImage>
#include <QImageWriter>
#include <QLabel>
#include <QSpinBox>

#include <cmath>
#include <functional>

namespace tpacf::ui {

namespace {

// Screen pixels per inch that QCustomPlot's fonts and pens are designed for.
constexpr double kScreenDpi = 96.0;

/// Lets `write` fill a temporary file beside `path` (Qt's writers take a file name) and renames
/// it over `path` only when it succeeded: a failed export never leaves a truncated figure, nor
/// costs the previous one.
bool writeStaged(const QString& path,
                 const std::function<bool(const QString& temporary, QString* problem)>& write,
                 QString* error) {
    const auto failed = [&](const QString& problem) {
        *error = QCoreApplication::translate("tpacf::ui::PlotExport", "Cannot write %1: %2")
                     .arg(path, problem);
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

} // namespace

QSize plotLayoutSize(const PlotExportSettings& settings) {
    const double factor = kScreenDpi / qMax(1, settings.dpi);
    return {qMax(1, int(std::lround(settings.widthPx * factor))),
            qMax(1, int(std::lround(settings.heightPx * factor)))};
}

bool savePlotPng(QCustomPlot* plot, const QString& path, const PlotExportSettings& settings,
                 QString* error) {
    if (settings.widthPx <= 0 || settings.heightPx <= 0 || settings.dpi <= 0) {
        *error = QCoreApplication::translate("tpacf::ui::PlotExport", "Invalid image size.");
        return false;
    }
    // QCustomPlot::savePng rounds (width × scale); drawing into an image of the exact size with
    // a painter scale gives precisely the pixels asked for.
    const QSize logical = plotLayoutSize(settings);
    QImage image(settings.widthPx, settings.heightPx, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    {
        QCPPainter painter(&image);
        painter.setMode(QCPPainter::pmNonCosmetic);
        painter.scale(double(settings.widthPx) / logical.width(),
                      double(settings.heightPx) / logical.height());
        plot->toPainter(&painter, logical.width(), logical.height());
    }
    plot->replot(); // restore the on-screen layout toPainter() changed
    // The DPI tag goes on after drawing: fonts in points would otherwise be laid out for the
    // image's DPI and then scaled again by the painter.
    const int dotsPerMeter = int(std::lround(settings.dpi / 0.0254));
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

bool savePlotPdf(QCustomPlot* plot, const QString& path, const PlotExportSettings& settings,
                 const QString& title, QString* error) {
    const QSize logical = plotLayoutSize(settings);
    const bool ok = writeStaged(
        path,
        [&](const QString& temporary, QString* problem) {
            if (plot->savePdf(temporary, logical.width(), logical.height(), QCP::epNoCosmetic,
                              QStringLiteral("TPACF Studio"), title))
                return true;
            *problem = QCoreApplication::translate("tpacf::ui::PlotExport",
                                                   "the PDF could not be written");
            return false;
        },
        error);
    plot->replot();
    return ok;
}

PlotExportDialog::PlotExportDialog(const PlotExportSettings& initial, QWidget* parent)
    : QDialog(parent) {
    setWindowTitle(tr("Export Plot"));
    m_width = new QSpinBox(this);
    m_height = new QSpinBox(this);
    m_dpi = new QSpinBox(this);
    for (QSpinBox* spin : {m_width, m_height}) {
        spin->setRange(100, 20000);
        spin->setSuffix(tr(" px"));
    }
    m_dpi->setRange(50, 2400);
    m_dpi->setSuffix(tr(" dpi"));
    m_width->setValue(initial.widthPx);
    m_height->setValue(initial.heightPx);
    m_dpi->setValue(initial.dpi);

    auto* inches = new QLabel(this);
    auto updateInches = [this, inches] {
        inches->setText(tr("%1 × %2 inches")
                            .arg(double(m_width->value()) / m_dpi->value(), 0, 'f', 2)
                            .arg(double(m_height->value()) / m_dpi->value(), 0, 'f', 2));
    };
    for (QSpinBox* spin : {m_width, m_height, m_dpi})
        connect(spin, &QSpinBox::valueChanged, this, updateInches);
    updateInches();

    auto* form = new QFormLayout(this);
    form->addRow(tr("Width:"), m_width);
    form->addRow(tr("Height:"), m_height);
    form->addRow(tr("Resolution:"), m_dpi);
    form->addRow(tr("Figure size:"), inches);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    form->addRow(buttons);
}

PlotExportSettings PlotExportDialog::settings() const {
    return {m_width->value(), m_height->value(), m_dpi->value()};
}

} // namespace tpacf::ui
