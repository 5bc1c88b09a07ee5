// SPDX-License-Identifier: GPL-3.0-or-later
#include "compare_runs.h"

#include "catalog_source.h"

#include <tpacf/errors.h>

#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

#include <cmath>

namespace tpacf::ui {

namespace {

// Okabe–Ito colours (told apart with the common colour-vision deficiencies), without the blue
// of the current run and the red of its negative values.
const QColor kOverlayColours[] = {QColor(0xd5, 0x5e, 0x00), QColor(0x00, 0x9e, 0x73),
                                  QColor(0xcc, 0x79, 0xa7), QColor(0xe6, 0x9f, 0x00),
                                  QColor(0x56, 0xb4, 0xe9), QColor(0x55, 0x55, 0x55)};

QString shortestNumber(double value) {
    if (std::isnan(value))
        return QStringLiteral("nan");
    return QString::number(value, 'g', QLocale::FloatingPointShortest);
}

// A CSV field: quoted where it holds a comma, a quote or a line break.
QString field(QString text) {
    if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"')) &&
        !text.contains(QLatin1Char('\n')))
        return text;
    text.replace(QLatin1String("\""), QLatin1String("\"\""));
    return QLatin1Char('"') + text + QLatin1Char('"');
}

QString unitOf(const LoadedResult& table) {
    return table.thetaUnit ? QString::fromLatin1(angleUnitName(*table.thetaUnit)) : QString();
}

} // namespace

bool Comparison::hasVisibleOverlays() const {
    for (const OverlayRun& run : overlays)
        if (run.visible && run.table)
            return true;
    return false;
}

QColor overlayColour(int index) {
    constexpr int count = int(sizeof(kOverlayColours) / sizeof(kOverlayColours[0]));
    return kOverlayColours[((index % count) + count) % count];
}

QString currentRunLabel() {
    return QObject::tr("current run");
}

ComparisonOutcome compareAll(const Comparison& comparison, const LoadedResultPtr& current) {
    ComparisonOutcome outcome;
    outcome.reference = comparison.reference;
    if (comparison.reference == Comparison::kCurrentRun) {
        outcome.referenceTable = current;
        outcome.referenceLabel = currentRunLabel();
    } else if (comparison.reference >= 0 && comparison.reference < comparison.overlays.size()) {
        const OverlayRun& reference = comparison.overlays.at(comparison.reference);
        outcome.referenceTable = reference.table;
        outcome.referenceLabel = reference.label;
    }
    if (current)
        outcome.runs.append({Comparison::kCurrentRun, currentRunLabel(), QColor(), current, {}, {}});
    for (int i = 0; i < comparison.overlays.size(); ++i) {
        const OverlayRun& run = comparison.overlays.at(i);
        if (run.visible && run.table)
            outcome.runs.append({i, run.label, run.colour, run.table, {}, {}});
    }
    if (comparison.panel == Comparison::Panel::None)
        return outcome;
    if (!outcome.referenceTable) {
        outcome.message = comparison.reference == Comparison::kCurrentRun
                              ? QObject::tr("No reference: the current run has no result yet. "
                                            "Choose an overlay as the reference, or run.")
                              : QObject::tr("No reference run chosen.");
        return outcome;
    }
    const ComparisonKind kind = comparison.panel == Comparison::Panel::Ratio
                                    ? ComparisonKind::Ratio
                                    : ComparisonKind::Difference;
    QStringList refused;
    const std::string referenceName =
        QStringLiteral("the reference '%1'").arg(outcome.referenceLabel).toStdString();
    for (ComparedRun& run : outcome.runs) {
        const std::string runName = QStringLiteral("'%1'").arg(run.label).toStdString();
        try {
            run.compared = compareRuns(*run.table, *outcome.referenceTable, kind, runName,
                                       referenceName);
        } catch (const Error&) {
            run.problem = QString::fromStdString(
                binsDifference(*run.table, *outcome.referenceTable, runName, referenceName));
            refused.append(QObject::tr("not shown for '%1' (other bins: %2)")
                               .arg(run.label, run.problem));
        }
    }
    if (!refused.isEmpty())
        outcome.message = (comparison.panel == Comparison::Panel::Ratio ? QObject::tr("Ratio ")
                                                                        : QObject::tr("Difference ")) +
                          refused.join(QStringLiteral("; ")) + QLatin1Char('.');
    // Raw pair counts against the reference's, bin for bin: the first check against another
    // code (a Corrfunc DD file has counts and no w).
    QStringList counts;
    for (const ComparedRun& run : outcome.runs) {
        if (run.table == outcome.referenceTable)
            continue;
        const std::string agreement =
            countAgreement(*run.table, *outcome.referenceTable, "DD",
                           QStringLiteral("'%1'").arg(run.label).toStdString(), referenceName);
        if (!agreement.empty())
            counts.append(QStringLiteral("'%1': %2").arg(run.label,
                                                         QString::fromStdString(agreement)));
    }
    if (!counts.isEmpty())
        outcome.message += (outcome.message.isEmpty() ? QString() : QStringLiteral(" ")) +
                           QObject::tr("Pair counts: %1.").arg(counts.join(QStringLiteral("; ")));
    return outcome;
}

