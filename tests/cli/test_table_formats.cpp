// SPDX-License-Identifier: GPL-3.0-or-later
// The result table in its forms: ECSV that astropy reads with units and integer counts, a FITS
// binary table and a VOTable holding the same columns, values and metadata, the form chosen by
// the file's name or --format (run, its covariance, count). astropy (Debian's python3-astropy)
// and STILTS (Debian's stilts; both from scripts/install-deps.sh) read them, independently of
// the tool's own reader.
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
#ifndef TPACF_CHECK_JACKKNIFE_TABLES
#error "TPACF_CHECK_JACKKNIFE_TABLES must name check_jackknife_tables.py"
#endif
#ifndef TPACF_CHECK_MEAN_THETA
#error "TPACF_CHECK_MEAN_THETA must name check_mean_theta.py"
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
    void formatFollowsTheName_data();
    void formatFollowsTheName();
    void votableReadByAstropyAndStilts();
    void jackknifeTablesTravelWithTheResult_data();
    void jackknifeTablesTravelWithTheResult();
    void meanThetaInEveryForm_data();
    void meanThetaInEveryForm();
    void badFormat();
};

namespace {

// What a file holds, by its first bytes: "fits", "votable", "ecsv", "json" or "other".
QString kindOf(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return QStringLiteral("missing");
    const QByteArray head = file.read(200);
    if (head.startsWith("SIMPLE  ="))
        return QStringLiteral("fits");
    if (head.startsWith("<?xml") && head.contains("<VOTABLE"))
        return QStringLiteral("votable");
    if (head.startsWith("# %ECSV 1.0"))
        return QStringLiteral("ecsv");
    if (head.startsWith("{"))
        return QStringLiteral("json");
    return QStringLiteral("other");
}

} // namespace

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

void TestTableFormats::formatFollowsTheName_data() {
    QTest::addColumn<QString>("arguments");
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("kind");
    const char* const run = "run --data d.txt --random r.txt --jackknife 3 --output ";
    const char* const count = "count --a d.txt --output ";
    const struct {
        const char* name;
        const char* command;
        const char* arguments;
        const char* file;
        const char* kind;
    } rows[] = {
        {"run .fits", run, "t.fits", "t.fits", "fits"},
        {"run .FIT", run, "t.FIT", "t.FIT", "fits"},
        {"run .fts", run, "t.fts", "t.fts", "fits"},
        {"run .vot", run, "t.vot", "t.vot", "votable"},
        {"run .xml", run, "t.xml", "t.xml", "votable"},
        {"run .ecsv", run, "t.ecsv", "t.ecsv", "ecsv"},
        {"run .csv", run, "t.csv", "t.csv", "ecsv"},
        {"run no extension", run, "t_plain", "t_plain", "ecsv"},
        {"run .json", run, "t.json", "t.json", "json"},
        {"run --format fits over .csv", run, "u.csv --format fits", "u.csv", "fits"},
        {"run --format ecsv over .fits", run, "u.fits --format ecsv", "u.fits", "ecsv"},
        {"run --format votable over .dat", run, "u.dat --format votable", "u.dat", "votable"},
        {"run --format json over .txt", run, "u.txt --format json", "u.txt", "json"},
        {"covariance .fits", run, "v.csv --covariance c.fits", "c.fits", "fits"},
        {"covariance .vot", run, "v2.csv --covariance c.vot", "c.vot", "votable"},
        {"covariance .ecsv", run, "v3.csv --covariance c.ecsv", "c.ecsv", "ecsv"},
        {"covariance .json refused", run, "v4.csv --covariance c.json", "c.json", "usage"},
        {"samples .fits", run, "s1.csv --jackknife-samples s.fits", "s.fits", "fits"},
        {"samples .vot", run, "s2.csv --jackknife-samples s.vot", "s.vot", "votable"},
        {"samples .ecsv", run, "s3.csv --jackknife-samples s.ecsv", "s.ecsv", "ecsv"},
        {"samples .json refused", run, "s4.csv --jackknife-samples s.json", "s.json", "usage"},
        {"count .fits", count, "k.fits", "k.fits", "fits"},
        {"count .vot", count, "k.vot", "k.vot", "votable"},
        {"count .ecsv", count, "k.ecsv", "k.ecsv", "ecsv"},
        {"count --format fits over .csv", count, "k2.csv --format fits", "k2.csv", "fits"},
        {"count .json refused", count, "k.json", "k.json", "usage"},
    };
    for (const auto& row : rows)
        QTest::newRow(row.name) << QString::fromLatin1(row.command) +
                                       QString::fromLatin1(row.arguments)
                                << QString::fromLatin1(row.file) << QString::fromLatin1(row.kind);
}

