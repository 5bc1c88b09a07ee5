// tpacf-studio: the desktop application. Thin: application, backends, main window.
#include "errors_panel.h"
#include "main_window.h"
#include "plot_panel.h"

#include <tpacf/cuda/cuda_backend.h>
#include <tpacf/version.h>

#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>

#include <memory>

#include <cstdio>
#include <cstdlib>

namespace {
// On X11/Wayland systems without a display Qt aborts with a plugin error; say what to do instead.
bool displayMissing() {
#if defined(Q_OS_UNIX) && !defined(Q_OS_MACOS)
    const auto unset = [](const char* name) {
        const char* value = std::getenv(name);
        return !value || !*value;
    };
    return unset("DISPLAY") && unset("WAYLAND_DISPLAY") && unset("QT_QPA_PLATFORM");
#else
    return false;
#endif
}
} // namespace

int main(int argc, char** argv) {
    if (displayMissing()) {
        std::fputs("tpacf-studio: no display (DISPLAY and WAYLAND_DISPLAY are unset).\n"
                   "Use the command-line tool instead, e.g.\n"
                   "  tpacf run --data D.txt --random R.txt --output result.csv\n"
                   "or run the GUI headless with QT_QPA_PLATFORM=offscreen.\n",
                   stderr);
        return 2;
    }
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("TPACF"));
    QApplication::setApplicationName(QStringLiteral("TPACF Studio"));
    QApplication::setApplicationVersion(QString::fromLatin1(tpacf::version()));
    QApplication::setDesktopFileName(QStringLiteral("tpacf-studio"));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Two-point angular correlation function w(θ) on GPU and CPU."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("session"),
                                 QStringLiteral("A session (.json) or data catalog to open."));
    // Hidden helpers for documentation screenshots: run, grab the window, quit.
    QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                  QStringLiteral("Run, save a screenshot to PATH, quit."),
                                  QStringLiteral("PATH"));
    screenshot.setFlags(QCommandLineOption::HiddenFromHelp);
    QCommandLineOption screenshotTab(QStringLiteral("screenshot-tab"),
                                     QStringLiteral("Plot tab to show: w, counts or covariance."),
                                     QStringLiteral("TAB"), QStringLiteral("w"));
    screenshotTab.setFlags(QCommandLineOption::HiddenFromHelp);
    QCommandLineOption screenshotJackknife(
        QStringLiteral("screenshot-jackknife"),
        QStringLiteral("Run with jackknife error bars over K regions."), QStringLiteral("K"));
    screenshotJackknife.setFlags(QCommandLineOption::HiddenFromHelp);
    parser.addOption(screenshot);
    parser.addOption(screenshotTab);
    parser.addOption(screenshotJackknife);
    parser.process(app);

    // The one place the studio names its backend modules: a new backend is one more add().
    tpacf::BackendRegistry backends;
    backends.add(tpacf::cuda::makeProvider());
    tpacf::ui::MainWindow::Options options;
    if (parser.isSet(screenshot))
        options.useSettings = false; // documentation shots show the defaults
    tpacf::ui::MainWindow window(backends, options);
    window.show();

    if (!parser.positionalArguments().isEmpty()) {
        const QString path = parser.positionalArguments().constFirst();
        if (path.endsWith(QStringLiteral(".json"), Qt::CaseInsensitive))
            window.loadSession(path);
        else
            window.openCatalogFile(path, false);
    }

    if (parser.isSet(screenshot)) {
        const QString path = parser.value(screenshot);
        if (parser.value(screenshotTab) == QStringLiteral("counts"))
            window.plotPanel()->setCurrentPlot(tpacf::ui::PlotPanel::Plot::PairCounts);
        else if (parser.value(screenshotTab) == QStringLiteral("covariance"))
            window.plotPanel()->setCurrentPlot(tpacf::ui::PlotPanel::Plot::Covariance);
        if (parser.isSet(screenshotJackknife)) {
            tpacf::ui::ErrorSettings errors;
            errors.method = tpacf::ui::ErrorSettings::Method::Regions;
            errors.regions = parser.value(screenshotJackknife).toInt();
            window.errorsPanel()->setSettings(errors);
        }
        QObject::connect(&window, &tpacf::ui::MainWindow::runFinished, &window, [&window, path] {
            // Let queued replots and layout settle before grabbing.
            QTimer::singleShot(800, &window, [&window, path] {
                window.grab().save(path);
                QApplication::quit();
            });
        });
        // Catalogs are read on a loader thread: run once the last queued load has finished.
        const auto started = std::make_shared<bool>(false);
        const auto runWhenLoaded = [&window, started] {
            if (!*started && !window.isLoading())
                *started = window.startRun();
        };
        QObject::connect(&window, &tpacf::ui::MainWindow::loadFinished, &window, runWhenLoaded);
        QTimer::singleShot(500, &window, runWhenLoaded);
    }
    return app.exec();
}
