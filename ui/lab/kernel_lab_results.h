// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// How the Kernel Lab shows a LabReport: the table's columns and cell texts, the CSV of the table,
// the bar chart of pairs/s (one bar per variant, coloured by backend) and the per-bin error plot.
#include <tpacf/lab.h>

#include <QColor>
#include <QString>
#include <QStringList>

class QCustomPlot;
class QTableWidget;

namespace tpacf::ui {

enum class LabTableColumn {
    Rung,
    Key,
    Backend,
    Time,
    DeviceTime,
    PairsPerSecond,
    OverPrevious,
    OverFirst,
    Bins,
    MaxRelativeError,
    Notes,
    Count
};

/// The table's header texts, in LabTableColumn order.
QStringList labTableHeaders();
/// One row's cell texts, in LabTableColumn order. The Bins cell reads "0 wrong bins" for a row
/// equal to the reference, and says when a row's exactness is not what its variant promises.
QStringList labRowCells(const lab::LabRow& row);

/// "12.3 ms", "1.25 s"; "—" for a negative time (none measured).
QString formatLabSeconds(double seconds);
/// "123 M", "1.23 G": pairs per second with an SI prefix, three significant digits.
QString formatLabRate(double pairsPerSecond);
/// "×12.3"; "—" for 0 (the first row of its backend).
QString formatLabSpeedup(double factor);

/// Fills `table` with the report's rows (raw numbers also under Qt::UserRole, for sorting and
/// tests); a row that could not run shows its error in the Notes column.
void fillLabTable(QTableWidget* table, const lab::LabReport& report);
/// The table as shown (header, then every row's cell texts), as CSV (RFC 4180 quoting).
QString labTableCsv(const QTableWidget* table);
/// Writes labTableCsv() atomically; false with `error` set when it cannot.
bool writeLabTableCsv(const QTableWidget* table, const QString& path, QString* error);

/// The colour of a backend's bars and curves ("cpu", "cuda", then a palette).
QColor labBackendColor(const QString& backend);

/// One QCPBars per backend (legend entry), one bar per row that ran at x = its row position,
/// height its pairs/s on a logarithmic axis, the variant keys as tick labels.
void plotLabSpeeds(QCustomPlot* plot, const lab::LabReport& report);

enum class LabErrorMode { Difference, Relative };
/// Per variant whose counts differ from the reference: counts − reference (or the relative
/// error, over bins whose reference is not zero) against the bin centre θ; the variants equal
/// to the reference are named in a line of text rather than drawn at zero.
void plotLabErrors(QCustomPlot* plot, const lab::LabReport& report, LabErrorMode mode,
                   const QString& unitSymbol);

} // namespace tpacf::ui
