// SPDX-License-Identifier: GPL-3.0-or-later
// TPACF Studio on the offscreen platform: Catalogs: bad files, the bundled sample, the column
// dialog, drops, large files read in the background, recent files, weights, two samples, FITS HDU
// and row filter, stated columns.
#include "studio_suite.h"

#include "command_line_export.h"
#include "mask_randoms_dialog.h"
#include "sky_plot.h"

#include <set>

#include <tpacf/mock.h>
#include <tpacf/sky_mask.h>

using namespace studiosuite;

class TestStudioCatalogs : public StudioSuite {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { initFixture(); }
    void badCatalogIsReportedAndStateKept_data();
    void badCatalogIsReportedAndStateKept();
    void bundledSampleLoads();
    void columnMappingDialogGuessesColumns();
    void droppedFilesOpen();
    void largeCatalogLoadsWithoutBlocking();
    void recentFilesRememberRoles();
    void aCatalogReadAgainIsRemembered();
    void weightedCatalogShowsWeightSum();
    void crossRunCountsD1D2();
    void secondSampleRandomsMismatchDisablesRun();
    void fitsDialogChoosesHduAndRowFilter();
    void asciiLoadStatesItsColumns();
    void columnsNotNamedAsCoordinatesAreFlagged_data();
    void columnsNotNamedAsCoordinatesAreFlagged();
    void fitsPixelColumnsAreFlagged();
    void rowFilterIsCheckedInTheDialog();
    void randomsFromAMaskAreAdded();
    void aMaskIsDrawnAndCutsEveryRun();
};

void TestStudioCatalogs::badCatalogIsReportedAndStateKept_data() {
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<bool>("asRandom");
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("column");
    QTest::newRow("non-numeric dec")
        << QByteArray("# ra dec\n10 20\n30 abc\n40 50\n") << false << 3 << 2;
    QTest::newRow("dec above 90") << QByteArray("10 20\n30 40\n50 95.5\n") << true << 3 << 2;
    QTest::newRow("nan ra") << QByteArray("10 20\nnan 40\n") << false << 2 << 1;
}

void TestStudioCatalogs::badCatalogIsReportedAndStateKept() {
    QFETCH(QByteArray, content);
    QFETCH(bool, asRandom);
    QFETCH(int, line);
    QFETCH(int, column);
    auto window = makeWindow();
    QVERIFY(window);
    const auto dataBefore = window->dataCatalog();
    const auto randomsBefore = window->randomCatalogs();

    const QString badPath = m_dir.filePath(QStringLiteral("bad_%1.txt")
                                               .arg(QString::fromLatin1(QTest::currentDataTag()))
                                               .replace(QLatin1Char(' '), QLatin1Char('_')));
    QFile file(badPath);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(content);
    file.close();

    QSignalSpy messages(window.get(), &MainWindow::messageReported);
    QSignalSpy loads(window.get(), &MainWindow::loadFinished);
    const CatalogSource bad{badPath};
    QVERIFY(!loadAndWait(*window, [&] {
        return asRandom ? window->addRandomCatalog(bad) : window->setDataCatalog(bad);
    }));
    QCOMPARE(loads.count(), 1); // the read was queued and ended in failure
    QCOMPARE(messages.count(), 1);
    QCOMPARE(qvariant_cast<MessageSeverity>(messages.front().at(0)), MessageSeverity::Error);
    const QString text = messages.front().at(1).toString();
    QVERIFY2(text.contains(QFileInfo(badPath).fileName()), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("line %1").arg(line)), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("column %1").arg(column)), qPrintable(text));

    // The interactive entry point takes the same path.
    messages.clear();
    QVERIFY(!loadAndWait(*window, [&] { return window->openCatalogFile(badPath, asRandom); }));
    QCOMPARE(messages.count(), 1);
    QCOMPARE(messages.front().at(1).toString(), text);

    QCOMPARE(window->dataCatalog(), dataBefore);
    QVERIFY(window->randomCatalogs() == randomsBefore);
    QVERIFY(window->canRun());
}

void TestStudioCatalogs::bundledSampleLoads() {
    MainWindow::Options options = testOptions();
    options.loadSample = true;
    MainWindow window(BackendRegistry{}, options);
    if (!QFile::exists(QStringLiteral(":/samples/sample_data.txt")))
        QSKIP("this build has no bundled sample");
    // Read in the background: the window exists (and could be shown) before the sample is in.
    QVERIFY(window.isLoading());
    QVERIFY(!window.dataCatalog());
    QVERIFY(!window.canRun());
    QVERIFY(waitForLoads(window));
    QVERIFY(window.dataCatalog());
    QVERIFY(window.dataCatalog()->size() > 0);
    QVERIFY(!window.randomCatalogs().empty());
    QVERIFY(window.canRun());
    QVERIFY(window.skyPlot()->plottedDataPoints() > 0);
}

