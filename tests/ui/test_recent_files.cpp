// SPDX-License-Identifier: GPL-3.0-or-later
// RecentFiles: entries keep their role and column mapping through QSettings, the list is capped,
// reopening a file moves it to the front, and settings from before roles were stored still load.
#include "recent_files.h"
#include "tpacf_test_main.h"

#include <QDir>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

using namespace tpacf;
using namespace tpacf::ui;

namespace {

RecentFile entry(RecentRole role, const QString& path) {
    return {role, CatalogSource{path}};
}

QStringList pathsOf(const RecentFiles& recent) {
    QStringList paths;
    for (const RecentFile& file : recent.entries())
        paths.append(file.source.path);
    return paths;
}

} // namespace

class TestRecentFiles : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanupTestCase();
    void rolesAndMappingRoundTripThroughSettings();
    void limitDropsTheOldest_data();
    void limitDropsTheOldest();
    void reopenedFileMovesToTheFront();
    void sameFileInTwoRolesIsListedTwice();
    void pathsAreMadeAbsolute();
    void listWithoutRolesIsRead();
    void clearEmptiesAndSignals();
    void rowFiltersAreEntriesOfTheirOwn();
};

void TestRecentFiles::initTestCase() {
    // Settings in the test location, under a name of this suite's own.
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("tpacf-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("test_recent_files"));
}

void TestRecentFiles::init() {
    QSettings().clear();
}

void TestRecentFiles::cleanupTestCase() {
    QSettings().clear();
}

void TestRecentFiles::rolesAndMappingRoundTripThroughSettings() {
    CatalogSource mapped{QStringLiteral("/data/survey/random_mapped.csv")};
    mapped.raColumn = 3;
    mapped.decColumn = 5;
    mapped.unit = AngleUnit::Radian;
    RecentFiles recent;
    recent.add(entry(RecentRole::Data, QStringLiteral("/data/survey/galaxies.txt")));
    recent.add({RecentRole::Random, mapped});
    recent.add(entry(RecentRole::Session, QStringLiteral("/data/survey/run.json")));
    {
        QSettings settings;
        recent.save(settings);
    }

    RecentFiles restored;
    QSignalSpy changed(&restored, &RecentFiles::changed);
    QSettings settings;
    restored.restore(settings);
    QCOMPARE(changed.count(), 1);
    const QList<RecentFile> expected = {
        entry(RecentRole::Session, QStringLiteral("/data/survey/run.json")),
        {RecentRole::Random, mapped},
        entry(RecentRole::Data, QStringLiteral("/data/survey/galaxies.txt"))};
    QCOMPARE(restored.entries().size(), expected.size());
    for (int i = 0; i < expected.size(); ++i) {
        QCOMPARE(restored.entries()[i].role, expected[i].role);
        QVERIFY2(restored.entries()[i].source == expected[i].source,
                 qPrintable(QString::number(i)));
    }
    // Stored under readable role keys.
    QCOMPARE(settings.beginReadArray(QStringLiteral("recent")), 3);
    settings.setArrayIndex(1);
    QCOMPARE(settings.value(QStringLiteral("role")).toString(), QStringLiteral("random"));
    settings.endArray();
}

void TestRecentFiles::limitDropsTheOldest_data() {
    QTest::addColumn<int>("limit");
    QTest::addColumn<int>("added");
    QTest::newRow("one") << 1 << 5;
    QTest::newRow("three of ten") << 3 << 10;
    QTest::newRow("default, exactly full")
        << RecentFiles::kDefaultLimit << RecentFiles::kDefaultLimit;
    QTest::newRow("default, over") << RecentFiles::kDefaultLimit << 12;
}

void TestRecentFiles::limitDropsTheOldest() {
    QFETCH(int, limit);
    QFETCH(int, added);
    RecentFiles recent(limit);
    for (int i = 0; i < added; ++i)
        recent.add(entry(RecentRole::Data, QStringLiteral("/cat/file%1.txt").arg(i)));
    QCOMPARE(recent.entries().size(), qMin(limit, added));
    // Newest first: file(added-1), file(added-2), ...
    QStringList expected;
    for (int i = added - 1; i >= added - qMin(limit, added); --i)
        expected.append(QStringLiteral("/cat/file%1.txt").arg(i));
    QCOMPARE(pathsOf(recent), expected);
}

void TestRecentFiles::reopenedFileMovesToTheFront() {
    RecentFiles recent;
    QSignalSpy changed(&recent, &RecentFiles::changed);
    recent.add(entry(RecentRole::Data, QStringLiteral("/cat/a.txt")));
    recent.add(entry(RecentRole::Data, QStringLiteral("/cat/b.txt")));
    recent.add(entry(RecentRole::Data, QStringLiteral("/cat/c.txt")));
    recent.add(entry(RecentRole::Data, QStringLiteral("/cat/a.txt")));
    QCOMPARE(changed.count(), 4);
    QCOMPARE(pathsOf(recent),
             (QStringList{QStringLiteral("/cat/a.txt"), QStringLiteral("/cat/c.txt"),
                          QStringLiteral("/cat/b.txt")}));
}

void TestRecentFiles::sameFileInTwoRolesIsListedTwice() {
    RecentFiles recent;
    recent.add(entry(RecentRole::Data, QStringLiteral("/cat/a.txt")));
    recent.add(entry(RecentRole::Random, QStringLiteral("/cat/a.txt")));
    QCOMPARE(recent.entries().size(), 2);
    QCOMPARE(recent.entries()[0].role, RecentRole::Random);
    QCOMPARE(recent.entries()[1].role, RecentRole::Data);
}

void TestRecentFiles::pathsAreMadeAbsolute() {
    RecentFiles recent;
    recent.add(entry(RecentRole::Random, QStringLiteral("relative/r.txt")));
    QCOMPARE(recent.entries().front().source.path,
             QDir::current().absoluteFilePath(QStringLiteral("relative/r.txt")));
}

void TestRecentFiles::listWithoutRolesIsRead() {
    // Settings written before roles were remembered: plain paths, sessions by their suffix.
    {
        QSettings settings;
        settings.setValue(
            QStringLiteral("recentFiles"),
            QStringList{QStringLiteral("/cat/old.txt"), QStringLiteral("/cat/old_session.JSON")});
    }
    RecentFiles recent;
    QSettings settings;
    recent.restore(settings);
    QCOMPARE(recent.entries().size(), 2);
    QCOMPARE(recent.entries()[0].role, RecentRole::Data);
    QCOMPARE(recent.entries()[0].source.path, QStringLiteral("/cat/old.txt"));
    QCOMPARE(recent.entries()[1].role, RecentRole::Session);
    // Saving writes the new form only.
    recent.save(settings);
    QVERIFY(!settings.contains(QStringLiteral("recentFiles")));
    RecentFiles again;
    again.restore(settings);
    QVERIFY(again.entries() == recent.entries());
}

void TestRecentFiles::clearEmptiesAndSignals() {
    RecentFiles recent;
    recent.add(entry(RecentRole::Session, QStringLiteral("/cat/s.json")));
    QSignalSpy changed(&recent, &RecentFiles::changed);
    recent.clear();
    QVERIFY(recent.entries().isEmpty());
    QCOMPARE(changed.count(), 1);
    QVERIFY(RecentFiles::parseRoleKey(QStringLiteral("random")) == RecentRole::Random);
    QVERIFY(!RecentFiles::parseRoleKey(QStringLiteral("bogus")).has_value());
}

// Issue 35, item 13: one FITS table read in two redshift slices gives two entries, each
// reopening with its own row filter and saying which in the menu; the same slice read again
// moves to the top instead of appearing twice; other columns or units replace the entry.
void TestRecentFiles::rowFiltersAreEntriesOfTheirOwn() {
    RecentFiles recent;
    CatalogSource low{QStringLiteral("/survey/galaxies.fits")};
    low.hdu = QStringLiteral("2");
    low.rowFilter = QStringLiteral("Z>0.2 && Z<0.4");
    CatalogSource high = low;
    high.rowFilter = QStringLiteral("Z>0.4 && Z<0.6");
    recent.add({RecentRole::Data, low});
    recent.add({RecentRole::Data, high});
    QCOMPARE(recent.entries().size(), 2);
    QCOMPARE(recent.entries()[0].source.rowFilter, high.rowFilter);
    QCOMPARE(recent.entries()[1].source.rowFilter, low.rowFilter);
    recent.add({RecentRole::Data, low});
    QCOMPARE(recent.entries().size(), 2);
    QCOMPARE(recent.entries()[0].source.rowFilter, low.rowFilter);
    CatalogSource lowOtherColumns = low;
    lowOtherColumns.raColumn = 3;
    recent.add({RecentRole::Data, lowOtherColumns});
    QCOMPARE(recent.entries().size(), 2);
    QCOMPARE(recent.entries()[0].source.raColumn, 3);
    QCOMPARE(RecentFiles::menuText(recent.entries()[1]),
             QStringLiteral("galaxies.fits [HDU 2, Z>0.4 && Z<0.6] (data)"));
    QCOMPARE(RecentFiles::menuText({RecentRole::Random, CatalogSource{QStringLiteral("/r.txt")}}),
             QStringLiteral("r.txt (random)"));
}

TPACF_TEST_MAIN(TestRecentFiles)
#include "test_recent_files.moc"
