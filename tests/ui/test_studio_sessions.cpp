// SPDX-License-Identifier: GPL-3.0-or-later
// TPACF Studio on the offscreen platform: Export (CSV, PNG, PDF; never over a loaded catalog),
// sessions and settings across starts.
#include "studio_suite.h"

using namespace studiosuite;

class TestStudioSessions : public StudioSuite {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { initFixture(); }
    void exportWritesCsvPngPdf();
    void exportNeverOverwritesLoadedCatalog();
    void sessionRoundTrips();
    void settingsPersistAcrossStarts();
    void sessionRoundTripsSecondSampleAndWeights();
    void sessionKeepsHduAndRowFilter();
    void workIsKeptAcrossAQuit();
    void keptWorkThatCannotBeWrittenAsksBeforeQuitting();
};

void TestStudioSessions::exportWritesCsvPngPdf() {
    auto window = makeWindow();
    QVERIFY(window);
    const ResultPtr result = runToCompletion(*window);
    QVERIFY(result);

    const QString csvPath = m_dir.filePath(QStringLiteral("result.csv"));
    QVERIFY(window->exportResultCsv(csvPath));
    const ResultTable table = readResultCsv(csvPath.toStdString());
    QCOMPARE(table.rows.size(), result->binCount());
    QCOMPARE(int(table.columns.size()), ResultTableModel::columnNames().size());
    for (std::size_t c = 0; c < table.columns.size(); ++c)
        QCOMPARE(QString::fromStdString(table.columns[c]), ResultTableModel::columnNames()[int(c)]);
    for (int k = 0; k < int(table.rows.size()); ++k)
        for (int c = 0; c < int(table.columns.size()); ++c)
            QVERIFY2(sameDouble(table.rows[std::size_t(k)][std::size_t(c)],
                                window->resultModel()->value(k, c)),
                     qPrintable(QStringLiteral("row %1 column %2").arg(k).arg(c)));

    // Identical to what the core writer (and so the CLI) writes for the same result.
    std::ostringstream expected;
    writeResultCsv(expected, *result);
    QFile csv(csvPath);
    QVERIFY(csv.open(QIODevice::ReadOnly));
    QCOMPARE(csv.readAll().toStdString(), expected.str());

    for (const PlotExportSettings& settings :
         {PlotExportSettings{1800, 1200, 300}, PlotExportSettings{1001, 667, 150}}) {
        for (int plot : {0, 1}) {
            const QString png = m_dir.filePath(QStringLiteral("plot%1_%2x%3.png")
                                                   .arg(plot)
                                                   .arg(settings.widthPx)
                                                   .arg(settings.heightPx));
            QVERIFY(window->exportPlot(plot, png, settings));
            const QImage image(png);
            QCOMPARE(image.size(), QSize(settings.widthPx, settings.heightPx));
            QCOMPARE(qRound(image.dotsPerMeterX() * 0.0254), settings.dpi);
            // Something was drawn: not a blank page.
            QVERIFY(image.pixel(image.width() / 2, image.height() / 2) != 0 ||
                    image.pixel(10, 10) != image.pixel(image.width() / 2, image.height() / 2));
        }
    }
    // For looking at them: TPACF_UI_GRAB_DIR=/some/dir keeps a copy of the paper-size PNGs.
    const QString grabDir = qEnvironmentVariable("TPACF_UI_GRAB_DIR");
    if (!grabDir.isEmpty()) {
        QVERIFY(window->exportPlot(0, QDir(grabDir).filePath(QStringLiteral("export-w.png")), {}));
        QVERIFY(
            window->exportPlot(1, QDir(grabDir).filePath(QStringLiteral("export-counts.png")), {}));
    }
    const QString pdf = m_dir.filePath(QStringLiteral("w.pdf"));
    QVERIFY(window->exportPlot(0, pdf, PlotExportSettings{}));
    QFile pdfFile(pdf);
    QVERIFY(pdfFile.open(QIODevice::ReadOnly));
    QVERIFY(pdfFile.size() > 1000);
    QVERIFY(pdfFile.read(5).startsWith("%PDF"));
}

