// SPDX-License-Identifier: GPL-3.0-or-later
#include "kernel_lab_results.h"

#include <QCoreApplication>
#include <QSaveFile>
#include <QTableWidget>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace tpacf::ui {

namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("tpacf::ui::KernelLab", text);
}

QString fromStd(const std::string& text) {
    return QString::fromStdString(text);
}

// Bin centres as the main plots place them: geometric where the lower edge is > 0.
std::vector<double> binCentres(const std::vector<double>& edges) {
    std::vector<double> centres;
    for (std::size_t k = 0; k + 1 < edges.size(); ++k)
        centres.push_back(edges[k] > 0 ? std::sqrt(edges[k] * edges[k + 1])
                                       : 0.5 * (edges[k] + edges[k + 1]));
    return centres;
}

QString csvField(const QString& text) {
    if (!text.contains(u',') && !text.contains(u'"') && !text.contains(u'\n'))
        return text;
    QString quoted = text;
    quoted.replace(QStringLiteral("\""), QStringLiteral("\"\""));
    return u'"' + quoted + u'"';
}

} // namespace

QStringList labTableHeaders() {
    return {tr("Rung"),          tr("Variant"),     tr("Backend"),     tr("Time"),
            tr("Device time"),   tr("Pairs/s"),     tr("× previous"),  tr("× first"),
            tr("Bins vs reference"), tr("Max rel. error"), tr("Notes")};
}

QString formatLabSeconds(double seconds) {
    if (seconds < 0)
        return QStringLiteral("—");
    if (seconds < 1e-3)
        return tr("%1 µs").arg(seconds * 1e6, 0, 'g', 3);
    if (seconds < 1)
        return tr("%1 ms").arg(seconds * 1e3, 0, 'g', 3);
    return tr("%1 s").arg(seconds, 0, 'g', 3);
}

QString formatLabRate(double pairsPerSecond) {
    static const char* const prefixes[] = {"", " k", " M", " G", " T", " P"};
    int power = 0;
    double value = pairsPerSecond;
    while (std::abs(value) >= 999.5 && power < 5) {
        value /= 1000;
        ++power;
    }
    return QString::number(value, 'g', 3) + QLatin1String(prefixes[power]);
}

QString formatLabSpeedup(double factor) {
    if (factor <= 0)
        return QStringLiteral("—");
    return QStringLiteral("×") + QString::number(factor, 'g', 3);
}

QStringList labRowCells(const lab::LabRow& row) {
    QStringList cells(int(LabTableColumn::Count));
    cells[int(LabTableColumn::Rung)] = QString::number(row.rung);
    cells[int(LabTableColumn::Key)] = fromStd(row.key);
    cells[int(LabTableColumn::Backend)] = fromStd(row.backend);
    QStringList notes;
    for (const std::string& note : row.notes)
        notes.append(fromStd(note));
    if (!row.error.empty()) {
        // A row that could not run has nothing to measure: its reason is the whole story.
        cells[int(LabTableColumn::Notes)] = tr("did not run: %1").arg(fromStd(row.error));
        for (int column : {int(LabTableColumn::Time), int(LabTableColumn::DeviceTime),
                           int(LabTableColumn::PairsPerSecond), int(LabTableColumn::OverPrevious),
                           int(LabTableColumn::OverFirst), int(LabTableColumn::Bins),
                           int(LabTableColumn::MaxRelativeError)})
            cells[column] = QStringLiteral("—");
        return cells;
    }
    cells[int(LabTableColumn::Time)] = formatLabSeconds(row.seconds);
    cells[int(LabTableColumn::DeviceTime)] = formatLabSeconds(row.deviceSeconds);
    cells[int(LabTableColumn::PairsPerSecond)] = formatLabRate(row.pairsPerSecond);
    cells[int(LabTableColumn::OverPrevious)] = formatLabSpeedup(row.speedupOverPrevious);
    cells[int(LabTableColumn::OverFirst)] = formatLabSpeedup(row.speedupOverFirst);
    QString bins = row.wrongBins == 1 ? tr("1 wrong bin") : tr("%1 wrong bins").arg(row.wrongBins);
    if (row.wrongBins == 0 && !row.expectedExact)
        bins += tr(" (exact here, though not promised)");
    else if (row.wrongBins > 0)
        bins += row.expectedExact ? tr(" — UNEXPECTED: this variant should be exact")
                                  : tr(" (expected)");
    cells[int(LabTableColumn::Bins)] = bins;
    cells[int(LabTableColumn::MaxRelativeError)] =
        row.maxRelativeError == 0 ? QStringLiteral("0")
                                  : QString::number(row.maxRelativeError, 'g', 3);
    cells[int(LabTableColumn::Notes)] = notes.join(QStringLiteral("; "));
    return cells;
}

