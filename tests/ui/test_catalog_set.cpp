// SPDX-License-Identifier: GPL-3.0-or-later
// CatalogSet: changes read in the background apply whole and in the order they were queued; a
// file that cannot be read leaves the catalogs as they were; removal, the loading line, region
// label reads and the overwrite guard; the second sample (data2, randoms2) of a cross-correlation
// and the weight column, FITS HDU and row filter of a source.
#include "catalog_set.h"
#include "tpacf_test_main.h"

#include <tpacf/mock.h>

#include <algorithm>

#include <QFile>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace tpacf;
using namespace tpacf::ui;

namespace {

constexpr int kTimeoutMs = 30000;

// Waits until `set` has no change left; false on a timeout.
bool waitIdle(const CatalogSet& set) {
    return QTest::qWaitFor([&set] { return !set.isLoading(); }, kTimeoutMs);
}

} // namespace

class TestCatalogSet : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void changeAppliesWholeOnceRead();
    void queuedChangesApplyInOrder();
    void badFileLeavesPreviousCatalogs();
    void failureBetweenTwoChangesAffectsOnlyItsOwn();
    void replaceAllReplacesTheRandoms();
    void removeRandom();
    void loadingDescriptionNamesTheFile();
    void regionLabelReadDoesNotChangeTheSet();
    void loadedSourceAtFindsLoadedFiles();
    void secondSampleLoadsBesideTheFirst();
    void secondSampleRemovalAndReplaceAll();
    void regionLabelsCoverTheSecondSample();
    void weightColumnReachesTheReader();
    void hduAndRowFilterReachTheReader();

private:
    QString write(const QString& name, std::size_t count, std::uint64_t seed);

    QTemporaryDir m_dir;
    QString m_a, m_b, m_r1, m_r2, m_bad;
};

QString TestCatalogSet::write(const QString& name, std::size_t count, std::uint64_t seed) {
    const QString path = m_dir.filePath(name);
    writeCatalogAscii(path.toStdString(),
                      generateUniformRandoms(count, Footprint::box(10, 30, -5, 5), seed));
    return path;
}

void TestCatalogSet::initTestCase() {
    QVERIFY(m_dir.isValid());
    // Distinct sizes tell the files apart once read.
    m_a = write(QStringLiteral("a.txt"), 101, 1);
    m_b = write(QStringLiteral("b.txt"), 202, 2);
    m_r1 = write(QStringLiteral("r1.txt"), 303, 3);
    m_r2 = write(QStringLiteral("r2.txt"), 404, 4);
    // Three columns, the third a jackknife region label.
    for (const auto& [name, rows] : {std::pair{QStringLiteral("labelled_data.txt"), 12},
                                     std::pair{QStringLiteral("labelled_random.txt"), 20}}) {
        QFile file(m_dir.filePath(name));
        QVERIFY(file.open(QIODevice::WriteOnly));
        for (int i = 0; i < rows; ++i)
            file.write(QStringLiteral("%1 %2 %3\n").arg(10 + i).arg(i % 5).arg(i % 3).toUtf8());
    }
    m_bad = m_dir.filePath(QStringLiteral("bad.txt"));
    QFile bad(m_bad);
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write("# ra dec\n10.0 1.0\n11.0 not-a-number\n");
}

void TestCatalogSet::changeAppliesWholeOnceRead() {
    CatalogSet set;
    QSignalSpy changed(&set, &CatalogSet::catalogsChanged);
    QSignalSpy applied(&set, &CatalogSet::changeApplied);
    CatalogChange change;
    change.data = CatalogSource{m_a};
    change.randoms = {CatalogSource{m_r1}, CatalogSource{m_r2}};
    const quint64 id = set.queueChange(change);
    // Queued only: nothing is there yet.
    QVERIFY(set.isLoading());
    QCOMPARE(set.pendingChanges(), QList<quint64>{id});
    QVERIFY(!set.dataCatalog());
    QVERIFY(set.randoms().isEmpty());
    QVERIFY(applied.wait(kTimeoutMs));
    QCOMPARE(applied.count(), 1);
    QCOMPARE(applied.front().front().toULongLong(), id);
    QCOMPARE(changed.count(), 1);
    QVERIFY(!set.isLoading());
    QCOMPARE(set.dataCatalog()->size(), std::size_t(101));
    QVERIFY(set.data()->source == CatalogSource{m_a});
    QCOMPARE(set.randomCatalogs().size(), std::size_t(2));
    QCOMPARE(set.randoms()[0].catalog->size(), std::size_t(303));
    QCOMPARE(set.randoms()[1].catalog->size(), std::size_t(404));
}