void TestStudioSessions::exportNeverOverwritesLoadedCatalog() {
    auto window = makeWindow();
    QVERIFY(window);
    QVERIFY(runToCompletion(*window));
    const auto bytesOf = [](const QString& path) {
        QFile file(path);
        return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
    };
    const QByteArray data = bytesOf(m_dataPath), random = bytesOf(m_randomPath1),
                     random2 = bytesOf(m_randomPath2);
    // A plot name that is a link to a loaded catalog, as a file dialog would let one pick.
    const QString link = m_dir.filePath(QStringLiteral("random1-link.png"));
    QFile::remove(link);
    QVERIFY(QFile::link(m_randomPath1, link));

    QSignalSpy messages(window.get(), &MainWindow::messageReported);
    QVERIFY(!window->exportResultCsv(m_dataPath));
    QVERIFY(!window->exportPlot(0, link, {600, 400, 100}));
    QVERIFY(!window->saveSession(m_randomPath2));
    QCOMPARE(messages.count(), 3);
    for (const QList<QVariant>& message : messages) {
        QCOMPARE(qvariant_cast<MessageSeverity>(message.at(0)), MessageSeverity::Error);
        QVERIFY2(message.at(1).toString().contains(QStringLiteral("is the loaded catalog")),
                 qPrintable(message.at(1).toString()));
    }
    QCOMPARE(bytesOf(m_dataPath), data);
    QCOMPARE(bytesOf(m_randomPath1), random);
    QCOMPARE(bytesOf(m_randomPath2), random2);
    QVERIFY(QFileInfo(link).isSymLink());
    QFile::remove(link);
}

