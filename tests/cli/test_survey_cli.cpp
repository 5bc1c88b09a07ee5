// SPDX-License-Identifier: GPL-3.0-or-later
// tpacf run and count with weight columns and two samples, end to end: the weighted column
// against a brute-force double loop over the file's values, cross mode against independent
// `tpacf count` runs, and every bad combination an exit 2 with one line naming the problem.
#include "tpacf/bins.h"
#include "tpacf/result_io.h"
#include "cli_process.h"
#include "tpacf_test_main.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <random>

#ifndef TPACF_EXE
#error "TPACF_EXE must name the tpacf executable"
#endif

namespace {

using Outcome = tpacf::test::ProcessOutcome;

Outcome runTpacf(const QString& folder, const QStringList& arguments) {
    return tpacf::test::runProcess(QStringLiteral(TPACF_EXE), arguments, folder);
}

QStringList words(const QString& text) {
    return tpacf::test::splitWords(text);
}

// A catalog file: RA, Dec in degrees and a weight, the values kept for the brute force.
struct Points {
    std::vector<double> ra, dec, w;
};

Points writeCatalog(const QString& path, std::size_t n, std::uint64_t seed, bool negative) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> raDist(150.0, 170.0), decDist(-5.0, 10.0),
        wDist(0.2, 1.8);
    Points points;
    QByteArray text("ra,dec,weight\n");
    for (std::size_t i = 0; i < n; ++i) {
        // Values written with %.17g: what the reader gets back is exactly what is kept here.
        points.ra.push_back(raDist(rng));
        points.dec.push_back(decDist(rng));
        points.w.push_back(negative && i % 5 == 0 ? -wDist(rng) : wDist(rng));
        text += QByteArray::number(points.ra.back(), 'g', 17) + ',' +
                QByteArray::number(points.dec.back(), 'g', 17) + ',' +
                QByteArray::number(points.w.back(), 'g', 17) + '\n';
    }
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(text) != text.size())
        qFatal("cannot write %s", qPrintable(path));
    return points;
}

constexpr double kDegree = 3.14159265358979323846 / 180.0;

// Σ w_i w_j and the raw count per bin, brute force in double: unit vectors from RA/Dec as the
// catalog builds them, chord² as dx² + dy² + dz², bins by Binning::binOfChord2.
struct Brute {
    std::vector<std::uint64_t> raw;
    std::vector<double> weighted;
};

Brute bruteForce(const Points& a, const Points* b, const tpacf::Binning& binning) {
    const auto unit = [](const Points& p, std::size_t i) {
        const double ra = p.ra[i] * kDegree, dec = p.dec[i] * kDegree;
        return std::array<double, 3>{std::cos(dec) * std::cos(ra), std::cos(dec) * std::sin(ra),
                                     std::sin(dec)};
    };
    const Points& other = b ? *b : a;
    Brute out{std::vector<std::uint64_t>(binning.count(), 0),
              std::vector<double>(binning.count(), 0.0)};
    for (std::size_t i = 0; i < a.ra.size(); ++i) {
        const auto p = unit(a, i);
        for (std::size_t j = b ? 0 : i + 1; j < other.ra.size(); ++j) {
            const auto q = unit(other, j);
            const double dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2];
            const int bin = binning.binOfChord2(dx * dx + dy * dy + dz * dz);
            if (bin < 0)
                continue;
            ++out.raw[std::size_t(bin)];
            out.weighted[std::size_t(bin)] += a.w[i] * other.w[j];
        }
    }
    return out;
}

// The column named `name` of a result CSV.
std::vector<double> column(const QString& path, const char* name) {
    const tpacf::ResultTable table = tpacf::readResultCsv(path.toStdString());
    for (std::size_t c = 0; c < table.columns.size(); ++c) {
        if (table.columns[c] != name)
            continue;
        std::vector<double> values;
        for (const auto& row : table.rows)
            values.push_back(row[c]);
        return values;
    }
    return {};
}

const QString kBins = QStringLiteral("--bins log --min 5 --max 600 --unit arcmin --nbins 6 "
                                     "--backend cpu --quiet");

