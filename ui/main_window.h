#pragma once
// TPACF Studio's main window: catalogs, sky preview, bins, estimator and backend, run control,
// plots, results table and log. It configures CorrelationJobs and shows their results; the
// science is all in tpacf_core.
#include "catalog_loader.h"
#include "catalog_source.h"
#include "job_worker.h"
#include "plot_export.h"
#include "session.h"

#include <tpacf/backend.h>

#include <QJsonObject>
#include <QList>
#include <QMainWindow>
#include <QThread>
#include <QTimer>

#include <memory>

class QAction;
class QDockWidget;
class QLabel;
class QMenu;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QTreeWidget;

namespace tpacf::ui {

class BackendPanel;
class BinningPanel;
class ErrorsPanel;
class PlotPanel;
class ResultTableModel;
class ResultTableView;
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
    };

    /// `gpu` may be null (CPU only); it must outlive the window.
    explicit MainWindow(const GpuBackendProvider* gpu, Options options, QWidget* parent = nullptr);
    explicit MainWindow(const GpuBackendProvider* gpu = nullptr, QWidget* parent = nullptr);
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
    /// Loads the bundled sample (data + randoms); false when it is not built in.
    bool loadBundledSample();
    /// Whether catalogs are being read (Run and the catalog buttons are disabled meanwhile).
    bool isLoading() const { return !m_pendingLoads.isEmpty(); }
    std::shared_ptr<const Catalog> dataCatalog() const;
    std::vector<std::shared_ptr<const Catalog>> randomCatalogs() const;

    // --- Run.
    /// Starts a run with the current settings; false when one is running or the inputs are
    /// incomplete (see runBlockedReason()).
    bool startRun();
    void cancelRun();
    bool isRunning() const { return m_running; }
    /// Whether Run is enabled, and why not.
    bool canRun() const;
    QString runBlockedReason() const;
    QPushButton* runButton() const { return m_runButton; }
    QProgressBar* progressBar() const { return m_progressBar; }
    JobWorker* worker() const { return m_worker; }
    /// The last completed result; null before the first.
    ResultPtr currentResult() const { return m_result; }
    /// Whether the shown result was computed from inputs other than the current ones (catalogs,
    /// bins, estimator or error settings changed since): it stays on screen, marked as such.
    bool isResultStale() const { return m_resultStale; }

    // --- Panels, for tests.
    BinningPanel* binningPanel() const { return m_binningPanel; }
    BackendPanel* backendPanel() const { return m_backendPanel; }
    ErrorsPanel* errorsPanel() const { return m_errorsPanel; }
    PlotPanel* plotPanel() const { return m_plotPanel; }
    SkyPlot* skyPlot() const { return m_skyPlot; }
    ResultTableModel* resultModel() const { return m_resultModel; }
    ResultTableView* resultView() const { return m_resultView; }

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
    /// The jackknife covariance matrix as CSV (the core's writer); false without jackknife.
    bool exportCovarianceCsv(const QString& path);
    /// PNG or PDF by the file's suffix; `plot` is a PlotPanel::Plot (w, counts, covariance).
    bool exportPlot(int plot, const QString& path, const PlotExportSettings& settings);

    // --- Recent files: catalogs remember their role (and column mapping), so a recent random
    // --- catalog reopens as a random one.
    enum class RecentRole { Data, Random, Session };
    struct RecentFile {
        RecentRole role = RecentRole::Data;
        CatalogSource source; // for a session, only the path
        bool operator==(const RecentFile&) const = default;
    };
    /// Most recent first.
    const QList<RecentFile>& recentFiles() const { return m_recentFiles; }
    /// Reopens an entry of recentFiles() in its role (false when refused or unreadable).
    bool openRecentFile(int index);

    /// The one path every notice, warning and error takes: log, status bar, the
    /// messageReported signal and, in interactive mode, a message box for warnings and errors.
    void reportMessage(MessageSeverity severity, const QString& text);