void TestStudioSessions::sessionRoundTrips() {
    // A data file that needs a column mapping: id, dec, ra (so defaults would be wrong).
    const Catalog data = readCatalog(m_dataPath.toStdString());
    const QString mappedPath = m_dir.filePath(QStringLiteral("mapped.txt"));
    {
        QFile file(mappedPath);
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Text));
        QTextStream out(&file);
        out << "id dec_arcmin ra_arcmin\n";
        out.setRealNumberPrecision(17);
        for (std::size_t i = 0; i < data.size(); ++i)
            out << i << ' ' << fromRadians(data.dec()[i], AngleUnit::Arcminute) << ' '
                << fromRadians(data.ra()[i], AngleUnit::Arcminute) << '\n';
    }
    auto window = std::make_unique<MainWindow>(BackendRegistry{}, testOptions());
    CatalogSource mapped{mappedPath};
    mapped.raColumn = 3;
    mapped.decColumn = 2;
    mapped.unit = AngleUnit::Arcminute;
    QVERIFY(loadAndWait(*window, [&] { return window->setDataCatalog(mapped); }));
    QCOMPARE(window->dataCatalog()->size(), data.size());
    QVERIFY(std::abs(window->dataCatalog()->dec()[5] - data.dec()[5]) < 1e-12);
    QVERIFY(loadAndWait(*window,
                        [&] { return window->addRandomCatalog(CatalogSource{m_randomPath1}); }));
    QVERIFY(loadAndWait(*window,
                        [&] { return window->addRandomCatalog(CatalogSource{m_randomPath2}); }));
    window->binningPanel()->setSpec(BinSpec::linearWidth(0.5, 30.0, AngleUnit::Arcminute, 0.5));
    window->backendPanel()->setEstimator(Estimator::Hamilton);
    BackendOptions backend;
    backend.name = "cpu";
    backend.cpuThreads = 3;
    backend.precision = Precision::Double;
    backend.culling = CullingMode::Off;
    window->backendPanel()->setBackendOptions(backend);

    const Session saved = window->session();
    QCOMPARE(saved.toJson()
                 .value(QStringLiteral("backend"))
                 .toObject()
                 .value(QStringLiteral("culling"))
                 .toString(),
             QStringLiteral("off"));
    const QString path = m_dir.filePath(QStringLiteral("session.json"));
    QVERIFY(window->saveSession(path));

    auto reopened = std::make_unique<MainWindow>(BackendRegistry{}, testOptions());
    QVERIFY(loadAndWait(*reopened, [&] { return reopened->loadSession(path); }));
    const Session loaded = reopened->session();
    QCOMPARE(QJsonDocument(loaded.toJson()).toJson(), QJsonDocument(saved.toJson()).toJson());
    QVERIFY(loaded.data && *loaded.data == mapped);
    QCOMPARE(loaded.randoms.size(), 2);
    const BinSpec bins = reopened->binningPanel()->spec();
    QCOMPARE(bins.scale, BinScale::Linear);
    QCOMPARE(bins.unit, AngleUnit::Arcminute);
    QCOMPARE(bins.min, 0.5);
    QCOMPARE(bins.max, 30.0);
    QCOMPARE(bins.width, 0.5);
    QCOMPARE(reopened->backendPanel()->estimator(), Estimator::Hamilton);
    const BackendOptions reopenedBackend = reopened->backendPanel()->backendOptions();
    QCOMPARE(reopenedBackend.name, std::string("cpu"));
    QCOMPARE(reopenedBackend.cpuThreads, 3);
    QVERIFY(reopenedBackend.precision == Precision::Double);
    QCOMPARE(reopenedBackend.culling, CullingMode::Off);
    QCOMPARE(reopened->backendPanel()->cullingCombo()->currentData().toInt(),
             int(CullingMode::Off));
    // A session written before culling existed opens with Auto.
    QJsonObject older = saved.toJson();
    QJsonObject olderBackend = older.value(QStringLiteral("backend")).toObject();
    olderBackend.remove(QStringLiteral("culling"));
    older[QStringLiteral("backend")] = olderBackend;
    QCOMPARE(Session::fromJson(older).settings.backend.culling, CullingMode::Auto);
    QCOMPARE(reopened->dataCatalog()->size(), data.size());
    QCOMPARE(reopened->randomCatalogs().size(), std::size_t(2));

    // A file that is not a session is refused through the message path, state unchanged.
    QSignalSpy messages(reopened.get(), &MainWindow::messageReported);
    QVERIFY(!reopened->loadSession(m_dataPath));
    QCOMPARE(messages.count(), 1);
    QCOMPARE(qvariant_cast<MessageSeverity>(messages.front().at(0)), MessageSeverity::Error);
    QCOMPARE(QJsonDocument(reopened->session().toJson()).toJson(),
             QJsonDocument(saved.toJson()).toJson());
}

void TestStudioSessions::settingsPersistAcrossStarts() {
    // QSettings under a throw-away organisation so the user's real settings are never touched.
    QCoreApplication::setOrganizationName(QStringLiteral("tpacf-ui-test"));
    QCoreApplication::setApplicationName(QStringLiteral("settingsPersistAcrossStarts"));
    QSettings().clear();
    MainWindow::Options options = testOptions();
    options.useSettings = true;
    const BinSpec bins = BinSpec::logCount(0.5, 50, AngleUnit::Degree, 7);
    {
        MainWindow first(BackendRegistry{}, options);
        first.binningPanel()->setSpec(bins);
        first.backendPanel()->setEstimator(Estimator::DavisPeebles);
        QComboBox* culling = first.backendPanel()->cullingCombo();
        culling->setCurrentIndex(culling->findData(int(CullingMode::On)));
        first.close(); // saves
    }
    MainWindow second(BackendRegistry{}, options);
    const BinSpec restored = second.binningPanel()->spec();
    QCOMPARE(restored.scale, BinScale::Logarithmic);
    QCOMPARE(restored.unit, AngleUnit::Degree);
    QCOMPARE(restored.min, 0.5);
    QCOMPARE(restored.max, 50.0);
    QCOMPARE(restored.count, 7);
    QCOMPARE(second.backendPanel()->estimator(), Estimator::DavisPeebles);
    QCOMPARE(second.backendPanel()->backendOptions().culling, CullingMode::On);
    QSettings().clear();
}

