// SPDX-License-Identifier: GPL-3.0-or-later
// How `tpacf run` takes in its catalogs: several files are read side by side while the backend
// starts, yet of several bad files the first in flag order is the one reported (as reading them
// one by one would), an unusable backend is reported whatever the files hold, and --timings
// accounts for every stage without changing the result.
#include "cli_process.h"
#include "tpacf/backend.h"
#include "tpacf/cuda/cuda_backend.h"
#include "tpacf_test_main.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using tpacf::test::ProcessOutcome;
using tpacf::test::runProcess;
using tpacf::test::splitWords;

class TestRunInputsCli : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase();
    void firstBadFileIsReported_data();
    void firstBadFileIsReported();
    void unusableBackendIsReportedBeforeBadFiles();
    void timingsAccountForEveryStage();

  private:
    ProcessOutcome tpacf(const QString& arguments) const {
        return runProcess(QStringLiteral(TPACF_EXE), splitWords(arguments), m_dir.path());
    }
    QString table(const QString& name) const; // the CSV without its '#' lines

    QTemporaryDir m_dir;
};

void TestRunInputsCli::initTestCase() {
    QVERIFY(m_dir.isValid());
    for (int i = 0; i < 6; ++i) {
        const ProcessOutcome mock =
            tpacf(QStringLiteral("mock --randoms 3000 --random-seed %1 --random-output r%2.txt")
                      .arg(10 + i)
                      .arg(i));
        QVERIFY2(mock.exitCode == 0, qPrintable(mock.err));
    }
    const ProcessOutcome data = tpacf(QStringLiteral("mock --n 2000 --output d.txt"));
    QVERIFY2(data.exitCode == 0, qPrintable(data.err));
    // Bad files, each with its own fault on its own line.
    const auto write = [&](const char* name, const QByteArray& text) {
        QFile file(m_dir.filePath(QString::fromLatin1(name)));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(text);
    };
    write("bad_dec.txt", "10 20\n11 21\n12 95\n13 23\n");
    write("bad_number.txt", "10 20\n11 2x1\n");
    write("bad_columns.txt", "10 20\n11 21\n12 22\n13\n");
}

QString TestRunInputsCli::table(const QString& name) const {
    QFile file(m_dir.filePath(name));
    if (!file.open(QIODevice::ReadOnly))
        return QStringLiteral("(unreadable)");
    QString rows;
    for (const QByteArray& line : file.readAll().split('\n'))
        if (!line.startsWith('#'))
            rows += QString::fromUtf8(line) + QLatin1Char('\n');
    return rows;
}

void TestRunInputsCli::firstBadFileIsReported_data() {
    QTest::addColumn<QString>("catalogs");
    QTest::addColumn<QString>("expected"); // the start of the one error line, after "tpacf: "
    QTest::newRow("data bad, randoms bad too")
        << "--data bad_number.txt --random r0.txt --random bad_dec.txt" << "bad_number.txt:2:";
    QTest::newRow("third random bad") << "--data d.txt --random r0.txt --random r1.txt "
                                         "--random bad_dec.txt --random r2.txt"
                                      << "bad_dec.txt:3:";
    QTest::newRow("second and fifth bad, the second named")
        << "--data d.txt --random r0.txt --random bad_columns.txt --random r1.txt --random r2.txt "
           "--random bad_number.txt --random r3.txt"
        << "bad_columns.txt:4:";
    QTest::newRow("a missing file before a bad one")
        << "--data d.txt --random r0.txt --random missing.txt --random bad_dec.txt"
        << "missing.txt";
    QTest::newRow("bad second sample after good randoms")
        << "--data d.txt --random r0.txt --random r1.txt --data2 bad_dec.txt" << "bad_dec.txt:3:";
}

