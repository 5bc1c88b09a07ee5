// SPDX-License-Identifier: GPL-3.0-or-later
// The result table in its two forms: ECSV that astropy reads with units and integer counts, and
// a FITS binary table holding the same columns, values and metadata. astropy (Debian's
// python3-astropy, which scripts/install-deps.sh installs) reads both, independently of the
// tool's own reader.
#include "tpacf/result_io.h"
#include "cli_process.h"
#include "tpacf_test_main.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#ifndef TPACF_EXE
#error "TPACF_EXE must name the tpacf executable"
#endif
#ifndef TPACF_COMPARE_TABLES
#error "TPACF_COMPARE_TABLES must name compare_tables.py"
#endif

namespace {

using Outcome = tpacf::test::ProcessOutcome;

Outcome run(const QString& program, const QStringList& arguments, const QString& folder) {
    return tpacf::test::runProcess(program, arguments, folder, 120000);
}

// A python 3 that imports astropy: the first on PATH, else Debian's own.
QString pythonWithAstropy() {
    for (const QString& candidate : {QStringLiteral("python3"), QStringLiteral("/usr/bin/python3")})
        if (run(candidate, {QStringLiteral("-c"), QStringLiteral("import astropy")}, QString())
                .exitCode == 0)
            return candidate;
    return {};
}

QStringList words(const char* text) {
    return QString::fromLatin1(text).split(QLatin1Char(' '), Qt::SkipEmptyParts);
}

} // namespace

class TestTableFormats : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase();
    void ecsvAndFitsHoldTheSameTable_data();
    void ecsvAndFitsHoldTheSameTable();
    void badFormat();
};

void TestTableFormats::initTestCase() {
    QVERIFY(m_dir.isValid());
    const Outcome mock =
        run(QStringLiteral(TPACF_EXE),
            words("mock --n 2000 --seed 3 --box 150,170,0,20 --output d.txt --randoms 3000 "
                  "--random-seed 4 --random-output r.txt"),
            m_dir.path());
    QVERIFY2(mock.exitCode == 0, qPrintable(mock.err));
}

void TestTableFormats::ecsvAndFitsHoldTheSameTable_data() {
    QTest::addColumn<QString>("extra");
    QTest::addColumn<QString>("unit");
    QTest::newRow("plain, arcmin") << QString() << QStringLiteral("arcmin");
    QTest::newRow("jackknife, deg")
        << QStringLiteral("--jackknife 4 --unit deg --min 0.1 --max 5 --nbins 6 --bins log")
        << QStringLiteral("deg");
    QTest::newRow("two samples") << QStringLiteral("--data2 r.txt") << QStringLiteral("arcmin");
}

void TestTableFormats::ecsvAndFitsHoldTheSameTable() {
    QFETCH(QString, extra);
    QFETCH(QString, unit);
    if (!tpacf::fitsOutputSupported())
        QSKIP("this build writes no FITS tables (built without cfitsio)");
    const QString python = pythonWithAstropy();
    if (python.isEmpty())
        QSKIP("no python3 with astropy (scripts/install-deps.sh installs python3-astropy)");
    QStringList common = words("run --data d.txt --random r.txt --backend cpu --quiet");
    common += extra.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    if (extra.isEmpty())
        common += words("--bins log --min 1 --max 300 --nbins 8");
    const Outcome csv = run(QStringLiteral(TPACF_EXE),
                            common + words("--output w.csv"), m_dir.path());
    QVERIFY2(csv.exitCode == 0, qPrintable(csv.err));
    {
        // The job time is also a top-level key for `grep '^# elapsed'`: the same value as in
        // meta, and (below) astropy still reads the table.
        QFile file(m_dir.filePath(QStringLiteral("w.csv")));
        QVERIFY(file.open(QIODevice::ReadOnly));
        QStringList topLevel, inMeta;
        for (const QString& line : QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'))) {
            if (line.startsWith(QStringLiteral("# elapsed: ")))
                topLevel << line.mid(11);
            if (line.startsWith(QStringLiteral("#   elapsed: ")))
                inMeta << line.mid(13);
        }
        QCOMPARE(topLevel.size(), 1);
        QCOMPARE(topLevel, inMeta);
    }
    const Outcome fits = run(QStringLiteral(TPACF_EXE),
                             common + words("--output w.fits --format fits"), m_dir.path());
    QVERIFY2(fits.exitCode == 0, qPrintable(fits.err));
    const Outcome compared = run(python,
                                 {QStringLiteral(TPACF_COMPARE_TABLES), QStringLiteral("w.csv"),
                                  QStringLiteral("w.fits"), unit},
                                 m_dir.path());
    QVERIFY2(compared.exitCode == 0, qPrintable(compared.out + compared.err));
    // astropy read the rows the tool's own reader reads.
    const tpacf::ResultTable table =
        tpacf::readResultCsv(m_dir.filePath(QStringLiteral("w.csv")).toStdString());
    QCOMPARE(compared.out.trimmed(), QStringLiteral("ok %1").arg(table.rows.size()));
}

void TestTableFormats::badFormat() {
    const Outcome outcome =
        run(QStringLiteral(TPACF_EXE),
            words("run --data d.txt --random r.txt --backend cpu --output x.csv --format xls"),
            m_dir.path());
    QCOMPARE(outcome.exitCode, 2);
    QCOMPARE(outcome.err.count(QLatin1Char('\n')), 1);
    QVERIFY(outcome.err.contains(QStringLiteral("--format: \"xls\" is not a table format")));
    QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("x.csv"))));
}

TPACF_TEST_MAIN(TestTableFormats)
#include "test_table_formats.moc"
