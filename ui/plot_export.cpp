#include "plot_export.h"

#include <qcustomplot.h>

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QImage>
#include <QImageWriter>
#include <QLabel>
#include <QSpinBox>

#include <cmath>

namespace tpacf::ui {

namespace {

// Screen pixels per inch that QCustomPlot's fonts and pens are designed for.
constexpr double kScreenDpi = 96.0;

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
    QImageWriter writer(path, "png");
    if (!writer.write(image)) {
        *error = QCoreApplication::translate("tpacf::ui::PlotExport", "Cannot write %1: %2")
                     .arg(path, writer.errorString());
        return false;
    }
    return true;
}

bool savePlotPdf(QCustomPlot* plot, const QString& path, const PlotExportSettings& settings,
                 const QString& title, QString* error) {
    const QSize logical = plotLayoutSize(settings);
    const bool ok = plot->savePdf(path, logical.width(), logical.height(), QCP::epNoCosmetic,
                                  QStringLiteral("TPACF Studio"), title);
    plot->replot();
    if (!ok)
        *error = QCoreApplication::translate("tpacf::ui::PlotExport", "Cannot write %1").arg(path);
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