tpacf::Binning binning() {
    return tpacf::Binning(tpacf::BinSpec::logCount(5, 600, tpacf::AngleUnit::Arcminute, 6));
}

} // namespace

class TestSurveyCli : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    Points m_d1, m_d2, m_r1;

    QString path(const char* name) const { return m_dir.filePath(QString::fromLatin1(name)); }

private Q_SLOTS:
    void initTestCase();
    void weightedCountAgainstBruteForce_data();
    void weightedCountAgainstBruteForce();
    void weightedRunColumns();
    void crossRunEqualsIndependentCounts();
    void badInputs_data();
    void badInputs();
    void provenanceRecorded();
};

void TestSurveyCli::initTestCase() {
    QVERIFY(m_dir.isValid());
    m_d1 = writeCatalog(path("d1.csv"), 400, 1, false);
    m_d2 = writeCatalog(path("d2.csv"), 300, 2, true);
    m_r1 = writeCatalog(path("r1.csv"), 600, 3, false);
    QFile nan(path("nan.csv"));
    QVERIFY(nan.open(QIODevice::WriteOnly));
    nan.write("ra,dec,weight\n160,1,1\n161,2,nan\n");
    nan.close();
}

void TestSurveyCli::weightedCountAgainstBruteForce_data() {
    QTest::addColumn<QString>("arguments");
    QTest::addColumn<int>("second"); // 0: auto of d1; 2: d1 x d2 (negative weights in d2)
    QTest::newRow("auto, --weight-col") << QStringLiteral("--a d1.csv --weight-col weight") << 0;
    QTest::newRow("auto, --a-weight-col by index")
        << QStringLiteral("--a d1.csv --a-weight-col 3") << 0;
    QTest::newRow("cross with negative weights")
        << QStringLiteral("--a d1.csv --b d2.csv --weight-col weight") << 2;
}

void TestSurveyCli::weightedCountAgainstBruteForce() {
    QFETCH(QString, arguments);
    QFETCH(int, second);
    const Outcome outcome = runTpacf(
        m_dir.path(), QStringList{QStringLiteral("count")} + words(arguments) + words(kBins) +
                          words(QStringLiteral("--output count.csv")));
    QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));
    const Brute brute = bruteForce(m_d1, second ? &m_d2 : nullptr, binning());
    const std::vector<double> raw = column(path("count.csv"), "count");
    const std::vector<double> weighted = column(path("count.csv"), "weighted");
    QCOMPARE(raw.size(), brute.raw.size());
    QCOMPARE(weighted.size(), brute.weighted.size());
    double sumOfAbs = 0;
    for (std::size_t k = 0; k < raw.size(); ++k) {
        QCOMPARE(raw[k], double(brute.raw[k]));
        // The CSV keeps 17 digits: the weighted sums agree to the double's rounding.
        QVERIFY2(std::abs(weighted[k] - brute.weighted[k]) <= 1e-12 * 2.0 * double(brute.raw[k]) +
                                                                   1e-300,
                 qPrintable(QStringLiteral("bin %1: %2 vs %3")
                                .arg(k)
                                .arg(weighted[k], 0, 'g', 17)
                                .arg(brute.weighted[k], 0, 'g', 17)));
        sumOfAbs += std::abs(weighted[k]);
    }
    QVERIFY(sumOfAbs > 10.0); // the bins hold pairs: the comparison says something
}

