// SPDX-License-Identifier: GPL-3.0-or-later
// tpacf count/run with --edges: custom bins from a comma list or an edges file (one edge per line,
// or Corrfunc's "lo hi" rows) count exactly what a brute-force double loop in this test counts,
// both spellings give the same output, and every bad --edges exits 2 with one line naming it.
// Runs the built executable.
#include "tpacf/bins.h"
#include "tpacf/catalog_reader.h"
#include "tpacf/mock.h"
#include "cli_process.h"
#include "tpacf_test_main.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#ifndef TPACF_EXE
#error "TPACF_EXE must name the tpacf executable"
#endif

namespace {

using Outcome = tpacf::test::ProcessOutcome;

Outcome runTpacf(const QString& folder, const QStringList& arguments) {
    return tpacf::test::runProcess(QStringLiteral(TPACF_EXE), arguments, folder);
}

QByteArray contentOf(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("<missing>");
}

void writeText(const QString& path, const char* text) {
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(text) < 0)
        qFatal("cannot write %s", qPrintable(path));
}

/// The rows of a counts CSV (metadata and header dropped), each as its fields.
QList<QStringList> csvRows(const QString& path) {
    QList<QStringList> rows;
    bool header = true;
    for (const QByteArray& line : contentOf(path).split('\n')) {
        if (line.isEmpty() || line.startsWith('#'))
            continue;
        if (header) {
            header = false;
            continue;
        }
        rows.append(QString::fromUtf8(line).split(QLatin1Char(',')));
    }
    return rows;
}

/// The CSV without the metadata lines that differ between two identical runs (time of day,
/// elapsed time).
QByteArray withoutTimes(const QByteArray& csv) {
    QByteArray kept;
    for (const QByteArray& line : csv.split('\n'))
        if (!line.startsWith('#') || (!line.contains("created") && !line.contains("elapsed") &&
                                       !line.contains("command")))
            kept += line + '\n';
    return kept;
}

/// Unit vector of (ra, dec) in radians, computed here rather than taken from the Catalog.
std::array<double, 3> unitVector(double ra, double dec) {
    return {std::cos(dec) * std::cos(ra), std::cos(dec) * std::sin(ra), std::sin(dec)};
}

/// Brute force: every pair (i<j for an auto count, all i,j for a cross count), its squared
/// chord from the coordinate differences, the bin found by a linear scan over the edges'
/// squared chords (edge_k <= theta < edge_k+1).
std::vector<std::uint64_t> bruteForce(const tpacf::Catalog& a, const tpacf::Catalog* b,
                                      const std::vector<double>& edgesDeg) {
    std::vector<double> edgeChord2;
    for (double edge : edgesDeg)
        edgeChord2.push_back(tpacf::chord2OfAngle(edge * M_PI / 180.0));
    std::vector<std::uint64_t> counts(edgesDeg.size() - 1, 0);
    const tpacf::Catalog& other = b ? *b : a;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const auto p = unitVector(a.ra()[i], a.dec()[i]);
        for (std::size_t j = b ? 0 : i + 1; j < other.size(); ++j) {
            const auto q = unitVector(other.ra()[j], other.dec()[j]);
            const double dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2];
            const double c2 = dx * dx + dy * dy + dz * dz;
            for (std::size_t k = 0; k + 1 < edgeChord2.size(); ++k)
                if (edgeChord2[k] <= c2 && c2 < edgeChord2[k + 1])
                    ++counts[k];
        }
    }
    return counts;
}

const std::vector<double> kEdgesDeg{0.1, 0.3, 1, 3};

} // namespace