void TestStudioCatalogs::columnMappingDialogGuessesColumns() {
    const QString path = m_dir.filePath(QStringLiteral("with_header.csv"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("id,mag,dec,ra\n1,20.5,-5.25,150.125\n2,21.0,-5.5,150.5\n3,19.8,-4.75,151.0\n");
    file.close();
    const TablePreview preview = previewCatalogFile(path.toStdString());
    QVERIFY(ColumnMappingDialog::needsMapping(preview));
    ColumnMappingDialog dialog(CatalogSource{path}, preview);
    const CatalogSource mapped = dialog.source();
    QCOMPARE(mapped.raColumn, 4);
    QCOMPARE(mapped.decColumn, 3);
    // The mapped source reads the right numbers.
    auto window = std::make_unique<MainWindow>(BackendRegistry{}, testOptions());
    QVERIFY(loadAndWait(*window, [&] { return window->setDataCatalog(mapped); }));
    QCOMPARE(window->dataCatalog()->size(), std::size_t(3));
    QVERIFY(std::abs(fromRadians(window->dataCatalog()->dec()[0], AngleUnit::Degree) + 5.25) <
            1e-12);
    // For looking at it: TPACF_UI_GRAB_DIR=/some/dir saves the dialog as a PNG.
    const QString grabDir = qEnvironmentVariable("TPACF_UI_GRAB_DIR");
    if (!grabDir.isEmpty()) {
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        dialog.grab().save(QDir(grabDir).filePath(QStringLiteral("column-mapping.png")));
    }
}

void TestStudioCatalogs::droppedFilesOpen() {
    MainWindow window(BackendRegistry{}, testOptions());
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(m_dataPath), QUrl::fromLocalFile(m_randomPath1),
                  QUrl::fromLocalFile(m_randomPath2)});
    const QPointF where(window.width() / 2.0, window.height() / 2.0);
    QDragEnterEvent enter(where.toPoint(), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&window, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(where, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QSignalSpy loads(&window, &MainWindow::loadFinished);
    QCoreApplication::sendEvent(&window, &drop);
    QVERIFY(drop.isAccepted());
    QVERIFY(waitForLoads(window));
    QCOMPARE(loads.count(), 1); // all dropped files in one load
    QVERIFY(loads.front().front().toBool());
    QVERIFY(window.dataCatalog());
    QCOMPARE(window.dataCatalog()->size(), std::size_t(3000));
    QCOMPARE(window.randomCatalogs().size(), std::size_t(2));
    QVERIFY(window.canRun());
}

void TestStudioCatalogs::largeCatalogLoadsWithoutBlocking() {
    // A catalog large enough that reading it takes a noticeable time.
    constexpr std::size_t kRows = 300000;
    const Footprint sky = Footprint::box(20, 80, -10, 25);
    const QString largePath = writeCatalog(QStringLiteral("large_300k.txt"),
                                           generateUniformRandoms(kRows, sky, 31, "large"));
    auto window = makeWindow();
    QVERIFY(window);
    const auto dataBefore = window->dataCatalog();
    const auto randomsBefore = window->randomCatalogs();
    auto* runButton = window->runButton();
    auto* openButton = window->findChild<QPushButton*>(QStringLiteral("openDataButton"));
    auto* addButton = window->findChild<QPushButton*>(QStringLiteral("addRandomButton"));
    auto* loadingLabel = window->findChild<QLabel*>(QStringLiteral("loadingLabel"));
    QVERIFY(openButton && addButton && loadingLabel);
    QVERIFY(runButton->isEnabled() && openButton->isEnabled() && addButton->isEnabled());
    QVERIFY(loadingLabel->isHidden());

    // A timer on the GUI thread keeps firing while the file is read; each tick while loading also
    // checks what the user sees: the old catalogs, Run and the catalog buttons disabled, and
    // the loading line in the status bar.
    int ticksWhileLoading = 0;
    QStringList problems;
    QTimer ticker;
    ticker.setTimerType(Qt::PreciseTimer);
    ticker.setInterval(2);
    connect(&ticker, &QTimer::timeout, this, [&] {
        if (!window->isLoading())
            return;
        ++ticksWhileLoading;
        if (window->dataCatalog() != dataBefore)
            problems.append(QStringLiteral("the data changed before the load ended"));
        if (runButton->isEnabled() || openButton->isEnabled() || addButton->isEnabled())
            problems.append(QStringLiteral("Run or a catalog button is enabled while loading"));
        if (loadingLabel->isHidden() || !loadingLabel->text().contains(QStringLiteral("large")))
            problems.append(QStringLiteral("no loading line: '%1'").arg(loadingLabel->text()));
    });
    ticker.start();
    QSignalSpy finished(window.get(), &MainWindow::loadFinished);
    QElapsedTimer clock;
    clock.start();
    QVERIFY(window->setDataCatalog(CatalogSource{largePath}));
    const qint64 callMs = clock.elapsed();
    // The call only queued the read: nothing has changed yet.
    QVERIFY(window->isLoading());
    QCOMPARE(window->dataCatalog(), dataBefore);
    QVERIFY(!window->canRun());
    QVERIFY(window->runBlockedReason().contains(QStringLiteral("Reading")));
    QVERIFY(!window->startRun());
    QVERIFY(finished.wait(60000));
    const qint64 loadMs = clock.elapsed();
    ticker.stop();
    qInfo("setDataCatalog returned after %lld ms; the load ended after %lld ms with %d timer ticks "
          "while loading",
          callMs, loadMs, ticksWhileLoading);
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QStringLiteral("; "))));
    QVERIFY2(ticksWhileLoading >= 2, qPrintable(QString::number(ticksWhileLoading)));
    QVERIFY(finished.front().front().toBool());

    // Done: the new N, the randoms kept, everything enabled again.
    QVERIFY(!window->isLoading());
    QCOMPARE(window->dataCatalog()->size(), kRows);
    QVERIFY(window->randomCatalogs() == randomsBefore);
    QVERIFY(window->canRun());
    QVERIFY(runButton->isEnabled() && openButton->isEnabled() && addButton->isEnabled());
    QVERIFY(loadingLabel->isHidden());
    // The sky preview frames the footprint with a margin: no point on the frame.
    const QCPRange ra = window->skyPlot()->plot()->xAxis->range();
    const QCPRange dec = window->skyPlot()->plot()->yAxis->range();
    const SkyExtent extent = window->dataCatalog()->extent();
    const double raMin = fromRadians(extent.raMin, AngleUnit::Degree);
    const double raMax = fromRadians(extent.raMax, AngleUnit::Degree);
    const double decMin = fromRadians(extent.decMin, AngleUnit::Degree);
    const double decMax = fromRadians(extent.decMax, AngleUnit::Degree);
    QVERIFY(ra.lower < raMin - 0.04 * (raMax - raMin));
    QVERIFY(ra.upper > raMax + 0.04 * (raMax - raMin));
    QVERIFY(dec.lower < decMin - 0.04 * (decMax - decMin));
    QVERIFY(dec.upper > decMax + 0.04 * (decMax - decMin));

    // A session with the large file loads the same way and ends as a synchronous load did.
    Session session = window->session();
    session.randoms = {CatalogSource{m_randomPath2}};
    session.settings.estimator = Estimator::Natural;
    QSignalSpy sessionLoads(window.get(), &MainWindow::loadFinished);
    QVERIFY(window->applySession(session));
    QVERIFY(window->isLoading());
    QVERIFY(!window->binningPanel()->isEnabled()); // the session will set it
    QVERIFY(sessionLoads.wait(60000));
    QVERIFY(sessionLoads.front().front().toBool());
    QCOMPARE(window->dataCatalog()->size(), kRows);
    QCOMPARE(window->randomCatalogs().size(), std::size_t(1));
    QCOMPARE(window->randomCatalogs().front()->size(), std::size_t(4000));
    QCOMPARE(window->backendPanel()->estimator(), Estimator::Natural);
    QVERIFY(window->binningPanel()->isEnabled());
    QCOMPARE(QJsonDocument(window->session().toJson()).toJson(),
             QJsonDocument(session.toJson()).toJson());

    // For looking at it: TPACF_UI_GRAB_DIR=/some/dir saves the window in the middle of a load.
    if (const QString grabDir = qEnvironmentVariable("TPACF_UI_GRAB_DIR"); !grabDir.isEmpty()) {
        window->resize(1500, 940);
        window->show();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        QVERIFY(window->addRandomCatalog(CatalogSource{largePath}));
        QTest::qWait(30);
        if (window->isLoading())
            window->grab().save(QDir(grabDir).filePath(QStringLiteral("loading.png")));
        QVERIFY(waitForLoads(*window));
    }
}