void TestCatalogSet::queuedChangesApplyInOrder() {
    CatalogSet set;
    QList<quint64> order;
    connect(&set, &CatalogSet::changeApplied, this, [&](quint64 id) { order.append(id); });
    CatalogChange first;
    first.data = CatalogSource{m_a};
    CatalogChange second;
    second.data = CatalogSource{m_b};
    CatalogChange third;
    third.randoms = {CatalogSource{m_r1}};
    const quint64 id1 = set.queueChange(first);
    const quint64 id2 = set.queueChange(second);
    const quint64 id3 = set.queueChange(third);
    QCOMPARE(set.pendingChanges(), (QList<quint64>{id1, id2, id3}));
    QVERIFY(waitIdle(set));
    QCOMPARE(order, (QList<quint64>{id1, id2, id3}));
    // The later data replaced the earlier one; the random was added to it.
    QCOMPARE(set.dataCatalog()->size(), std::size_t(202));
    QCOMPARE(set.randoms().size(), 1);
    QCOMPARE(set.randoms().front().catalog->size(), std::size_t(303));
}

void TestCatalogSet::badFileLeavesPreviousCatalogs() {
    CatalogSet set;
    CatalogChange initial;
    initial.data = CatalogSource{m_a};
    initial.randoms = {CatalogSource{m_r1}};
    set.queueChange(initial);
    QVERIFY(waitIdle(set));
    const auto dataBefore = set.dataCatalog();
    const auto randomsBefore = set.randomCatalogs();

    QSignalSpy changed(&set, &CatalogSet::catalogsChanged);
    QSignalSpy failed(&set, &CatalogSet::changeFailed);
    QSignalSpy applied(&set, &CatalogSet::changeApplied);
    // The good file of the change is read first; the change still fails as a whole.
    CatalogChange broken;
    broken.data = CatalogSource{m_b};
    broken.randoms = {CatalogSource{m_bad}};
    const quint64 id = set.queueChange(broken);
    QVERIFY(failed.wait(kTimeoutMs));
    QCOMPARE(failed.front().at(0).toULongLong(), id);
    const QString message = failed.front().at(1).toString();
    QVERIFY2(message.contains(QStringLiteral("bad.txt")), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("line 3")), qPrintable(message));
    QVERIFY(!set.isLoading());
    QCOMPARE(changed.count(), 0);
    QCOMPARE(applied.count(), 0);
    QCOMPARE(set.dataCatalog(), dataBefore); // the very same catalog, not a re-read
    QVERIFY(set.randomCatalogs() == randomsBefore);
}

void TestCatalogSet::failureBetweenTwoChangesAffectsOnlyItsOwn() {
    CatalogSet set;
    QStringList events;
    connect(&set, &CatalogSet::changeApplied, this,
            [&](quint64 id) { events.append(QStringLiteral("applied %1").arg(id)); });
    connect(&set, &CatalogSet::changeFailed, this, [&](quint64 id, const QString&) {
        events.append(QStringLiteral("failed %1").arg(id));
    });
    CatalogChange a, bad, b;
    a.data = CatalogSource{m_a};
    bad.data = CatalogSource{m_bad};
    b.randoms = {CatalogSource{m_r2}};
    const quint64 idA = set.queueChange(a);
    const quint64 idBad = set.queueChange(bad);
    const quint64 idB = set.queueChange(b);
    QVERIFY(waitIdle(set));
    QCOMPARE(events, (QStringList{QStringLiteral("applied %1").arg(idA),
                                  QStringLiteral("failed %1").arg(idBad),
                                  QStringLiteral("applied %1").arg(idB)}));
    QCOMPARE(set.dataCatalog()->size(), std::size_t(101));
    QCOMPARE(set.randoms().size(), 1);
}

