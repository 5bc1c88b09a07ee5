// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli/plot_output.h"

#include "cli/args.h"
#include "cli/options.h"
#include "tpacf/correlation_job.h"
#include "tpacf/errors.h"
#include "tpacf/power_law_fit.h"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string_view>
#include <system_error>

// Set by app/CMakeLists.txt where the figure library (tpacf_figure, ui/figure/) is built; the
// headless CLI links no Qt.
#if TPACF_CLI_HAVE_PLOT
#include "correlation_figure.h"
#include "figure_style.h"
#include "plot_export.h"

#include <QApplication>
#include <QFile>
#include <QString>
#endif

namespace tpacf::cli {

namespace {

/// The suffix without the dot, lower case ("" when none).
std::string lowerSuffix(const std::string& path) {
    std::string suffix = std::filesystem::path(path).extension().string();
    if (!suffix.empty())
        suffix.erase(0, 1);
    for (char& c : suffix)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return suffix;
}

} // namespace

#if TPACF_CLI_HAVE_PLOT

bool plotsAvailable() {
    return true;
}

bool svgPlotsAvailable() {
    return ui::svgSupported();
}

namespace {

QtMessageHandler qtHandler = nullptr; // the one filterQtMessages() passes messages on to

/// Drops Qt's notice that XDG_RUNTIME_DIR is unset (usual in batch jobs and containers, and of
/// no matter for drawing a file); every other Qt message goes where Qt would send it.
void filterQtMessages(QtMsgType type, const QMessageLogContext& context, const QString& text) {
    if (type == QtWarningMsg && text.startsWith(QLatin1String("QStandardPaths: XDG_RUNTIME_DIR")))
        return;
    qtHandler(type, context, text);
}

QtMessageHandler installMessageFilter() {
    qtHandler = qInstallMessageHandler(filterQtMessages);
    return qtHandler;
}

} // namespace

struct PlotOutput::Gui {
    // QApplication keeps a reference to argc: these live as long as it does.
    int argc = 1;
    char name[6] = "tpacf";
    char* argv[2] = {name, nullptr};
    QtMessageHandler previousHandler = installMessageFilter(); // before Qt starts talking
    QApplication app{argc, argv};
    ui::FigureStyle style; // the app's default unless --plot-style gives one

    ~Gui() { qInstallMessageHandler(previousHandler); }
};

#else

bool plotsAvailable() {
    return false;
}

bool svgPlotsAvailable() {
    return false;
}

struct PlotOutput::Gui {};

#endif

PlotOutput::PlotOutput(std::string path, std::optional<std::string> stylePath)
    : m_path(std::move(path)) {
    if (!plotsAvailable())
        throw UsageError("--plot: this build of tpacf has no plotting (it links no Qt: built "
                         "with TPACF_GUI=OFF or TPACF_CLI_PLOT=OFF, as the Debian package is); "
                         "plot the CSV instead, export the figure from TPACF Studio, or use a "
                         "build with plotting");
    const std::string suffix = lowerSuffix(m_path);
    if (suffix == "svg" && !svgPlotsAvailable())
        throw UsageError("--plot: " + quote(m_path) +
                         ": SVG is not supported by this build (built without Qt Svg); use "
                         ".png, or .pdf for a vector figure");
    if (suffix != "png" && suffix != "pdf" && suffix != "svg")
        throw UsageError("--plot: " + quote(m_path) + " must end in .png, .pdf" +
                         (svgPlotsAvailable() ? " or .svg" : " (or .svg where built in)") +
                         " (the suffix picks the format)");
#if TPACF_CLI_HAVE_PLOT
    // A command-line tool never needs a display: draw offscreen unless the user chose otherwise.
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    m_gui = std::make_unique<Gui>();
    if (stylePath) {
        QString error;
        const std::optional<ui::FigureStyle> style =
            ui::loadFigureStyleFile(QFile::decodeName(stylePath->c_str()), &error);
        if (!style)
            throw InputError("--plot-style: " + error.toStdString());
        m_gui->style = *style;
    }
#else
    static_cast<void>(stylePath);
#endif
}

PlotOutput::~PlotOutput() = default;

void PlotOutput::write([[maybe_unused]] const CorrelationResult& result,
                       [[maybe_unused]] const PowerLawFit* fit,
                       [[maybe_unused]] const PowerLawFitOptions* fitOptions) const {
#if TPACF_CLI_HAVE_PLOT
    std::optional<ui::FitCurve> curve;
    if (fit)
        curve = ui::FitCurve{*fit, fitOptions ? *fitOptions : PowerLawFitOptions{}};
    QString error;
    if (!ui::exportCorrelationPlot(result, QFile::decodeName(m_path.c_str()), m_gui->style, curve,
                                   &error))
        throw InputError(error.toStdString());
#else
    throw std::logic_error("--plot in a build without plotting");
#endif
}

} // namespace tpacf::cli