void TestRunInputsCli::firstBadFileIsReported() {
    QFETCH(QString, catalogs);
    QFETCH(QString, expected);
    // Several runs: the files race each other, the message must not.
    for (int attempt = 0; attempt < 3; ++attempt) {
        const ProcessOutcome outcome =
            tpacf(QStringLiteral("run ") + catalogs + QStringLiteral(" --backend cpu --output w.csv"));
        QCOMPARE(outcome.exitCode, 2);
        QCOMPARE(outcome.err.count(QLatin1Char('\n')), 1);
        QVERIFY2(outcome.err.startsWith(QStringLiteral("tpacf: ") + expected),
                 qPrintable(outcome.err));
        QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("w.csv"))));
    }
}

void TestRunInputsCli::unusableBackendIsReportedBeforeBadFiles() {
    const auto cuda = tpacf::cuda::makeProvider();
    if (!cuda->devices().empty())
        QSKIP("this machine has a CUDA device: the backend is usable here");
    const ProcessOutcome outcome = tpacf(QStringLiteral(
        "run --data d.txt --random bad_dec.txt --random missing.txt --backend cuda --output w.csv"));
    QCOMPARE(outcome.exitCode, 2);
    QCOMPARE(outcome.err.count(QLatin1Char('\n')), 1);
    QVERIFY2(outcome.err.contains(QStringLiteral("backend unavailable")), qPrintable(outcome.err));
    QVERIFY2(!outcome.err.contains(QStringLiteral("bad_dec.txt")), qPrintable(outcome.err));
}

void TestRunInputsCli::timingsAccountForEveryStage() {
    const QString common = QStringLiteral(
        "run --data d.txt --random r0.txt --random r1.txt --random r2.txt --random r3.txt "
        "--backend cpu --bins log --min 1 --max 100 --nbins 6 --quiet --jackknife 4");
    const ProcessOutcome plain = tpacf(common + QStringLiteral(" --output plain.csv"));
    QVERIFY2(plain.exitCode == 0, qPrintable(plain.err));
    const ProcessOutcome timed = tpacf(common + QStringLiteral(" --output timed.csv --timings"));
    QVERIFY2(timed.exitCode == 0, qPrintable(timed.err));
    QVERIFY2(!plain.err.contains(QStringLiteral("timings")), qPrintable(plain.err));
    const QStringList stages{QStringLiteral("timings (seconds):"),
                             QStringLiteral("read catalogs"),
                             QStringLiteral("d.txt"),
                             QStringLiteral("r3.txt"),
                             QStringLiteral("backend check and start"),
                             QStringLiteral("job"),
                             QStringLiteral("jackknife regions"),
                             QStringLiteral("fingerprints"),
                             QStringLiteral("count"),
                             QStringLiteral("estimate"),
                             QStringLiteral("write outputs"),
                             QStringLiteral("total")};
    for (const QString& stage : stages)
        QVERIFY2(timed.err.contains(stage), qPrintable(stage + QStringLiteral(" in:\n") + timed.err));
    // Every figure is a number of seconds, and the parts fit in the total.
    double total = -1, job = -1, jobStages = 0;
    for (const QString& line : timed.err.split(QLatin1Char('\n'))) {
        const QStringList parts = line.simplified().split(QLatin1Char(' '));
        if (parts.size() < 2 || line.startsWith(QStringLiteral("timings")))
            continue;
        bool number = false;
        double seconds = -1;
        for (const QString& part : parts) {
            seconds = part.toDouble(&number);
            if (number)
                break;
        }
        QVERIFY2(number && seconds >= 0, qPrintable(line));
        if (line.startsWith(QStringLiteral("  total")))
            total = seconds;
        else if (line.startsWith(QStringLiteral("  job")))
            job = seconds;
        else if (job >= 0 && line.startsWith(QStringLiteral("    ")))
            jobStages += seconds;
    }
    QVERIFY(total >= job && job >= 0);
    QVERIFY2(jobStages <= job + 1e-3, qPrintable(timed.err));
    // The numbers of the result are the same with and without --timings.
    QCOMPARE(table(QStringLiteral("timed.csv")), table(QStringLiteral("plain.csv")));
}

TPACF_TEST_MAIN(TestRunInputsCli)
#include "test_run_inputs_cli.moc"
