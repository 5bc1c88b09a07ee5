// SPDX-License-Identifier: GPL-3.0-or-later
// A session file is untrusted input (a colleague's, a download): a FITS row filter in it that
// would make cfitsio read another file (a FIFO, /dev/zero, /etc/passwd) is refused within
// seconds through the message path, and the window keeps the catalogs it had.
#include "main_window.h"
#include "tpacf_test_main.h"
#include <tpacf/catalog_reader.h>
#include <tpacf/mock.h>

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "fits_test_catalog.h"

#include <sys/stat.h>

using tpacf::ui::CatalogSource;
using tpacf::ui::MainWindow;

namespace {

MainWindow::Options testOptions() {
    MainWindow::Options options;
    options.loadSample = false;
    options.useSettings = false;
    options.interactive = false; // no modal dialog may block a test
    return options;
}

template <typename Start> bool loadAndWait(MainWindow& window, Start&& start, int timeoutMs) {
    QSignalSpy finished(&window, &MainWindow::loadFinished);
    if (!start())
        return false;
    if (!QTest::qWaitFor([&window] { return !window.isLoading(); }, timeoutMs))
        return false;
    return !finished.isEmpty() && finished.last().front().toBool();
}

} // namespace

class TestHostileSession : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_fits, m_session;

private slots:
    void initTestCase() {
        if (!tpacf::fitsSupported())
            QSKIP("this build reads no FITS tables");
        QVERIFY(m_dir.isValid());
        m_fits = m_dir.filePath(QStringLiteral("d.fits"));
        const tpacf::Catalog catalog =
            tpacf::generateUniformRandoms(200, tpacf::Footprint::box(10, 14, 0, 4), 5, "d");
        QVERIFY(tpacf::test::writeFitsRaDec(m_fits, catalog));
        QCOMPARE(
            ::mkfifo(QFile::encodeName(m_dir.filePath(QStringLiteral("ff"))).constData(), 0600), 0);
        // A good session with the FITS catalog and a row filter, to be edited below.
        MainWindow window(tpacf::BackendRegistry{}, testOptions());
        CatalogSource source{m_fits};
        source.rowFilter = QStringLiteral("RA > 11");
        QVERIFY(loadAndWait(
            window, [&] { return window.setDataCatalog(source); }, 30000));
        m_session = m_dir.filePath(QStringLiteral("good.json"));
        QVERIFY(window.saveSession(m_session));
    }

    void fileReadingFilterRefused_data() {
        QTest::addColumn<QString>("filter");
        QTest::newRow("@fifo") << QStringLiteral("@") + m_dir.filePath(QStringLiteral("ff"));
        QTest::newRow("@/dev/zero") << QStringLiteral("@/dev/zero");
        QTest::newRow("@/etc/passwd") << QStringLiteral("@/etc/passwd");
        QTest::newRow("regfilter") << QStringLiteral("regfilter(\"/etc/passwd\")");
        QTest::newRow("gtifilter")
            << QStringLiteral("gtifilter(\"%1\")").arg(m_dir.filePath(QStringLiteral("ff")));
    }
    void fileReadingFilterRefused() {
        QFETCH(QString, filter);
        QFile good(m_session);
        QVERIFY(good.open(QIODevice::ReadOnly));
        QJsonObject json = QJsonDocument::fromJson(good.readAll()).object();
        QJsonObject data = json.value(QStringLiteral("data")).toObject();
        QCOMPARE(data.value(QStringLiteral("rowFilter")).toString(), QStringLiteral("RA > 11"));
        data[QStringLiteral("rowFilter")] = filter;
        json[QStringLiteral("data")] = data;
        const QString hostile = m_dir.filePath(QStringLiteral("hostile.json"));
        QFile out(hostile);
        QVERIFY(out.open(QIODevice::WriteOnly | QIODevice::Truncate));
        out.write(QJsonDocument(json).toJson());
        out.close();

        MainWindow window(tpacf::BackendRegistry{}, testOptions());
        QSignalSpy messages(&window, &MainWindow::messageReported);
        QVERIFY(!loadAndWait(
            window, [&] { return window.loadSession(hostile); }, 15000));
        QVERIFY2(!window.isLoading(), "the load still runs after 15 s");
        QVERIFY(!window.dataCatalog());
        bool said = false;
        for (const QList<QVariant>& message : messages)
            said = said || message.at(1).toString().contains(QStringLiteral("reads another file"));
        QVERIFY2(said, "no message says the filter reads another file");
        for (const QList<QVariant>& message : messages)
            QVERIFY(!message.at(1).toString().contains(QStringLiteral("root")));
    }
};

TPACF_TEST_MAIN(TestHostileSession)
#include "test_hostile_session.moc"