void fillLabTable(QTableWidget* table, const lab::LabReport& report) {
    table->clearContents();
    table->setColumnCount(int(LabTableColumn::Count));
    table->setHorizontalHeaderLabels(labTableHeaders());
    table->setRowCount(int(report.rows.size()));
    for (int r = 0; r < int(report.rows.size()); ++r) {
        const lab::LabRow& row = report.rows[std::size_t(r)];
        const QStringList cells = labRowCells(row);
        const double raw[] = {double(row.rung),
                              0,
                              0,
                              row.seconds,
                              row.deviceSeconds,
                              row.pairsPerSecond,
                              row.speedupOverPrevious,
                              row.speedupOverFirst,
                              double(row.wrongBins),
                              row.maxRelativeError,
                              0};
        for (int c = 0; c < cells.size(); ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
            if (c != int(LabTableColumn::Key) && c != int(LabTableColumn::Backend) &&
                c != int(LabTableColumn::Notes) && row.error.empty())
                item->setData(Qt::UserRole, raw[c]);
            if (c == int(LabTableColumn::Key))
                item->setData(Qt::UserRole, QString::fromStdString(row.key));
            if (c == int(LabTableColumn::Notes) || c == int(LabTableColumn::Key))
                item->setToolTip(cells[c]);
            if (c == int(LabTableColumn::Bins) && row.error.empty() && row.wrongBins > 0)
                item->setForeground(row.expectedExact ? QColor(190, 0, 0) : QColor(170, 90, 0));
            if (c >= int(LabTableColumn::Time) && c <= int(LabTableColumn::OverFirst))
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            table->setItem(r, c, item);
        }
    }
}

QString labTableCsv(const QTableWidget* table) {
    QStringList lines;
    QStringList header;
    for (int c = 0; c < table->columnCount(); ++c) {
        const QTableWidgetItem* item = table->horizontalHeaderItem(c);
        header.append(csvField(item ? item->text() : QString()));
    }
    lines.append(header.join(u','));
    for (int r = 0; r < table->rowCount(); ++r) {
        QStringList fields;
        for (int c = 0; c < table->columnCount(); ++c) {
            const QTableWidgetItem* item = table->item(r, c);
            fields.append(csvField(item ? item->text() : QString()));
        }
        lines.append(fields.join(u','));
    }
    return lines.join(u'\n') + u'\n';
}

