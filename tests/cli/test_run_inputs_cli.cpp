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
    void hdf5CatalogsCountAsTheirText_data();
    void hdf5CatalogsCountAsTheirText();
    void badHdf5Catalogs_data();
    void badHdf5Catalogs();

  private:
    ProcessOutcome tpacf(const QString& arguments) const {
        return runProcess(QStringLiteral(TPACF_EXE), splitWords(arguments), m_dir.path());
    }
    QString table(const QString& name) const; // the CSV without its '#' lines

    /// The HDF5 fixtures (scripts/write_hdf5_catalogs.py, through h5py and astropy) in
    /// m_dir/hdf5; skips where the build reads no HDF5 or no python3 has h5py.
    void needHdf5Fixtures();

    QTemporaryDir m_dir;
    bool m_hdf5Written = false;
};

void TestRunInputsCli::needHdf5Fixtures() {
#ifndef TPACF_TEST_HAVE_HDF5
    QSKIP("this build reads no HDF5 (libhdf5-dev was not found)");
#else
    if (m_hdf5Written)
        return;
    QString python;
    for (const QString& candidate : {QStringLiteral("python3"), QStringLiteral("/usr/bin/python3")})
        if (runProcess(candidate, {QStringLiteral("-c"), QStringLiteral("import h5py, astropy")},
                       m_dir.path())
                .exitCode == 0) {
            python = candidate;
            break;
        }
    if (python.isEmpty())
        QSKIP("no python3 with h5py and astropy (scripts/install-deps.sh installs them)");
    QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("hdf5")));
    const ProcessOutcome written =
        runProcess(python, {QStringLiteral(TPACF_WRITE_HDF5_CATALOGS), m_dir.filePath(QStringLiteral("hdf5"))},
                   m_dir.path());
    QVERIFY2(written.exitCode == 0, qPrintable(written.out + written.err));
    m_hdf5Written = true;
#endif
}

void TestRunInputsCli::hdf5CatalogsCountAsTheirText_data() {
    QTest::addColumn<QString>("catalog");
    QTest::newRow("h5py: a group of column datasets, by --hdu")
        << QStringLiteral("groups.h5 --hdu survey/north --ra-col RA --dec-col DEC");
    QTest::newRow("h5py: the same, default RA and Dec by name")
        << QStringLiteral("groups.h5 --hdu /survey/north/");
    QTest::newRow("astropy: a compressed compound dataset, the file's only table")
        << QStringLiteral("astropy.hdf5 --weight-col w");
    QTest::newRow("h5py: columns in the root group, a .txt name")
        << QStringLiteral("root_columns.txt");
}

// Every layout counts exactly as its ASCII and FITS twins (the same points, written exactly):
// raw counts and, with one thread, the weighted sums to the bit.
void TestRunInputsCli::hdf5CatalogsCountAsTheirText() {
    QFETCH(QString, catalog);
    needHdf5Fixtures();
    const QString weights = catalog.contains(QStringLiteral("--weight-col"))
                                ? QString()
                                : QStringLiteral(" --weight-col weight");
    const QString common = QStringLiteral(" --backend cpu --threads 1 --quiet --nbins 6 --min 1 "
                                          "--max 200");
    const ProcessOutcome hdf5 = tpacf(QStringLiteral("count --a hdf5/") + catalog + weights +
                                      common + QStringLiteral(" --output hdf5/h.ecsv"));
    QVERIFY2(hdf5.exitCode == 0, qPrintable(hdf5.err));
    const ProcessOutcome text =
        tpacf(QStringLiteral("count --a hdf5/twin.txt --weight-col weight") + common +
              QStringLiteral(" --output hdf5/t.ecsv"));
    QVERIFY2(text.exitCode == 0, qPrintable(text.err));
    QCOMPARE(table(QStringLiteral("hdf5/h.ecsv")), table(QStringLiteral("hdf5/t.ecsv")));
    // And as its FITS copy (astropy's), where this build reads FITS.
    const ProcessOutcome fits = tpacf(QStringLiteral("count --a hdf5/twin.fits --weight-col weight") +
                                      common + QStringLiteral(" --output hdf5/f.ecsv"));
    if (fits.err.contains(QStringLiteral("cfitsio")))
        return;
    QVERIFY2(fits.exitCode == 0, qPrintable(fits.err));
    QCOMPARE(table(QStringLiteral("hdf5/h.ecsv")), table(QStringLiteral("hdf5/f.ecsv")));
    // The header row and 6 bins (split leaves one empty piece after the last line).
    QCOMPARE(table(QStringLiteral("hdf5/h.ecsv")).count(QLatin1Char('\n')), 8);
}