void TestStudioSessions::sessionRoundTripsSecondSampleAndWeights() {
    const Catalog base = readCatalog(m_dataPath.toStdString());
    const QString weightedPath = m_dir.filePath(QStringLiteral("session_weighted.txt"));
    QCOMPARE(writeWeighted(weightedPath, base).size(), base.size());
    CatalogSource weighted{weightedPath};
    weighted.weightColumn = 3;

    auto window = std::make_unique<MainWindow>(BackendRegistry{}, testOptions());
    QVERIFY(loadAndWait(*window, [&] { return window->setDataCatalog(weighted); }));
    QVERIFY(loadAndWait(*window,
                        [&] { return window->addRandomCatalog(CatalogSource{m_randomPath1}); }));
    QVERIFY(loadAndWait(
        *window, [&] { return window->setSecondDataCatalog(CatalogSource{m_randomPath2}); }));
    QVERIFY(loadAndWait(
        *window, [&] { return window->addSecondRandomCatalog(CatalogSource{m_randomPath1}); }));
    const QString path = m_dir.filePath(QStringLiteral("cross_session.json"));
    QVERIFY(window->saveSession(path));
    // The file carries the weight column and the second sample.
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonObject json = QJsonDocument::fromJson(file.readAll()).object();
    QCOMPARE(
        json.value(QStringLiteral("data")).toObject().value(QStringLiteral("weightColumn")).toInt(),
        3);
    QCOMPARE(
        json.value(QStringLiteral("data2")).toObject().value(QStringLiteral("path")).toString(),
        m_randomPath2);
    QCOMPARE(json.value(QStringLiteral("randoms2")).toArray().size(), 1);

    auto reopened = std::make_unique<MainWindow>(BackendRegistry{}, testOptions());
    QVERIFY(loadAndWait(*reopened, [&] { return reopened->loadSession(path); }));
    const Session restored = reopened->session();
    const Session saved = window->session();
    QVERIFY(restored.data == saved.data);
    QCOMPARE(restored.data->weightColumn, 3);
    QVERIFY(restored.randoms == saved.randoms);
    QVERIFY(restored.data2 == saved.data2);
    QVERIFY(restored.randoms2 == saved.randoms2);
    QVERIFY(reopened->dataCatalog()->hasWeights());
    QVERIFY(std::equal(
        reopened->dataCatalog()->weight().begin(), reopened->dataCatalog()->weight().end(),
        window->dataCatalog()->weight().begin(), window->dataCatalog()->weight().end()));
    QCOMPARE(reopened->catalogSet()->data2Catalog()->size(),
             window->catalogSet()->data2Catalog()->size());
    QVERIFY(reopened->canRun());

    // A one-sample session replaces the second sample with none.
    Session oneSample = saved;
    oneSample.data2.reset();
    oneSample.randoms2.clear();
    QVERIFY(!oneSample.toJson().contains(QStringLiteral("data2")));
    QVERIFY(loadAndWait(*reopened, [&] { return reopened->applySession(oneSample); }));
    QVERIFY(!reopened->catalogSet()->hasSecondSample());
}