void TestStudioCatalogs::recentFilesRememberRoles() {
    // QSettings under a throw-away organisation so the user's real settings are never touched.
    QCoreApplication::setOrganizationName(QStringLiteral("tpacf-ui-test"));
    QCoreApplication::setApplicationName(QStringLiteral("recentFilesRememberRoles"));
    QSettings().clear();
    MainWindow::Options options = testOptions();
    options.useSettings = true;
    using Role = MainWindow::RecentRole;
    const QString dataPath = QFileInfo(m_dataPath).absoluteFilePath();
    const QString randomPath = QFileInfo(m_randomPath1).absoluteFilePath();
    CatalogSource mappedRandom{QFileInfo(m_randomPath2).absoluteFilePath()};
    mappedRandom.raColumn = 1;
    mappedRandom.decColumn = 2;
    {
        MainWindow first(BackendRegistry{}, options);
        QVERIFY(first.recentFiles().isEmpty());
        QVERIFY(loadAndWait(first, [&] { return first.setDataCatalog(CatalogSource{dataPath}); }));
        QVERIFY(
            loadAndWait(first, [&] { return first.addRandomCatalog(CatalogSource{randomPath}); }));
        QVERIFY(loadAndWait(first, [&] { return first.addRandomCatalog(mappedRandom); }));
        // Opened again as a random: one entry per file and role, moved to the top.
        QVERIFY(
            loadAndWait(first, [&] { return first.addRandomCatalog(CatalogSource{randomPath}); }));
        const QList<MainWindow::RecentFile> expected = {{Role::Random, CatalogSource{randomPath}},
                                                        {Role::Random, mappedRandom},
                                                        {Role::Data, CatalogSource{dataPath}}};
        QVERIFY(first.recentFiles() == expected);
        first.close(); // saves
    }

    MainWindow second(BackendRegistry{}, options);
    QCOMPARE(second.recentFiles().size(), 3);
    QCOMPARE(second.recentFiles()[0].role, Role::Random);
    QVERIFY(second.recentFiles()[1].source == mappedRandom); // with its column mapping
    QCOMPARE(second.recentFiles()[2].role, Role::Data);
    // The menu says which is which, and reopens each in its role.
    auto* menu = second.findChild<QMenu*>(QStringLiteral("recentMenu"));
    QVERIFY(menu && menu->isEnabled());
    QAction* randomAction = nullptr;
    QAction* dataAction = nullptr;
    for (QAction* action : menu->actions()) {
        if (action->toolTip() == randomPath && action->text().contains(QStringLiteral("random")))
            randomAction = action;
        if (action->toolTip() == dataPath && action->text().contains(QStringLiteral("data")))
            dataAction = action;
    }
    QVERIFY(randomAction && dataAction);
    QVERIFY(loadAndWait(second, [&] {
        randomAction->trigger();
        return second.isLoading();
    }));
    QVERIFY(!second.dataCatalog());
    QCOMPARE(second.randomCatalogs().size(), std::size_t(1));
    QCOMPARE(second.randomCatalogs().front()->size(), std::size_t(4000));
    // The menu was rebuilt (the random moved to the top): find the data entry again.
    dataAction = nullptr;
    for (QAction* action : menu->actions())
        if (action->toolTip() == dataPath && action->text().contains(QStringLiteral("data")))
            dataAction = action;
    QVERIFY(dataAction);
    QVERIFY(loadAndWait(second, [&] {
        dataAction->trigger();
        return second.isLoading();
    }));
    QVERIFY(second.dataCatalog());
    QCOMPARE(second.dataCatalog()->size(), std::size_t(3000));
    QCOMPARE(second.randomCatalogs().size(), std::size_t(1));
    // The mapped random reopens with its mapping (through openRecentFile, like the menu).
    const int mappedIndex = int(second.recentFiles().indexOf({Role::Random, mappedRandom}));
    QVERIFY(mappedIndex >= 0);
    QVERIFY(loadAndWait(second, [&] { return second.openRecentFile(mappedIndex); }));
    QCOMPARE(second.session().randoms.back(), mappedRandom);

    // Settings of an older version (paths only) open catalogs as data, sessions as sessions.
    second.close();
    {
        QSettings settings;
        settings.remove(QStringLiteral("recent"));
        settings.setValue(QStringLiteral("recentFiles"),
                          QStringList{dataPath, QStringLiteral("/tmp/old_session.json")});
    }
    MainWindow third(BackendRegistry{}, options);
    QCOMPARE(third.recentFiles().size(), 2);
    QCOMPARE(third.recentFiles()[0].role, Role::Data);
    QCOMPARE(third.recentFiles()[1].role, Role::Session);
    QSettings().clear();
}

void TestStudioCatalogs::weightedCatalogShowsWeightSum() {
    const Catalog base = readCatalog(m_randomPath1.toStdString());
    const QString path = m_dir.filePath(QStringLiteral("weighted_data.txt"));
    const std::vector<double> weights = writeWeighted(path, base);
    QCOMPARE(weights.size(), base.size());
    double sum = 0;
    int negative = 0;
    for (const double w : weights) {
        sum += w;
        negative += w < 0 ? 1 : 0;
    }
    QVERIFY(negative > 0);

    // The mapping dialog offers the weight column, "(none)" by default.
    const TablePreview preview = previewCatalogFile(path.toStdString());
    QVERIFY(ColumnMappingDialog::needsMapping(preview)); // three columns
    ColumnMappingDialog dialog(CatalogSource{path}, preview);
    QComboBox* weightCombo = dialog.weightCombo();
    QCOMPARE(weightCombo->count(), 4);
    QCOMPARE(weightCombo->currentText(), QStringLiteral("(none)"));
    QCOMPARE(dialog.source().weightColumn, 0);
    weightCombo->setCurrentIndex(weightCombo->findData(3));
    const CatalogSource source = dialog.source();
    QCOMPARE(source.weightColumn, 3);
    QCOMPARE(source.raColumn, 1);
    QCOMPARE(source.decColumn, 2);
    // A source that has a weight column opens the dialog with it chosen.
    QCOMPARE(ColumnMappingDialog(source, preview).source().weightColumn, 3);

    auto window = std::make_unique<MainWindow>(BackendRegistry{}, testOptions());
    QSignalSpy messages(window.get(), &MainWindow::messageReported);
    QVERIFY(loadAndWait(*window, [&] { return window->setDataCatalog(source); }));
    QVERIFY(window->dataCatalog()->hasWeights());
    QTreeWidget* tree = window->catalogsPanel()->tree();
    QVERIFY(!tree->isColumnHidden(CatalogsPanel::WeightColumn));
    // Σw beside N (visually the next column), the negatives counted.
    QCOMPARE(tree->header()->visualIndex(CatalogsPanel::WeightColumn),
             tree->header()->visualIndex(CatalogsPanel::CountColumn) + 1);
    const QTreeWidgetItem* row = catalogRow(*window, 0);
    QVERIFY(row);
    QCOMPARE(row->text(CatalogsPanel::CountColumn), QLocale().toString(qulonglong(base.size())));
    const QString expected =
        CatalogsPanel::formatWeightSum(sum) + QStringLiteral(" (%1 < 0)").arg(negative);
    QCOMPARE(row->text(CatalogsPanel::WeightColumn), expected);
    QVERIFY(row->toolTip(0).contains(QStringLiteral("%1 negative weights").arg(negative)));
    // The load's message says it too.
    bool reported = false;
    for (const QList<QVariant>& message : std::as_const(messages))
        reported = reported || message.at(1).toString().contains(QStringLiteral("Σw = %1").arg(
                                   CatalogsPanel::formatWeightSum(sum)));
    QVERIFY(reported);

    // An unweighted random: no Σw in its row; without any weighted catalog the column hides.
    QVERIFY(loadAndWait(*window,
                        [&] { return window->addRandomCatalog(CatalogSource{m_randomPath2}); }));
    QVERIFY(catalogRow(*window, 1)->text(CatalogsPanel::WeightColumn).isEmpty());
    QVERIFY(
        loadAndWait(*window, [&] { return window->setDataCatalog(CatalogSource{m_dataPath}); }));
    QVERIFY(tree->isColumnHidden(CatalogsPanel::WeightColumn));
}