void TestCatalogSet::replaceAllReplacesTheRandoms() {
    CatalogSet set;
    CatalogChange initial;
    initial.data = CatalogSource{m_a};
    initial.randoms = {CatalogSource{m_r1}, CatalogSource{m_r2}};
    set.queueChange(initial);
    CatalogChange session;
    session.replaceAll = true;
    session.data = CatalogSource{m_b};
    session.randoms = {CatalogSource{m_r2}};
    set.queueChange(session);
    QVERIFY(waitIdle(set));
    QCOMPARE(set.dataCatalog()->size(), std::size_t(202));
    QCOMPARE(set.randoms().size(), 1);
    QVERIFY(set.randoms().front().source == CatalogSource{m_r2});

    // Replacing all with no data empties the data too.
    CatalogChange empty;
    empty.replaceAll = true;
    set.queueChange(empty);
    QVERIFY(waitIdle(set));
    QVERIFY(!set.data());
    QVERIFY(set.randoms().isEmpty());
}

void TestCatalogSet::removeRandom() {
    CatalogSet set;
    CatalogChange initial;
    initial.data = CatalogSource{m_a};
    initial.randoms = {CatalogSource{m_r1}, CatalogSource{m_r2}};
    set.queueChange(initial);
    // Refused while a change waits: indices would refer to a list about to change.
    QVERIFY(!set.removeRandom(0));
    QVERIFY(waitIdle(set));
    QSignalSpy changed(&set, &CatalogSet::catalogsChanged);
    QVERIFY(!set.removeRandom(2));
    QVERIFY(!set.removeRandom(-1));
    QCOMPARE(changed.count(), 0);
    QVERIFY(set.removeRandom(0));
    QCOMPARE(changed.count(), 1);
    QCOMPARE(set.randoms().size(), 1);
    QCOMPARE(set.randoms().front().catalog->size(), std::size_t(404));
}

void TestCatalogSet::loadingDescriptionNamesTheFile() {
    CatalogSet set;
    QVERIFY(set.loadingDescription().isEmpty());
    CatalogChange one;
    one.data = CatalogSource{m_a};
    set.queueChange(one);
    QCOMPARE(set.loadingDescription(), QStringLiteral("Reading a.txt…"));
    CatalogChange two;
    two.randoms = {CatalogSource{m_r1}};
    set.queueChange(two);
    // Counted over everything queued.
    QCOMPARE(set.loadingDescription(), QStringLiteral("Reading a.txt (1 of 2 files)…"));
    QVERIFY(waitIdle(set));
    QVERIFY(set.loadingDescription().isEmpty());
}

void TestCatalogSet::regionLabelReadDoesNotChangeTheSet() {
    CatalogSet set;
    CatalogChange initial;
    initial.data = CatalogSource{m_dir.filePath(QStringLiteral("labelled_data.txt"))};
    initial.randoms = {CatalogSource{m_dir.filePath(QStringLiteral("labelled_random.txt"))}};
    set.queueChange(initial);
    QVERIFY(waitIdle(set));
    const auto dataBefore = set.dataCatalog();
    QVERIFY(dataBefore->region().empty());

    // Column 3 holds the labels: a fresh copy of each catalog comes back, with them.
    QSignalSpy read(&set, &CatalogSet::regionLabelsRead);
    QSignalSpy failed(&set, &CatalogSet::regionLabelsFailed);
    QSignalSpy changed(&set, &CatalogSet::catalogsChanged);
    const quint64 good = set.readRegionLabels(QStringLiteral("3"));
    QVERIFY(read.wait(kTimeoutMs));
    QCOMPARE(read.front().at(0).toULongLong(), good);
    const auto catalogs = read.front().at(1).value<CatalogList>();
    QCOMPARE(catalogs.size(), 2);
    QCOMPARE(catalogs[0]->size(), std::size_t(12));
    QCOMPARE(catalogs[1]->size(), std::size_t(20));
    QVERIFY(catalogs[0]->region().size() == 12 && catalogs[1]->region().size() == 20);
    QVERIFY(catalogs[0] != dataBefore);
    // A column the files do not have fails.
    const quint64 bad = set.readRegionLabels(QStringLiteral("7"));
    QVERIFY(failed.wait(kTimeoutMs));
    QCOMPARE(failed.front().at(0).toULongLong(), bad);
    QCOMPARE(changed.count(), 0);
    QCOMPARE(set.dataCatalog(), dataBefore);
    QVERIFY(!set.isLoading());
}

