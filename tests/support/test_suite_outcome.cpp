// SPDX-License-Identifier: GPL-3.0-or-later
// TPACF_TEST_MAIN's exit codes, checked by running a sample suite in each outcome: CTest must
// report a suite as skipped only when it skipped everything, and as failed whenever a row fails.
#include "tpacf_test_main.h"

#include <QProcess>
#include <QProcessEnvironment>
#include <QtTest>

class TestSuiteOutcome : public QObject {
    Q_OBJECT

private slots:
    void exitCode_data() {
        QTest::addColumn<QString>("outcome");
        QTest::addColumn<int>("expectedExitCode");
        QTest::newRow("all pass") << "pass" << 0;
        QTest::newRow("all rows skipped") << "skip-all" << tpacf::test::kAllSkippedExitCode;
        QTest::newRow("skipped in initTestCase")
            << "skip-in-init" << tpacf::test::kAllSkippedExitCode;
        QTest::newRow("one row skipped, one passed") << "skip-some" << 0;
        QTest::newRow("one row skipped, one failed") << "skip-and-fail" << 1;
    }

    void exitCode() {
        QFETCH(QString, outcome);
        QFETCH(int, expectedExitCode);
        QProcess suite;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("TPACF_SAMPLE_OUTCOME"), outcome);
        suite.setProcessEnvironment(environment);
        suite.start(QStringLiteral(TPACF_OUTCOME_SAMPLE_EXE), {});
        QVERIFY(suite.waitForFinished(60000));
        QCOMPARE(suite.exitStatus(), QProcess::NormalExit);
        QCOMPARE(suite.exitCode(), expectedExitCode);
    }

    void tallyCountsRowsNotCaseHooks() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("log.tap"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("TAP version 13\n"
                   "ok 1 - initTestCase()\n"
                   "ok 2 - rows(first) # SKIP why\n"
                   "not ok 3 - rows(second)\n"
                   "not ok 4 - flaky() # TODO expected\n"
                   "ok 5 - plain()\n"
                   "ok 6 - cleanupTestCase()\n");
        file.close();
        const auto tally = tpacf::test::tallyTapLog(path);
        QCOMPARE(tally.passed, 2); // plain() and the expected failure
        QCOMPARE(tally.skipped, 1);
        QCOMPARE(tally.failed, 1);
    }
};

TPACF_TEST_MAIN(TestSuiteOutcome)
#include "test_suite_outcome.moc"