void TestStudioCatalogs::crossRunCountsD1D2() {
    auto window = makeWindow();
    QVERIFY(window);
    // D2: a weighted uniform sample over the same footprint.
    const Catalog base = generateUniformRandoms(1500, Footprint::box(150, 170, 0, 20), 31);
    const QString path = m_dir.filePath(QStringLiteral("second_weighted.txt"));
    const std::vector<double> weights = writeWeighted(path, base);
    CatalogSource source{path};
    source.weightColumn = 3;
    QVERIFY(!window->backendPanel()->formulaText().contains(QStringLiteral("D1D2")));
    QVERIFY(loadAndWait(*window, [&] { return window->setSecondDataCatalog(source); }));
    QVERIFY(window->catalogSet()->data2());
    QVERIFY(window->windowTitle().contains(QStringLiteral("second_weighted.txt")));
    // Two more groups in the list: D2 and (none of) its randoms.
    QTreeWidget* tree = window->catalogsPanel()->tree();
    QCOMPARE(tree->topLevelItemCount(), 4);
    QCOMPARE(catalogRow(*window, 2)->text(0), QStringLiteral("second_weighted.txt"));
    QVERIFY(tree->topLevelItem(3)->text(0).contains(QStringLiteral("none")));
    // The estimator shows its two-sample form.
    QVERIFY(window->backendPanel()->formulaText().contains(QStringLiteral("D1D2")));
    QVERIFY(window->canRun());

    const ResultPtr result = runToCompletion(*window);
    QVERIFY(result);
    QVERIFY(result->isCross());
    QVERIFY(result->isWeighted());
    const std::shared_ptr<const Catalog> d1 = window->dataCatalog();
    const std::shared_ptr<const Catalog> d2 = window->catalogSet()->data2Catalog();
    QCOMPARE(d2->size(), base.size());

    // Independent brute force: every D1 × D2 pair binned on the chord² of the unit vectors.
    const Binning binning(m_bins);
    std::vector<std::uint64_t> d1d2(binning.count(), 0);
    std::vector<double> d1d2Weighted(binning.count(), 0.0);
    for (std::size_t i = 0; i < d1->size(); ++i)
        for (std::size_t j = 0; j < d2->size(); ++j) {
            const double dx = d1->x()[i] - d2->x()[j];
            const double dy = d1->y()[i] - d2->y()[j];
            const double dz = d1->z()[i] - d2->z()[j];
            const int bin = binning.binOfChord2(dx * dx + dy * dy + dz * dz);
            if (bin >= 0) {
                ++d1d2[std::size_t(bin)];
                d1d2Weighted[std::size_t(bin)] += weights[j]; // D1 unweighted: w = 1
            }
        }
    QVERIFY(std::accumulate(d1d2.begin(), d1d2.end(), std::uint64_t(0)) > 0);
    QVERIFY(result->raw.dd == d1d2);

    // The table names the counts by sample, RD appears, and the weighted sums sit beside them.
    ResultTableModel* model = window->resultModel();
    const int dd = model->columnIndex(QStringLiteral("DD"));
    QCOMPARE(dd, 3);
    QCOMPARE(model->headerData(dd, Qt::Horizontal).toString(), QStringLiteral("D1D2"));
    const int rd = model->columnIndex(QStringLiteral("RD"));
    QVERIFY(rd > dd);
    QCOMPARE(model->headerData(rd, Qt::Horizontal).toString(), QStringLiteral("R1D2"));
    QCOMPARE(model->headerData(model->columnIndex(QStringLiteral("RR")), Qt::Horizontal).toString(),
             QStringLiteral("R1R2"));
    const int ddWeighted = model->columnIndex(QStringLiteral("DD_w"));
    QVERIFY(ddWeighted > 0);
    QCOMPARE(model->headerData(ddWeighted, Qt::Horizontal).toString(), QStringLiteral("D1D2_w"));
    for (int k = 0; k < model->rowCount(); ++k) {
        QCOMPARE(model->value(k, dd), double(d1d2[std::size_t(k)]));
        // Σ w over the pairs of the bin: the order of the sum differs, so a rounding tolerance
        // (a few ulp per term, far below 1e-9 of the total).
        const double expected = d1d2Weighted[std::size_t(k)];
        QVERIFY2(std::abs(model->value(k, ddWeighted) - expected) <=
                     1e-9 * std::max(1.0, std::abs(expected)),
                 qPrintable(QStringLiteral("bin %1: %2 vs %3")
                                .arg(k)
                                .arg(model->value(k, ddWeighted), 0, 'g', 17)
                                .arg(expected, 0, 'g', 17)));
    }
    // The table has the CSV's columns in the CSV's order.
    std::ostringstream csv;
    writeResultCsv(csv, *result);
    QString header; // the first line that is not a '#' comment
    for (const QString& line : QString::fromStdString(csv.str()).split(QLatin1Char('\n')))
        if (!line.startsWith(QLatin1Char('#'))) {
            header = line;
            break;
        }
    QCOMPARE(header, model->currentColumnNames().join(QLatin1Char(',')));

    // The plots: R1D2 drawn, the legend names by sample.
    PlotPanel* plots = window->plotPanel();
    QCOMPARE(plots->seriesName(PlotPanel::Series::DD), QStringLiteral("D1D2"));
    QVERIFY(plots->isSeriesShown(PlotPanel::Series::RD));
    QVERIFY(!plots->plottedCounts(PlotPanel::Series::RD).isEmpty());
    QVERIFY(plots->plotTitle(PlotPanel::Plot::Correlation)
                .contains(QStringLiteral("second_weighted.txt")));
    // The notes (shared randoms, negative weights) reach the log.
    QVERIFY(!result->notes.empty());
    auto* log = window->findChild<QPlainTextEdit*>(QStringLiteral("log"));
    for (const std::string& note : result->notes)
        QVERIFY(log->toPlainText().contains(QString::fromStdString(note)));

    // For looking at it: TPACF_UI_GRAB_DIR=/some/dir keeps the window at 1280×720.
    if (const QString grabDir = qEnvironmentVariable("TPACF_UI_GRAB_DIR"); !grabDir.isEmpty()) {
        window->resize(1280, 720);
        window->show();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        QTest::qWait(100);
        window->grab().save(QDir(grabDir).filePath(QStringLiteral("cross-window.png")));
        plots->setCurrentPlot(PlotPanel::Plot::PairCounts);
        QTest::qWait(100);
        window->grab().save(QDir(grabDir).filePath(QStringLiteral("cross-counts.png")));
    }

    // Without the second sample: back to one sample, no RD.
    window->removeSecondSample();
    QVERIFY(!window->catalogSet()->hasSecondSample());
    QCOMPARE(tree->topLevelItemCount(), 2);
    QVERIFY(window->isResultStale());
    const ResultPtr autoResult = runToCompletion(*window);
    QVERIFY(autoResult && !autoResult->isCross());
    QCOMPARE(window->resultModel()->columnIndex(QStringLiteral("RD")), -1);
    QCOMPARE(window->resultModel()->headerData(3, Qt::Horizontal).toString(), QStringLiteral("DD"));
    QVERIFY(!plots->isSeriesShown(PlotPanel::Series::RD));
}

