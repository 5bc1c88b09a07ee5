// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The main() of every Qt Test suite. It tells CTest the truth about skips: a suite exits with
// kAllSkippedExitCode (registered as SKIP_RETURN_CODE, so CTest says "Skipped") only when every
// test function and data row it ran was skipped; any failure makes it fail, whatever else
// skipped; otherwise 0. Qt Test's own exit code counts failures only, and a regular expression
// on its output cannot tell "skipped some rows" from "skipped everything".
#include <QCoreApplication>
#include <QFile>
#include <QStringList>
#include <QTemporaryDir>
#include <QtTest>

#include <vector>

#if defined(QT_WIDGETS_LIB)
#include <QApplication>
#elif defined(QT_GUI_LIB)
#include <QGuiApplication>
#endif

namespace tpacf::test {

/// The exit code of a suite whose every test was skipped (the Automake convention).
inline constexpr int kAllSkippedExitCode = 77;

/// Outcomes of the test functions and data rows in a TAP log written by Qt Test.
struct TapTally {
    int passed = 0, failed = 0, skipped = 0;
};

/// Reads a Qt Test TAP log. initTestCase and cleanupTestCase count when they fail or skip, not
/// when they pass: a suite that skips in initTestCase still passes its cleanupTestCase.
inline TapTally tallyTapLog(const QString& path) {
    TapTally tally;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly | QIODevice::Text))
        return tally;
    while (!file.atEnd()) {
        const QByteArray line = file.readLine().trimmed();
        const bool notOk = line.startsWith("not ok ");
        if (!notOk && !line.startsWith("ok "))
            continue;
        const bool todo = line.contains("# TODO"); // expected failures and their surprises
        if (notOk && !todo)
            ++tally.failed;
        else if (line.contains("# SKIP"))
            ++tally.skipped;
        else if (!line.contains(" - initTestCase()") && !line.contains(" - cleanupTestCase()"))
            ++tally.passed;
    }
    return tally;
}

/// Runs `suite` with the command line given plus a TAP log to a temporary file, then maps the
/// outcome to an exit code as described at the top of this file.
inline int runSuite(QObject& suite, int argc, char** argv) {
    QStringList arguments;
    for (int i = 0; i < argc; ++i)
        arguments << QString::fromLocal8Bit(argv[i]);
    QTemporaryDir logDir;
    const QString tapPath = logDir.filePath(QStringLiteral("suite.tap"));
    if (logDir.isValid()) {
        // Naming any -o log replaces Qt Test's default one on stdout: keep that one too.
        if (!arguments.contains(QStringLiteral("-o")))
            arguments << QStringLiteral("-o") << QStringLiteral("-,txt");
        arguments << QStringLiteral("-o") << tapPath + QStringLiteral(",tap");
    }
    const int failures = QTest::qExec(&suite, arguments);
    if (failures != 0 || !logDir.isValid())
        return failures;
    const TapTally tally = tallyTapLog(tapPath);
    if (tally.failed > 0)
        return 1; // a failure the exit code did not carry (Qt Test counts some only in its log)
    return tally.passed == 0 && tally.skipped > 0 ? kAllSkippedExitCode : 0;
}

} // namespace tpacf::test

#if defined(QT_WIDGETS_LIB)
#define TPACF_TEST_APPLICATION QApplication
#elif defined(QT_GUI_LIB)
#define TPACF_TEST_APPLICATION QGuiApplication
#else
#define TPACF_TEST_APPLICATION QCoreApplication
#endif

/// Use instead of QTEST_MAIN / QTEST_GUILESS_MAIN.
#define TPACF_TEST_MAIN(TestClass)                                                                 \
    int main(int argc, char** argv) {                                                              \
        TPACF_TEST_APPLICATION app(argc, argv);                                                    \
        TestClass suite;                                                                           \
        QTEST_SET_MAIN_SOURCE_PATH                                                                 \
        return tpacf::test::runSuite(suite, argc, argv);                                           \
    }
