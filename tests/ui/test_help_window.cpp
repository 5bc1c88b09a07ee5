// SPDX-License-Identifier: GPL-3.0-or-later
// Help > User Guide: the bundled pages, their sections and links exist and name what the program
// offers; F1 opens the section of the focused panel, the menu entry the first page; the View menu
// shows dock titles with "&" literally; the backend panel's tooltips explain each choice.
#include "backend_panel.h"
#include "binning_panel.h"
#include "catalogs_panel.h"
#include "errors_panel.h"
#include "help_topics.h"
#include "help_window.h"
#include "main_window.h"
#include "plot_panel.h"
#include "result_table.h"
#include "tpacf_test_main.h"

#include <tpacf/estimator.h>

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QTest>
#include <QTextBrowser>
#include <QTreeWidget>

using namespace tpacf;
using namespace tpacf::ui;

namespace {

// Removes the mnemonic marks as a menu does when it draws an action's text: "&&" shows "&",
// "&x" shows "x".
QString shownText(const QString& text) {
    QString shown;
    for (qsizetype i = 0; i < text.size(); ++i) {
        if (text[i] == QLatin1Char('&') && i + 1 < text.size())
            ++i;
        shown += text[i];
    }
    return shown;
}

} // namespace

class TestHelpWindow : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void guidePagesSectionsAndLinksExist();
    void f1OpensTheFocusedPanelsSection_data();
    void f1OpensTheFocusedPanelsSection();
    void viewMenuShowsDockTitlesLiterally();
    void backendPanelTooltipsExplainTheChoices();
};

void TestHelpWindow::guidePagesSectionsAndLinksExist() {
    initHelpResources();
    QHash<QString, QString> pages; // file name -> HTML
    for (const HelpTopic& page : helpPages()) {
        QFile file(QStringLiteral(":/help/") + page.page);
        QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(page.page));
        pages[page.page] = QString::fromUtf8(file.readAll());
        QVERIFY2(pages[page.page].contains(QStringLiteral("<title>")), qPrintable(page.page));
    }
    const auto hasAnchor = [&](const QString& page, const QString& anchor) {
        return anchor.isEmpty() ||
               pages.value(page).contains(QStringLiteral("name=\"%1\"").arg(anchor));
    };
    for (const auto& [key, section] : helpContextTopics())
        QVERIFY2(pages.contains(section.page) && hasAnchor(section.page, section.anchor),
                 qPrintable(key + QStringLiteral(" -> ") + section.url().toString()));
    // Every link between pages lands on a page and section that exist.
    const QRegularExpression link(QStringLiteral("href=\"([^\"#:]*)(?:#([^\"]*))?\""));
    int links = 0;
    for (auto it = pages.cbegin(); it != pages.cend(); ++it) {
        for (const QRegularExpressionMatch& match : link.globalMatch(it.value())) {
            const QString target = match.captured(1).isEmpty() ? it.key() : match.captured(1);
            if (target.endsWith(QStringLiteral(".css")))
                continue;
            ++links;
            QVERIFY2(pages.contains(target) && hasAnchor(target, match.captured(2)),
                     qPrintable(it.key() + QStringLiteral(": ") + match.captured(0)));
        }
    }
    QVERIFY(links > 20);
    // The guide names what the program offers: every estimator and the CLI's keys.
    for (const EstimatorInfo& info : estimators()) {
        QString name = QString::fromLatin1(info.name);
        name.replace(QLatin1Char('-'), QStringLiteral("–")); // the guide's en dash
        QVERIFY2(pages.value(QStringLiteral("estimators.html")).contains(name), qPrintable(name));
        QVERIFY(pages.value(QStringLiteral("estimators.html"))
                    .contains(QStringLiteral("<code>%1</code>").arg(QLatin1String(info.key))));
    }
}

void TestHelpWindow::f1OpensTheFocusedPanelsSection_data() {
    QTest::addColumn<QString>("widget");
    QTest::addColumn<QString>("url");
    QTest::newRow("binning") << QStringLiteral("binning min")
                             << QStringLiteral("qrc:/help/bins.html");
    QTest::newRow("estimator") << QStringLiteral("estimator")
                               << QStringLiteral("qrc:/help/estimators.html");
    QTest::newRow("precision") << QStringLiteral("precision")
                               << QStringLiteral("qrc:/help/backends.html#precision");
    QTest::newRow("culling") << QStringLiteral("culling")
                             << QStringLiteral("qrc:/help/backends.html#culling");
    QTest::newRow("errors") << QStringLiteral("errors") << QStringLiteral("qrc:/help/errors.html");
    QTest::newRow("catalogs") << QStringLiteral("catalogs")
                              << QStringLiteral("qrc:/help/catalogs.html#catalogs-panel");
    QTest::newRow("results") << QStringLiteral("results")
                             << QStringLiteral("qrc:/help/results.html#table");
    QTest::newRow("plots") << QStringLiteral("plots")
                           << QStringLiteral("qrc:/help/results.html#plots");
}

