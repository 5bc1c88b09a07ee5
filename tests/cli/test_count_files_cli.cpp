// SPDX-License-Identifier: GPL-3.0-or-later
// Count files through the built tpacf: --save-counts then --reuse-counts gives the table of a
// fresh run, --share K/N parts combined by 'tpacf combine' are the whole batch, and every misuse
// is exit 2 with one line on stderr.
#include "tpacf/count_store.h"
#include "tpacf/mock.h"
#include "cli_process.h"
#include "tpacf_test_main.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <sstream>

#ifndef TPACF_EXE
#error "TPACF_EXE must name the tpacf executable"
#endif

namespace {

using Outcome = tpacf::test::ProcessOutcome;

Outcome runTpacf(const QString& folder, const QStringList& arguments) {
    return tpacf::test::runProcess(QStringLiteral(TPACF_EXE), arguments, folder);
}

const QStringList kBins = tpacf::test::words({"--bins", "log", "--min", "1", "--max", "600", "--unit", "arcmin",
                                "--nbins", "7", "--backend", "cpu", "--quiet"});

// The table of a result CSV: every line but the '#' metadata.
QByteArray tableOf(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return "<missing " + path.toUtf8() + ">";
    QByteArray table;
    while (!file.atEnd()) {
        const QByteArray line = file.readLine();
        if (!line.startsWith('#'))
            table += line;
    }
    return table;
}

QByteArray metadataOf(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    QByteArray metadata;
    while (!file.atEnd()) {
        const QByteArray line = file.readLine();
        if (line.startsWith('#'))
            metadata += line;
    }
    return metadata;
}

} // namespace