void TestTableFormats::formatFollowsTheName() {
    QFETCH(QString, arguments);
    QFETCH(QString, file);
    QFETCH(QString, kind);
    if (!tpacf::fitsOutputSupported() && arguments.contains(QStringLiteral("fit")))
        QSKIP("this build writes no FITS tables (built without cfitsio)");
    const Outcome outcome = run(QStringLiteral(TPACF_EXE),
                                arguments.split(QLatin1Char(' ')) +
                                    words("--backend cpu --quiet --bins log --min 1 --max 300 "
                                          "--nbins 6"),
                                m_dir.path());
    if (kind == QStringLiteral("usage")) {
        QCOMPARE(outcome.exitCode, 2);
        QVERIFY2(outcome.err.contains(QStringLiteral("JSON")) ||
                     outcome.err.contains(QStringLiteral(".vot")),
                 qPrintable(outcome.err));
        QVERIFY(!QFile::exists(m_dir.filePath(file)));
        return;
    }
    QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));
    QCOMPARE(kindOf(m_dir.filePath(file)), kind);
}

// The VOTable result and covariance: astropy reads them strictly (every VOTable warning an
// error) and finds the ECSV's columns, units, UCDs, integer counts, values and metadata; Debian's
// STILTS (TOPCAT's command line) lists the columns with their types and units, and the PARAMs.
void TestTableFormats::votableReadByAstropyAndStilts() {
    const QString python = pythonWithAstropy();
    if (python.isEmpty())
        QSKIP("no python3 with astropy (scripts/install-deps.sh installs python3-astropy)");
    const QStringList common = words("run --data d.txt --random r.txt --backend cpu --quiet "
                                     "--jackknife 4 --unit deg --min 0.1 --max 5 --nbins 6");
    QVERIFY(run(QStringLiteral(TPACF_EXE), common + words("--output x.ecsv"), m_dir.path())
                .exitCode == 0);
    const Outcome vot = run(QStringLiteral(TPACF_EXE),
                            common + words("--output x.vot --covariance xc.vot"), m_dir.path());
    QVERIFY2(vot.exitCode == 0, qPrintable(vot.err));
    const Outcome compared = run(python,
                                 {QStringLiteral(TPACF_COMPARE_TABLES), QStringLiteral("x.ecsv"),
                                  QStringLiteral("x.vot"), QStringLiteral("deg")},
                                 m_dir.path());
    QVERIFY2(compared.exitCode == 0, qPrintable(compared.out + compared.err));
    QCOMPARE(compared.out.trimmed(), QStringLiteral("ok 6"));
    const Outcome covariance = run(
        python,
        {QStringLiteral("-c"),
         QStringLiteral("from astropy.table import Table\n"
                        "t = Table.read('xc.vot', format='votable')\n"
                        "assert t.colnames[:3] == ['bin', 'theta_mid', 'cov_0'], t.colnames\n"
                        "assert len(t) == 6 and len(t.colnames) == 8\n"
                        "assert all(abs(t['cov_%d' % i][j] - t['cov_%d' % j][i]) <= 0 "
                        "for i in range(6) for j in range(6))\n"
                        "print('ok')")},
        m_dir.path());
    QVERIFY2(covariance.exitCode == 0, qPrintable(covariance.out + covariance.err));

    if (run(QStringLiteral("stilts"), {QStringLiteral("-version")}, QString()).exitCode != 0)
        QSKIP("no stilts (scripts/install-deps.sh installs Debian's stilts)");
    const Outcome meta = run(QStringLiteral("stilts"),
                             {QStringLiteral("tpipe"), QStringLiteral("in=x.vot"),
                              QStringLiteral("omode=meta")},
                             m_dir.path());
    QVERIFY2(meta.exitCode == 0, qPrintable(meta.err));
    for (const char* expected : {"theta_lo(Double)/deg", "theta_mid(Double)/deg", "DD(Long)",
                                 "RR(Long)", "w(Double)", "w_err(Double)", "estimator:",
                                 "Landy-Szalay", "Rows:    6"})
        QVERIFY2(meta.out.contains(QString::fromLatin1(expected)),
                 qPrintable(QStringLiteral("%1 not in:\n%2").arg(QString::fromLatin1(expected), meta.out)));
    const Outcome stats = run(QStringLiteral("stilts"),
                              {QStringLiteral("tpipe"), QStringLiteral("in=x.vot"),
                               QStringLiteral("omode=stats")},
                              m_dir.path());
    QVERIFY2(stats.exitCode == 0, qPrintable(stats.err));
    QVERIFY2(stats.out.contains(QStringLiteral("Total Rows: 6")), qPrintable(stats.out));
    QVERIFY2(stats.out.contains(QStringLiteral("| DD ")), qPrintable(stats.out));
}

