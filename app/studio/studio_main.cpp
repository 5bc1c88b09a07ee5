// SPDX-License-Identifier: GPL-3.0-or-later
// tpacf-studio: the desktop application. Thin: application, backends, main window.
#include "errors_panel.h"
#include "event_loop_watch.h"
#include "main_window.h"
#include "plot_panel.h"

#include <tpacf/cuda/cuda_backend.h>
#include <tpacf/cuda/cuda_lab.h>
#if TPACF_HAVE_FCS
#include <tpacf/cuda/cuda_correlator.h>
#endif
#include <tpacf/version.h>

#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QStatusBar>
#include <QStandardPaths>
#include <QTimer>

#include <memory>
#include <string_view>

#include <csignal>
#include <cstdio>
#include <cstdlib>

namespace {

// The command line, declared once for the two ways through main(): --help and --version answered
// without a display, and the window's run.
struct StudioOptions {
    QCommandLineOption screenshot{QStringLiteral("screenshot"),
                                  QStringLiteral("Run, save a screenshot to PATH, quit."),
                                  QStringLiteral("PATH")};
    QCommandLineOption screenshotTab{QStringLiteral("screenshot-tab"),
                                     QStringLiteral("Plot tab to show: w, counts or covariance."),
                                     QStringLiteral("TAB"), QStringLiteral("w")};
    QCommandLineOption screenshotJackknife{
        QStringLiteral("screenshot-jackknife"),
        QStringLiteral("Run with jackknife error bars over K regions."), QStringLiteral("K")};
    QCommandLineOption stallLog{
        QStringLiteral("stall-log"),
        QStringLiteral("Write how long the event loop was ever kept away (stalls) to PATH at quit."),
        QStringLiteral("PATH")};
};

void describeApplication() {
    QCoreApplication::setOrganizationName(QStringLiteral("TPACF"));
    QCoreApplication::setApplicationName(QStringLiteral("TPACF Studio"));
    QCoreApplication::setApplicationVersion(QString::fromLatin1(tpacf::version()));
}

void describeCommandLine(QCommandLineParser& parser, StudioOptions& options) {
    parser.setApplicationDescription(
        QStringLiteral("Two-point angular correlation function w(θ) on GPU and CPU."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("session"),
                                 QStringLiteral("A session (.json) or data catalog to open."));
    // Hidden helpers for documentation screenshots: run, grab the window, quit.
    for (QCommandLineOption* option :
         {&options.screenshot, &options.screenshotTab, &options.screenshotJackknife,
          &options.stallLog}) {
        option->setFlags(QCommandLineOption::HiddenFromHelp);
        parser.addOption(*option);
    }
}

// What the words ask of the program before any window. Words after "--" are file names.
enum class TextRequest { None, HelpOrVersion, HelpAll };
TextRequest textRequest(int argc, char** argv) {
    TextRequest request = TextRequest::None;
    for (int i = 1; i < argc; ++i) {
        const std::string_view word = argv[i];
        if (word == "--")
            break;
        if (word == "--help-all")
            return TextRequest::HelpAll;
        // Short options may come compacted ("-hv"), as QCommandLineParser reads them.
        if (word == "--help" || word == "--version" ||
            (word.size() > 1 && word[0] == '-' && word[1] != '-' &&
             word.find_first_not_of("hv?", 1) == std::string_view::npos))
            request = TextRequest::HelpOrVersion;
    }
    return request;
}

// Prints what QCommandLineParser prints for --help or --version (it exits) without a
// QApplication, which would need a display.
int answerTextRequest(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    describeApplication();
    QCommandLineParser parser;
    StudioOptions options;
    describeCommandLine(parser, options);
    parser.process(app); // exits: 0 after the help or the version, 1 on a bad word before it
    return 0;
}

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
    // --help and --version need no display: answered without a QApplication. --help-all lists
    // the GUI's Qt options, which only a QApplication knows: it takes that path where it can.
    if (const TextRequest request = textRequest(argc, argv);
        request == TextRequest::HelpOrVersion ||
        (request == TextRequest::HelpAll && displayMissing()))
        return answerTextRequest(argc, argv);
    if (displayMissing()) {
        std::fputs("tpacf-studio: no display (DISPLAY and WAYLAND_DISPLAY are unset).\n"
                   "Use the command-line tool instead, e.g.\n"
                   "  tpacf run --data D.txt --random R.txt --output result.csv\n"
                   "or run the GUI headless with QT_QPA_PLATFORM=offscreen.\n",
                   stderr);
        return 2;
    }
    // Over a file-size limit an export fails with EFBIG (a message) instead of SIGXFSZ
    // killing the application.
    std::signal(SIGXFSZ, SIG_IGN);
    QApplication app(argc, argv);
    describeApplication();
    QApplication::setDesktopFileName(QStringLiteral("io.github.tpacf.studio"));

    QCommandLineParser parser;
    StudioOptions studioOptions;
    describeCommandLine(parser, studioOptions);
    parser.process(app);
    const QCommandLineOption& screenshot = studioOptions.screenshot;
    const QCommandLineOption& screenshotTab = studioOptions.screenshotTab;
    const QCommandLineOption& screenshotJackknife = studioOptions.screenshotJackknife;

    // The one place the studio names its backend modules and, beside them, the side tools'
    // providers: a new one is one more add().
    tpacf::BackendRegistry backends;
    backends.add(tpacf::cuda::makeProvider());
    tpacf::ui::MainWindow::Options options;
    auto labProviders = std::make_shared<tpacf::lab::LabRegistry>();
    labProviders->add(tpacf::cuda::makeLabProvider());
    options.labProviders = std::move(labProviders);
#if TPACF_HAVE_FCS
    auto correlators = std::make_shared<tpacf::fcs::CorrelatorRegistry>();
    correlators->add(tpacf::cuda::makeCorrelatorProvider());
    options.correlators = std::move(correlators);
#endif
    if (parser.isSet(screenshot))
        options.useSettings = false; // documentation shots show the defaults
    else // the work of the last quit, reopened unless the command line names what to open
        options.autoSessionPath =
            QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation))
                .filePath(QStringLiteral("last-session.json"));
    options.reopenAutoSession = parser.positionalArguments().isEmpty();
    tpacf::ui::MainWindow window(backends, options);
    window.show();
    // The benchmark of big catalogs: every stall of the event loop, with what the window did.
    std::unique_ptr<tpacf::ui::EventLoopWatch> watch;
    if (parser.isSet(studioOptions.stallLog)) {
        watch = std::make_unique<tpacf::ui::EventLoopWatch>([&window] {
            return QStringLiteral("%1%2%3")
                .arg(window.isLoading() ? QStringLiteral("loading; ") : QString(),
                     window.isRunning() ? QStringLiteral("running; ") : QString(),
                     window.statusBar()->currentMessage());
        });
        QObject::connect(&app, &QCoreApplication::aboutToQuit, [&watch, &parser, &studioOptions] {
            QFile log(parser.value(studioOptions.stallLog));
            if (log.open(QIODevice::WriteOnly | QIODevice::Text))
                log.write(watch->report().toUtf8());
        });
    }

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
