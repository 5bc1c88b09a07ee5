// SPDX-License-Identifier: GPL-3.0-or-later
// tpacf lab end to end: the JSON report of the CPU ladder (exact rows equal the reference, the
// naive row is wrong where the reference has pairs below 1.19'), --list, --explain with the
// code excerpt, both demonstrations, and every bad input answered by one line and exit 2.
// Runs the built executable.
#include "cli_process.h"
#include "tpacf/cuda/cuda_backend.h"
#include "tpacf_test_main.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#ifndef TPACF_EXE
#error "TPACF_EXE must name the tpacf executable"
#endif

namespace {

using Outcome = tpacf::test::ProcessOutcome;

Outcome runTpacf(const QStringList& arguments) {
    return tpacf::test::runProcess(QStringLiteral(TPACF_EXE), arguments, QString(), 120000);
}

QJsonObject jsonOf(const Outcome& outcome) {
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(outcome.out.toUtf8(), &error);
    if (error.error != QJsonParseError::NoError || !document.isObject())
        qWarning("not JSON: %s", qPrintable(outcome.out.left(400)));
    return document.object();
}

} // namespace

class TestLabCli : public QObject {
    Q_OBJECT

private slots:
    void cpuLadderAsJson() {
        const Outcome outcome =
            runTpacf(tpacf::test::words({"lab", "--n", "3000", "--backend", "cpu", "--json"}));
        QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));
        const QJsonObject report = jsonOf(outcome);
        QCOMPARE(report.value(QStringLiteral("tool")).toString(), QStringLiteral("tpacf lab"));
        QCOMPARE(report.value(QStringLiteral("pairs")).toDouble(), 3000.0 * 2999.0 / 2.0);
        const QJsonArray reference = report.value(QStringLiteral("reference")).toArray();
        const int bins = report.value(QStringLiteral("bins")).toObject().value(
            QStringLiteral("count")).toInt();
        QCOMPARE(reference.size(), bins);
        QCOMPARE(bins, 30); // the default bins: log5
        const QJsonArray rows = report.value(QStringLiteral("rows")).toArray();
        QCOMPARE(rows.size(), 5);
        QStringList keys;
        for (const QJsonValue& value : rows) {
            const QJsonObject row = value.toObject();
            const QString key = row.value(QStringLiteral("key")).toString();
            keys << key;
            QVERIFY2(row.value(QStringLiteral("error")).isNull(), qPrintable(key));
            QCOMPARE(row.value(QStringLiteral("backend")).toString(), QStringLiteral("cpu"));
            QVERIFY(row.value(QStringLiteral("seconds")).toDouble() > 0);
            const QJsonArray difference = row.value(QStringLiteral("difference")).toArray();
            QCOMPARE(difference.size(), bins);
            int nonZero = 0;
            for (const QJsonValue& d : difference)
                nonZero += d.toInteger() != 0;
            QCOMPARE(row.value(QStringLiteral("wrong_bins")).toInt(), nonZero);
            if (row.value(QStringLiteral("expected_exact")).toBool()) {
                QVERIFY2(row.value(QStringLiteral("wrong_bins")).toInt() == 0, qPrintable(key));
                QVERIFY(row.value(QStringLiteral("exact")).toBool());
            }
        }
        QCOMPARE(keys, tpacf::test::splitWords(QStringLiteral(
                           "cpu-1-naive cpu-2-chord2 cpu-3-vectorised cpu-4-threads cpu-5-culled")));
        // The naive row: expected inexact; with 3000 points in a 5 deg cap the reference holds
        // pairs below 1' (bins 0-9), which it cannot count.
        const QJsonObject naive = rows.first().toObject();
        QVERIFY(!naive.value(QStringLiteral("expected_exact")).toBool());
        qint64 belowOneArcmin = 0;
        for (int k = 0; k < 10; ++k)
            belowOneArcmin += reference[k].toInteger();
        QVERIFY(belowOneArcmin > 0);
        QVERIFY(naive.value(QStringLiteral("wrong_bins")).toInt() > 0);
        // Speed-ups: none for the first row, then each row's time against the others'.
        QCOMPARE(naive.value(QStringLiteral("speedup_over_first")).toDouble(), 0.0);
        const double first = naive.value(QStringLiteral("seconds")).toDouble();
        const QJsonObject last = rows.last().toObject();
        QCOMPARE(last.value(QStringLiteral("speedup_over_first")).toDouble(),
                 first / last.value(QStringLiteral("seconds")).toDouble());
    }

    void tableSelectedVariants() {
        const Outcome outcome = runTpacf(tpacf::test::words(
            {"lab", "--n", "2000", "--variants", "cpu-2-chord2,cpu-1-naive", "--min", "0.1",
             "--max", "100", "--nbins", "6"}));
        QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));
        QVERIFY(outcome.out.contains(QStringLiteral("cpu-1-naive")));
        QVERIFY(outcome.out.contains(QStringLiteral("cpu-2-chord2")));
        QVERIFY(!outcome.out.contains(QStringLiteral("cpu-3-vectorised")));
        QVERIFY(outcome.out.contains(QStringLiteral("(6 bins)")) ||
                outcome.out.contains(QStringLiteral("6 bins")));
    }

    void listAndExplain() {
        const Outcome list = runTpacf(tpacf::test::words({"lab", "--list"}));
        QCOMPARE(list.exitCode, 0);
        for (const char* key : {"cpu-1-naive", "cpu-2-chord2", "cpu-3-vectorised",
                                "cpu-4-threads", "cpu-5-culled"})
            QVERIFY2(list.out.contains(QLatin1String(key)), key);
        const Outcome explain = runTpacf(tpacf::test::words({"lab", "--explain", "cpu-2-chord2"}));
        QCOMPARE(explain.exitCode, 0);
        QVERIFY(explain.out.contains(QStringLiteral("core/lab/src/cpu_chord2.cpp")));
        QVERIFY(explain.out.contains(QStringLiteral("const double chord2 = dx * dx")));
        QVERIFY(!explain.out.contains(QStringLiteral("source not available")));
    }

    void demos() {
        const Outcome precision =
            runTpacf(tpacf::test::words({"lab", "--demo", "precision", "--n", "2000", "--json"}));
        QVERIFY2(precision.exitCode == 0, qPrintable(precision.err));
        const QJsonObject demo = jsonOf(precision);
        QCOMPARE(demo.value(QStringLiteral("chord2")), demo.value(QStringLiteral("reference")));
        QVERIFY(demo.value(QStringLiteral("float_dot")) != demo.value(QStringLiteral("reference")));
        QCOMPARE(demo.value(QStringLiteral("edges")).toArray().size(), 11);

        const Outcome overflow =
            runTpacf(tpacf::test::words({"lab", "--demo", "overflow", "--n", "3000", "--json"}));
        QVERIFY2(overflow.exitCode == 0, qPrintable(overflow.err));
        const QJsonObject counts = jsonOf(overflow);
        QCOMPARE(counts.value(QStringLiteral("counts_64")).toArray().first().toDouble(),
                 3000.0 * 2999.0 / 2.0);
        QCOMPARE(counts.value(QStringLiteral("counts_32")),
                 counts.value(QStringLiteral("counts_64"))); // 4.5e6 pairs: no wrap
        const Outcome table = runTpacf(tpacf::test::words({"lab", "--demo", "overflow", "--n",
                                                           "1000"}));
        QCOMPARE(table.exitCode, 0);
        QVERIFY(table.out.contains(QStringLiteral("499,500")));
    }

    void badInput_data() {
        QTest::addColumn<QString>("arguments");
        QTest::addColumn<QString>("named"); // what the one line must name
        QTest::newRow("unknown variant") << "lab --variants cpu-2-chord2,cpu-9-magic"
                                         << "cpu-9-magic";
        QTest::newRow("n below 2") << "lab --n 1" << "--n";
        QTest::newRow("n not a number") << "lab --n many" << "--n";
        QTest::newRow("unknown backend") << "lab --backend fpga" << "fpga";
        QTest::newRow("explain unknown") << "lab --explain cpu-0" << "cpu-0";
        QTest::newRow("unknown demo") << "lab --demo speed" << "speed";
        QTest::newRow("random without data") << "lab --random r.txt" << "--random";
        QTest::newRow("missing data file") << "lab --data /nonexistent/lab.txt" << "lab.txt";
        QTest::newRow("repeat 0") << "lab --repeat 0" << "--repeat";
        QTest::newRow("unknown flag") << "lab --fast" << "--fast";
    }
    void badInput() {
        QFETCH(QString, arguments);
        QFETCH(QString, named);
        const Outcome outcome = runTpacf(tpacf::test::splitWords(arguments));
        QCOMPARE(outcome.exitCode, 2);
        QVERIFY(outcome.out.isEmpty());
        QCOMPARE(outcome.err.count(QLatin1Char('\n')), 1);
        QVERIFY2(outcome.err.contains(named), qPrintable(outcome.err));
    }

    void cudaWithoutAGpu() {
        if (!tpacf::cuda::makeProvider()->devices().empty())
            QSKIP("a GPU is present: --backend cuda runs here");
        for (const char* backend : {"cuda", "gpu"}) {
            const Outcome outcome =
                runTpacf(tpacf::test::words({"lab", "--n", "100", "--backend", backend}));
            QCOMPARE(outcome.exitCode, 2);
            QCOMPARE(outcome.err.count(QLatin1Char('\n')), 1);
            QVERIFY2(outcome.err.contains(QStringLiteral("unavailable")), qPrintable(outcome.err));
        }
    }
};

TPACF_TEST_MAIN(TestLabCli)
#include "test_lab_cli.moc"
