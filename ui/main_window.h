#pragma once
// TPACF Studio's main window: catalogs, sky preview, bins, estimator and backend, run control,
// plots, results table and log. It configures CorrelationJobs and shows their results; the
// science is all in tpacf_core.
#include "catalog_source.h"
#include "job_worker.h"
#include "plot_export.h"
#include "session.h"

#include <tpacf/backend.h>

#include <QList>
#include <QMainWindow>
#include <QThread>
#include <QTimer>

#include <memory>

class QAction;
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

    // --- Catalogs. Each returns false (and reports why) when the file cannot be read; the
    // --- catalogs loaded before stay as they were.
    bool setDataCatalog(const CatalogSource& source);
    bool addRandomCatalog(const CatalogSource& source);
    void removeRandomCatalog(int index);
    /// Opens a file as data or random, through the column-mapping dialog where the file needs one
    /// (interactive mode only; otherwise the reader's defaults).
    bool openCatalogFile(const QString& path, bool asRandom);
    /// Loads the bundled sample (data + randoms); false when it is not built in.
    bool loadBundledSample();
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
    /// Applies every setting and reloads the catalogs; false (state unchanged) when one cannot
    /// be read.
    bool applySession(const Session& session);
    bool saveSession(const QString& path);
    bool loadSession(const QString& path);
    bool exportResultCsv(const QString& path);
    /// The jackknife covariance matrix as CSV (the core's writer); false without jackknife.
    bool exportCovarianceCsv(const QString& path);
    /// PNG or PDF by the file's suffix; `plot` is a PlotPanel::Plot (w, counts, covariance).
    bool exportPlot(int plot, const QString& path, const PlotExportSettings& settings);

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
    std::optional<LoadedCatalog> readCatalogSource(const CatalogSource& source);
    void updateCatalogViews();
    void updateRunState();
    void updateTitle();
    void addRecentFile(const QString& path);
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

    const GpuBackendProvider* m_gpu;
    Options m_options;
    QThread m_workerThread;
    JobWorker* m_worker = nullptr;

    std::optional<LoadedCatalog> m_data;
    QList<LoadedCatalog> m_randoms;
    ResultPtr m_result;
    std::shared_ptr<const Catalog> m_runData; // the data catalog of the run in progress
    ResultPtr m_latestPartial;
    bool m_partialDirty = false;
    bool m_running = false;
    QTimer m_plotTimer;
    QString m_lastDirectory;
    QStringList m_recentFiles;
    PlotExportSettings m_exportSettings;

    QTreeWidget* m_catalogTree = nullptr;
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