void TestStudioCatalogs::secondSampleRandomsMismatchDisablesRun() {
    auto window = makeWindow(); // two random sets
    QVERIFY(window);
    QVERIFY(loadAndWait(
        *window, [&] { return window->setSecondDataCatalog(CatalogSource{m_randomPath2}); }));
    QVERIFY(window->canRun()); // no randoms of its own: it uses the first's
    QVERIFY(loadAndWait(
        *window, [&] { return window->addSecondRandomCatalog(CatalogSource{m_randomPath1}); }));
    // One set against two: Run disabled, and the reason says why.
    QVERIFY(!window->canRun());
    QVERIFY(!window->runButton()->isEnabled());
    const QString reason = window->runBlockedReason();
    QVERIFY2(reason.contains(QStringLiteral("paired")), qPrintable(reason));
    QVERIFY(!window->startRun());
    QVERIFY(loadAndWait(
        *window, [&] { return window->addSecondRandomCatalog(CatalogSource{m_randomPath2}); }));
    QVERIFY(window->canRun());
    QVERIFY(window->runButton()->isEnabled());
    // Removing one of them (selected in the list, as Delete would) disables it again.
    QTreeWidget* tree = window->catalogsPanel()->tree();
    tree->setCurrentItem(tree->topLevelItem(3)->child(1));
    QCOMPARE(window->catalogsPanel()->selectedRandom2Index(), 1);
    QCOMPARE(window->catalogsPanel()->selectedRandomIndex(), -1);
    window->removeRandomCatalog(-1); // out of range: nothing
    QCOMPARE(window->catalogSet()->randoms2().size(), 2);
    window->removeSecondRandomCatalog(1);
    QCOMPARE(window->catalogSet()->randoms2().size(), 1);
    QCOMPARE(window->catalogSet()->randoms().size(), 2);
    QVERIFY(!window->canRun());
    window->removeSecondSample();
    QVERIFY(window->canRun());
}

void TestStudioCatalogs::fitsDialogChoosesHduAndRowFilter() {
#ifndef TPACF_TEST_HAVE_CFITSIO
    QSKIP("the tests are built without cfitsio: no FITS file to write");
#endif
    if (!fitsSupported())
        QSKIP("this build reads no FITS tables");
    const QString path = twoTableFits();
    QVERIFY(!path.isEmpty());

    // The dialog opens on the first table, with every extension listed and the image disabled.
    const TablePreview preview = previewCatalogFile(path.toStdString());
    QVERIFY(ColumnMappingDialog::needsMapping(preview));
    ColumnMappingDialog dialog(CatalogSource{path}, preview);
    QComboBox* hdu = dialog.hduCombo();
    QVERIFY(!hdu->isHidden());
    QCOMPARE(hdu->count(), 3);
    QCOMPARE(hdu->currentData().toString(), QStringLiteral("1"));
    QCOMPARE(hdu->itemText(1), QStringLiteral("2: RANDOMS (300 rows, 4 columns)"));
    const auto* model = qobject_cast<const QStandardItemModel*>(hdu->model());
    QVERIFY(model);
    QVERIFY(model->item(0)->isEnabled());
    QVERIFY(model->item(1)->isEnabled());
    QCOMPARE(hdu->itemText(2), QStringLiteral("3: IMG (image)"));
    QVERIFY(!model->item(2)->isEnabled());
    QVERIFY(!dialog.rowFilterEdit()->isHidden());
    QCOMPARE(dialog.source().hdu, QStringLiteral("1")); // stated even when left as it is
    QCOMPARE(dialog.source().raColumn, 1);
    QCOMPARE(dialog.source().decColumn, 2);

    // HDU 2: its own columns, RA and Dec found again by name at their new places.
    hdu->setCurrentIndex(1);
    QCOMPARE(dialog.raCombo()->count(), 4);
    QCOMPARE(dialog.raCombo()->currentText(), QStringLiteral("4: RA"));
    QCOMPARE(dialog.decCombo()->currentText(), QStringLiteral("3: DEC"));
    QVERIFY(dialog.noteLabel()->text().contains(QStringLiteral("HDU 2")));
    dialog.rowFilterEdit()->setText(QStringLiteral(" Z>0.4 && Z<0.8 "));
    const CatalogSource source = dialog.source();
    QCOMPARE(source.hdu, QStringLiteral("2"));
    QCOMPARE(source.rowFilter, QStringLiteral("Z>0.4 && Z<0.8"));
    QCOMPARE(source.raColumn, 4);
    QCOMPARE(source.decColumn, 3);
    QCOMPARE(source.readPath(), path + QStringLiteral("[2][Z>0.4 && Z<0.8]"));
    // A source naming an HDU reopens the dialog on it (a recent file, a session).
    ColumnMappingDialog reopened(source, preview);
    QCOMPARE(reopened.hduCombo()->currentData().toString(), QStringLiteral("2"));
    QCOMPARE(reopened.source(), source);

    // For looking at it: TPACF_UI_GRAB_DIR=/some/dir saves the dialog as a PNG.
    if (const QString grabDir = qEnvironmentVariable("TPACF_UI_GRAB_DIR"); !grabDir.isEmpty()) {
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        dialog.grab().save(QDir(grabDir).filePath(QStringLiteral("column-mapping-fits.png")));
        // The HDU list open, with the image greyed out.
        hdu->showPopup();
        QVERIFY(QTest::qWaitForWindowExposed(hdu->view()->window()));
        hdu->view()->window()->grab().save(
            QDir(grabDir).filePath(QStringLiteral("column-mapping-fits-hdus.png")));
        hdu->hidePopup();
    }

    // Read: exactly the RANDOMS rows the filter keeps, RA and Dec from the right columns.
    const auto [ra, dec] = filteredRandoms();
    QVERIFY(ra.size() > 20 && ra.size() < fitsRandoms().ra.size()); // the filter does select
    auto window = std::make_unique<MainWindow>(BackendRegistry{}, testOptions());
    QSignalSpy messages(window.get(), &MainWindow::messageReported);
    QVERIFY(loadAndWait(*window, [&] { return window->setDataCatalog(source); }));
    const auto catalog = window->dataCatalog();
    QCOMPARE(catalog->size(), ra.size());
    for (std::size_t i = 0; i < ra.size(); ++i) {
        QVERIFY(std::abs(fromRadians(catalog->ra()[i], AngleUnit::Degree) - ra[i]) < 1e-9);
        QVERIFY(std::abs(fromRadians(catalog->dec()[i], AngleUnit::Degree) - dec[i]) < 1e-9);
    }
    // The list's tooltip and the load's message state the columns, the HDU, filter and rows.
    const QTreeWidgetItem* row = catalogRow(*window, 0);
    QVERIFY(row);
    QCOMPARE(row->text(0), QStringLiteral("survey.fits[2][Z>0.4 && Z<0.8]"));
    const QString tooltip = row->toolTip(0);
    for (const QString& part :
         {QStringLiteral("fits, columns"), QStringLiteral("RA"), QStringLiteral("DEC"),
          QStringLiteral("RANDOMS"), QStringLiteral("Z>0.4 && Z<0.8"), QStringLiteral("deg"),
          QStringLiteral("%1 rows").arg(ra.size())})
        QVERIFY2(tooltip.contains(part), qPrintable(part + QStringLiteral(" not in ") + tooltip));
    const QString stated = QString::fromStdString(catalog->origin().describe());
    QVERIFY(tooltip.contains(stated));
    bool reported = false;
    for (const QList<QVariant>& message : std::as_const(messages))
        reported = reported || message.at(1).toString().contains(stated);
    QVERIFY(reported);
}

