// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// TPACF Studio's main window: catalogs, sky preview, bins, estimator and backend, run control,
// plots, results table and log. It configures CorrelationJobs and shows their results; the
// science is all in tpacf_core.
#include "catalog_set.h"
#include "catalog_source.h"
#include "compare_runs.h"
#include "job_worker.h"
#include "plot_export.h"
#include "recent_files.h"
#include "run_controller.h"
#include "session.h"

#include <tpacf/backend.h>
#include <tpacf/provider_registry.h>
#include <tpacf/sky_mask.h>

#include <QHash>
#include <QList>
#include <QMainWindow>

#include <memory>

class QAction;
class QDockWidget;
class QLabel;
class QMenu;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;

namespace tpacf::lab {
class LabProvider; // lab.h
}
namespace tpacf::fcs {
class CorrelatorProvider; // multitau.h
}

namespace tpacf::ui {

/// The catalog file dialogs' name filter: every format of tpacf::catalogFormats() with its
/// patterns, all of them together first, and all files last.
QString catalogFileFilter();

class BackendPanel;
class BinningPanel;
class CatalogsPanel;
class ComparePanel;
class RunHistory;
class RunHistoryPanel;
class ErrorsPanel;
class KernelLabWindow;
class PlotPanel;
class ResultTableModel;
class ResultTableView;
class RunPanel;
class SkyPlot;

enum class MessageSeverity { Info, Warning, Error };

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    struct Options {
        /// Open with the bundled sample catalogs (the first-start experience).
        bool loadSample = true;
        /// Restore and save window state, recent files and last settings with QSettings.
        bool useSettings = true;
        /// Show warnings and errors in modal message boxes (and ask through dialogs, e.g. the
        /// column mapping). Tests turn this off so nothing ever blocks on a dialog.
        bool interactive = true;
        /// Answers the window's yes/no questions (run although the data lie outside the
        /// randoms; quit during a run). Empty: a message box when interactive, else yes.
        std::function<bool(const QString& question)> confirm;
        /// Asks where a catalog that no longer exists at `missingPath` is now (a session or a
        /// recent file whose folder moved); an empty answer gives up. Empty: a file dialog when
        /// interactive, else no answer.
        std::function<QString(const QString& missingPath)> locate;
        /// The side tools' providers beside the CPU (the programs' registries): the Kernel Lab's
        /// rungs (lab.h) and the FCS correlators (multitau.h; unused in a build without the
        /// FCS window). Null: the CPU's alone.
        std::shared_ptr<const ProviderRegistry<lab::LabProvider>> labProviders;
        std::shared_ptr<const ProviderRegistry<fcs::CorrelatorProvider>> correlators;
        /// Where the window keeps its work at quit (catalogs, settings and runs, as a session)
        /// so that no run is lost; empty: nothing is kept.
        QString autoSessionPath;
        /// Reopen the work kept at autoSessionPath at start (saying so) instead of the bundled
        /// sample; off where the command line names what to open.
        bool reopenAutoSession = true;
    };

    /// Runs choose their backend from `backends` (by default the CPU alone).
    explicit MainWindow(BackendRegistry backends, Options options, QWidget* parent = nullptr);
    explicit MainWindow(BackendRegistry backends = {}, QWidget* parent = nullptr);
    ~MainWindow() override;

    // --- Catalogs. Files are read on a background thread so the window never freezes: the
    // --- loading functions return true when the read was queued (false, with nothing queued,
    // --- while a run is in progress) and each queued load ends with loadFinished(ok). Loads run
    // --- one after another in the order they were asked for. A file that cannot be read is
    // --- reported through reportMessage() and leaves the catalogs as they were.
    bool setDataCatalog(const CatalogSource& source);
    bool addRandomCatalog(const CatalogSource& source);
    /// Immediate; refused while a run or a load is in progress.
    void removeRandomCatalog(int index);
    /// Opens a file as data or random, through the column-mapping dialog where the file needs one
    /// (interactive mode only; otherwise the reader's defaults). False when the file's first rows
    /// cannot be previewed (reported) or the dialog was cancelled.
    bool openCatalogFile(const QString& path, bool asRandom);
    // --- The second sample of a cross-correlation (D1 × D2): its data catalog and, optionally,
    // --- its own randoms (as many sets as the first sample's; none: it uses the first's).
    bool setSecondDataCatalog(const CatalogSource& source);
    bool addSecondRandomCatalog(const CatalogSource& source);
    /// Immediate; refused while a run or a load is in progress.
    void removeSecondRandomCatalog(int index);
    /// Drops the second sample (back to an auto-correlation); immediate, refused likewise.
    void removeSecondSample();
    /// openCatalogFile() for the second sample.
    bool openSecondSampleFile(const QString& path, bool asRandom);
    /// Loads the bundled sample (data + randoms); false when it is not built in.
    bool loadBundledSample();
    /// Whether catalogs are being read (Run and the catalog buttons are disabled meanwhile).
    bool isLoading() const { return m_catalogs->isLoading(); }
    std::shared_ptr<const Catalog> dataCatalog() const;
    std::vector<std::shared_ptr<const Catalog>> randomCatalogs() const;