void TestTableFormats::jackknifeTablesTravelWithTheResult_data() {
    QTest::addColumn<QString>("extension");
    QTest::newRow("FITS") << QStringLiteral("fits");
    QTest::newRow("VOTable") << QStringLiteral("vot");
}

// A FITS or VOTable result holds its covariance and jackknife samples as tables of its own; an
// ECSV result names the companion files beside it. scripts/check_jackknife_tables.py compares
// them (through astropy) with the JSON result and with the covariance formed again from the
// samples; STILTS finds the three tables.
void TestTableFormats::jackknifeTablesTravelWithTheResult() {
    QFETCH(QString, extension);
    const QString python = pythonWithAstropy();
    if (python.isEmpty())
        QSKIP("no python3 with astropy (scripts/install-deps.sh installs python3-astropy)");
    const QStringList common = words("run --data d.txt --random r.txt --backend cpu --quiet "
                                     "--jackknife 5 --unit deg --min 0.1 --max 5 --nbins 7");
    const QString result = QStringLiteral("jk.") + extension;
    const Outcome one = run(QStringLiteral(TPACF_EXE),
                            common + QStringList{QStringLiteral("--output"), result,
                                                 QStringLiteral("--json-output"),
                                                 QStringLiteral("jk.json")},
                            m_dir.path());
    QVERIFY2(one.exitCode == 0, qPrintable(one.err));
    const Outcome beside =
        run(QStringLiteral(TPACF_EXE),
            common + words("--output jk.ecsv --covariance jkc.ecsv --jackknife-samples jks.ecsv"),
            m_dir.path());
    QVERIFY2(beside.exitCode == 0, qPrintable(beside.err));
    const Outcome checked =
        run(python,
            {QStringLiteral(TPACF_CHECK_JACKKNIFE_TABLES), result, QStringLiteral("jk.json"),
             QStringLiteral("jk.ecsv"), QStringLiteral("jkc.ecsv"), QStringLiteral("jks.ecsv")},
            m_dir.path());
    QVERIFY2(checked.exitCode == 0, qPrintable(checked.out + checked.err));
    QCOMPARE(checked.out.trimmed(), QStringLiteral("ok 5 7"));

    if (run(QStringLiteral("stilts"), {QStringLiteral("-version")}, QString()).exitCode != 0)
        QSKIP("no stilts (scripts/install-deps.sh installs Debian's stilts)");
    // STILTS counts a FITS file's HDUs (#1: the first extension) and a VOTable's TABLEs from 0.
    const int samplesIndex = extension == QLatin1String("fits") ? 3 : 2;
    const Outcome samples = run(QStringLiteral("stilts"),
                                {QStringLiteral("tpipe"),
                                 QStringLiteral("in=%1#%2").arg(result).arg(samplesIndex),
                                 QStringLiteral("omode=meta")},
                                m_dir.path());
    QVERIFY2(samples.exitCode == 0, qPrintable(samples.err));
    for (const char* expected : {"JKSAMPLES", "region(Long)", "n_data(Long)", "w_6(Double)",
                                 "Rows:    5"})
        QVERIFY2(samples.out.contains(QString::fromLatin1(expected)),
                 qPrintable(QStringLiteral("%1 not in:\n%2")
                                .arg(QString::fromLatin1(expected), samples.out)));
}

void TestTableFormats::meanThetaInEveryForm_data() {
    QTest::addColumn<bool>("twoSamples");
    QTest::newRow("one sample") << false;
    QTest::newRow("two samples, weighted") << true;
}