void TestStudioSessions::sessionKeepsHduAndRowFilter() {
#ifndef TPACF_TEST_HAVE_CFITSIO
    QSKIP("the tests are built without cfitsio: no FITS file to write");
#endif
    if (!fitsSupported())
        QSKIP("this build reads no FITS tables");
    const QString path = twoTableFits();
    QVERIFY(!path.isEmpty());
    CatalogSource filtered{path};
    filtered.hdu = QStringLiteral("RANDOMS"); // by EXTNAME, as a session may say it
    filtered.rowFilter = QStringLiteral("Z>0.4 && Z<0.8");
    filtered.raColumn = 4;
    filtered.decColumn = 3;
    CatalogSource whole{path};
    whole.hdu = QStringLiteral("2");
    whole.raColumn = 4;
    whole.decColumn = 3;

    auto window = std::make_unique<MainWindow>(BackendRegistry{}, testOptions());
    QVERIFY(loadAndWait(*window, [&] { return window->setDataCatalog(filtered); }));
    QVERIFY(loadAndWait(*window, [&] { return window->addRandomCatalog(whole); }));
    const std::size_t kept = filteredRandoms().first.size();
    QCOMPARE(window->dataCatalog()->size(), kept);
    QCOMPARE(window->randomCatalogs().at(0)->size(), fitsRandoms().ra.size());
    const QString sessionPath = m_dir.filePath(QStringLiteral("fits_session.json"));
    QVERIFY(window->saveSession(sessionPath));
    QFile file(sessionPath);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonObject json = QJsonDocument::fromJson(file.readAll()).object();
    const QJsonObject data = json.value(QStringLiteral("data")).toObject();
    QCOMPARE(data.value(QStringLiteral("hdu")).toString(), QStringLiteral("RANDOMS"));
    QCOMPARE(data.value(QStringLiteral("rowFilter")).toString(), QStringLiteral("Z>0.4 && Z<0.8"));
    const QJsonObject random = json.value(QStringLiteral("randoms")).toArray().at(0).toObject();
    QCOMPARE(random.value(QStringLiteral("hdu")).toString(), QStringLiteral("2"));
    QVERIFY(!random.contains(QStringLiteral("rowFilter"))); // written only when set

    auto reopened = std::make_unique<MainWindow>(BackendRegistry{}, testOptions());
    QVERIFY(loadAndWait(*reopened, [&] { return reopened->loadSession(sessionPath); }));
    const Session restored = reopened->session();
    QVERIFY(restored.data && *restored.data == filtered);
    QCOMPARE(restored.randoms.size(), 1);
    QVERIFY(restored.randoms.front() == whole);
    QCOMPARE(reopened->dataCatalog()->size(), kept);
    QCOMPARE(reopened->randomCatalogs().at(0)->size(), fitsRandoms().ra.size());
}

namespace {
// The Log's text (what the window said to the user there).
QString logText(const MainWindow& window) {
    const auto* log = window.findChild<QPlainTextEdit*>(QStringLiteral("log"));
    return log ? log->toPlainText() : QString();
}

// Options of a window that keeps its work at `path` and, opened with nothing, reopens it.
MainWindow::Options keepingOptions(const QString& path) {
    MainWindow::Options options = testOptions();
    options.loadSample = true;
    options.autoSessionPath = path;
    return options;
}
} // namespace