    // --- Run.
    /// Starts a run with the current settings; false when one is running or the inputs are
    /// incomplete (see runBlockedReason()).
    bool startRun();
    void cancelRun();
    /// Run > Forget Cached Pair Counts: drops the counts kept from the last run, so the next run
    /// counts every pair afresh. Refused (false) while a run is in progress or nothing is cached.
    bool forgetCachedCounts();
    bool isRunning() const { return m_run->isRunning(); }
    /// Whether Run is enabled, and why not.
    bool canRun() const;
    QString runBlockedReason() const;
    QPushButton* runButton() const;
    QProgressBar* progressBar() const;
    JobWorker* worker() const { return m_run->worker(); }
    /// The result shown (plots, table, exports): the last completed run's, or one restored from
    /// a session or picked from the history; null before any.
    ResultPtr currentResult() const { return m_shownResult; }
    /// Whether the shown result was computed from inputs other than the current ones (catalogs,
    /// bins, estimator or error settings changed since): it stays on screen, marked as such.
    bool isResultStale() const { return m_run->isResultStale(); }

    /// File > Set Mask: reads the mask on a worker thread; maskChanged once it is set (or the
    /// error reported). Every run then cuts its catalogs to it (CorrelationParams::mask).
    void setMaskFile(const QString& path, double threshold = 0.0);
    void clearMask();
    /// File > Save Jackknife Regions: the shown run's regions as a regions file.
    bool saveRegions(const QString& path);
    const std::shared_ptr<const SkyMask>& mask() const { return m_mask; }
    const QString& maskPath() const { return m_maskPath; }

    // --- Panels, for tests.
    BinningPanel* binningPanel() const { return m_binningPanel; }
    BackendPanel* backendPanel() const { return m_backendPanel; }
    ErrorsPanel* errorsPanel() const { return m_errorsPanel; }
    PlotPanel* plotPanel() const { return m_plotPanel; }
    SkyPlot* skyPlot() const { return m_skyPlot; }
    ResultTableModel* resultModel() const { return m_resultModel; }
    ResultTableView* resultView() const { return m_resultView; }
    CatalogSet* catalogSet() const { return m_catalogs; }
    RunController* runController() const { return m_run; }
    CatalogsPanel* catalogsPanel() const { return m_catalogsPanel; }
    RunPanel* runPanel() const { return m_runPanel; }

