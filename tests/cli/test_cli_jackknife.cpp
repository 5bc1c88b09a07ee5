// SPDX-License-Identifier: GPL-3.0-or-later
// tpacf run --jackknife against the core API: k-means regions, their seed, regions from a column,
// errors.
#include "cli_suite.h"

using namespace clisuite;

class TestCliJackknife : public CliSuite {
    Q_OBJECT

private slots:
    void initTestCase() { initFixture(); }

    void runJackknifeMatchesCore() {
        const QString csvPath = path(QStringLiteral("w_jk.csv"));
        const QString jsonPath = path(QStringLiteral("w_jk.json"));
        const QString covPath = path(QStringLiteral("cov_jk.csv"));
        const Outcome outcome = tpacf({QStringLiteral("run"),
                                       QStringLiteral("--data"),
                                       m_data,
                                       QStringLiteral("--random"),
                                       m_random1,
                                       QStringLiteral("--random"),
                                       m_random2,
                                       QStringLiteral("--bins"),
                                       QStringLiteral("log"),
                                       QStringLiteral("--min"),
                                       QStringLiteral("2"),
                                       QStringLiteral("--max"),
                                       QStringLiteral("1200"),
                                       QStringLiteral("--unit"),
                                       QStringLiteral("arcmin"),
                                       QStringLiteral("--nbins"),
                                       QStringLiteral("9"),
                                       QStringLiteral("--backend"),
                                       QStringLiteral("cpu"),
                                       QStringLiteral("--jackknife"),
                                       QStringLiteral("4"),
                                       QStringLiteral("--output"),
                                       csvPath,
                                       QStringLiteral("--json"),
                                       jsonPath,
                                       QStringLiteral("--covariance"),
                                       covPath});
        QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));
        QVERIFY2(outcome.out.contains(QStringLiteral("jackknife 4 regions")),
                 qPrintable(outcome.out));
        QVERIFY2(outcome.out.contains(QStringLiteral("+/-")), qPrintable(outcome.out));
        QVERIFY2(outcome.out.contains(covPath), qPrintable(outcome.out));

        tpacf::JackknifeSettings settings;
        settings.regions = 4; // the CLI's default seed is the core's
        const tpacf::CorrelationResult direct = directJackknife(
            m_data, {m_random1, m_random2},
            tpacf::BinSpec::logCount(2, 1200, tpacf::AngleUnit::Arcminute, 9), settings);
        QVERIFY(direct.hasJackknife());
        QCOMPARE(direct.wError.size(), std::size_t{9});

        const CsvFile csv = readCsv(csvPath);
        QVERIFY2(csv.column(QStringLiteral("w_err")) >= 0,
                 qPrintable(csv.header.join(QLatin1Char(','))));
        QCOMPARE(csv.rows.size(), std::size_t{9});
        int finiteErrors = 0;
        for (std::size_t k = 0; k < 9; ++k) {
            const double w = csv.number(k, QStringLiteral("w"));
            const double sigma = csv.number(k, QStringLiteral("w_err"));
            QVERIFY2(sameValue(w, direct.w[k]), qPrintable(QString::number(k)));
            QVERIFY2(sameValue(sigma, direct.wError[k]),
                     qPrintable(QStringLiteral("bin %1: w_err %2, core %3")
                                    .arg(k)
                                    .arg(sigma, 0, 'g', 17)
                                    .arg(direct.wError[k], 0, 'g', 17)));
            if (std::isfinite(sigma) && sigma > 0)
                ++finiteErrors;
        }
        QVERIFY(finiteErrors >= 5); // the comparison means something

        // The covariance: bins x bins under a header, symmetric, diagonal = w_err^2.
        const CsvFile cov = readCsv(covPath);
        QCOMPARE(cov.rows.size(), std::size_t{9});
        QStringList expectedHeader{QStringLiteral("bin"), QStringLiteral("theta_mid")};
        for (int j = 0; j < 9; ++j)
            expectedHeader << QStringLiteral("cov_%1").arg(j);
        QCOMPARE(cov.header, expectedHeader);
        const qsizetype first = 2; // bin, theta_mid
        auto element = [&](std::size_t i, std::size_t j) {
            const QString text = cov.rows.at(i).at(first + static_cast<qsizetype>(j));
            if (text == QStringLiteral("nan"))
                return std::nan("");
            bool ok = false;
            const double value = text.toDouble(&ok);
            if (!ok)
                qFatal("covariance (%zu, %zu) is not a number: %s", i, j, qPrintable(text));
            return value;
        };
        for (std::size_t i = 0; i < 9; ++i) {
            QCOMPARE(cov.rows.at(i).size(), cov.header.size());
            QCOMPARE(cov.rows.at(i).at(0), QString::number(i));
            const double sigma = csv.number(i, QStringLiteral("w_err"));
            QVERIFY2(sameValue(element(i, i), sigma * sigma, 1e-9),
                     qPrintable(QStringLiteral("bin %1: C_ii %2, w_err^2 %3")
                                    .arg(i)
                                    .arg(element(i, i), 0, 'g', 17)
                                    .arg(sigma * sigma, 0, 'g', 17)));
            for (std::size_t j = 0; j < 9; ++j) {
                QVERIFY(sameValue(element(i, j), element(j, i)));
                QVERIFY(sameValue(element(i, j), direct.covariance[i * 9 + j]));
            }
        }

        QFile jsonFile(jsonPath);
        QVERIFY(jsonFile.open(QIODevice::ReadOnly));
        QJsonParseError error;
        const QJsonDocument json = QJsonDocument::fromJson(jsonFile.readAll(), &error);
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
        // The core's writer: w_err, and the K leave-one-out samples under "jackknife".
        const QJsonObject root = json.object();
        QCOMPARE(root.value(QStringLiteral("w_err")).toArray().size(), 9);
        const QJsonObject jackknife = root.value(QStringLiteral("jackknife")).toObject();
        QCOMPARE(jackknife.value(QStringLiteral("regions")).toInt(), 4);
        const QJsonArray samples = jackknife.value(QStringLiteral("samples")).toArray();
        QCOMPARE(samples.size(), 4);
        QCOMPARE(direct.jackknifeSamples.size(), std::size_t{4});
        for (qsizetype k = 0; k < 4; ++k) {
            const QJsonArray sample = samples.at(k).toArray();
            QCOMPARE(sample.size(), 9);
            for (qsizetype bin = 0; bin < 9; ++bin) {
                const double expected = direct.jackknifeSamples[static_cast<std::size_t>(k)]
                                                               [static_cast<std::size_t>(bin)];
                const QJsonValue value = sample.at(bin);
                QVERIFY(std::isfinite(expected) ? sameValue(value.toDouble(), expected)
                                                : value.isNull());
            }
        }
    }

    void runJackknifeSeedReachesCore() {
        const QString csvPath = path(QStringLiteral("w_seed.csv"));
        const Outcome outcome = tpacf(
            {QStringLiteral("run"), QStringLiteral("--data"), m_data, QStringLiteral("--random"),
             m_random1, QStringLiteral("--preset"), QStringLiteral("quarter-degree"),
             QStringLiteral("--backend"), QStringLiteral("cpu"), QStringLiteral("--jackknife"),
             QStringLiteral("6"), QStringLiteral("--jackknife-seed"), QStringLiteral("7"),
             QStringLiteral("--quiet"), QStringLiteral("--output"), csvPath});
        QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));
        QVERIFY(outcome.out.isEmpty()); // --quiet

        tpacf::JackknifeSettings settings;
        settings.regions = 6;
        settings.seed = 7;
        const tpacf::CorrelationResult direct = directJackknife(
            m_data, {m_random1}, tpacf::BinSpec::preset("quarter-degree"), settings);
        const CsvFile csv = readCsv(csvPath);
        QVERIFY2(csv.meta(QStringLiteral("jackknife")).contains(QStringLiteral("seed 7")),
                 qPrintable(csv.metadata.join(QLatin1Char('\n'))));
        QCOMPARE(csv.rows.size(), direct.wError.size());
        for (std::size_t k = 0; k < csv.rows.size(); ++k)
            QVERIFY2(sameValue(csv.number(k, QStringLiteral("w_err")), direct.wError[k]),
                     qPrintable(QString::number(k)));
    }

    void runJackknifeFromColumn() {
        const QString csvPath = path(QStringLiteral("w_patch.csv"));
        const QString covPath = path(QStringLiteral("cov_patch.csv"));
        auto run = [&](const QStringList& jackknifeFlags) {
            return tpacf(QStringList{QStringLiteral("run"), QStringLiteral("--data"), m_dataPatch,
                                     QStringLiteral("--random"), m_randomPatch,
                                     QStringLiteral("--preset"), QStringLiteral("quarter-degree"),
                                     QStringLiteral("--backend"), QStringLiteral("cpu"),
                                     QStringLiteral("--output"), csvPath,
                                     QStringLiteral("--covariance"), covPath} +
                         jackknifeFlags);
        };
        const Outcome outcome =
            run({QStringLiteral("--jackknife-column"), QStringLiteral("patch")});
        QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));
        QVERIFY2(outcome.out.contains(QStringLiteral("jackknife 5 regions, column 'patch'")),
                 qPrintable(outcome.out));

        tpacf::JackknifeSettings settings;
        settings.regionColumn = "patch";
        tpacf::ReadOptions read;
        read.regionColumn = tpacf::ColumnRef::parse("patch");
        const tpacf::CorrelationResult direct = directJackknife(
            m_dataPatch, {m_randomPatch}, tpacf::BinSpec::preset("quarter-degree"), settings, read);
        QCOMPARE(direct.jackknifeRegions.count, 5);
        // Region 99 holds 3 points of each catalog: one notice per warning of the core.
        QVERIFY(!direct.jackknifeRegions.warnings.empty());
        for (const std::string& warning : direct.jackknifeRegions.warnings)
            QVERIFY2(outcome.err.contains(QStringLiteral("tpacf: ") + q(warning)),
                     qPrintable(outcome.err));

        auto checkErrors = [&](const QString& tag) {
            const CsvFile csv = readCsv(csvPath);
            QCOMPARE(csv.rows.size(), direct.wError.size());
            int finite = 0;
            for (std::size_t k = 0; k < csv.rows.size(); ++k) {
                const double sigma = csv.number(k, QStringLiteral("w_err"));
                QVERIFY2(sameValue(sigma, direct.wError[k]),
                         qPrintable(QStringLiteral("%1, bin %2: w_err %3, core %4")
                                        .arg(tag)
                                        .arg(k)
                                        .arg(sigma, 0, 'g', 17)
                                        .arg(direct.wError[k], 0, 'g', 17)));
                finite += std::isfinite(sigma) && sigma > 0 ? 1 : 0;
            }
            QVERIFY(finite >= 10);
            QCOMPARE(readCsv(covPath).rows.size(), direct.wError.size());
        };
        checkErrors(QStringLiteral("by name"));
        if (QTest::currentTestFailed())
            return;

        // The column by index, and with the matching region count: the same regions.
        QFile::remove(csvPath);
        const Outcome byIndex = run({QStringLiteral("--jackknife-column"), QStringLiteral("3")});
        QVERIFY2(byIndex.exitCode == 0, qPrintable(byIndex.err));
        checkErrors(QStringLiteral("by index"));
        if (QTest::currentTestFailed())
            return;
        QFile::remove(csvPath);
        const Outcome withCount =
            run({QStringLiteral("--jackknife"), QStringLiteral("5"),
                 QStringLiteral("--jackknife-column"), QStringLiteral("patch")});
        QVERIFY2(withCount.exitCode == 0, qPrintable(withCount.err));
        checkErrors(QStringLiteral("with --jackknife 5"));
        if (QTest::currentTestFailed())
            return;

        // A count the column contradicts is the core's error, and no file is written.
        QFile::remove(csvPath);
        QFile::remove(covPath);
        const Outcome contradicted =
            run({QStringLiteral("--jackknife"), QStringLiteral("4"),
                 QStringLiteral("--jackknife-column"), QStringLiteral("patch")});
        checkUsageError(contradicted, QStringLiteral("one or the other"));
        QVERIFY(!QFile::exists(csvPath));
        QVERIFY(!QFile::exists(covPath));

        // The column is read from every catalog: a random set without it is an error naming it.
        const Outcome randomWithout =
            tpacf({QStringLiteral("run"), QStringLiteral("--data"), m_dataPatch,
                   QStringLiteral("--random"), m_randomPatch, QStringLiteral("--random"), m_random2,
                   QStringLiteral("--jackknife-column"), QStringLiteral("patch"),
                   QStringLiteral("--backend"), QStringLiteral("cpu"), QStringLiteral("--output"),
                   csvPath});
        checkUsageError(randomWithout, m_random2);
        QVERIFY2(randomWithout.err.contains(QStringLiteral("patch")),
                 qPrintable(randomWithout.err));
        const Outcome noSuchColumn =
            run({QStringLiteral("--jackknife-column"), QStringLiteral("nosuch")});
        checkUsageError(noSuchColumn, QStringLiteral("'nosuch'"));
        QVERIFY(!QFile::exists(csvPath));
        QVERIFY(!QFile::exists(covPath));
    }

    void runJackknifeErrorsFromCore_data() {
        QTest::addColumn<QStringList>("flags");
        QTest::addColumn<QString>("mentions");
        // The data catalog has 400 points.
        QTest::newRow("more regions than points")
            << QStringList{QStringLiteral("--jackknife"), QStringLiteral("401")}
            << QStringLiteral("401 regions for 400 data points");
        QTest::newRow("missing region column")
            << QStringList{QStringLiteral("--jackknife-column"), QStringLiteral("patch")}
            << QStringLiteral("patch");
    }

    void runJackknifeErrorsFromCore() {
        QFETCH(QStringList, flags);
        QFETCH(QString, mentions);
        const QString csvPath = path(QStringLiteral("never_jk.csv"));
        const Outcome outcome =
            tpacf(QStringList{QStringLiteral("run"), QStringLiteral("--data"), m_data,
                              QStringLiteral("--random"), m_random1, QStringLiteral("--backend"),
                              QStringLiteral("cpu"), QStringLiteral("--output"), csvPath} +
                  flags);
        checkUsageError(outcome, mentions);
        QVERIFY(!QFile::exists(csvPath));
    }
};

TPACF_TEST_MAIN(TestCliJackknife)
#include "test_cli_jackknife.moc"