bool writeLabTableCsv(const QTableWidget* table, const QString& path, QString* error) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(labTableCsv(table).toUtf8()) < 0 ||
        !file.commit()) {
        if (error)
            *error = tr("Cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

QColor labBackendColor(const QString& backend) {
    if (backend == QLatin1String("cpu"))
        return QColor(31, 119, 180);
    if (backend == QLatin1String("cuda"))
        return QColor(118, 185, 0); // NVIDIA green, as students expect it
    static const QColor palette[] = {QColor(214, 39, 40), QColor(148, 103, 189),
                                     QColor(140, 86, 75), QColor(227, 119, 194)};
    return palette[qHash(backend) % std::size(palette)];
}

void plotLabSpeeds(QCustomPlot* plot, const lab::LabReport& report) {
    plot->clearPlottables();
    plot->clearItems();
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    std::map<std::string, QCPBars*> barsOf;
    std::vector<std::string> order;
    double lowest = 0, highest = 0;
    int position = 0;
    for (const lab::LabRow& row : report.rows) {
        ++position;
        ticker->addTick(position, fromStd(row.key));
        if (!row.error.empty() || row.pairsPerSecond <= 0)
            continue;
        QCPBars*& bars = barsOf[row.backend];
        if (!bars) {
            bars = new QCPBars(plot->xAxis, plot->yAxis);
            bars->setName(fromStd(row.backend));
            const QColor colour = labBackendColor(fromStd(row.backend));
            bars->setPen(QPen(colour.darker(130)));
            bars->setBrush(colour);
            bars->setWidth(0.7);
            // A log axis has no 0: the bars grow from 1 pair/s, far below any measured rate.
            bars->setBaseValue(1);
        }
        bars->addData(position, row.pairsPerSecond);
        lowest = lowest == 0 ? row.pairsPerSecond : std::min(lowest, row.pairsPerSecond);
        highest = std::max(highest, row.pairsPerSecond);
    }
    plot->xAxis->setTicker(ticker);
    plot->xAxis->setTickLabelRotation(position > 6 ? 35 : 0);
    plot->xAxis->setRange(0.4, std::max(position, 1) + 0.6);
    plot->xAxis->grid()->setVisible(false);
    plot->yAxis->setScaleType(QCPAxis::stLogarithmic);
    plot->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    plot->yAxis->setNumberFormat(QStringLiteral("eb"));
    plot->yAxis->setNumberPrecision(0);
    plot->yAxis->setLabel(tr("pairs per second"));
    if (highest > 0)
        plot->yAxis->setRange(lowest / 3, highest * 3);
    else
        plot->yAxis->setRange(1e6, 1e10);
    plot->legend->setVisible(!barsOf.empty());
    plot->replot(QCustomPlot::rpQueuedReplot);
}

void plotLabErrors(QCustomPlot* plot, const lab::LabReport& report, LabErrorMode mode,
                   const QString& unitSymbol) {
    static const QColor palette[] = {QColor(214, 39, 40),  QColor(255, 127, 14),
                                     QColor(148, 103, 189), QColor(140, 86, 75),
                                     QColor(227, 119, 194), QColor(23, 190, 207),
                                     QColor(188, 189, 34),  QColor(127, 127, 127)};
    plot->clearPlottables();
    plot->clearItems();
    const std::vector<double> centres = binCentres(report.edges);
    QStringList exactKeys;
    int drawn = 0;
    for (const lab::LabRow& row : report.rows) {
        if (!row.error.empty())
            continue;
        if (row.wrongBins == 0) {
            exactKeys.append(fromStd(row.key));
            continue;
        }
        QVector<double> x, y;
        for (std::size_t k = 0; k < centres.size() && k < row.difference.size(); ++k) {
            const double difference = double(row.difference[k]);
            if (mode == LabErrorMode::Difference) {
                x.append(centres[k]);
                y.append(difference);
            } else if (k < report.reference.size() && report.reference[k] != 0) {
                x.append(centres[k]);
                y.append(difference / double(report.reference[k]));
            }
        }
        QCPGraph* graph = plot->addGraph();
        graph->setName(fromStd(row.key));
        const QColor colour = palette[drawn++ % std::size(palette)];
        graph->setPen(QPen(colour, 1.5));
        graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, colour, colour, 5));
        graph->setData(x, y, true);
    }
    plot->xAxis->setScaleType(QCPAxis::stLogarithmic);
    plot->xAxis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    plot->xAxis->setNumberFormat(QStringLiteral("eb"));
    plot->xAxis->setNumberPrecision(0);
    plot->xAxis->setLabel(tr("θ (%1)").arg(unitSymbol));
    plot->yAxis->setScaleType(QCPAxis::stLinear);
    plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    plot->yAxis->setNumberFormat(QStringLiteral("g"));
    plot->yAxis->setNumberPrecision(6);
    plot->yAxis->setLabel(mode == LabErrorMode::Difference ? tr("count − reference (pairs)")
                                                           : tr("(count − reference) / reference"));
    plot->rescaleAxes();
    if (!centres.empty())
        plot->xAxis->setRange(report.edges.front() > 0 ? report.edges.front() : centres.front(),
                              report.edges.back());
    if (drawn == 0)
        plot->yAxis->setRange(-1, 1);
    else
        plot->yAxis->scaleRange(1.15, plot->yAxis->range().center());
    if (!exactKeys.isEmpty() || drawn == 0) {
        auto* text = new QCPItemText(plot);
        text->setPositionAlignment(Qt::AlignTop | Qt::AlignLeft);
        text->position->setType(QCPItemPosition::ptAxisRectRatio);
        text->position->setCoords(0.01, 0.01);
        text->setTextAlignment(Qt::AlignLeft);
        text->setText(drawn == 0 && !report.rows.empty()
                          ? tr("Every variant equals the reference in every bin.")
                          : tr("Equal to the reference in every bin (not drawn): %1")
                                .arg(exactKeys.join(QStringLiteral(", "))));
        text->setClipToAxisRect(true);
    }
    plot->legend->setVisible(drawn > 0);
    plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace tpacf::ui