    // --- Sessions and export.
    Session session() const;
    /// Reloads the catalogs (in the background, like the catalog functions above) and, once all
    /// are read, applies them with every setting. A catalog that cannot be read leaves the state
    /// unchanged (loadFinished(false)). False when refused (a run in progress) or, for
    /// loadSession(), when the file is not a readable session (reported).
    bool applySession(const Session& session);
    bool saveSession(const QString& path);
    bool loadSession(const QString& path);
    bool exportResultCsv(const QString& path);
    /// View > Reset Layout: every dock back where the window first put it for this screen.
    void resetLayout();
    /// Where the export dialogs open: the folder of the last export (of any kind), else the
    /// folder catalogs were last opened from.
    QString exportDirectory() const;
    // --- Compare runs and the run history (main_window_compare.cpp).
    /// File > Add Comparison Run: a result file (CSV, ECSV, FITS) as an overlay; false with the
    /// reader's message reported when it is not one.
    bool addComparisonRun(const QString& path);
    /// The shown runs (and the ratio or difference) as one long CSV table.
    bool exportComparisonCsv(const QString& path);
    /// Shows a run of the history (plots and table) without counting; false for a bad index.
    bool showHistoryRun(int index);
    /// Adds a run of the history to Compare runs.
    bool addHistoryOverlay(int index);
    CompareRuns* compareRuns() const { return m_compareRuns; }
    ComparePanel* comparePanel() const { return m_comparePanel; }
    RunHistory* runHistory() const { return m_history; }
    RunHistoryPanel* historyPanel() const { return m_historyPanel; }
    /// The jackknife covariance matrix as CSV (the core's writer); false without jackknife.
    bool exportCovarianceCsv(const QString& path);
    /// Run > Save Run as Job File: what Run would compute now as a `tpacf run --config` file
    /// (TOML), written atomically; false when it cannot be written (reported).
    bool saveRunAsJobFile(const QString& path);
    /// PNG, PDF or SVG by the file's suffix; `plot` is a PlotPanel::Plot (w, counts,
    /// covariance), drawn with the plot panel's export style (plot_panel.h: exportFigure).
    bool exportPlot(int plot, const QString& path);
    /// The same with the export style at `settings`' size.
    bool exportPlot(int plot, const QString& path, const PlotExportSettings& settings);

    // --- Recent files: catalogs remember their role (and column mapping), so a recent random
    // --- catalog reopens as a random one.
    using RecentRole = tpacf::ui::RecentRole;
    using RecentFile = tpacf::ui::RecentFile;
    /// Most recent first.
    const QList<RecentFile>& recentFiles() const { return m_recentFiles->entries(); }
    /// Reopens an entry of recentFiles() in its role (false when refused or unreadable).
    bool openRecentFile(int index);

    /// Tools > Kernel Lab…: opens (or raises) the lab window with this window's data catalog, its
    /// first random catalog and its bins; they follow the window's catalogs while it is open.
    KernelLabWindow* openKernelLab();
    /// The lab window once opened; null before.
    KernelLabWindow* kernelLabWindow() const { return m_kernelLab; }

    /// Whether a warning or error also stops the user with a message box (in interactive mode):
    /// not for what only informs about a finished run and is in the log already.
    enum class MessageBoxUse { WhenInteractive, Never };
    /// The one path every notice, warning and error takes: log, status bar, the
    /// messageReported signal and, in interactive mode, a message box for warnings and errors.
    void reportMessage(MessageSeverity severity, const QString& text,
                       MessageBoxUse box = MessageBoxUse::WhenInteractive);

Q_SIGNALS:
    void messageReported(tpacf::ui::MessageSeverity severity, const QString& text);
    /// A mask was set, cleared, or could not be read.
    void maskChanged();
    void runStarted();
    void runFinished(const tpacf::ui::ResultPtr& result);
    void runFailed(const QString& message);
    void runCancelled();
    void catalogsChanged();
    /// A queued catalog load (setDataCatalog(), addRandomCatalog(), applySession() and the like)
    /// has ended: `ok` when its catalogs are now the window's, false when one could not be read.
    void loadFinished(bool ok);

protected:
    void closeEvent(QCloseEvent* event) override;
    /// The first show after a restored layout checks that it fits this screen
    /// (keepLayoutOnScreen).
    void showEvent(QShowEvent* event) override;
    /// The screen's available size (a 1280 x 720 guess without a screen).
    QSize availableScreenSize() const;
    /// Resizes to `preferred` or less, so that the whole window shows on the screen.
    void fitToScreen(QSize preferred);
    /// A yes/no question (Options::confirm); `yes` labels the button that goes on.
    bool confirm(const QString& question, const QString& yes);
    /// At start: queues the work kept at the last quit (Options::autoSessionPath); false, with a
    /// line in the Log where there is none or it cannot be reopened (a catalog gone).
    bool reopenAutoSession();
    /// At quit: keeps the work at Options::autoSessionPath (removes it where there is nothing
    /// to keep). False when it could not be written and the user chose not to quit.
    bool keepAutoSession();
    /// Where the missing catalog file `path` is now (Options::locate); empty: not found.
    QString locateMissingFile(const QString& path);
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    /// What a queued catalog change does in the window once its files are read.
    struct LoadIntent {
        std::optional<RunSettings> settings; // a session's settings, applied with it
        std::optional<CatalogChange> change; // what was asked for (to retry it elsewhere)
        bool hasData = false;                // the change replaces the data catalog
        int randomCount = 0;                 // random catalogs it brings
        bool hasData2 = false;               // the change replaces the second data catalog
        int random2Count = 0;                // random catalogs of the second sample it brings
        bool reportEach = false;             // one "N points" message per catalog
        bool recordRecent = false;           // remember the files under File > Open Recent
        QString sessionPath;                 // a session file: remembered and reported
        QString doneMessage;                 // reported on success
        std::optional<QList<RunRecord>> history; // a session's runs, the last one shown
        std::optional<PowerLawFitOptions> fit;   // the fit shown on that last run
        std::optional<std::pair<QString, double>> mask; // a session's mask ("" : none)

