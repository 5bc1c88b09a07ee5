// SPDX-License-Identifier: GPL-3.0-or-later
// A suite whose outcome is chosen by TPACF_SAMPLE_OUTCOME, run by test_suite_outcome to check
// the exit codes of TPACF_TEST_MAIN: "pass", "skip-all", "skip-in-init", "skip-some" (one row
// passes, one skips), "skip-and-fail" (one row skips, one fails).
#include "tpacf_test_main.h"

#include <QObject>
#include <QtTest>

class OutcomeSample : public QObject {
    Q_OBJECT

    static QByteArray outcome() { return qgetenv("TPACF_SAMPLE_OUTCOME"); }

private slots:
    void initTestCase() {
        if (outcome() == "skip-in-init")
            QSKIP("skipped in initTestCase");
    }

    void rows_data() {
        QTest::addColumn<int>("row");
        QTest::newRow("first") << 0;
        QTest::newRow("second") << 1;
    }

    void rows() {
        QFETCH(int, row);
        const QByteArray mode = outcome();
        if (mode == "skip-all" || (row == 0 && (mode == "skip-some" || mode == "skip-and-fail")))
            QSKIP("skipped row");
        QCOMPARE(mode == "skip-and-fail" ? 1 : 0, 0);
    }
};

TPACF_TEST_MAIN(OutcomeSample)
#include "outcome_sample_suite.moc"
