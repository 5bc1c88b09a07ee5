// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Kernel Lab (Tools > Kernel Lab…): runs the ladder of teaching pair-counting kernels
// (tpacf/lab.h) on the main window's catalogs or a generated uniform sky, and shows how fast each
// rung is (bar chart of pairs/s, table), how far it is from the double reference bin by bin, and
// what it does (explanation and key code excerpt, read from the sources the variants are built
// from). The counting runs on the window's own worker thread; Cancel stops it.
#include "kernel_lab_results.h"
#include "kernel_lab_worker.h"

#include <tpacf/bins.h>
#include <tpacf/lab.h>

#include <QMainWindow>

#include <map>
#include <QThread>

#include <memory>
#include <optional>

class QAction;
class QCheckBox;
class QComboBox;
class QCustomPlot;
class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTabWidget;
class QTableWidget;
class QTextBrowser;
class QTreeWidget;
class QTreeWidgetItem;

namespace tpacf::ui {

class KernelLabDemos;

/// What the main window offers the lab: its data catalog, a second catalog for a cross count
/// (its first random set) and its bins; any of them may be missing.
struct KernelLabInputs {
    std::shared_ptr<const Catalog> data;
    std::shared_ptr<const Catalog> random;
    std::optional<BinSpec> bins;
};

class KernelLabWindow : public QMainWindow {
    Q_OBJECT
public:
    struct Options {
        /// Where the variants' source files are read from for their excerpts: the bundled
        /// resources by default; a folder (tests, or a source tree) works alike.
        QString sourceRoot;
        /// Report failures and export errors in message boxes (tests turn this off).
        bool interactive = true;
        /// Backends without a usable device, and why: their rungs are listed unticked.
        std::map<QString, QString> unavailable;
    };

    /// Where the catalog to count comes from.
    enum class Source { Generated, Data, DataCrossRandom };

    /// Every variant the program offers (tpacf::lab::allLabVariants(registry)).
    explicit KernelLabWindow(const lab::LabRegistry& registry, QWidget* parent = nullptr);
    /// These variants (tests pass fakes).
    KernelLabWindow(lab::LabVariantList variants, Options options, QWidget* parent = nullptr);
    ~KernelLabWindow() override;

    void setInputs(const KernelLabInputs& inputs);

    // --- Settings, as the controls hold them.
    void setSource(Source source);
    Source source() const;
    /// Points generated, or the most taken from each loaded catalog (its first ones).
    void setPointCount(int points);
    void setRepeats(int repeats);
    /// The main window's bins where it passed some, else the default 0.01′–600′ log bins.
    void setUseMainWindowBins(bool use);
    BinSpec binSpec() const;
    /// The default bins: 0.01′ to 600′, 5 per decade.
    static BinSpec defaultBinSpec();

    /// Keys in the list's order (by backend, then rung).
    QStringList variantKeys() const;
    QStringList checkedVariantKeys() const;
    void setVariantChecked(const QString& key, bool checked);

    // --- Running.
    /// Starts a run of the checked variants; false when one is running, none is checked or the
    /// source has no catalog (the status line says which).
    bool startRun();
    void cancelRun();
    bool isRunning() const;
    /// The last completed run's report; null before the first.
    LabReportPtr report() const { return m_report; }

    // --- The selected variant: its explanation and key code excerpt.
    void showVariant(const QString& key);
    QString shownVariant() const { return m_shownKey; }

    // --- Export, for slides.
    /// The bar chart (or, with `plot`, another of the window's plots) as PNG or PDF by suffix.
    bool exportChart(const QString& path, QCustomPlot* plot = nullptr, QString* error = nullptr);
    bool exportTableCsv(const QString& path, QString* error = nullptr);

    // --- Widgets, for tests.
    QTableWidget* table() const { return m_table; }
    QCustomPlot* speedChart() const { return m_speedChart; }
    QCustomPlot* errorPlot() const { return m_errorPlot; }
    QComboBox* errorModeBox() const { return m_errorMode; }
    QTextBrowser* explanationView() const { return m_explanation; }
    QPlainTextEdit* excerptView() const { return m_excerpt; }
    QLabel* excerptTitle() const { return m_excerptTitle; }
    QLabel* statusLabel() const { return m_status; }
    QTreeWidget* variantTree() const { return m_variantTree; }
    QTabWidget* plotTabs() const { return m_plotTabs; }
    KernelLabDemos* demos() const { return m_demos; }

    /// Runs a precision demonstration on the lab's worker (false while anything runs).
    bool startDemo(const LabDemoRequest& request);

Q_SIGNALS:
    void runStarted();
    void runFinished(const tpacf::ui::LabReportPtr& report);
    void runCancelled();
    void runFailed(const QString& message);
    void demoFinished(const tpacf::ui::LabDemoResultPtr& result);

private:
    /// Where the variant tree and the table keep each variant's key.
    static constexpr int kKeyRole = Qt::UserRole;

    /// What the window shows of a variant before it has run (read once, on the GUI thread).
    struct VariantInfo {
        QString key, name, backend, explanation, sourceFile;
        int rung = 0;
        bool exact = true;
        SharedLabVariant variant;
    };

    void buildUi();
    QWidget* buildSettingsPanel();
    void buildActions();
    void fillVariantTree();
    void updateSummary();
    void updateRunState();
    void onProgress(int done, int total);
    void onFinished(const LabReportPtr& report);
    void onCancelled();
    void onFailed(const QString& message);
    void showErrors();
    void showVariantDetails();
    const VariantInfo* variantInfo(const QString& key) const;
    const lab::LabRow* reportRow(const QString& key) const;
    void exportChartDialog();
    void exportTableDialog();
    void reportProblem(const QString& text);

    Options m_options;
    std::vector<VariantInfo> m_variants; // in the list's order
    KernelLabInputs m_inputs;
    LabReportPtr m_report;
    QString m_reportUnit; // the unit symbol of the report's bins
    QString m_shownKey;
    QStringList m_runningKeys; // the variants of the run in progress, in order
    QString m_lastDirectory;

    QThread m_thread;
    KernelLabWorker* m_worker = nullptr;

    QComboBox* m_source = nullptr;
    QSpinBox* m_points = nullptr;
    QSpinBox* m_seed = nullptr;
    QComboBox* m_bins = nullptr;
    QSpinBox* m_repeats = nullptr;
    QLabel* m_summary = nullptr;
    QTreeWidget* m_variantTree = nullptr;
    QPushButton* m_runButton = nullptr;
    QPushButton* m_cancelButton = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_status = nullptr;
    QTabWidget* m_plotTabs = nullptr;
    QCustomPlot* m_speedChart = nullptr;
    QCustomPlot* m_errorPlot = nullptr;
    QComboBox* m_errorMode = nullptr;
    KernelLabDemos* m_demos = nullptr;
    QTableWidget* m_table = nullptr;
    QTextBrowser* m_explanation = nullptr;
    QLabel* m_excerptTitle = nullptr;
    QPlainTextEdit* m_excerpt = nullptr;
    QAction* m_runAction = nullptr;
    QAction* m_cancelAction = nullptr;
    QAction* m_exportChartAction = nullptr;
    QAction* m_exportTableAction = nullptr;
    bool m_updatingTree = false;
    bool m_sourceChosen = false; // by the user: a catalog arriving no longer changes it
};

} // namespace tpacf::ui
