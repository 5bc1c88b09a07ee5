// CatalogSet: changes read in the background apply whole and in the order they were queued; a
// file that cannot be read leaves the catalogs as they were; removal, the loading line, region
// label reads and the overwrite guard.
#include "catalog_set.h"
#include "tpacf_test_main.h"

#include <tpacf/mock.h>

#include <QFile>
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

TPACF_TEST_MAIN(TestCatalogSet)
#include "test_catalog_set.moc"