void TestCatalogSet::loadedSourceAtFindsLoadedFiles() {
    CatalogSet set;
    CatalogChange initial;
    initial.data = CatalogSource{m_a};
    initial.randoms = {CatalogSource{m_r1}};
    set.queueChange(initial);
    QVERIFY(waitIdle(set));
    const CatalogSource* hit = set.loadedSourceAt(m_r1);
    QVERIFY(hit);
    QCOMPARE(hit->path, m_r1);
    QVERIFY(set.loadedSourceAt(m_dir.filePath(QStringLiteral("./a.txt"))));
    QVERIFY(!set.loadedSourceAt(m_b));
    QVERIFY(!set.loadedSourceAt(m_dir.filePath(QStringLiteral("new.csv"))));
}

void TestCatalogSet::secondSampleLoadsBesideTheFirst() {
    CatalogSet set;
    CatalogChange first;
    first.data = CatalogSource{m_a};
    first.randoms = {CatalogSource{m_r1}};
    set.queueChange(first);
    QVERIFY(waitIdle(set));
    QVERIFY(!set.hasSecondSample());
    QVERIFY(!set.data2Catalog());

    // The second sample in one change: the first is untouched.
    CatalogChange second;
    second.data2 = CatalogSource{m_b};
    second.randoms2 = {CatalogSource{m_r2}};
    QSignalSpy changed(&set, &CatalogSet::catalogsChanged);
    set.queueChange(second);
    QCOMPARE(set.loadingDescription(), QStringLiteral("Reading b.txt (1 of 2 files)…"));
    QVERIFY(waitIdle(set));
    QCOMPARE(changed.count(), 1);
    QVERIFY(set.hasSecondSample());
    QCOMPARE(set.dataCatalog()->size(), std::size_t(101));
    QCOMPARE(set.randomCatalogs().size(), std::size_t(1));
    QCOMPARE(set.randomCatalogs().front()->size(), std::size_t(303));
    QVERIFY(set.data2());
    QVERIFY(set.data2()->source == CatalogSource{m_b});
    QCOMPARE(set.data2Catalog()->size(), std::size_t(202));
    QCOMPARE(set.random2Catalogs().size(), std::size_t(1));
    QCOMPARE(set.random2Catalogs().front()->size(), std::size_t(404));
    // Its files are loaded files too (the overwrite guard covers them).
    QVERIFY(set.loadedSourceAt(m_b));
    QVERIFY(set.loadedSourceAt(m_r2));

    // More randoms of the second sample add; a new data2 replaces the old.
    CatalogChange more;
    more.randoms2 = {CatalogSource{m_r1}};
    more.data2 = CatalogSource{m_a};
    set.queueChange(more);
    QVERIFY(waitIdle(set));
    QCOMPARE(set.data2Catalog()->size(), std::size_t(101));
    QCOMPARE(set.randoms2().size(), 2);
    QCOMPARE(set.randoms2()[1].catalog->size(), std::size_t(303));
    QCOMPARE(set.randoms().size(), 1);

    // A bad file in a second-sample change leaves everything as it was.
    CatalogChange bad;
    bad.data2 = CatalogSource{m_b};
    bad.randoms2 = {CatalogSource{m_bad}};
    QSignalSpy failed(&set, &CatalogSet::changeFailed);
    set.queueChange(bad);
    QVERIFY(waitIdle(set));
    QCOMPARE(failed.count(), 1);
    QCOMPARE(set.data2Catalog()->size(), std::size_t(101));
    QCOMPARE(set.randoms2().size(), 2);
}

