// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Compare runs: result files (or earlier runs of the session) shown as overlays beside the
// current run, each with its label, colour and visibility, and a reference run for the ratio or
// difference panel under w(θ). CompareRuns holds the list; the plots draw a Comparison (a value
// copied into each figure); compareAll() is the one place that pairs every run with the
// reference, for the panel and the CSV alike. The arithmetic is the core's (run_comparison.h).
#include <tpacf/result_reader.h>
#include <tpacf/run_comparison.h>

#include <QColor>
#include <QList>
#include <QObject>
#include <QString>

#include <memory>
#include <optional>

namespace tpacf::ui {

using LoadedResultPtr = std::shared_ptr<const LoadedResult>;

struct OverlayRun {
    QString label;
    QString path; // the file it was read from; "" for a run of the session's history
    QColor colour;
    bool visible = true;
    LoadedResultPtr table;
};

struct Comparison {
    enum class Panel { None, Ratio, Difference };
    static constexpr int kCurrentRun = -1;
    QList<OverlayRun> overlays;
    int reference = kCurrentRun; // kCurrentRun or an index into overlays
    Panel panel = Panel::None;

    bool hasVisibleOverlays() const;
};

/// The n-th overlay's default colour: distinct from the current run's blue, the negative-w red
/// and each other.
QColor overlayColour(int index);
/// The label the current run has in legends and the CSV.
QString currentRunLabel();

/// One run set against the reference: the comparison, or why there is none.
struct ComparedRun {
    int index = Comparison::kCurrentRun; // which run: kCurrentRun or an overlay index
    QString label;
    QColor colour;
    LoadedResultPtr table;
    std::optional<RunComparison> compared; // empty: refused (see problem) or no panel
    QString problem;                       // why it was refused ("" when compared)
};
struct ComparisonOutcome {
    QList<ComparedRun> runs; // the current run (when there is one) and every visible overlay
    int reference = Comparison::kCurrentRun;
    QString referenceLabel;
    LoadedResultPtr referenceTable; // null: no reference (none chosen, or no current run)
    /// For people: which runs could not be compared and why ("" when all could).
    QString message;
};
/// Every shown run against the reference of `comparison`; `current` may be null (no run yet).
ComparisonOutcome compareAll(const Comparison& comparison, const LoadedResultPtr& current);

/// One long table for redoing the figure elsewhere: run, label, source, theta_lo, theta_hi,
/// theta_mid, theta_unit, w, w_err, then the panel's column and its error (ratio, ratio_err or
/// difference, difference_err; empty where refused) and DD_norm, DR_norm, RD_norm, RR_norm;
/// '#' lines before it say what the reference was. Written atomically; false with a message.
bool writeComparisonCsv(const QString& path, const Comparison& comparison,
                        const LoadedResultPtr& current, QString* error);

class CompareRuns : public QObject {
    Q_OBJECT
public:
    explicit CompareRuns(QObject* parent = nullptr);

    const Comparison& comparison() const { return m_comparison; }
    int count() const { return int(m_comparison.overlays.size()); }
    const OverlayRun& overlay(int index) const { return m_comparison.overlays.at(index); }

    /// Reads a result file (CSV, ECSV or FITS) and adds it, labelled by its file name. False
    /// with the reader's message (file, line or HDU) when it is not a readable result.
    bool addFile(const QString& path, QString* error);
    /// Adds a table already read (a run of the history); `label` as shown.
    void addTable(LoadedResultPtr table, const QString& label, const QString& path = {});
    void remove(int index);
    void clear();
    void setLabel(int index, const QString& label);
    void setVisible(int index, bool visible);
    void setColour(int index, const QColor& colour);
    /// kCurrentRun or an overlay index.
    void setReference(int index);
    void setPanel(Comparison::Panel panel);

Q_SIGNALS:
    void changed();

private:
    Comparison m_comparison;
    int m_added = 0; // colours keep turning as runs come and go
};

} // namespace tpacf::ui