void TestHelpWindow::f1OpensTheFocusedPanelsSection() {
    QFETCH(QString, widget);
    QFETCH(QString, url);
    MainWindow window(BackendRegistry{}, MainWindow::Options{false, false, false});
    window.show();
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    QWidget* target = nullptr;
    if (widget == QStringLiteral("binning min"))
        target = window.binningPanel()->minSpin();
    else if (widget == QStringLiteral("estimator"))
        target = window.backendPanel()->estimatorCombo();
    else if (widget == QStringLiteral("precision"))
        target = window.backendPanel()->precisionCombo();
    else if (widget == QStringLiteral("culling"))
        target = window.backendPanel()->cullingCombo();
    else if (widget == QStringLiteral("errors"))
        target = window.errorsPanel()->methodCombo();
    else if (widget == QStringLiteral("catalogs"))
        target = window.catalogsPanel()->findChild<QTreeWidget*>();
    else if (widget == QStringLiteral("results"))
        target = window.resultView();
    else if (widget == QStringLiteral("plots"))
        target = window.plotPanel()->findChild<QPushButton*>();
    QVERIFY(target);
    target->setFocus(Qt::OtherFocusReason);
    QVERIFY(QTest::qWaitFor([&] { return QApplication::focusWidget() == target; }));
    QTest::keyClick(target, Qt::Key_F1);
    auto* help = window.findChild<HelpWindow*>(QStringLiteral("helpWindow"));
    QVERIFY(help);
    QVERIFY(help->isVisible());
    QCOMPARE(help->browser()->source(), QUrl(url));
    QVERIFY(!help->browser()->toPlainText().isEmpty());

    // The menu entry opens the guide's first page, whatever has the focus.
    auto* guide = window.findChild<QAction*>(QStringLiteral("userGuideAction"));
    QVERIFY(guide);
    QCOMPARE(guide->shortcut(), QKeySequence(QKeySequence::HelpContents));
    guide->trigger();
    QCOMPARE(help->browser()->source(), QUrl(QStringLiteral("qrc:/help/index.html")));
    QCOMPARE(window.findChildren<HelpWindow*>().size(), 1); // the one window, reused
}

void TestHelpWindow::viewMenuShowsDockTitlesLiterally() {
    MainWindow window(BackendRegistry{}, MainWindow::Options{false, false, false});
    QMenu* view = nullptr;
    for (QAction* action : window.menuBar()->actions())
        if (shownText(action->text()) == QStringLiteral("View"))
            view = action->menu();
    QVERIFY(view);
    const QList<QDockWidget*> docks = window.findChildren<QDockWidget*>();
    QVERIFY(docks.size() >= 5);
    for (QDockWidget* dock : docks) {
        QVERIFY(view->actions().contains(dock->toggleViewAction()));
        QCOMPARE(shownText(dock->toggleViewAction()->text()), dock->windowTitle());
    }
    // A title with an "&" (once "Estimator, Errors & Backend"; the dock tabs still take it as a
    // mnemonic, so the titles avoid it) and one that changes later (the Results dock's
    // "previous inputs") show literally.
    docks.front()->setWindowTitle(QStringLiteral("Plots & Tables && more"));
    QCOMPARE(shownText(docks.front()->toggleViewAction()->text()),
             QStringLiteral("Plots & Tables && more"));
}

void TestHelpWindow::backendPanelTooltipsExplainTheChoices() {
    BackendPanel panel(BackendRegistry{});
    QVERIFY(panel.estimatorCombo()->toolTip().contains(QStringLiteral("Landy-Szalay")));
    for (int i = 0; i < panel.estimatorCombo()->count(); ++i) {
        const auto id = Estimator(panel.estimatorCombo()->itemData(i).toInt());
        const QString tip = panel.estimatorCombo()->itemData(i, Qt::ToolTipRole).toString();
        QVERIFY2(tip.startsWith(QString::fromLatin1(estimatorFormula(id))), qPrintable(tip));
        QVERIFY2(tip.size() > int(estimatorFormula(id).size()) + 10, qPrintable(tip)); // and why
    }
    panel.setCrossMode(true);
    QVERIFY(panel.estimatorCombo()->toolTip().contains(QStringLiteral("D1D2")));

    QVERIFY(panel.backendCombo()->toolTip().contains(QStringLiteral("CPU")));
    for (int i = 0; i < panel.backendCombo()->count(); ++i)
        QVERIFY(!panel.backendCombo()->itemData(i, Qt::ToolTipRole).toString().isEmpty());
    for (int i = 0; i < panel.precisionCombo()->count(); ++i)
        QVERIFY(!panel.precisionCombo()->itemData(i, Qt::ToolTipRole).toString().isEmpty());
    // "Automatic" says what it means with the backend chosen, on this machine (no GPU module).
    QVERIFY2(panel.precisionCombo()->toolTip().contains(QStringLiteral("no usable GPU")),
             qPrintable(panel.precisionCombo()->toolTip()));
    BackendOptions cpu;
    cpu.name = "cpu";
    panel.setBackendOptions(cpu);
    QVERIFY(panel.precisionCombo()->toolTip().contains(
        QStringLiteral("the CPU always counts in double")));
}

TPACF_TEST_MAIN(TestHelpWindow)
#include "test_help_window.moc"