class TestBinEdgesCli : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString path(const QString& name) const { return m_dir.filePath(name); }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        // Seeded points in a 6° cap, so that every bin of 0.1°-3° holds many pairs.
        const auto cap = tpacf::Footprint::cap(150.0, 20.0, 6.0);
        tpacf::writeCatalogAscii(path(QStringLiteral("a.txt")).toStdString(),
                                 tpacf::generateUniformRandoms(500, cap, 31, "a"));
        tpacf::writeCatalogAscii(path(QStringLiteral("b.txt")).toStdString(),
                                 tpacf::generateUniformRandoms(400, cap, 32, "b"));
        writeText(path(QStringLiteral("lines.txt")), "# edges in deg\n0.1\n0.3\n\n1   # one\n3\n");
        writeText(path(QStringLiteral("rows.txt")), "# lo hi\n0.1 0.3\n0.3 1\n1 3\n");
        writeText(path(QStringLiteral("unsorted.txt")), "0.1\n1\n0.3\n3\n");
        writeText(path(QStringLiteral("gap.txt")), "0.1 0.3\n0.3 1\n1.5 3\n");
        writeText(path(QStringLiteral("far.txt")), "1\n90\n181\n");
    }

    void countMatchesBruteForce_data() {
        QTest::addColumn<QString>("edges");
        QTest::addColumn<bool>("cross");
        QTest::newRow("list, auto") << QStringLiteral("0.1,0.3,1,3") << false;
        QTest::newRow("one per line, auto") << QStringLiteral("lines.txt") << false;
        QTest::newRow("lo hi rows, auto") << QStringLiteral("rows.txt") << false;
        QTest::newRow("list, cross") << QStringLiteral("0.1,0.3,1,3") << true;
        QTest::newRow("lo hi rows, cross") << QStringLiteral("rows.txt") << true;
    }

    void countMatchesBruteForce() {
        QFETCH(QString, edges);
        QFETCH(bool, cross);
        QStringList arguments = tpacf::test::words({"count", "--a", "a.txt", "--unit", "deg", "--backend", "cpu",
                                      "--quiet", "--output", "counts.csv", "--edges"});
        arguments << edges;
        if (cross)
            arguments << tpacf::test::words({"--b", "b.txt"});
        const Outcome outcome = runTpacf(m_dir.path(), arguments);
        QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));

        const tpacf::Catalog a = tpacf::readCatalog(path(QStringLiteral("a.txt")).toStdString());
        const tpacf::Catalog b = tpacf::readCatalog(path(QStringLiteral("b.txt")).toStdString());
        const std::vector<std::uint64_t> expected = bruteForce(a, cross ? &b : nullptr, kEdgesDeg);
        const QList<QStringList> rows = csvRows(path(QStringLiteral("counts.csv")));
        QCOMPARE(rows.size(), qsizetype(kEdgesDeg.size() - 1));
        for (std::size_t k = 0; k < expected.size(); ++k) {
            const QStringList& row = rows[qsizetype(k)];
            QCOMPARE(row.size(), 4);
            // The edges as given, written back in their shortest exact form.
            QCOMPARE(row[0].toDouble(), kEdgesDeg[k]);
            QCOMPARE(row[1].toDouble(), kEdgesDeg[k + 1]);
            QVERIFY2(expected[k] > 100, "the catalog must fill every bin");
            QCOMPARE(row[3].toULongLong(), quint64(expected[k]));
        }
        const QByteArray csv = contentOf(path(QStringLiteral("counts.csv")));
        QVERIFY(csv.contains("bins: 'custom, 4 edges 0.1-3 deg'"));
    }

    void fileAndListGiveTheSameOutput() {
        QByteArray first;
        for (const char* edges : {"0.1,0.3,1,3", "lines.txt", "rows.txt"}) {
            const Outcome outcome = runTpacf(
                m_dir.path(), tpacf::test::words({"count", "--a", "a.txt", "--unit", "deg", "--backend", "cpu",
                                    "--quiet", "--output", "same.csv", "--edges", edges}));
            QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));
            const QByteArray csv = withoutTimes(contentOf(path(QStringLiteral("same.csv"))));
            QVERIFY(csv.contains("theta_lo,theta_hi,theta_mid,count\n0.1,0.3,"));
            if (first.isEmpty())
                first = csv;
            else
                QCOMPARE(csv, first);
        }
    }

    void runWritesCustomBins() {
        // tpacf run takes the same flag; its JSON names the scale and lists the edges.
        const Outcome outcome =
            runTpacf(m_dir.path(), tpacf::test::words({"run", "--data", "a.txt", "--random", "b.txt", "--edges",
                                         "rows.txt", "--unit", "deg", "--backend", "cpu", "--quiet",
                                         "--output", "w.csv", "--json", "w.json"}));
        QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));
        const QList<QStringList> rows = csvRows(path(QStringLiteral("w.csv")));
        QCOMPARE(rows.size(), qsizetype(3));
        QCOMPARE(rows[0][0], QStringLiteral("0.1"));
        QCOMPARE(rows[2][1], QStringLiteral("3"));
        const QByteArray json = contentOf(path(QStringLiteral("w.json")));
        QVERIFY2(json.contains("\"scale\": \"custom\""), json.constData());
        QVERIFY2(json.contains("\"edges\": [0.1, 0.3, 1, 3]"), json.constData());
    }

    void badEdgesExit2WithOneLine_data() {
        QTest::addColumn<QStringList>("arguments"); // after "count --a a.txt --output x.csv"
        QTest::addColumn<QString>("mentions");
        QTest::newRow("unsorted list")
            << tpacf::test::words({"--edges", "0.1,1,0.3"})
            << QStringLiteral("edge 3 (0.3 arcmin) is not greater than edge 2 (1 arcmin)");
        QTest::newRow("unsorted file")
            << tpacf::test::words({"--edges", "unsorted.txt"})
            << QStringLiteral("unsorted.txt:3: edge 0.3 is not greater than the edge before it");
        QTest::newRow("file missing")
            << tpacf::test::words({"--edges", "missing.txt"})
            << QStringLiteral("\"missing.txt\" is neither an existing file nor a comma-separated");
        QTest::newRow("non-contiguous lo hi")
            << tpacf::test::words({"--edges", "gap.txt"})
            << QStringLiteral("gap.txt:3: lo 1.5 is not the previous row's hi 1");
        QTest::newRow("list beyond 180 deg")
            << tpacf::test::words({"--edges", "1,90,200", "--unit", "deg"})
            << QStringLiteral("edge 3 (200 deg) is beyond 180 deg");
        QTest::newRow("file beyond 180 deg")
            << tpacf::test::words({"--edges", "far.txt", "--unit", "deg"})
            << QStringLiteral("far.txt:3: edge 181 deg is beyond 180 deg");
        QTest::newRow("with --nbins") << tpacf::test::words({"--edges", "0.1,0.3,1", "--nbins", "3"})
                                      << QStringLiteral("--edges cannot be combined with --nbins");
        QTest::newRow("with --preset")
            << tpacf::test::words({"--preset", "log5", "--edges", "0.1,0.3"})
            << QStringLiteral("--edges cannot be combined with --preset");
        QTest::newRow("with --min") << tpacf::test::words({"--min", "1", "--edges", "0.1,0.3"})
                                    << QStringLiteral("--edges cannot be combined with --min");
        QTest::newRow("not numbers")
            << tpacf::test::words({"--edges", "0.1,abc,3"}) << QStringLiteral("\"0.1,abc,3\"");
        QTest::newRow("one edge") << tpacf::test::words({"--edges", "5"})
                                  << QStringLiteral("at least 2 edges, got 1");
        QTest::newRow("duplicate") << tpacf::test::words({"--edges", "0.1,0.3,0.3"})
                                   << QStringLiteral("edge 3 (0.3 arcmin) is not greater");
        QTest::newRow("negative") << tpacf::test::words({"--edges=-1,2"})
                                  << QStringLiteral("edge 1 (-1 arcmin) is negative");
        QTest::newRow("nan") << tpacf::test::words({"--edges", "0.1,nan"})
                             << QStringLiteral("\"nan\" in \"0.1,nan\" is not a finite number");
        QTest::newRow("a folder") << tpacf::test::words({"--edges", "."})
                                  << QStringLiteral("\".\" is not a regular file");
    }

    void badEdgesExit2WithOneLine() {
        QFETCH(QStringList, arguments);
        QFETCH(QString, mentions);
        const Outcome outcome = runTpacf(
            m_dir.path(),
            tpacf::test::words({"count", "--a", "a.txt", "--backend", "cpu", "--output", "x.csv"}) + arguments);
        QCOMPARE(outcome.exitCode, 2);
        QVERIFY2(outcome.err.count(QLatin1Char('\n')) == 1 &&
                     outcome.err.endsWith(QLatin1Char('\n')),
                 qPrintable(outcome.err));
        QVERIFY2(outcome.err.contains(mentions), qPrintable(outcome.err));
        QVERIFY2(outcome.err.contains(QStringLiteral("--edges")), qPrintable(outcome.err));
        QVERIFY(!QFile::exists(path(QStringLiteral("x.csv"))));
    }
};

TPACF_TEST_MAIN(TestBinEdgesCli)
#include "test_bin_edges_cli.moc"