class TestCountFilesCli : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    QString path(const QString& name) const { return m_dir.filePath(name); }

    /// Runs tpacf in the folder and requires success.
    Outcome ok(const QStringList& arguments) {
        const Outcome outcome = runTpacf(m_dir.path(), arguments);
        if (outcome.exitCode != 0)
            qWarning("tpacf %s: exit %d: %s", qPrintable(arguments.join(QLatin1Char(' '))),
                     outcome.exitCode, qPrintable(outcome.err));
        return outcome;
    }

    QStringList run(const char* data, const char* random, const char* output) const {
        return tpacf::test::words({"run", "--data", data, "--random", random, "--output", output}) + kBins;
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        const auto write = [this](const tpacf::Catalog& catalog, const char* name) {
            tpacf::writeCatalogAscii(path(QString::fromLatin1(name)).toStdString(), catalog);
        };
        const tpacf::Footprint box = tpacf::Footprint::box(10, 40, -10, 20);
        write(tpacf::generateUniformRandoms(600, box, 11, "data"), "data.txt");
        write(tpacf::generateUniformRandoms(500, box, 13, "data2"), "data2.txt");
        write(tpacf::generateUniformRandoms(900, box, 12, "random"), "random.txt");
        write(tpacf::generateUniformRandoms(900, box, 14, "other"), "other.txt");
        QCOMPARE(ok(run("data.txt", "random.txt", "fresh.csv") +
                    tpacf::test::words({"--save-counts", "run.counts.json"}))
                     .exitCode,
                 0);
        QCOMPARE(ok(run("data2.txt", "random.txt", "fresh2.csv")).exitCode, 0);
    }

    void saveThenReuse() {
        const Outcome outcome =
            ok(run("data.txt", "random.txt", "reused.csv") +
               tpacf::test::words({"--reuse-counts", "run.counts.json", "--save-counts", "again.json"}));
        QCOMPARE(outcome.exitCode, 0);
        QCOMPARE(tableOf(path(QStringLiteral("reused.csv"))),
                 tableOf(path(QStringLiteral("fresh.csv"))));
        QVERIFY2(metadataOf(path(QStringLiteral("reused.csv")))
                     .contains("reused: 'DD, DR_1, RR_1 from run.counts.json'"),
                 metadataOf(path(QStringLiteral("reused.csv"))).constData());
        QVERIFY(outcome.err.contains(QStringLiteral("reused DD, DR_1, RR_1 from run.counts.json")));
        // Other data: RR_1 reused, DD and DR_1 counted, the table of a fresh run on that data.
        const Outcome other = ok(run("data2.txt", "random.txt", "reused2.csv") +
                                 tpacf::test::words({"--reuse-counts", "run.counts.json"}));
        QCOMPARE(other.exitCode, 0);
        QCOMPARE(tableOf(path(QStringLiteral("reused2.csv"))),
                 tableOf(path(QStringLiteral("fresh2.csv"))));
        const QByteArray metadata = metadataOf(path(QStringLiteral("reused2.csv")));
        QVERIFY2(metadata.contains("reused: 'RR_1 from run.counts.json'") &&
                     metadata.contains("counted afresh: DD, DR_1"),
                 metadata.constData());
    }

    void sharesCombinedAreTheWhole() {
        for (const char* share : {"1/2", "2/2"}) {
            const QString name = QStringLiteral("part%1.json").arg(QLatin1Char(share[0]));
            const Outcome outcome = ok(tpacf::test::words({"run", "--data", "data.txt", "--random", "random.txt",
                                             "--share", share, "--save-counts"}) +
                                       QStringList{name} + kBins);
            QCOMPARE(outcome.exitCode, 0);
            QVERIFY(QFile::exists(path(name)));
        }
        QCOMPARE(
            ok(tpacf::test::words({"combine", "part1.json", "part2.json", "--output", "total.json"})).exitCode,
            0);
        QCOMPARE(ok(run("data.txt", "random.txt", "combined.csv") +
                    tpacf::test::words({"--reuse-counts", "total.json"}))
                     .exitCode,
                 0);
        QCOMPARE(tableOf(path(QStringLiteral("combined.csv"))),
                 tableOf(path(QStringLiteral("fresh.csv"))));
    }

    // FITS count files wherever count files go: saved, reused, combined with JSON ones (both
    // ways), and the result tables are those of the JSON files and of a fresh run.
    void fitsCountFiles() {
        if (!tpacf::fitsCountFilesSupported())
            QSKIP("this build has no FITS support (cfitsio)");
        QCOMPARE(ok(run("data.txt", "random.txt", "fits-fresh.csv") +
                    tpacf::test::words({"--save-counts", "run.counts.fits"}))
                     .exitCode,
                 0);
        QCOMPARE(tableOf(path(QStringLiteral("fits-fresh.csv"))),
                 tableOf(path(QStringLiteral("fresh.csv"))));
        QCOMPARE(ok(run("data2.txt", "random.txt", "fits-reused2.csv") +
                    tpacf::test::words({"--reuse-counts", "run.counts.fits"}))
                     .exitCode,
                 0);
        QCOMPARE(tableOf(path(QStringLiteral("fits-reused2.csv"))),
                 tableOf(path(QStringLiteral("fresh2.csv"))));
        for (const char* share : {"1/2", "2/2"}) {
            const QString name = QStringLiteral("fpart%1.fits").arg(QLatin1Char(share[0]));
            QCOMPARE(ok(tpacf::test::words({"run", "--data", "data.txt", "--random", "random.txt",
                                            "--share", share, "--save-counts"}) +
                        QStringList{name} + kBins)
                         .exitCode,
                     0);
        }
        // FITS parts into JSON, a FITS and a JSON part into FITS: the same store.
        QCOMPARE(ok(tpacf::test::words({"combine", "fpart1.fits", "fpart2.fits", "--output",
                                        "ftotal.json"}))
                     .exitCode,
                 0);
        QCOMPARE(ok(tpacf::test::words({"combine", "fpart1.fits", "part2.json", "--output",
                                        "mixed.fits"}))
                     .exitCode,
                 0);
        std::ostringstream a, b, c;
        tpacf::writeCountStoreJson(a, tpacf::readCountFile(path(QStringLiteral("ftotal.json")).toStdString()));
        tpacf::writeCountStoreJson(b, tpacf::readCountFile(path(QStringLiteral("mixed.fits")).toStdString()));
        tpacf::writeCountStoreJson(c, tpacf::readCountFile(path(QStringLiteral("total.json")).toStdString()));
        QCOMPARE(b.str(), a.str());
        QCOMPARE(c.str(), a.str());
        QCOMPARE(ok(run("data.txt", "random.txt", "fits-combined.csv") +
                    tpacf::test::words({"--reuse-counts", "mixed.fits"}))
                     .exitCode,
                 0);
        QCOMPARE(tableOf(path(QStringLiteral("fits-combined.csv"))),
                 tableOf(path(QStringLiteral("fresh.csv"))));
    }

    // astropy opens a count file as it is: the COUNTS table, labels and uint64 raw counts.
    void astropyReadsFitsCounts() {
        if (!tpacf::fitsCountFilesSupported())
            QSKIP("this build has no FITS support (cfitsio)");
        QString python;
        for (const QString& candidate : {QStringLiteral("python3"), QStringLiteral("/usr/bin/python3")})
            if (tpacf::test::runProcess(candidate, {QStringLiteral("-c"), QStringLiteral("import astropy")},
                                        m_dir.path())
                    .exitCode == 0) {
                python = candidate;
                break;
            }
        if (python.isEmpty())
            QSKIP("no python3 with astropy (scripts/install-deps.sh installs python3-astropy)");
        const char* script =
            "from astropy.io import fits\n"
            "h = fits.open('run.counts.fits')\n"
            "c = h['COUNTS'].data\n"
            "print(h[0].header['TPFORMAT'], c['RAW'].dtype)\n"
            "for row in c: print(row['LABEL'], ' '.join(str(v) for v in row['RAW']))\n";
        const Outcome outcome =
            tpacf::test::runProcess(python, {QStringLiteral("-c"), QString::fromLatin1(script)},
                                    m_dir.path());
        QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));
        const tpacf::CountStore store = tpacf::readCountFile(path(QStringLiteral("run.counts.fits")).toStdString());
        QString expected = QStringLiteral("tpacf-counts uint64\n");
        for (const tpacf::StoredCount& count : store.counts) {
            expected += QString::fromStdString(count.label);
            for (const std::uint64_t value : count.counts.raw)
                expected += QLatin1Char(' ') + QString::number(value);
            expected += QLatin1Char('\n');
        }
        QCOMPARE(outcome.out, expected);
    }

    void misuseIsOneLine_data() {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("expected");
        QTest::newRow("mismatched bins")
            << (tpacf::test::words({"run",
                      "--data",
                      "data.txt",
                      "--random",
                      "random.txt",
                      "--output",
                      "x.csv",
                      "--reuse-counts",
                      "run.counts.json",
                      "--bins",
                      "log",
                      "--min",
                      "1",
                      "--max",
                      "600",
                      "--unit",
                      "arcmin",
                      "--nbins",
                      "8",
                      "--backend",
                      "cpu"}))
            << QStringLiteral("the bins differ from those of the counts in run.counts.json");
        QTest::newRow("different randoms")
            << (run("data.txt", "other.txt", "x.csv") + tpacf::test::words({"--reuse-counts", "run.counts.json"}))
            << QStringLiteral("random catalog 1 'other.txt': its content (coordinates and "
                              "weights as read) differs from every catalog in run.counts.json");
        QTest::newRow("not a count file")
            << (run("data.txt", "random.txt", "x.csv") + tpacf::test::words({"--reuse-counts", "data.txt"}))
            << QStringLiteral("data.txt:1: not a valid count file");
        QTest::newRow("a result CSV as count file")
            << (run("data.txt", "random.txt", "x.csv") + tpacf::test::words({"--reuse-counts", "fresh.csv"}))
            << QStringLiteral("fresh.csv:1: not a valid count file");
        QTest::newRow("--save-counts onto an input")
            << (run("data.txt", "random.txt", "x.csv") + tpacf::test::words({"--save-counts", "random.txt"}))
            << QStringLiteral("--save-counts is the same file as the input --random");
        QTest::newRow("--save-counts onto --reuse-counts")
            << (run("data.txt", "random.txt", "x.csv") +
                tpacf::test::words({"--reuse-counts", "run.counts.json", "--save-counts", "run.counts.json"}))
            << QStringLiteral("--save-counts is the same file as the input --reuse-counts");
        QTest::newRow("compressed FITS count file")
            << (run("data.txt", "random.txt", "x.csv") + tpacf::test::words({"--save-counts", "c.fits.gz"}))
            << QStringLiteral("compressed FITS count files are not supported");
        QTest::newRow("combine onto compressed FITS")
            << tpacf::test::words({"combine", "part1.json", "part2.json", "--output", "t.fits.gz"})
            << QStringLiteral("compressed FITS count files are not supported");
        QTest::newRow("JSON named .fits")
            << (run("data.txt", "random.txt", "x.csv") + tpacf::test::words({"--reuse-counts", "json.fits"}))
            << (tpacf::fitsCountFilesSupported()
                    ? QStringLiteral("json.fits: not a FITS file (it does not begin with SIMPLE =)")
                    : QStringLiteral("without cfitsio"));
        QTest::newRow("--share without --save-counts")
            << (tpacf::test::words({"run", "--data", "data.txt", "--random", "random.txt", "--share", "1/2"}) +
                kBins)
            << QStringLiteral("add --save-counts");
        QTest::newRow("--share 3/2")
            << (tpacf::test::words({"run", "--data", "data.txt", "--random", "random.txt", "--share", "3/2",
                      "--save-counts", "p.json"}) +
                kBins)
            << QStringLiteral("is not K/N");
        QTest::newRow("combine a part twice")
            << tpacf::test::words({"combine", "part1.json", "part1.json", "--output", "t.json"})
            << QStringLiteral("part 1 of 2 is in both");
        QTest::newRow("combine with a part missing")
            << tpacf::test::words({"combine", "part1.json", "--output", "t.json"})
            << QStringLiteral("part 2 missing");
        QTest::newRow("reuse of an incomplete sum")
            << (run("data.txt", "random.txt", "x.csv") + tpacf::test::words({"--reuse-counts", "part1.json"}))
            << QStringLiteral("holds part 1 of 2 of the work only (missing: 2)");
        QTest::newRow("combine onto a part")
            << tpacf::test::words({"combine", "part1.json", "part2.json", "--output", "part2.json"})
            << QStringLiteral("--output is the same file as the input count file");
    }
    void misuseIsOneLine() {
        QFETCH(QStringList, arguments);
        QFETCH(QString, expected);
        // The share files come from sharesCombinedAreTheWhole.
        QVERIFY(QFile::exists(path(QStringLiteral("part1.json"))));
        QVERIFY(QFile::copy(path(QStringLiteral("run.counts.json")), path(QStringLiteral("json.fits"))) ||
                QFile::exists(path(QStringLiteral("json.fits"))));
        const Outcome outcome = runTpacf(m_dir.path(), arguments);
        QCOMPARE(outcome.exitCode, 2);
        QCOMPARE(outcome.err.count(QLatin1Char('\n')), 1);
        QVERIFY2(outcome.err.contains(expected), qPrintable(outcome.err));
        QVERIFY(!QFile::exists(path(QStringLiteral("x.csv"))));
    }
};

TPACF_TEST_MAIN(TestCountFilesCli)
#include "test_count_files_cli.moc"