        /// Files the user picked: each reported and remembered.
        static LoadIntent pickedFiles() {
            LoadIntent intent;
            intent.reportEach = true;
            intent.recordRecent = true;
            return intent;
        }
        /// A session: its settings applied with it; `path` remembered and reported if given.
        static LoadIntent session(const Session& session, const QString& path = {}) {
            LoadIntent intent;
            intent.settings = session.settings;
            intent.history = session.history;
            intent.fit = session.fit;
            intent.mask = std::pair(session.mask, session.maskThreshold);
            intent.sessionPath = path;
            return intent;
        }
    };

    void createActions();
    void createMenus();
    void createDocks();
    void createLoadingIndicator();
    /// The bins the panel holds, to the empty plot (its θ axis's unit and range).
    void showPendingBins();
    /// Whether the window's minimum size, with the docks as laid out now, is inside the screen.
    bool layoutFitsScreen() const;
    /// A layout restored from the last start that does not fit this screen (saved on a larger
    /// one): the default layout instead, with a line in the Log saying so.
    void keepLayoutOnScreen();
    /// After an export: its folder is where the next export dialog opens (kept between starts).
    void rememberExportFolder(const QString& path);
    /// The Compare and History docks, tabbed with Results (main_window_compare.cpp).
    void createCompareDocks(QDockWidget* besides);
    void addComparisonDialog();
    void exportComparisonDialog();
    /// A completed run: into the history, and shown.
    void recordRun(const ResultPtr& result);
    /// A session's runs: the history replaced, the last one shown with its plots and table.
    void restoreHistory(const QList<RunRecord>& records);
    /// The sky map coloured by the regions of a reopened result: assigned again from the loaded
    /// catalogs as its run assigned them (k-means seed or column), drawn only where the counts
    /// per region match the saved ones.
    void drawSavedRegionMap(const CorrelationResult& result);
    /// Plots, table and the export actions show `result`; `stale` marks it as of other inputs.
    void showResult(const ResultPtr& result, bool stale);
    void updateComparison();
    void restoreSettings();
    void saveSettings() const;
    void updateCatalogViews();
    void updateRunState();
    void updateTitle();
    void updateRecentMenu();

    /// A line in the log only (no status bar, signal or message box): details of a message.
    void logLine(MessageSeverity severity, const QString& text);
    void reportJackknife(const CorrelationResult& result);
    void onRunFinished(const ResultPtr& result);
    void onRunFailed(const QString& message);
    void onRunCancelled();
    /// After a run ends: inputs, actions and the plots back to the last result.
    void showRunEnded();
    void updateResultsTitle();
    void onStaleChanged(bool stale);

    void openDataDialog();
    void addRandomDialog();
    void openData2Dialog();
    void addRandom2Dialog();
    void removeSelectedRandom();
    void makeRandomsFromMaskDialog();
    void setMaskDialog();
    void openSessionDialog();
    void saveSessionDialog();
    void exportCsvDialog();
    void exportCovarianceDialog();
    void saveRegionsDialog();
    void saveRunAsJobFileDialog();
    void exportPlotDialog();
    void showAbout();

