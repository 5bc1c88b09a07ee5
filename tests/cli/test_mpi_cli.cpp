// SPDX-License-Identifier: GPL-3.0-or-later
// tpacf under mpirun, end to end on the CPU backend: K ranks give the counts of one process
// (integer counts bit for bit, weighted sums to 1e-12 relative) for auto, cross, weighted and
// jackknife runs, counts and count files; a failure on any rank (bad input everywhere, a bad
// file or a failing job on one rank only, ranks that counted different things) ends every rank
// with one message and one exit code and writes nothing; SIGINT to mpirun stops every rank.
#include "cli_process.h"
#include "tpacf/count_store.h"
#include "tpacf/result_io.h"
#include "tpacf_test_main.h"

#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <random>

#include <csignal>
#include <unistd.h>

#ifndef TPACF_EXE
#error "TPACF_EXE must name the tpacf executable"
#endif

namespace {

using Outcome = tpacf::test::ProcessOutcome;

QString mpirun() {
    return QStandardPaths::findExecutable(QStringLiteral("mpirun"));
}

// mpirun's own flags: root may run ranks only when it says so (CI runs as root), and more ranks
// than cores are allowed (3 ranks on a 2-core machine).
QStringList launcherFlags() {
    QStringList flags{QStringLiteral("--oversubscribe")};
    if (geteuid() == 0)
        flags << QStringLiteral("--allow-run-as-root");
    return flags;
}

// `mpirun -np K tpacf ARGS` in `folder`.
Outcome runRanks(const QString& folder, int ranks, const QString& arguments,
                 int timeoutMs = 120000) {
    QStringList words = launcherFlags();
    words << QStringLiteral("-np") << QString::number(ranks) << QStringLiteral(TPACF_EXE)
          << tpacf::test::splitWords(arguments);
    return tpacf::test::runProcess(mpirun(), words, folder, timeoutMs);
}

// One launch of several programs (MPMD): rank r runs `tpacf perRank[r]`, so that one rank
// alone can be given a bad file.
Outcome runEachRank(const QString& folder, const QStringList& perRank) {
    QStringList words = launcherFlags();
    for (int r = 0; r < perRank.size(); ++r) {
        if (r > 0)
            words << QStringLiteral(":");
        words << QStringLiteral("-np") << QStringLiteral("1") << QStringLiteral(TPACF_EXE)
              << tpacf::test::splitWords(perRank[r]);
    }
    return tpacf::test::runProcess(mpirun(), words, folder, 120000);
}

Outcome runOne(const QString& folder, const QString& arguments) {
    return tpacf::test::runProcess(QStringLiteral(TPACF_EXE), tpacf::test::splitWords(arguments),
                                   folder);
}

void writeCatalog(const QString& path, std::size_t n, std::uint64_t seed, bool weights,
                  bool regions = false) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> ra(10.0, 50.0), dec(-20.0, 15.0), w(0.3, 1.7);
    QByteArray text;
    for (std::size_t i = 0; i < n; ++i) {
        const double a = ra(rng), d = dec(rng);
        text += QByteArray::number(a, 'g', 17) + ' ' + QByteArray::number(d, 'g', 17);
        if (weights)
            text += ' ' + QByteArray::number(w(rng), 'g', 17);
        if (regions) // 4 bands of RA as region labels
            text += ' ' + QByteArray::number(static_cast<int>((a - 10.0) / 10.0));
        text += '\n';
    }
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(text) != text.size())
        qFatal("cannot write %s", qPrintable(path));
}