void TestStudioCatalogs::asciiLoadStatesItsColumns() {
    // A header naming the columns in an unusual order: the load says which it took.
    const QString path = m_dir.filePath(QStringLiteral("named_columns.txt"));
    {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("id dec ra\n1 -5.25 150.125\n2 -5.5 150.5\n3 -4.75 151.0\n");
    }
    auto window = std::make_unique<MainWindow>(BackendRegistry{}, testOptions());
    QSignalSpy messages(window.get(), &MainWindow::messageReported);
    QVERIFY(loadAndWait(*window, [&] { return window->setDataCatalog(CatalogSource{path}); }));
    QCOMPARE(window->dataCatalog()->size(), std::size_t(3));
    // Columns as the header names them, how they were chosen, the unit and the rows.
    const QString stated = QStringLiteral("ascii, columns ra, dec (header names), deg, 3 rows");
    QCOMPARE(catalogRow(*window, 0)->toolTip(0), path + QLatin1Char('\n') + stated);
    bool reported = false;
    for (const QList<QVariant>& message : std::as_const(messages))
        reported = reported || message.at(1).toString() ==
                                   QStringLiteral("Data catalog named_columns.txt: ") + stated;
    QVERIFY(reported);
}

// Issue 35, item 13: a catalog read again from the Catalogs panel (other columns, unit, HDU or
// row filter) goes to the top of Open Recent as last read, so that the menu reopens it so; a
// random read again in place is recorded as itself, not as the last random.
void TestStudioCatalogs::aCatalogReadAgainIsRemembered() {
    MainWindow window(BackendRegistry{}, testOptions());
    const QString dataPath = QFileInfo(m_dataPath).absoluteFilePath();
    QVERIFY(loadAndWait(window, [&] { return window.setDataCatalog(CatalogSource{dataPath}); }));
    QVERIFY(loadAndWait(window, [&] {
        return window.addRandomCatalog(CatalogSource{QFileInfo(m_randomPath1).absoluteFilePath()});
    }));
    QVERIFY(loadAndWait(window, [&] {
        return window.addRandomCatalog(CatalogSource{QFileInfo(m_randomPath2).absoluteFilePath()});
    }));
    CatalogSource remapped{dataPath};
    remapped.raColumn = 1;
    remapped.decColumn = 2;
    QVERIFY(loadAndWait(window, [&] {
        Q_EMIT window.catalogsPanel()->changeRequested(
            CatalogChange::reread(CatalogRole::Data, 0, remapped));
        return window.isLoading();
    }));
    QCOMPARE(window.recentFiles().front().role, MainWindow::RecentRole::Data);
    QVERIFY(window.recentFiles().front().source == remapped);
    // Issue 35, item 11: columns given by hand are described as the window took them, not
    // with the CLI's flags (the status bar and the catalog's tooltip show this text).
    const QString origin = CatalogsPanel::describeOrigin(*window.dataCatalog());
    QVERIFY2(!origin.contains(QStringLiteral("--ra-col")) &&
                 origin.contains(QStringLiteral("chosen in the column dialog")),
             qPrintable(origin));
    CatalogSource firstRandom{QFileInfo(m_randomPath1).absoluteFilePath()};
    firstRandom.raColumn = 1;
    firstRandom.decColumn = 2;
    QVERIFY(loadAndWait(window, [&] {
        Q_EMIT window.catalogsPanel()->changeRequested(
            CatalogChange::reread(CatalogRole::Random, 0, firstRandom));
        return window.isLoading();
    }));
    QCOMPARE(window.recentFiles().front().role, MainWindow::RecentRole::Random);
    QVERIFY(window.recentFiles().front().source == firstRandom);
}

namespace {
// For looking at it: TPACF_UI_GRAB_DIR=/some/dir saves the dialog as a PNG.
void grabForLooking(QDialog& dialog, const QString& name) {
    const QString grabDir = qEnvironmentVariable("TPACF_UI_GRAB_DIR");
    if (grabDir.isEmpty())
        return;
    dialog.show();
    if (QTest::qWaitForWindowExposed(&dialog))
        dialog.grab().save(QDir(grabDir).filePath(name));
    dialog.hide();
}
} // namespace

// Issue 35, item 9: the column dialog says when the columns taken as RA and Dec are not named
// as sky coordinates (x, y, mag read as angles), and stays quiet for the usual names.
void TestStudioCatalogs::columnsNotNamedAsCoordinatesAreFlagged_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("flagged");
    QTest::addColumn<QStringList>("named"); // quoted in the note
    const QString rows = QStringLiteral("0.5 1.25 17.5\n1.0 0.75 18.25\n");
    QTest::newRow("x y mag") << QStringLiteral("x y mag\n") + rows << true
                             << QStringList{QStringLiteral("“x”"), QStringLiteral("“y”")};
    QTest::newRow("id radius mag") << QStringLiteral("id radius mag\n") + rows << true
                                   << QStringList{QStringLiteral("“id”"),
                                                  QStringLiteral("“radius”")};
    QTest::newRow("ra dec z") << QStringLiteral("ra dec z\n") + rows << false << QStringList{};
    QTest::newRow("TARGET_RA TARGET_DEC") << QStringLiteral("TARGET_RA TARGET_DEC Z\n") + rows
                                          << false << QStringList{};
    QTest::newRow("ALPHA_J2000 DELTA_J2000")
        << QStringLiteral("ALPHA_J2000 DELTA_J2000 MAG\n") + rows << false << QStringList{};
    QTest::newRow("RAJ2000 DEJ2000") << QStringLiteral("RAJ2000 DEJ2000 W\n") + rows << false
                                     << QStringList{};
    QTest::newRow("glon glat") << QStringLiteral("glon glat w\n") + rows << false << QStringList{};
    QTest::newRow("no header") << rows << false << QStringList{};
}