void TestCatalogSet::secondSampleRemovalAndReplaceAll() {
    CatalogSet set;
    CatalogChange initial;
    initial.data = CatalogSource{m_a};
    initial.randoms = {CatalogSource{m_r1}, CatalogSource{m_r2}};
    initial.data2 = CatalogSource{m_b};
    initial.randoms2 = {CatalogSource{m_r2}, CatalogSource{m_r1}};
    set.queueChange(initial);
    QVERIFY(!set.removeRandom2(0)); // refused while loading
    QVERIFY(!set.clearSecondSample());
    QVERIFY(waitIdle(set));
    QSignalSpy changed(&set, &CatalogSet::catalogsChanged);
    QVERIFY(!set.removeRandom2(2));
    QVERIFY(!set.removeRandom2(-1));
    QCOMPARE(changed.count(), 0);
    QVERIFY(set.removeRandom2(0));
    QCOMPARE(changed.count(), 1);
    QCOMPARE(set.randoms2().size(), 1);
    QCOMPARE(set.randoms2().front().catalog->size(), std::size_t(303));
    QCOMPARE(set.randoms().size(), 2); // the first sample's randoms are not touched

    QVERIFY(set.clearSecondSample());
    QCOMPARE(changed.count(), 2);
    QVERIFY(!set.hasSecondSample());
    QVERIFY(!set.data2());
    QVERIFY(set.randoms2().isEmpty());
    QCOMPARE(set.randoms().size(), 2);
    QVERIFY(!set.clearSecondSample()); // nothing left to clear
    QCOMPARE(changed.count(), 2);

    // replaceAll (a session, the sample) replaces the second sample too: with none, none.
    set.queueChange(initial);
    QVERIFY(waitIdle(set));
    QVERIFY(set.hasSecondSample());
    CatalogChange oneSample;
    oneSample.replaceAll = true;
    oneSample.data = CatalogSource{m_b};
    oneSample.randoms = {CatalogSource{m_r1}};
    set.queueChange(oneSample);
    QVERIFY(waitIdle(set));
    QVERIFY(!set.hasSecondSample());
    QCOMPARE(set.dataCatalog()->size(), std::size_t(202));
}

void TestCatalogSet::regionLabelsCoverTheSecondSample() {
    const QString labelledData = m_dir.filePath(QStringLiteral("labelled_data.txt"));
    const QString labelledRandom = m_dir.filePath(QStringLiteral("labelled_random.txt"));
    CatalogSet set;
    CatalogChange initial;
    initial.data = CatalogSource{labelledData};
    initial.randoms = {CatalogSource{labelledRandom}};
    initial.data2 = CatalogSource{labelledRandom};
    initial.randoms2 = {CatalogSource{labelledData}};
    set.queueChange(initial);
    QVERIFY(waitIdle(set));
    // In the order data, randoms, data2, randoms2 (the run controller splits them so).
    QSignalSpy read(&set, &CatalogSet::regionLabelsRead);
    set.readRegionLabels(QStringLiteral("3"));
    QVERIFY(read.wait(kTimeoutMs));
    const auto catalogs = read.front().at(1).value<CatalogList>();
    QCOMPARE(catalogs.size(), 4);
    const std::size_t sizes[4] = {12, 20, 20, 12};
    for (int i = 0; i < 4; ++i) {
        QCOMPARE(catalogs[i]->size(), sizes[i]);
        QCOMPARE(catalogs[i]->region().size(), sizes[i]);
    }
}

