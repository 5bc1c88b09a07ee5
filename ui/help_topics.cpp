// SPDX-License-Identifier: GPL-3.0-or-later
#include "help_topics.h"

#include <QCoreApplication>
#include <QPair>
#include <QWidget>

#include <mutex>

// Resources of a static library must be registered explicitly (outside any namespace).
static void registerHelpResources() {
    Q_INIT_RESOURCE(help);
}

namespace tpacf::ui {

namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("tpacf::ui::HelpTopics", text);
}

HelpTopic topic(const char* page, const char* anchor = "") {
    return {QString(), QString::fromLatin1(page), QString::fromLatin1(anchor)};
}

} // namespace

void initHelpResources() {
    static std::once_flag once;
    std::call_once(once, registerHelpResources);
}

QUrl HelpTopic::url() const {
    QUrl url(QStringLiteral("qrc:/help/") + page);
    if (!anchor.isEmpty())
        url.setFragment(anchor);
    return url;
}

const QList<HelpTopic>& helpPages() {
    static const QList<HelpTopic> pages = {
        {tr("Overview"), QStringLiteral("index.html"), {}},
        {tr("Catalogs and units"), QStringLiteral("catalogs.html"), {}},
        {tr("Bins"), QStringLiteral("bins.html"), {}},
        {tr("Estimators"), QStringLiteral("estimators.html"), {}},
        {tr("Error bars (jackknife)"), QStringLiteral("errors.html"), {}},
        {tr("Backends and precision"), QStringLiteral("backends.html"), {}},
        {tr("Running"), QStringLiteral("running.html"), {}},
        {tr("Results and export"), QStringLiteral("results.html"), {}},
        {tr("Command line"), QStringLiteral("cli.html"), {}},
    };
    initHelpResources();
    return pages;
}

QUrl helpHomeUrl() {
    return helpPages().front().url();
}

QList<QPair<QString, HelpTopic>> helpContextTopics() {
    // Nearest ancestor first, and within one widget the first entry that matches. A key with
    // "::" is a class (subclasses match too); any other key is an object name: the docks' names
    // are fixed because saveState() depends on them.
    static const QList<QPair<QString, HelpTopic>> table = {
        {QStringLiteral("tpacf::ui::ColumnMappingDialog"),
         topic("catalogs.html", "column-mapping")},
        {QStringLiteral("tpacf::ui::PlotExportDialog"), topic("results.html", "export-plots")},
        {QStringLiteral("tpacf::ui::SkyPlot"), topic("catalogs.html", "sky-preview")},
        {QStringLiteral("skyDock"), topic("catalogs.html", "sky-preview")},
        {QStringLiteral("catalogsDock"), topic("catalogs.html", "catalogs-panel")},
        {QStringLiteral("tpacf::ui::CatalogsPanel"), topic("catalogs.html", "catalogs-panel")},
        {QStringLiteral("binningDock"), topic("bins.html")},
        {QStringLiteral("tpacf::ui::BinningPanel"), topic("bins.html")},
        {QStringLiteral("estimatorCombo"), topic("estimators.html")},
        {QStringLiteral("backendCombo"), topic("backends.html", "backend")},
        {QStringLiteral("threadsSpin"), topic("backends.html", "threads")},
        {QStringLiteral("precisionCombo"), topic("backends.html", "precision")},
        {QStringLiteral("cullingCombo"), topic("backends.html", "culling")},
        {QStringLiteral("tpacf::ui::ErrorsPanel"), topic("errors.html")},
        {QStringLiteral("tpacf::ui::BackendPanel"), topic("backends.html")},
        {QStringLiteral("backendDock"), topic("backends.html")},
        {QStringLiteral("runDock"), topic("running.html")},
        {QStringLiteral("tpacf::ui::RunPanel"), topic("running.html")},
        {QStringLiteral("tpacf::ui::CovarianceView"), topic("errors.html", "covariance")},
        {QStringLiteral("tpacf::ui::PlotPanel"), topic("results.html", "plots")},
        {QStringLiteral("resultsDock"), topic("results.html", "table")},
        {QStringLiteral("tpacf::ui::ResultTableView"), topic("results.html", "table")},
        {QStringLiteral("logDock"), topic("running.html", "log")},
    };
    return table;
}

QUrl helpUrlForWidget(const QWidget* widget) {
    const QList<QPair<QString, HelpTopic>> table = helpContextTopics();
    for (const QWidget* w = widget; w; w = w->parentWidget()) {
        for (const auto& [key, section] : table) {
            const bool match = key.contains(QStringLiteral("::"))
                                   ? w->inherits(key.toLatin1().constData())
                                   : w->objectName() == key;
            if (match)
                return section.url();
        }
    }
    return helpHomeUrl();
}

} // namespace tpacf::ui
