// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli/plot_output.h"

#include "cli/args.h"
#include "cli/options.h"
#include "tpacf/correlation_job.h"
#include "tpacf/errors.h"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string_view>
#include <system_error>

// Set by app/CMakeLists.txt where the GUI library is built; the headless CLI links no Qt.
#if TPACF_CLI_HAVE_PLOT
#include "headless_plot.h"

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

    ~Gui() { qInstallMessageHandler(previousHandler); }
};

#else

bool plotsAvailable() {
    return false;
}

struct PlotOutput::Gui {};

#endif

PlotOutput::PlotOutput(std::string path) : m_path(std::move(path)) {
    if (!plotsAvailable())
        throw UsageError("--plot: this build of tpacf has no plotting (built without Qt, "
                         "TPACF_GUI=OFF); plot the CSV instead, or use a build with the GUI");
    const std::string suffix = lowerSuffix(m_path);
    if (suffix == "svg")
        throw UsageError("--plot: " + quote(m_path) +
                         ": SVG is not supported; use .png, or .pdf for a vector figure");
    if (suffix != "png" && suffix != "pdf")
        throw UsageError("--plot: " + quote(m_path) +
                         " must end in .png or .pdf (the suffix picks the format)");
#if TPACF_CLI_HAVE_PLOT
    // A command-line tool never needs a display: draw offscreen unless the user chose otherwise.
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    m_gui = std::make_unique<Gui>();
#endif
}

PlotOutput::~PlotOutput() = default;

void PlotOutput::write([[maybe_unused]] const CorrelationResult& result) const {
#if TPACF_CLI_HAVE_PLOT
    const auto shared = std::make_shared<const CorrelationResult>(result);
    const ui::PlotExportSettings settings; // the app's default: 1800 x 1200 px at 300 dpi
    QString error;
    if (!ui::exportCorrelationPlot(shared, QFile::decodeName(m_path.c_str()), settings, &error))
        throw InputError(error.toStdString());
#else
    throw std::logic_error("--plot in a build without plotting");
#endif
}

} // namespace tpacf::cli