void TestSurveyCli::weightedRunColumns() {
    const Outcome outcome = runTpacf(
        m_dir.path(), words(QStringLiteral("run --data d1.csv --random r1.csv --data-weight-col "
                                           "weight --output w.csv --json w.json")) +
                          words(kBins));
    QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));
    const tpacf::Binning bins = binning();
    const Brute dd = bruteForce(m_d1, nullptr, bins);
    // The randoms carry a weight column but only the data's was asked for: RR_w = RR.
    Points unweightedRandoms = m_r1;
    std::fill(unweightedRandoms.w.begin(), unweightedRandoms.w.end(), 1.0);
    const Brute dr = bruteForce(m_d1, &unweightedRandoms, bins);
    const Brute rr = bruteForce(unweightedRandoms, nullptr, bins);
    const auto ddW = column(path("w.csv"), "DD_w");
    const auto drW = column(path("w.csv"), "DR_w");
    const auto rrW = column(path("w.csv"), "RR_w");
    const auto w = column(path("w.csv"), "w");
    QCOMPARE(ddW.size(), bins.count());
    double sumW = 0, sumW2 = 0;
    for (const double x : m_d1.w) {
        sumW += x;
        sumW2 += x * x;
    }
    const double nr = double(m_r1.ra.size());
    for (std::size_t k = 0; k < bins.count(); ++k) {
        QVERIFY(std::abs(ddW[k] - dd.weighted[k]) <= 1e-12 * std::max(1.0, dd.weighted[k]));
        QVERIFY(std::abs(drW[k] - dr.weighted[k]) <= 1e-12 * std::max(1.0, dr.weighted[k]));
        QCOMPARE(rrW[k], double(rr.raw[k]));
        // Landy-Szalay on the weighted sums and weighted pair totals.
        const double ddN = dd.weighted[k] / ((sumW * sumW - sumW2) / 2.0);
        const double drN = dr.weighted[k] / (sumW * nr);
        const double rrN = double(rr.raw[k]) / (nr * (nr - 1.0) / 2.0);
        const double expected = (ddN - 2.0 * drN + rrN) / rrN;
        QVERIFY2(std::abs(w[k] - expected) <= 1e-9 * std::max(1.0, std::abs(expected)),
                 qPrintable(QStringLiteral("bin %1: w %2, by hand %3").arg(k).arg(w[k]).arg(expected)));
    }
    QFile json(path("w.json"));
    QVERIFY(json.open(QIODevice::ReadOnly));
    const QByteArray text = json.readAll();
    QVERIFY(text.contains("\"weighted\": true"));
    QVERIFY(text.contains("\"sum_w\": "));
    QVERIFY(text.contains("\"dd_weighted\": "));
}

// Cross mode's columns are the counts `tpacf count` gives for each pair of catalogs.
void TestSurveyCli::crossRunEqualsIndependentCounts() {
    const Outcome run = runTpacf(
        m_dir.path(),
        words(QStringLiteral("run --data d1.csv --data2 d2.csv --random r1.csv --output x.csv")) +
            words(kBins));
    QVERIFY2(run.exitCode == 0, qPrintable(run.err));
    // Without --random2, one notice says which randoms the second sample used.
    QVERIFY(run.err.contains(QStringLiteral("uses the first sample's randoms")));
    const struct {
        const char* column;
        const char* a;
        const char* b;
    } counts[] = {{"DD", "d1.csv", "d2.csv"},
                  {"DR", "d1.csv", "r1.csv"},
                  {"RD", "r1.csv", "d2.csv"},
                  {"RR", "r1.csv", nullptr}};
    for (const auto& count : counts) {
        QString arguments = QStringLiteral("count --a %1 --output c.csv ").arg(QLatin1String(count.a));
        if (count.b)
            arguments += QStringLiteral("--b %1 ").arg(QLatin1String(count.b));
        const Outcome outcome = runTpacf(m_dir.path(), words(arguments) + words(kBins));
        QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));
        QCOMPARE(column(path("x.csv"), count.column), column(path("c.csv"), "count"));
    }
    QFile csv(path("x.csv"));
    QVERIFY(csv.open(QIODevice::ReadOnly));
    QVERIFY(csv.readAll().contains("#   mode: 'cross (D1 = d1.csv, D2 = d2.csv)'"));
}