void TestStudioCatalogs::columnsNotNamedAsCoordinatesAreFlagged() {
    QFETCH(QString, text);
    QFETCH(bool, flagged);
    QFETCH(QStringList, named);
    const QString path = m_dir.filePath(QStringLiteral("named_columns.txt"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(text.toUtf8());
    file.close();
    ColumnMappingDialog dialog(CatalogSource{path}, previewCatalogFile(path.toStdString()));
    QCOMPARE(!dialog.columnNoteLabel()->isHidden(), flagged);
    for (const QString& name : named)
        QVERIFY2(dialog.columnNoteLabel()->text().contains(name),
                 qPrintable(dialog.columnNoteLabel()->text()));
    if (flagged) {
        // Another unnamed choice is named in its turn.
        QVERIFY(dialog.columnNoteLabel()->text().contains(QStringLiteral("position")));
        dialog.decCombo()->setCurrentIndex(dialog.decCombo()->findData(3));
        QVERIFY(dialog.columnNoteLabel()->text().contains(QStringLiteral("“mag”")));
    }
}

void TestStudioCatalogs::fitsPixelColumnsAreFlagged() {
#ifndef TPACF_TEST_HAVE_CFITSIO
    QSKIP("the tests are built without cfitsio: no FITS file to write");
#else
    if (!fitsSupported())
        QSKIP("this build reads no FITS tables");
    // x and y in [0, 2]: values a reader would take for radians without a word.
    const QString path = m_dir.filePath(QStringLiteral("pixels.fits"));
    int status = 0;
    fitsfile* fits = nullptr;
    std::string name("!");
    name += path.toStdString();
    fits_create_file(&fits, name.c_str(), &status);
    const std::vector<double> x{0.25, 1.5, 1.75}, y{0.5, 1.0, 0.125}, mag{17.0, 18.5, 19.0};
    writeFitsTable(fits, "SOURCES", {"X", "Y", "MAG"}, {&x, &y, &mag}, status);
    fits_close_file(fits, &status);
    QCOMPARE(status, 0);
    const TablePreview preview = previewCatalogFile(path.toStdString());
    ColumnMappingDialog dialog(CatalogSource{path}, preview);
    QCOMPARE(dialog.source().raColumn, 1);
    QVERIFY(!dialog.columnNoteLabel()->isHidden());
    QVERIFY(dialog.columnNoteLabel()->text().contains(QStringLiteral("“X”")));
    QVERIFY(dialog.columnNoteLabel()->text().contains(QStringLiteral("“Y”")));
    grabForLooking(dialog, QStringLiteral("column-note.png"));
#endif
}

// Issue 35, item 10: the row filter is checked in the dialog (the rows it keeps, or cfitsio's
// objection), OK refuses a filter that cannot be applied or keeps nothing, and the text stays.
void TestStudioCatalogs::rowFilterIsCheckedInTheDialog() {
#ifndef TPACF_TEST_HAVE_CFITSIO
    QSKIP("the tests are built without cfitsio: no FITS file to write");
#endif
    if (!fitsSupported())
        QSKIP("this build reads no FITS tables");
    const QString path = twoTableFits();
    QVERIFY(!path.isEmpty());
    ColumnMappingDialog dialog(CatalogSource{path}, previewCatalogFile(path.toStdString()));
    QVERIFY(!dialog.checkFilterButton()->isHidden());
    QVERIFY(dialog.filterNoteLabel()->isHidden());
    QLineEdit* filter = dialog.rowFilterEdit();

    // The count against the table's own Z column (HDU 1, CATALOG).
    const std::vector<double>& z = fitsCatalog().z;
    const auto passing = std::count_if(z.begin(), z.end(), [](double v) { return v > 0.4 && v < 0.8; });
    QVERIFY(passing > 0 && passing < qsizetype(z.size()));
    filter->setText(QStringLiteral("Z>0.4 && Z<0.8"));
    QTest::mouseClick(dialog.checkFilterButton(), Qt::LeftButton);
    QVERIFY(!dialog.filterNoteLabel()->isHidden());
    const QString expected = QStringLiteral("%1 of %2 rows pass the filter")
                                 .arg(QLocale().toString(qlonglong(passing)))
                                 .arg(QLocale().toString(qulonglong(z.size())));
    QVERIFY2(dialog.filterNoteLabel()->text().contains(expected),
             qPrintable(dialog.filterNoteLabel()->text()));

    // A mistyped filter: said in the dialog, OK refused, the text kept.
    const QString typo = QStringLiteral("Z>>0.4 && Z<0.8");
    filter->setText(typo);
    QVERIFY(dialog.filterNoteLabel()->isHidden()); // the old count no longer applies
    dialog.accept();
    QCOMPARE(dialog.result(), int(QDialog::Rejected)); // not accepted
    QVERIFY(!dialog.filterNoteLabel()->isHidden());
    QVERIFY2(dialog.filterNoteLabel()->text().contains(QStringLiteral("cannot be applied")),
             qPrintable(dialog.filterNoteLabel()->text()));
    QCOMPARE(filter->text(), typo);
    grabForLooking(dialog, QStringLiteral("row-filter-typo.png"));
    // A column that does not exist: cfitsio's objection names it.
    filter->setText(QStringLiteral("REDSHIFT>0.4"));
    QVERIFY(!dialog.checkRowFilter());
    QVERIFY2(dialog.filterNoteLabel()->text().contains(QStringLiteral("REDSHIFT")),
             qPrintable(dialog.filterNoteLabel()->text()));
    // A filter that keeps no row.
    filter->setText(QStringLiteral("Z>5"));
    QVERIFY(!dialog.checkRowFilter());
    QVERIFY(dialog.filterNoteLabel()->text().contains(QStringLiteral("empty")));
    dialog.accept();
    QCOMPARE(dialog.result(), int(QDialog::Rejected));

    // Fixed: OK closes with it.
    filter->setText(QStringLiteral("Z>0.4 && Z<0.8"));
    dialog.accept();
    QCOMPARE(dialog.result(), int(QDialog::Accepted));
    QCOMPARE(dialog.source().rowFilter, QStringLiteral("Z>0.4 && Z<0.8"));
}

TPACF_TEST_MAIN(TestStudioCatalogs)
// File > Make Randoms from Mask...: the dialog refuses what it can see is wrong and stays open;
// the points are drawn aside, written with the mask and seed in the header, and added as a
// random catalog equal to the library's draw with the same seed; a file that is no mask is
// reported by name.
void TestStudioCatalogs::randomsFromAMaskAreAdded() {
#ifndef TPACF_TEST_HAVE_CFITSIO
    QSKIP("the tests are built without cfitsio: no mask to write");
#else
    if (!skyMasksAvailable())
        QSKIP("this build reads no masks");
    // A partial HEALPix map as healpy writes one: NSIDE 4, RING, the 48 pixels of the northern
    // polar cap rings, completeness 1 and 0.5.
    const QString maskPath = m_dir.filePath(QStringLiteral("cap_mask.fits"));
    {
        std::vector<long long> pixels;
        std::vector<double> values;
        for (int p = 0; p < 48; ++p) {
            pixels.push_back(p);
            values.push_back(p % 2 ? 1.0 : 0.5);
        }
        QCOMPARE(writeHealpixMap(maskPath, 4, "RING", pixels, values), 0);
    }
    auto window = makeWindow();
    QVERIFY(window);
    const int randomsBefore = int(window->catalogSet()->randoms().size());
    const QString output = m_dir.filePath(QStringLiteral("mask_randoms.txt"));
    QAction* action = window->findChild<QAction*>(QStringLiteral("maskRandomsAction"));
    QVERIFY(action);

    // Filled in as a user does; the first time without a mask, which the dialog refuses.
    QStringList problems;
    MaskRandomsRequest request{maskPath, output, 3000, 17};
    const auto fillIn = [&](bool withMask) {
        QTimer::singleShot(0, window.get(), [&, withMask] {
            auto* dialog = qobject_cast<MaskRandomsDialog*>(QApplication::activeModalWidget());
            QVERIFY(dialog);
            dialog->setRequest({QString(), output, 3000, 17});
            dialog->accept();
            auto* problem = dialog->findChild<QLabel*>(QStringLiteral("maskRandomsProblem"));
            problems.append(problem->isHidden() ? QString() : problem->text());
            QVERIFY(dialog->isVisible());
            if (withMask) {
                dialog->setRequest(request);
                dialog->accept();
            } else {
                dialog->reject();
            }
        });
    };
    fillIn(false);
    action->trigger();
    QCOMPARE(problems.size(), 1);
    QVERIFY2(problems[0].contains(QStringLiteral("Choose the mask")), qPrintable(problems[0]));
    QCOMPARE(int(window->catalogSet()->randoms().size()), randomsBefore);

    fillIn(true);
    action->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(int(window->catalogSet()->randoms().size()), randomsBefore + 1,
                              20000);

    QFile file(output);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QString header = QString::fromUtf8(file.readLine());
    QVERIFY2(header.startsWith(QStringLiteral("# randoms inside the mask HEALPix map cap_mask.fits")) &&
                 header.contains(QStringLiteral("seed 17")),
             qPrintable(header));
    const auto added = window->catalogSet()->randoms().back().catalog;
    QCOMPARE(added->size(), std::size_t(3000));
    const SkyMask mask = readSkyMask(maskPath.toStdString());
    const Catalog expected = generateRandomsInMask(3000, mask, 17);
    for (std::size_t i = 0; i < added->size(); ++i) {
        QVERIFY(mask.completenessAt(added->x()[i], added->y()[i], added->z()[i]) > 0);
        QVERIFY(std::abs(added->ra()[i] - expected.ra()[i]) < 1e-12);
        QVERIFY(std::abs(added->dec()[i] - expected.dec()[i]) < 1e-12);
    }

    // A FITS catalog is no mask: the error names the file, and nothing is added.
    QSignalSpy messages(window.get(), &MainWindow::messageReported);
    request = {twoTableFits(), m_dir.filePath(QStringLiteral("no_randoms.txt")), 100, 1};
    fillIn(true);
    action->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(!messages.isEmpty() &&
                                 messages.last().at(1).toString().contains(
                                     QStringLiteral("not a HEALPix map or MOC")),
                             20000);
    QCOMPARE(int(window->catalogSet()->randoms().size()), randomsBefore + 1);
    QVERIFY(!QFileInfo::exists(m_dir.filePath(QStringLiteral("no_randoms.txt"))));
#endif
}

// File > Set Mask...: the mask is drawn on the sky preview, every run counts the catalogs cut
// to it (the core's cut of the same catalogs gives the run's N), the result's notes and Copy
// as Command Line name it, a session keeps it, and Clear Mask takes it away.
void TestStudioCatalogs::aMaskIsDrawnAndCutsEveryRun() {
#ifndef TPACF_TEST_HAVE_CFITSIO
    QSKIP("the tests are built without cfitsio: no mask to write");
#else
    if (!skyMasksAvailable())
        QSKIP("this build reads no masks");
    auto window = makeWindow();
    QVERIFY(window);
    // Two in three of the NSIDE 8 pixels (NESTED) that hold data points.
    const Catalog& data = *window->dataCatalog();
    std::set<long long> chosen;
    for (std::size_t i = 0; i < data.size(); ++i) {
        const auto pixel = (long long)(SkyMask::deepPixelOf(data.x()[i], data.y()[i], data.z()[i]) >>
                                       (2 * (SkyMask::kDeepOrder - 3)));
        if (pixel % 3 != 0)
            chosen.insert(pixel);
    }
    const std::vector<long long> pixels(chosen.begin(), chosen.end());
    const QString maskPath = m_dir.filePath(QStringLiteral("part_mask.fits"));
    QCOMPARE(writeHealpixMap(maskPath, 8, "NESTED", pixels, std::vector<double>(pixels.size(), 1.0)),
             0);

    QSignalSpy changed(window.get(), &MainWindow::maskChanged);
    QSignalSpy messages(window.get(), &MainWindow::messageReported);
    window->setMaskFile(maskPath);
    QTRY_VERIFY_WITH_TIMEOUT(!changed.isEmpty(), 10000);
    QVERIFY2(window->mask(),
             qPrintable(messages.isEmpty() ? QString() : messages.last().at(1).toString()));
    QVERIFY(window->skyPlot()->hasMask());
    QCPColorMap* drawn = window->skyPlot()->maskMap();
    QVERIFY(drawn);
    int covered = 0;
    for (int column = 0; column < drawn->data()->keySize(); ++column)
        for (int row = 0; row < drawn->data()->valueSize(); ++row)
            covered += drawn->data()->cell(column, row) > 0;
    QVERIFY(covered > 0);

    const ResultPtr result = runToCompletion(*window);
    QVERIFY(result);
    const MaskedCatalog cut = applySkyMask(data, *window->mask());
    QVERIFY(cut.kept > 0 && cut.kept < data.size());
    QCOMPARE(result->raw.dataSize, std::uint64_t(cut.kept));
    QVERIFY(!result->notes.empty() &&
            QString::fromStdString(result->notes.front()).startsWith(QStringLiteral("mask HEALPix map part_mask.fits")));
    const RunCommandLine command = runCommandLine(window->session());
    QVERIFY2(command.arguments.contains(QStringLiteral("--mask")) &&
                 command.arguments.contains(maskPath),
             qPrintable(command.arguments.join(QLatin1Char(' '))));

    const QString sessionPath = m_dir.filePath(QStringLiteral("masked_session.json"));
    QVERIFY(window->saveSession(sessionPath));
    auto reopened = std::make_unique<MainWindow>(BackendRegistry{}, testOptions());
    QSignalSpy reopenedMask(reopened.get(), &MainWindow::maskChanged);
    QVERIFY(loadAndWait(*reopened, [&] { return reopened->loadSession(sessionPath); }));
    QTRY_VERIFY_WITH_TIMEOUT(!reopenedMask.isEmpty(), 10000);
    QCOMPARE(reopened->maskPath(), maskPath);
    QVERIFY(reopened->skyPlot()->hasMask());

    window->clearMask();
    QVERIFY(!window->mask());
    QVERIFY(!window->skyPlot()->hasMask());
    QVERIFY(window->session().mask.isEmpty());
#endif
}

#include "test_studio_catalogs.moc"
