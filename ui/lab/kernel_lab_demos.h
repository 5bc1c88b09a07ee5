// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Kernel Lab's two precision demonstrations (tpacf/lab_demos.h) as a page of the lab window:
// binning on the float dot product against chord² at 0.01′–1′ (the bins a float port loses),
// and a 32-bit counter overflowing on a count above 2^32. The window runs them on its worker;
// this page asks for them and shows the outcome (a table per bin and a plot).
#include <tpacf/lab_demos.h>

#include <QWidget>

#include <memory>

class QCustomPlot;
class QLabel;
class QPushButton;
class QTableWidget;

namespace tpacf::ui {

enum class LabDemoKind { FloatDotVersusChord2, CounterOverflow };

/// What a demonstration counts: its generated catalog of `points` points and its own bins.
struct LabDemoRequest {
    LabDemoKind kind = LabDemoKind::FloatDotVersusChord2;
    std::size_t points = 0; // 0: the demonstration's default
    std::uint64_t seed = 1;
};

struct LabDemoResult {
    LabDemoKind kind = LabDemoKind::FloatDotVersusChord2;
    std::vector<double> edges; // in the demo bins' unit
    QString unit;              // that unit's short name
    std::size_t points = 0;
    lab::PrecisionDemo precision; // FloatDotVersusChord2
    lab::OverflowDemo overflow;   // CounterOverflow
};
using LabDemoResultPtr = std::shared_ptr<const LabDemoResult>;

/// Runs a demonstration (on the caller's thread: the lab's worker). Throws Cancelled.
LabDemoResultPtr runLabDemo(const LabDemoRequest& request, const std::atomic<bool>* cancel);

class KernelLabDemos : public QWidget {
    Q_OBJECT
public:
    explicit KernelLabDemos(QWidget* parent = nullptr);

    void showResult(const LabDemoResult& result);
    /// The buttons are disabled while the lab runs anything.
    void setRunning(bool running);

    QTableWidget* table() const { return m_table; }
    QCustomPlot* plot() const { return m_plot; }
    QLabel* summary() const { return m_summary; }

Q_SIGNALS:
    void runRequested(const tpacf::ui::LabDemoRequest& request);

private:
    void showPrecision(const LabDemoResult& result);
    void showOverflow(const LabDemoResult& result);

    QPushButton* m_dotButton = nullptr;
    QPushButton* m_overflowButton = nullptr;
    QLabel* m_summary = nullptr;
    QTableWidget* m_table = nullptr;
    QCustomPlot* m_plot = nullptr;
};

} // namespace tpacf::ui

Q_DECLARE_METATYPE(tpacf::ui::LabDemoRequest)
Q_DECLARE_METATYPE(tpacf::ui::LabDemoResultPtr)