QString readText(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

// Columns of a result or count CSV that hold integer counts (equal bit for bit), estimates
// (w, w_err: differences of normalised sums, so their error is absolute, ~1e-12 of the terms),
// and the rest: weighted sums and normalised counts (equal to 1e-12 relative).
bool isIntegerColumn(const std::string& name) {
    return name == "DD" || name == "DR" || name == "RD" || name == "RR" || name == "count";
}
bool isEstimateColumn(const std::string& name) {
    return name == "w" || name == "w_err";
}

void compareTables(const QString& onePath, const QString& ranksPath) {
    const tpacf::ResultTable one = tpacf::readResultCsv(onePath.toStdString());
    const tpacf::ResultTable ranks = tpacf::readResultCsv(ranksPath.toStdString());
    QCOMPARE(ranks.columns, one.columns);
    QCOMPARE(ranks.rows.size(), one.rows.size());
    QVERIFY(!one.rows.empty());
    double binned = 0;
    for (std::size_t r = 0; r < one.rows.size(); ++r)
        for (std::size_t c = 0; c < one.columns.size(); ++c) {
            const double a = one.rows[r][c], b = ranks.rows[r][c];
            if (std::isnan(a)) {
                QVERIFY2(std::isnan(b),
                         qPrintable(QStringLiteral("row %1 %2")
                                        .arg(r)
                                        .arg(QString::fromStdString(one.columns[c]))));
                continue;
            }
            if (isIntegerColumn(one.columns[c])) {
                binned += a;
                QVERIFY2(a == b, qPrintable(QStringLiteral("row %1 column %2: %3 vs %4")
                                                .arg(r)
                                                .arg(QString::fromStdString(one.columns[c]))
                                                .arg(a, 0, 'g', 17)
                                                .arg(b, 0, 'g', 17)));
            } else {
                const double scale = isEstimateColumn(one.columns[c])
                                         ? 10.0 * std::max({1.0, std::abs(a), std::abs(b)})
                                         : std::max(std::abs(a), std::abs(b));
                QVERIFY2(std::abs(a - b) <= 1e-12 * scale,
                         qPrintable(QStringLiteral("row %1 column %2: %3 vs %4")
                                        .arg(r)
                                        .arg(QString::fromStdString(one.columns[c]))
                                        .arg(a, 0, 'g', 17)
                                        .arg(b, 0, 'g', 17)));
            }
        }
    QVERIFY2(binned > 1000, "too few pairs in the bins to test anything");
}

// The message appears exactly once on stderr (rank 0 speaks for all).
void requireOnce(const Outcome& outcome, const QString& text) {
    QVERIFY2(outcome.err.count(text) == 1,
             qPrintable(QStringLiteral("expected '%1' once in:\n%2").arg(text, outcome.err)));
}

const QString kBins = QStringLiteral("--bins log --min 1 --max 600 --unit arcmin --nbins 8 "
                                     "--backend cpu --quiet");

} // namespace

class TestMpiCli : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString path(const char* name) const { return m_dir.filePath(QString::fromLatin1(name)); }