// Issue 35, item 3: quitting never loses work. The catalogs, settings and runs are kept at quit
// and the next start reopens them (saying so) instead of the bundled sample; with nothing but
// the sample there is nothing to keep; a kept session whose catalog is gone is not reopened.
void TestStudioSessions::workIsKeptAcrossAQuit() {
    const QString kept = m_dir.filePath(QStringLiteral("appdata/last-session.json"));
    QFile::remove(kept);
    std::vector<double> firstW, lastW;
    {
        MainWindow window(BackendRegistry{}, keepingOptions(kept));
        QVERIFY(waitForLoads(window)); // the sample (nothing kept yet)
        QVERIFY(window.dataCatalog());
        QVERIFY(loadAndWait(window, [&] { return window.setDataCatalog(CatalogSource{m_dataPath}); }));
        while (!window.randomCatalogs().empty()) // the sample's
            window.removeRandomCatalog(0);
        for (const QString& random : {m_randomPath1, m_randomPath2})
            QVERIFY(loadAndWait(window,
                                [&] { return window.addRandomCatalog(CatalogSource{random}); }));
        window.binningPanel()->setSpec(m_bins);
        BackendOptions cpu;
        cpu.name = "cpu";
        window.backendPanel()->setBackendOptions(cpu);
        const ResultPtr first = runToCompletion(window);
        QVERIFY(first);
        firstW = first->w;
        window.backendPanel()->setEstimator(Estimator::Hamilton);
        const ResultPtr last = runToCompletion(window);
        QVERIFY(last);
        lastW = last->w;
        QVERIFY(!QFileInfo::exists(kept));
        QVERIFY(window.close()); // nothing asked: the work is kept
        QVERIFY(QFileInfo::exists(kept));
    }
    {
        MainWindow reopened(BackendRegistry{}, keepingOptions(kept));
        QVERIFY(waitForLoads(reopened));
        const Session session = reopened.session();
        QVERIFY(session.data && session.data->path == m_dataPath);
        QCOMPARE(session.randoms.size(), 2);
        QCOMPARE(session.history.size(), 2);
        QCOMPARE(session.history.front().result->w, firstW);
        QCOMPARE(session.history.back().result->w, lastW);
        QVERIFY(reopened.currentResult());
        QCOMPARE(reopened.currentResult()->w, lastW); // the last run is shown
        QCOMPARE(reopened.backendPanel()->estimator(), Estimator::Hamilton);
        QCOMPARE(reopened.binningPanel()->spec().min, m_bins.min);
        QCOMPARE(reopened.binningPanel()->spec().max, m_bins.max);
        QVERIFY2(logText(reopened).contains(QStringLiteral("Reopened the work of the last quit")),
                 qPrintable(logText(reopened)));
        // A session named on the command line wins over the kept work.
        MainWindow::Options named = keepingOptions(kept);
        named.reopenAutoSession = false;
        MainWindow fresh(BackendRegistry{}, named);
        QVERIFY(waitForLoads(fresh));
        QVERIFY(fresh.session().history.isEmpty());
        QVERIFY(fresh.session().data && fresh.session().data->isResource());
    }
    {
        // The sample alone and no run: nothing to keep, and the old kept work is dropped.
        MainWindow::Options options = keepingOptions(kept);
        options.reopenAutoSession = false;
        MainWindow window(BackendRegistry{}, options);
        QVERIFY(waitForLoads(window));
        QVERIFY(window.close());
        QVERIFY(!QFileInfo::exists(kept));
    }
    {
        // A kept session whose data file is gone: the sample, and the Log says where the runs are.
        const QString moved = m_dir.filePath(QStringLiteral("moving.txt"));
        QFile::remove(moved);
        QVERIFY(QFile::copy(m_dataPath, moved));
        MainWindow window(BackendRegistry{}, keepingOptions(kept));
        QVERIFY(waitForLoads(window));
        QVERIFY(loadAndWait(window, [&] { return window.setDataCatalog(CatalogSource{moved}); }));
        QVERIFY(window.close());
        QVERIFY(QFileInfo::exists(kept));
        QVERIFY(QFile::remove(moved));
        MainWindow reopened(BackendRegistry{}, keepingOptions(kept));
        QVERIFY(waitForLoads(reopened));
        QVERIFY(reopened.session().data && reopened.session().data->isResource());
        QVERIFY2(logText(reopened).contains(QStringLiteral("no longer exists")),
                 qPrintable(logText(reopened)));
        QVERIFY(logText(reopened).contains(kept));
    }
}

// Issue 35, item 3: where the work cannot be kept (its folder cannot be made), quitting asks
// first through the window's confirm hook; "no" keeps the window open.
void TestStudioSessions::keptWorkThatCannotBeWrittenAsksBeforeQuitting() {
    const QString blocker = m_dir.filePath(QStringLiteral("not-a-folder"));
    {
        QFile file(blocker);
        QVERIFY(file.open(QIODevice::WriteOnly));
    }
    QStringList questions;
    bool answer = false;
    MainWindow::Options options = keepingOptions(blocker + QStringLiteral("/last-session.json"));
    options.confirm = [&](const QString& question) {
        questions.append(question);
        return answer;
    };
    MainWindow window(BackendRegistry{}, options);
    QVERIFY(waitForLoads(window));
    QVERIFY(loadAndWait(window, [&] { return window.setDataCatalog(CatalogSource{m_dataPath}); }));
    window.show();
    QVERIFY(!window.close());
    QVERIFY(window.isVisible());
    QCOMPARE(questions.size(), 1);
    QVERIFY2(questions.front().contains(QStringLiteral("could not be kept")),
             qPrintable(questions.front()));
    answer = true;
    QVERIFY(window.close());
    QCOMPARE(questions.size(), 2);
}

TPACF_TEST_MAIN(TestStudioSessions)
#include "test_studio_sessions.moc"