bool writeComparisonCsv(const QString& path, const Comparison& comparison,
                        const LoadedResultPtr& current, QString* error) {
    const ComparisonOutcome outcome = compareAll(comparison, current);
    if (outcome.runs.isEmpty()) {
        *error = QObject::tr("Nothing to export: no current run and no shown overlay.");
        return false;
    }
    const bool panel = comparison.panel != Comparison::Panel::None;
    const QString kind =
        comparison.panel == Comparison::Panel::Ratio ? QStringLiteral("ratio")
                                                     : QStringLiteral("difference");
    QString text;
    text += QStringLiteral("# TPACF Studio: runs compared (one row per run and bin)\n");
    if (panel && outcome.referenceTable)
        text += QStringLiteral("# reference: %1\n# %2: %3; its error propagates both runs' "
                               "w_err as independent (empty without w_err on both sides)\n")
                    .arg(outcome.referenceLabel, kind,
                         kind == QLatin1String("ratio") ? QStringLiteral("w / w_ref")
                                                        : QStringLiteral("w - w_ref"));
    if (!outcome.message.isEmpty())
        text += QStringLiteral("# note: %1\n").arg(outcome.message);
    QStringList header{QStringLiteral("run"),       QStringLiteral("label"),
                       QStringLiteral("source"),    QStringLiteral("theta_lo"),
                       QStringLiteral("theta_hi"),  QStringLiteral("theta_mid"),
                       QStringLiteral("theta_unit"), QStringLiteral("w"),
                       QStringLiteral("w_err")};
    if (panel)
        header << kind << kind + QStringLiteral("_err");
    const QStringList countColumns{QStringLiteral("DD_norm"), QStringLiteral("DR_norm"),
                                   QStringLiteral("RD_norm"), QStringLiteral("RR_norm")};
    header << countColumns;
    text += header.join(QLatin1Char(',')) + QLatin1Char('\n');
    for (const ComparedRun& run : outcome.runs) {
        const LoadedResult& table = *run.table;
        const QString id = run.index == Comparison::kCurrentRun
                               ? QStringLiteral("current")
                               : QStringLiteral("overlay%1").arg(run.index + 1);
        const QString source =
            run.index == Comparison::kCurrentRun ? QString()
                                                 : comparison.overlays.at(run.index).path;
        for (std::size_t k = 0; k < table.binCount(); ++k) {
            const auto at = [k](const std::vector<double>& values) {
                return k < values.size() ? shortestNumber(values[k]) : QString();
            };
            QStringList row{id,
                            field(run.label),
                            field(source),
                            at(table.thetaLo),
                            at(table.thetaHi),
                            at(table.thetaMid),
                            unitOf(table),
                            at(table.w),
                            at(table.wError)};
            if (panel) {
                row << (run.compared ? at(run.compared->value) : QString())
                    << (run.compared ? at(run.compared->error) : QString());
            }
            for (const QString& name : countColumns) {
                const std::vector<double>* values = table.column(name.toStdString());
                row << (values ? at(*values) : QString());
            }
            text += row.join(QLatin1Char(',')) + QLatin1Char('\n');
        }
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(text.toUtf8()) < 0 || !file.commit()) {
        *error = QObject::tr("Cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

CompareRuns::CompareRuns(QObject* parent) : QObject(parent) {}

bool CompareRuns::addFile(const QString& path, QString* error) {
    try {
        auto table = std::make_shared<LoadedResult>(
            readResultFile(QFile::encodeName(path).toStdString()));
        addTable(std::move(table), QFileInfo(path).completeBaseName(), path);
        return true;
    } catch (const std::exception& problem) {
        *error = describeReadError(problem);
        return false;
    }
}

void CompareRuns::addTable(LoadedResultPtr table, const QString& label, const QString& path) {
    OverlayRun run;
    run.label = label;
    run.path = path;
    run.colour = overlayColour(m_added++);
    run.table = std::move(table);
    m_comparison.overlays.append(run);
    Q_EMIT changed();
}

void CompareRuns::remove(int index) {
    if (index < 0 || index >= count())
        return;
    m_comparison.overlays.removeAt(index);
    // The reference follows its run; a removed reference falls back to the current run.
    if (m_comparison.reference == index)
        m_comparison.reference = Comparison::kCurrentRun;
    else if (m_comparison.reference > index)
        --m_comparison.reference;
    Q_EMIT changed();
}

void CompareRuns::clear() {
    m_comparison.overlays.clear();
    m_comparison.reference = Comparison::kCurrentRun;
    Q_EMIT changed();
}

void CompareRuns::setLabel(int index, const QString& label) {
    if (index < 0 || index >= count() || m_comparison.overlays[index].label == label)
        return;
    m_comparison.overlays[index].label = label;
    Q_EMIT changed();
}

void CompareRuns::setVisible(int index, bool visible) {
    if (index < 0 || index >= count() || m_comparison.overlays[index].visible == visible)
        return;
    m_comparison.overlays[index].visible = visible;
    Q_EMIT changed();
}

void CompareRuns::setColour(int index, const QColor& colour) {
    if (index < 0 || index >= count())
        return;
    m_comparison.overlays[index].colour = colour;
    Q_EMIT changed();
}

void CompareRuns::setReference(int index) {
    if (index < Comparison::kCurrentRun || index >= count() || index == m_comparison.reference)
        return;
    m_comparison.reference = index;
    Q_EMIT changed();
}

void CompareRuns::setPanel(Comparison::Panel panel) {
    if (panel == m_comparison.panel)
        return;
    m_comparison.panel = panel;
    Q_EMIT changed();
}

} // namespace tpacf::ui