// --mean-theta: every form of the result (ECSV, FITS, VOTable, JSON) and a count table carry
// the mean θ and ln θ of every kind of count, which scripts/check_mean_theta.py recomputes by
// brute force in numpy from the catalogs (auto, cross, pair-weighted) to 1e-12.
void TestTableFormats::meanThetaInEveryForm() {
    QFETCH(bool, twoSamples);
    const QString python = pythonWithAstropy();
    if (python.isEmpty())
        QSKIP("no python3 with astropy (scripts/install-deps.sh installs python3-astropy)");
    // The first 500 data and randoms, and weighted copies (a weight from 0.5 to 2 in a third
    // column): the second sample's pairs are then weighted on one side or both.
    const auto firstRows = [&](const QString& from, const QString& to, bool weighted) {
        QFile in(m_dir.filePath(from)), out(m_dir.filePath(to));
        QVERIFY(in.open(QIODevice::ReadOnly | QIODevice::Text));
        QVERIFY(out.open(QIODevice::WriteOnly | QIODevice::Text));
        int row = 0;
        while (!in.atEnd() && row < 500) {
            const QByteArray line = in.readLine().trimmed();
            if (line.isEmpty() || line.startsWith('#'))
                continue;
            const QByteArray weight = QByteArray::number(0.5 + 0.25 * (row++ % 7));
            out.write(weighted ? line + ' ' + weight + '\n' : line + '\n');
        }
    };
    firstRows(QStringLiteral("d.txt"), QStringLiteral("d500.txt"), false);
    firstRows(QStringLiteral("r.txt"), QStringLiteral("r500.txt"), false);
    QStringList catalogs;
    QStringList flags = words("--mean-theta --unit deg --min 0.5 --max 10 --nbins 6 --quiet "
                              "--backend cpu --random r500.txt");
    if (twoSamples) {
        firstRows(QStringLiteral("d.txt"), QStringLiteral("dw.txt"), true);
        firstRows(QStringLiteral("r.txt"), QStringLiteral("rw.txt"), true);
        flags += words("--data dw.txt --data2 rw.txt --data-weight-col 3");
        catalogs = words("dw.txt rw.txt r500.txt");
    } else {
        flags += words("--data d500.txt");
        catalogs = words("d500.txt - r500.txt");
    }
    const QString tag = twoSamples ? QStringLiteral("two") : QStringLiteral("one");
    QStringList results;
    for (const char* extension : {"ecsv", "fits", "vot"}) {
        const QString result = QStringLiteral("mt-%1.%2").arg(tag, QLatin1String(extension));
        QStringList arguments = QStringList{QStringLiteral("run")} + flags;
        arguments << QStringLiteral("--output") << result;
        if (results.isEmpty())
            arguments << QStringLiteral("--json-output") << QStringLiteral("mt-%1.json").arg(tag);
        const Outcome written = run(QStringLiteral(TPACF_EXE), arguments, m_dir.path());
        QVERIFY2(written.exitCode == 0, qPrintable(written.err));
        if (!tpacf::fitsOutputSupported() && result.endsWith(QLatin1String(".fits")))
            continue;
        results << result;
    }
    results << QStringLiteral("mt-%1.json").arg(tag);
    QStringList extra;
    if (!twoSamples) {
        const Outcome counted = run(
            QStringLiteral(TPACF_EXE),
            words("count --a d500.txt --b r500.txt --mean-theta --unit deg --min 0.5 --max 10 "
                  "--nbins 6 --quiet --backend cpu --output mt-count.ecsv"),
            m_dir.path());
        QVERIFY2(counted.exitCode == 0, qPrintable(counted.err));
        extra = words("--count mt-count.ecsv");
    }
    const Outcome checked =
        run(python, QStringList{QStringLiteral(TPACF_CHECK_MEAN_THETA)} + catalogs + results + extra,
            m_dir.path());
    QVERIFY2(checked.exitCode == 0, qPrintable(checked.out + checked.err));
    QVERIFY2(checked.out.startsWith(QLatin1String("ok ")), qPrintable(checked.out));
    QCOMPARE(checked.out.trimmed().split(QLatin1Char(' ')).size(),
             1 + results.size() + (twoSamples ? 0 : 1));
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