void TestCatalogSet::weightColumnReachesTheReader() {
    // ra dec w: the weights are the third column; the set reads them only when asked to.
    const QString path = m_dir.filePath(QStringLiteral("weighted.txt"));
    {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("10 1 0.5\n11 2 1.25\n12 3 -0.75\n13 4 2\n");
    }
    CatalogSource source{path};
    source.weightColumn = 3;
    QCOMPARE(source.readOptions().weightColumn.index, 3);
    QVERIFY(!CatalogSource{path}.readOptions().weightColumn.isSet());
    CatalogSet set;
    CatalogChange change;
    change.data = source;
    change.data2 = CatalogSource{path}; // the same file without weights
    set.queueChange(change);
    QVERIFY(waitIdle(set));
    const std::vector<double> expected = {0.5, 1.25, -0.75, 2.0};
    QVERIFY(set.dataCatalog()->hasWeights());
    QVERIFY(std::equal(expected.begin(), expected.end(), set.dataCatalog()->weight().begin(),
                       set.dataCatalog()->weight().end()));
    QVERIFY(!set.data2Catalog()->hasWeights());
    QCOMPARE(set.data()->source.weightColumn, 3);

    // A weight that is not a number: the change fails naming file, line and column.
    const QString badPath = m_dir.filePath(QStringLiteral("bad_weight.txt"));
    {
        QFile file(badPath);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("10 1 0.5\n11 2 nan\n");
    }
    CatalogSource bad{badPath};
    bad.weightColumn = 3;
    CatalogChange badChange;
    badChange.data = bad;
    QSignalSpy failed(&set, &CatalogSet::changeFailed);
    set.queueChange(badChange);
    QVERIFY(waitIdle(set));
    QCOMPARE(failed.count(), 1);
    const QString message = failed.front().at(1).toString();
    QVERIFY2(message.contains(QStringLiteral("bad_weight.txt")) &&
                 message.contains(QStringLiteral("line 2")) &&
                 message.contains(QStringLiteral("column 3")),
             qPrintable(message));
    QVERIFY(set.dataCatalog()->hasWeights()); // as it was
}

void TestCatalogSet::hduAndRowFilterReachTheReader() {
    const QString path = QStringLiteral("/survey/d.fits");
    CatalogSource source{path};
    // Nothing chosen: the plain path, the reader's default HDU, no keys in the JSON.
    QCOMPARE(source.readPath(), path);
    QVERIFY(source.readOptions().hdu.empty());
    QVERIFY(!source.toJson().contains(QStringLiteral("hdu")));
    QVERIFY(!source.toJson().contains(QStringLiteral("rowFilter")));
    QCOMPARE(source.displayName(), QStringLiteral("d.fits"));

    // The HDU goes to the options (and the path stays the file: the overwrite guard checks it).
    source.hdu = QStringLiteral("RANDOMS");
    QCOMPARE(source.readOptions().hdu, std::string("RANDOMS"));
    QCOMPARE(source.readPath(), path);
    QCOMPARE(source.displayName(), QStringLiteral("d.fits[RANDOMS]"));
    // A filter follows the HDU in the path, so cfitsio never takes it for an HDU name.
    source.rowFilter = QStringLiteral("FLAG");
    QCOMPARE(source.readPath(), path + QStringLiteral("[RANDOMS][FLAG]"));
    QCOMPARE(source.displayName(), QStringLiteral("d.fits[RANDOMS][FLAG]"));
    CatalogSource filterOnly{path};
    filterOnly.rowFilter = QStringLiteral("Z>0.4 && Z<0.8");
    QCOMPARE(filterOnly.readPath(), path + QStringLiteral("[Z>0.4 && Z<0.8]"));

    // Both survive JSON (sessions, recent files), and older JSON without them reads as before.
    QCOMPARE(CatalogSource::fromJson(source.toJson()), source);
    QCOMPARE(CatalogSource::fromJson(filterOnly.toJson()), filterOnly);
    QJsonObject older = source.toJson();
    older.remove(QStringLiteral("hdu"));
    older.remove(QStringLiteral("rowFilter"));
    QCOMPARE(CatalogSource::fromJson(older), CatalogSource{path});

    // A row filter on a text catalog is refused by the reader: the change fails, nothing moves.
    CatalogSet set;
    CatalogChange first;
    first.data = CatalogSource{m_a};
    set.queueChange(first);
    QVERIFY(waitIdle(set));
    CatalogSource filteredText{m_b};
    filteredText.rowFilter = QStringLiteral("Z>0.5");
    CatalogChange bad;
    bad.data = filteredText;
    QSignalSpy failed(&set, &CatalogSet::changeFailed);
    set.queueChange(bad);
    QVERIFY(waitIdle(set));
    QCOMPARE(failed.count(), 1);
    QVERIFY2(failed.front().at(1).toString().contains(QStringLiteral("b.txt")),
             qPrintable(failed.front().at(1).toString()));
    QCOMPARE(set.dataCatalog()->size(), std::size_t(101));
}

TPACF_TEST_MAIN(TestCatalogSet)
#include "test_catalog_set.moc"
