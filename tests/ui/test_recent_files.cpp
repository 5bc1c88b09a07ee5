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

TPACF_TEST_MAIN(TestRecentFiles)
#include "test_recent_files.moc"