void TestRunInputsCli::badHdf5Catalogs_data() {
    QTest::addColumn<QString>("catalog");
    QTest::addColumn<QString>("message");
    QTest::newRow("columns in a group below")
        << QStringLiteral("groups.h5")
        << QStringLiteral("groups.h5: cannot tell which column holds RA");
    QTest::newRow("no such group") << QStringLiteral("groups.h5 --hdu south")
                                   << QStringLiteral("no group or dataset '/south'");
    QTest::newRow("a dataset that is no table")
        << QStringLiteral("groups.h5 --hdu readme")
        << QStringLiteral("the dataset '/readme' is not a table");
    QTest::newRow("no such column")
        << QStringLiteral("groups.h5 --hdu survey/north --weight-col wt")
        << QStringLiteral("no column named 'wt' (for the weight) in '/survey/north'; available:");
    QTest::newRow("a column of another length")
        << QStringLiteral("groups.h5 --hdu survey/north --weight-col short")
        << QStringLiteral("column 'short' (for the weight) has 10 rows, the table's other "
                          "columns 1500");
    QTest::newRow("a column of text")
        << QStringLiteral("groups.h5 --hdu survey/north --weight-col name")
        << QStringLiteral("column 'name' (for the weight) does not hold numbers");
    QTest::newRow("NaN Dec") << QStringLiteral("nan_dec.h5")
                             << QStringLiteral("nan_dec.h5:42: column 1: row 42, column 'dec': "
                                               "Dec value nan is not finite");
    QTest::newRow("Dec 95") << QStringLiteral("dec_95.h5")
                            << QStringLiteral("row 8, column 'dec': Dec 95 deg is outside");
    QTest::newRow("no rows") << QStringLiteral("empty.h5")
                             << QStringLiteral("the table '/' has no rows");
    QTest::newRow("an external link") << QStringLiteral("external.h5 --hdu catalog")
                                      << QStringLiteral("'/catalog' is a link to another file, "
                                                        "which is not followed");
    QTest::newRow("truncated") << QStringLiteral("truncated.h5")
                               << QStringLiteral("cannot open as HDF5 (a damaged or truncated");
}

// Each is one line on stderr naming the file (and the row and column where there is one),
// exit 2, no output.
void TestRunInputsCli::badHdf5Catalogs() {
    QFETCH(QString, catalog);
    QFETCH(QString, message);
    needHdf5Fixtures();
    QFile::remove(m_dir.filePath(QStringLiteral("hdf5/bad.ecsv")));
    const ProcessOutcome outcome = tpacf(QStringLiteral("count --a hdf5/") + catalog +
                                         QStringLiteral(" --backend cpu --output hdf5/bad.ecsv"));
    QCOMPARE(outcome.exitCode, 2);
    QVERIFY2(outcome.err.startsWith(QStringLiteral("tpacf: hdf5/")), qPrintable(outcome.err));
    QVERIFY2(outcome.err.contains(message), qPrintable(outcome.err));
    QCOMPARE(outcome.err.count(QLatin1Char('\n')), 1);
    QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("hdf5/bad.ecsv"))));
}

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
                             QStringLiteral("before the reading"),
                             QStringLiteral("GPUs chosen and reserved"),
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
    double total = -1, job = -1, jobStages = 0, before = -1, choice = -1, reading = -1;
    int jobStageCount = 0;
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
        else if (line.startsWith(QStringLiteral("  before the reading")))
            before = seconds;
        else if (line.startsWith(QStringLiteral("    GPUs chosen")))
            choice = seconds;
        else if (line.startsWith(QStringLiteral("  read catalogs")))
            reading = seconds;
        else if (line.startsWith(QStringLiteral("  job")))
            job = seconds;
        else if (job >= 0 && line.startsWith(QStringLiteral("    "))) {
            jobStages += seconds;
            ++jobStageCount;
        }
    }
    // Each figure is rounded to 1 ms: a sum of n of them may exceed the figure it sums by
    // n + 1 half milliseconds.
    const auto rounding = [](int figures) { return 0.5e-3 * figures + 1e-9; };
    QVERIFY(total >= job && job >= 0);
    // The steps before the reading, the reading and the job follow each other.
    QVERIFY2(before + rounding(2) >= choice && choice >= 0 && reading >= 0, qPrintable(timed.err));
    QVERIFY2(before + reading + job <= total + rounding(4), qPrintable(timed.err));
    QVERIFY2(jobStages <= job + rounding(jobStageCount + 1), qPrintable(timed.err));
    // The numbers of the result are the same with and without --timings.
    QCOMPARE(table(QStringLiteral("timed.csv")), table(QStringLiteral("plain.csv")));
}

TPACF_TEST_MAIN(TestRunInputsCli)
#include "test_run_inputs_cli.moc"