private slots:
    void initTestCase() {
        if (mpirun().isEmpty())
            QSKIP("no mpirun on this machine (the setup script installs openmpi-bin)");
        QVERIFY(m_dir.isValid());
        writeCatalog(path("d.txt"), 1500, 1, false);
        writeCatalog(path("dw.txt"), 1500, 2, true);
        writeCatalog(path("d2w.txt"), 1200, 3, true);
        writeCatalog(path("r.txt"), 2500, 4, false);
        writeCatalog(path("r2.txt"), 2000, 5, false);
        writeCatalog(path("dj.txt"), 1500, 6, false, true);
        writeCatalog(path("rj.txt"), 2500, 7, false, true);
        // RA, Dec, weight, region.
        writeCatalog(path("djw.txt"), 1500, 9, true, true);
        writeCatalog(path("d2jw.txt"), 1200, 10, true, true);
        writeCatalog(path("rjw.txt"), 2500, 11, true, true);
    }

    void runEqualsOneProcess_data() {
        QTest::addColumn<int>("ranks");
        QTest::addColumn<QString>("arguments");
        const QString autoRun = QStringLiteral("run --data d.txt --random r.txt --random r2.txt");
        const QString weighted =
            QStringLiteral("run --data dw.txt --data-weight-col 3 --random r.txt");
        const QString cross = QStringLiteral("run --data dw.txt --data2 d2w.txt --data-weight-col "
                                             "3 --random r.txt --random2 r2.txt");
        const QString jackknife = QStringLiteral("run --data d.txt --random r.txt --jackknife 6");
        for (const int ranks : {2, 3}) {
            const auto row = [&](const char* name, const QString& arguments) {
                QTest::addRow("%s, %d ranks", name, ranks) << ranks << arguments;
            };
            row("auto, two random sets", autoRun);
            row("weighted", weighted);
            row("cross, weighted", cross);
            row("jackknife k-means", jackknife);
            row("jackknife column, weighted cross",
                QStringLiteral("run --data djw.txt --data2 d2jw.txt --data-weight-col 3 "
                               "--random rjw.txt --jackknife-column 4"));
        }
    }

    void runEqualsOneProcess() {
        QFETCH(int, ranks);
        QFETCH(QString, arguments);
        const QString tag =
            QString::fromLatin1(QTest::currentDataTag())
                .replace(QRegularExpression(QStringLiteral("[^a-z0-9]")), QStringLiteral("_"));
        const QString one = QStringLiteral("one_%1.csv").arg(tag);
        const QString many = QStringLiteral("many_%1.csv").arg(tag);
        const Outcome single = runOne(m_dir.path(), arguments + QLatin1Char(' ') + kBins +
                                                        QStringLiteral(" --output ") + one);
        QVERIFY2(single.exitCode == 0, qPrintable(single.err));
        const Outcome split =
            runRanks(m_dir.path(), ranks,
                     arguments + QLatin1Char(' ') + kBins + QStringLiteral(" --output ") + many);
        QVERIFY2(split.exitCode == 0, qPrintable(split.err));
        compareTables(m_dir.filePath(one), m_dir.filePath(many));
        // The metadata names every rank and what it counted on.
        const QString text = readText(m_dir.filePath(many));
        QVERIFY(text.contains(QStringLiteral("mpi ranks: '%1 (").arg(ranks)));
        for (int r = 0; r < ranks; ++r)
            QVERIFY(text.contains(QStringLiteral("'rank %1 on ").arg(r)));
        QVERIFY(!readText(m_dir.filePath(one)).contains(QStringLiteral("mpi rank")));
    }

    void countAndCountFilesEqualOneProcess() {
        // tpacf count: a weighted cross count.
        const QString count =
            QStringLiteral("count --a dw.txt --a-weight-col 3 --b r.txt ") + kBins;
        QCOMPARE(runOne(m_dir.path(), count + QStringLiteral(" --output count1.csv")).exitCode, 0);
        const Outcome counted =
            runRanks(m_dir.path(), 3, count + QStringLiteral(" --output count3.csv"));
        QVERIFY2(counted.exitCode == 0, qPrintable(counted.err));
        compareTables(path("count1.csv"), path("count3.csv"));

        // --save-counts: the file rank 0 writes holds the whole counts, as one process's does.
        const QString run = QStringLiteral(
            "run --data d.txt --random r.txt --jackknife 5 --output w.csv --save-counts ");
        QCOMPARE(runOne(m_dir.path(), run + QStringLiteral("c1.json ") + kBins).exitCode, 0);
        const Outcome saved = runRanks(m_dir.path(), 2, run + QStringLiteral("c2.json ") + kBins);
        QVERIFY2(saved.exitCode == 0, qPrintable(saved.err));
        const tpacf::CountStore one = tpacf::readCountFile(path("c1.json").toStdString());
        const tpacf::CountStore two = tpacf::readCountFile(path("c2.json").toStdString());
        QVERIFY(two.whole());
        QCOMPARE(two.counts.size(), one.counts.size());
        for (std::size_t i = 0; i < one.counts.size(); ++i) {
            QCOMPARE(two.counts[i].label, one.counts[i].label);
            QVERIFY(two.counts[i].counts == one.counts[i].counts);
            QVERIFY(two.counts[i].regions && one.counts[i].regions);
            QVERIFY(two.counts[i].regions->touching == one.counts[i].regions->touching);
            QVERIFY(two.counts[i].regions->within == one.counts[i].regions->within);
        }
    }

    void benchRunsAcrossRanks() {
        const Outcome bench = runRanks(
            m_dir.path(), 2,
            QStringLiteral("bench --backend cpu --precision double --n 3000 --repeat 1 --json"));
        QVERIFY2(bench.exitCode == 0, qPrintable(bench.err));
        QVERIFY(bench.out.contains(QStringLiteral("\"mpi_ranks\": 2")));
        // One report, from rank 0.
        QCOMPARE(bench.out.count(QStringLiteral("\"tool\": \"tpacf bench\"")), 1);
        // Several configurations cannot be measured in step by every rank.
        const Outcome all = runRanks(m_dir.path(), 2, QStringLiteral("bench --n 1000"));
        QCOMPARE(all.exitCode, 2);
        requireOnce(all, QStringLiteral("give --backend and --precision"));
    }

    void failuresEndEveryRank_data() {
        QTest::addColumn<QStringList>("perRank");
        QTest::addColumn<int>("ranks"); // > 0: every rank gets perRank[0]
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("message");
        const QString good =
            QStringLiteral("run --data d.txt --random r.txt --output bad_out.csv ") + kBins;
        QTest::newRow("bad input on every rank")
            << QStringList{QStringLiteral("run --data missing.txt --random r.txt "
                                          "--output bad_out.csv ") +
                           kBins}
            << 3 << 2 << QStringLiteral("missing.txt");
        QTest::newRow("a missing file on rank 1 only")
            << QStringList{good, QStringLiteral("run --data gone.txt --random r.txt "
                                                "--output bad_out.csv ") +
                                     kBins}
            << 0 << 2 << QStringLiteral("rank 1 of 2: ");
        QTest::newRow("rank 2 fails inside its job")
            << QStringList{good, good,
                           QStringLiteral("run --data dj.txt --random rj.txt --jackknife 9 "
                                          "--jackknife-column 3 --output bad_out.csv ") +
                               kBins}
            << 0 << 2 << QStringLiteral("rank 2 of 3: ");
        QTest::newRow("rank 1 counted other data")
            << QStringList{good, QStringLiteral("run --data dw.txt --random r.txt "
                                                "--output bad_out.csv ") +
                                     kBins}
            << 0 << 2 << QStringLiteral("rank 1 counted something else than rank 0");
        QTest::newRow("a command that does not split its work")
            << QStringList{QStringLiteral("mock --n 10 --output bad_out.csv")} << 2 << 2
            << QStringLiteral("mock does not run under MPI");
        QTest::newRow("--share under MPI")
            << QStringList{QStringLiteral("run --data d.txt --random r.txt --share 1/2 "
                                          "--save-counts bad_out.json ") +
                           kBins}
            << 2 << 2 << QStringLiteral("under MPI the ranks split it themselves");
    }

    void failuresEndEveryRank() {
        QFETCH(QStringList, perRank);
        QFETCH(int, ranks);
        QFETCH(int, exitCode);
        QFETCH(QString, message);
        QFile::remove(path("bad_out.csv"));
        const Outcome outcome = ranks > 0 ? runRanks(m_dir.path(), ranks, perRank.front())
                                          : runEachRank(m_dir.path(), perRank);
        QCOMPARE(outcome.exitCode, exitCode);
        requireOnce(outcome, message);
        // One line from tpacf, whatever mpirun adds about the exit status.
        QCOMPARE(outcome.err.count(QStringLiteral("tpacf: ")), 1);
        QVERIFY(!QFileInfo::exists(path("bad_out.csv")));
        QVERIFY(!QFileInfo::exists(path("bad_out.json")));
    }

    void interruptStopsEveryRank() {
        // A count of minutes on this machine; SIGINT to mpirun must end it in seconds.
        writeCatalog(path("big.txt"), 300000, 8, false);
        QProcess process;
        process.setWorkingDirectory(m_dir.path());
        QStringList words = launcherFlags();
        words << QStringLiteral("-np") << QStringLiteral("2") << QStringLiteral(TPACF_EXE)
              << tpacf::test::splitWords(QStringLiteral(
                     "run --data big.txt --random big.txt --culling off --backend cpu --preset "
                     "log5 --output interrupted.csv"));
        process.start(mpirun(), words);
        QVERIFY(process.waitForStarted());
        // Until both ranks count (the file read, the count begun): ~2 s here.
        QTest::qWait(3000);
        QCOMPARE(process.state(), QProcess::Running);
        QElapsedTimer timer;
        timer.start();
        ::kill(static_cast<pid_t>(process.processId()), SIGINT);
        QVERIFY2(process.waitForFinished(30000), "mpirun did not end within 30 s of SIGINT");
        QVERIFY(timer.elapsed() < 30000);
        QVERIFY(process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0);
        QVERIFY(!QFileInfo::exists(path("interrupted.csv")));
        const QString err = QString::fromLocal8Bit(process.readAllStandardError());
        QVERIFY2(err.count(QStringLiteral("tpacf: cancelled")) <= 1, qPrintable(err));
    }
};

TPACF_TEST_MAIN(TestMpiCli)
#include "test_mpi_cli.moc"