void TestSurveyCli::badInputs_data() {
    QTest::addColumn<QString>("arguments");
    QTest::addColumn<QString>("expected");
    QTest::newRow("missing weight column")
        << QStringLiteral("run --data d1.csv --random r1.csv --weight-col wt")
        << QStringLiteral("no column named 'wt'");
    QTest::newRow("NaN weight")
        << QStringLiteral("run --data nan.csv --random r1.csv --weight-col weight")
        << QStringLiteral("nan.csv:3: column 3: weight value 'nan' is not finite");
    QTest::newRow("--data2 without --data") << QStringLiteral("run --data2 d2.csv --random r1.csv")
                                            << QStringLiteral("--data2 needs --data");
    QTest::newRow("--random2 without --data2")
        << QStringLiteral("run --data d1.csv --random r1.csv --random2 r1.csv")
        << QStringLiteral("--random2 gives randoms of the second sample");
    QTest::newRow("--random2 count differs")
        << QStringLiteral("run --data d1.csv --data2 d2.csv --random r1.csv --random r1.csv "
                          "--random2 r1.csv")
        << QStringLiteral("give as many");
    QTest::newRow("--b-weight-col without --b")
        << QStringLiteral("count --a d1.csv --b-weight-col weight")
        << QStringLiteral("--b-weight-col names a column of --b");
    QTest::newRow("weight column 0") << QStringLiteral("count --a d1.csv --weight-col 0")
                                     << QStringLiteral("--weight-col");
}

void TestSurveyCli::badInputs() {
    QFETCH(QString, arguments);
    QFETCH(QString, expected);
    const Outcome outcome = runTpacf(m_dir.path(), words(arguments) + words(kBins) +
                                                       words(QStringLiteral("--output bad.csv")));
    QCOMPARE(outcome.exitCode, 2);
    const QStringList lines = outcome.err.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QVERIFY2(lines.size() == 1, qPrintable(outcome.err));
    QVERIFY2(lines.front().contains(expected), qPrintable(outcome.err));
    QVERIFY(!QFile::exists(path("bad.csv")));
}

// The CSV names the command, how each catalog was read and its content fingerprint: the same
// content under another name has the same fingerprint, other content another.
void TestSurveyCli::provenanceRecorded() {
    QVERIFY(QFile::copy(path("d1.csv"), path("copy of d1.csv")));
    const auto runWith = [&](const QString& data, const QString& output) {
        return runTpacf(m_dir.path(), QStringList{QStringLiteral("run"), QStringLiteral("--data"),
                                                  data, QStringLiteral("--random"),
                                                  QStringLiteral("r1.csv"),
                                                  QStringLiteral("--weight-col"),
                                                  QStringLiteral("weight"),
                                                  QStringLiteral("--output"), output} +
                                          words(kBins));
    };
    QCOMPARE(runWith(QStringLiteral("copy of d1.csv"), QStringLiteral("p1.csv")).exitCode, 0);
    QCOMPARE(runWith(QStringLiteral("d1.csv"), QStringLiteral("p2.csv")).exitCode, 0);
    QCOMPARE(runWith(QStringLiteral("d2.csv"), QStringLiteral("p3.csv")).exitCode, 0);
    const auto meta = [&](const char* file, const char* key) {
        QFile csv(path(file));
        if (!csv.open(QIODevice::ReadOnly))
            return QString();
        const QByteArray prefix = QByteArray("#   ") + key + ": '";
        for (const QByteArray& line : csv.readAll().split('\n'))
            if (line.startsWith(prefix))
                return QString::fromUtf8(line.mid(prefix.size(), line.size() - prefix.size() - 1))
                    .replace(QStringLiteral("''"), QStringLiteral("'"));
        return QString();
    };
    QCOMPARE(meta("p1.csv", "command"),
             QStringLiteral("tpacf run --data 'copy of d1.csv' --random r1.csv --weight-col weight "
                            "--output p1.csv ") +
                 kBins);
    const QString data = meta("p1.csv", "data");
    QVERIFY2(data.contains(QStringLiteral("; read as ascii, columns ra, dec, weight weight "
                                          "(header names), deg, 400 rows; fingerprint ")),
             qPrintable(data));
    const auto fingerprint = [&](const char* file) {
        return meta(file, "data").section(QStringLiteral("; fingerprint "), 1);
    };
    QCOMPARE(fingerprint("p1.csv").size(), 32);
    QCOMPARE(fingerprint("p1.csv"), fingerprint("p2.csv"));
    QVERIFY(fingerprint("p1.csv") != fingerprint("p3.csv"));
    QCOMPARE(meta("p1.csv", "random 1"), meta("p3.csv", "random 1"));
}

TPACF_TEST_MAIN(TestSurveyCli)
#include "test_survey_cli.moc"