    bool queueCatalogChange(CatalogChange change, LoadIntent intent);
    void onChangeApplied(quint64 id);
    void onChangeFailed(quint64 id, const QString& message);
    void updateLoadingIndicator();
    void updateInputsEnabled();
    /// Reports an error and returns true when `path` is a loaded catalog: an export or session
    /// (`what`) written there would destroy it.
    bool refuseOverwritingCatalog(const QString& path, const QString& what);
    bool exportPlotAs(int plot, const QString& path, const FigureStyle& style);
    /// The source for a file the user picked: previewed, and mapped through the column dialog
    /// where needed. nullopt when it cannot be previewed (reported) or the dialog was cancelled.
    std::optional<CatalogSource> sourceForFile(const QString& path);
    /// One load for several picked files: the first as data when `firstIsData`, the rest randoms;
    /// of the second sample when `secondSample`.
    bool openCatalogFiles(QStringList paths, bool firstIsData, bool secondSample = false);
    /// The inputs as a result records them (see RunInputs).
    RunInputs currentInputs() const;

    const BackendRegistry m_backends;
    Options m_options;
    CatalogSet* m_catalogs = nullptr;
    RunController* m_run = nullptr;
    RecentFiles* m_recentFiles = nullptr;
    QHash<quint64, LoadIntent> m_loadIntents; // by CatalogSet change id
    QString m_lastDirectory;
    QByteArray m_defaultLayout;        // saveState() of the docks as arranged for this screen
    bool m_checkRestoredLayout = false; // a saved layout was restored: check it at first show
    QString m_lastExportDirectory; // "" until the first export: exports open in m_lastDirectory
    PlotExportSettings m_exportSettings;

    CatalogsPanel* m_catalogsPanel = nullptr;
    RunPanel* m_runPanel = nullptr;
    QDockWidget* m_resultsDock = nullptr;
    QLabel* m_loadLabel = nullptr;
    QProgressBar* m_loadBusy = nullptr;
    SkyPlot* m_skyPlot = nullptr;
    BinningPanel* m_binningPanel = nullptr;
    BackendPanel* m_backendPanel = nullptr;
    ErrorsPanel* m_errorsPanel = nullptr;
    PlotPanel* m_plotPanel = nullptr;
    ResultTableModel* m_resultModel = nullptr;
    ResultTableView* m_resultView = nullptr;
    QPlainTextEdit* m_log = nullptr;
    CompareRuns* m_compareRuns = nullptr;
    ComparePanel* m_comparePanel = nullptr;
    RunHistory* m_history = nullptr;
    RunHistoryPanel* m_historyPanel = nullptr;
    QDockWidget* m_compareDock = nullptr;
    ResultPtr m_shownResult;
    QList<QWidget*> m_inputPanels;

    QAction* m_openDataAction = nullptr;
    QAction* m_addRandomAction = nullptr;
    QAction* m_removeRandomAction = nullptr;
    QAction* m_maskRandomsAction = nullptr;
    QAction* m_setMaskAction = nullptr;
    QAction* m_clearMaskAction = nullptr;
    // File > Set Mask: the mask every run cuts its catalogs to (null: none), its file and
    // threshold, and the request whose result may still replace it.
    std::shared_ptr<const SkyMask> m_mask;
    QString m_maskPath;
    double m_maskThreshold = 0.0;
    quint64 m_maskGeneration = 0;
    QAction* m_openData2Action = nullptr;
    QAction* m_addRandom2Action = nullptr;
    QAction* m_removeSecondAction = nullptr;
    QAction* m_loadSampleAction = nullptr;
    QAction* m_openSessionAction = nullptr;
    QAction* m_saveSessionAction = nullptr;
    QAction* m_exportCsvAction = nullptr;
    QAction* m_exportCovarianceAction = nullptr;
    QAction* m_saveRegionsAction = nullptr;
    QAction* m_exportPlotAction = nullptr;
    QAction* m_addComparisonAction = nullptr;
    QAction* m_exportComparisonAction = nullptr;
    QAction* m_quitAction = nullptr;
    QAction* m_runAction = nullptr;
    QAction* m_cancelAction = nullptr;
    QAction* m_forgetCountsAction = nullptr;
    QAction* m_meanThetaPointsAction = nullptr; // View: w(θ) points at ⟨θ⟩ of DD
    QAction* m_aboutAction = nullptr;
    QMenu* m_recentMenu = nullptr;
    QMenu* m_viewMenu = nullptr;
    KernelLabWindow* m_kernelLab = nullptr; // a child: it lives as long as this window
    void updateKernelLabInputs();
};

} // namespace tpacf::ui

Q_DECLARE_METATYPE(tpacf::ui::MessageSeverity)