Q_SIGNALS:
    void messageReported(tpacf::ui::MessageSeverity severity, const QString& text);
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
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    struct LoadedCatalog {
        CatalogSource source;
        std::shared_ptr<const Catalog> catalog;
    };

    void createActions();
    void createMenus();
    void createDocks();
    void restoreSettings();
    void saveSettings() const;
    void updateCatalogViews();
    void updateRunState();
    void updateTitle();
    void updateRecentMenu();

    /// A line in the log only (no status bar, signal or message box): details of a message.
    void logLine(MessageSeverity severity, const QString& text);
    void reportJackknife(const CorrelationResult& result);
    void onProgress(const JobProgressUpdate& update);
    void onFinished(const ResultPtr& result);
    void onFailed(const QString& message);
    void onCancelled();
    void setRunning(bool running);
    void refreshLivePlots();

    void openDataDialog();
    void addRandomDialog();
    void removeSelectedRandom();
    void openSessionDialog();
    void saveSessionDialog();
    void exportCsvDialog();
    void exportCovarianceDialog();
    void exportPlotDialog();
    void showAbout();

    /// A change of the loaded catalogs that waits for its files to be read.
    struct CatalogChange {
        bool replaceAll = false; // a session: the data and all randoms are replaced
        std::optional<CatalogSource> data;
        QList<CatalogSource> randoms;        // added (replaced with replaceAll)
        std::optional<RunSettings> settings; // a session's settings, applied with it
        bool reportEach = false;             // one "N points" message per catalog
        bool recordRecent = false;           // remember the files under File > Open Recent
        QString sessionPath;                 // a session file: remembered and reported
        QString doneMessage;                 // reported on success
    };
    struct PendingLoad {
        quint64 id = 0;
        CatalogChange change;
        QStringList names; // display names of the files, in reading order
        int reading = 0;   // index of the file being read
    };
    /// What a result was computed from: the catalogs (by identity) and the settings that change
    /// w(θ). The backend choice is not part of it (every backend gives the same counts).
    struct ResultInputs {
        std::shared_ptr<const Catalog> data;
        std::vector<std::shared_ptr<const Catalog>> randoms;
        QJsonObject settings;
        bool operator==(const ResultInputs&) const = default;
    };

    /// A session's catalogs and settings, replacing the window's.
    static CatalogChange sessionChange(const Session& session);
    bool queueCatalogChange(CatalogChange change);
    void onCatalogsRead(quint64 id, const CatalogList& catalogs);
    void onCatalogReadFailed(quint64 id, const QString& message);
    void onCatalogReading(quint64 id, int index);
    void updateLoadingIndicator();
    void updateInputsEnabled();
    /// The source for a file the user picked: previewed, and mapped through the column dialog
    /// where needed. nullopt when it cannot be previewed (reported) or the dialog was cancelled.
    /// Reports an error and returns true when `path` is a loaded catalog: an export or session
    /// (`what`) written there would destroy it.
    bool refuseOverwritingCatalog(const QString& path, const QString& what);
    std::optional<CatalogSource> sourceForFile(const QString& path);
    /// One load for several picked files: the first as data when `firstIsData`, the rest randoms.
    bool openCatalogFiles(QStringList paths, bool firstIsData);
    void startWorker(CorrelationParams params);
    ResultInputs currentInputs() const;
    void updateStaleState();
    void addRecentFile(const RecentFile& entry);

    const GpuBackendProvider* m_gpu;
    Options m_options;
    QThread m_workerThread;
    JobWorker* m_worker = nullptr;
    QThread m_loaderThread;
    CatalogLoader* m_loader = nullptr;
    QList<PendingLoad> m_pendingLoads; // in the order the loader answers them
    quint64 m_regionLoadId = 0;        // a run waiting for its region labels to be read
    CorrelationParams m_pendingRun;    // that run

    std::optional<LoadedCatalog> m_data;
    QList<LoadedCatalog> m_randoms;
    ResultPtr m_result;
    ResultInputs m_resultInputs; // what m_result was computed from
    ResultInputs m_runInputs;    // what the run in progress computes from
    bool m_resultStale = false;
    std::shared_ptr<const Catalog> m_runData; // the data catalog of the run in progress
    ResultPtr m_latestPartial;
    bool m_partialDirty = false;
    bool m_running = false;
    QTimer m_plotTimer;
    QString m_lastDirectory;
    QList<RecentFile> m_recentFiles;
    PlotExportSettings m_exportSettings;

    QTreeWidget* m_catalogTree = nullptr;
    QList<QPushButton*> m_catalogButtons;
    QDockWidget* m_resultsDock = nullptr;
    QLabel* m_staleLabel = nullptr;
    QLabel* m_loadLabel = nullptr;
    QProgressBar* m_loadBusy = nullptr;
    SkyPlot* m_skyPlot = nullptr;
    BinningPanel* m_binningPanel = nullptr;
    BackendPanel* m_backendPanel = nullptr;
    ErrorsPanel* m_errorsPanel = nullptr;
    QPushButton* m_runButton = nullptr;
    QPushButton* m_cancelButton = nullptr;
    QProgressBar* m_progressBar = nullptr;
    QLabel* m_rateLabel = nullptr;
    QLabel* m_runReason = nullptr;
    PlotPanel* m_plotPanel = nullptr;
    ResultTableModel* m_resultModel = nullptr;
    ResultTableView* m_resultView = nullptr;
    QPlainTextEdit* m_log = nullptr;
    QList<QWidget*> m_inputPanels;

    QAction* m_openDataAction = nullptr;
    QAction* m_addRandomAction = nullptr;
    QAction* m_removeRandomAction = nullptr;
    QAction* m_loadSampleAction = nullptr;
    QAction* m_openSessionAction = nullptr;
    QAction* m_saveSessionAction = nullptr;
    QAction* m_exportCsvAction = nullptr;
    QAction* m_exportCovarianceAction = nullptr;
    QAction* m_exportPlotAction = nullptr;
    QAction* m_quitAction = nullptr;
    QAction* m_runAction = nullptr;
    QAction* m_cancelAction = nullptr;
    QAction* m_aboutAction = nullptr;
    QMenu* m_recentMenu = nullptr;
    QMenu* m_viewMenu = nullptr;
};

} // namespace tpacf::ui

Q_DECLARE_METATYPE(tpacf::ui::MessageSeverity)
