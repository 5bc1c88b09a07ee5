// SPDX-License-Identifier: GPL-3.0-or-later
// tpacf run and count against the core API: counts, culling, estimators, backends and precision,
// reading flags.
#include "cli_suite.h"

using namespace clisuite;

class TestCliRun : public CliSuite {
    Q_OBJECT

private slots:
    void initTestCase() { initFixture(); }

    void runMatchesDirectCounts() {
        const QString csvPath = path(QStringLiteral("w.csv"));
        const QString jsonPath = path(QStringLiteral("w.json"));
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
                                       QStringLiteral("--output"),
                                       csvPath,
                                       QStringLiteral("--json"),
                                       jsonPath});
        QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));
        QVERIFY2(outcome.out.contains(csvPath), qPrintable(outcome.out));

        // The same counts computed here, on the same files, through the reference counter
        // with a different thread count.
        const tpacf::Catalog data = readBack(m_data);
        const tpacf::Catalog r1 = readBack(m_random1);
        const tpacf::Catalog r2 = readBack(m_random2);
        const tpacf::Binning binning(
            tpacf::BinSpec::logCount(2, 1200, tpacf::AngleUnit::Arcminute, 9));
        tpacf::CpuPairCounter counter(1);
        const auto dd = counter.countAuto(data, binning);
        const auto dr1 = counter.countCross(data, r1, binning);
        const auto dr2 = counter.countCross(data, r2, binning);
        const auto rr1 = counter.countAuto(r1, binning);
        const auto rr2 = counter.countAuto(r2, binning);

        const CsvFile csv = readCsv(csvPath);
        QCOMPARE(csv.header.join(QLatin1Char(',')),
                 QStringLiteral("theta_lo,theta_hi,theta_mid,DD,DR,RR,DD_norm,DR_norm,RR_norm,w"));
        QCOMPARE(csv.rows.size(), std::size_t{9});
        QVERIFY(csv.meta(QStringLiteral("data")).contains(m_data));
        QVERIFY(csv.meta(QStringLiteral("data")).contains(QStringLiteral("N=400")));
        QVERIFY(csv.meta(QStringLiteral("random 1")).contains(QStringLiteral("N=500")));
        QVERIFY(csv.meta(QStringLiteral("random 2")).contains(QStringLiteral("N=450")));
        QVERIFY(csv.meta(QStringLiteral("estimator")).startsWith(QStringLiteral("Landy-Szalay")));
        QCOMPARE(csv.meta(QStringLiteral("backend")), QStringLiteral("cpu"));
        QCOMPARE(csv.meta(QStringLiteral("precision")), QStringLiteral("double"));
        QVERIFY(csv.meta(QStringLiteral("bins")).contains(QStringLiteral("9 bins")));
        // --culling defaults to auto; the line says what the backend did with it.
        QVERIFY2(
            csv.meta(QStringLiteral("culling"))
                .contains(QRegularExpression(QStringLiteral("^(on|off) \\(requested auto\\): "))),
            qPrintable(csv.meta(QStringLiteral("culling"))));

        const double nd = 400, n1 = 500, n2 = 450;
        std::uint64_t totalDd = 0;
        for (std::size_t k = 0; k < 9; ++k) {
            QCOMPARE(csv.number(k, QStringLiteral("theta_lo")), binning.edges()[k]);
            QCOMPARE(csv.number(k, QStringLiteral("theta_hi")), binning.edges()[k + 1]);
            QCOMPARE(csv.count(k, QStringLiteral("DD")), dd[k]);
            QCOMPARE(csv.count(k, QStringLiteral("DR")), dr1[k] + dr2[k]);
            QCOMPARE(csv.count(k, QStringLiteral("RR")), rr1[k] + rr2[k]);
            totalDd += dd[k];
            // Landy-Szalay in closed form from the counts (random sets averaged after
            // normalisation), independent of core's estimator code.
            const double ddn = static_cast<double>(dd[k]) / (nd * (nd - 1) / 2);
            const double drn = 0.5 * (static_cast<double>(dr1[k]) / (nd * n1) +
                                      static_cast<double>(dr2[k]) / (nd * n2));
            const double rrn = 0.5 * (static_cast<double>(rr1[k]) / (n1 * (n1 - 1) / 2) +
                                      static_cast<double>(rr2[k]) / (n2 * (n2 - 1) / 2));
            const double w = csv.number(k, QStringLiteral("w"));
            if (rrn == 0) {
                QVERIFY(std::isnan(w));
                continue;
            }
            const double expected = (ddn - 2 * drn + rrn) / rrn;
            QVERIFY2(std::abs(w - expected) <= 1e-12 * std::max(1.0, std::abs(expected)),
                     qPrintable(QStringLiteral("bin %1: w %2, expected %3")
                                    .arg(k)
                                    .arg(w, 0, 'g', 17)
                                    .arg(expected, 0, 'g', 17)));
        }
        QVERIFY(totalDd > 1000); // the bins do see the pairs: the comparison means something

        QFile jsonFile(jsonPath);
        QVERIFY(jsonFile.open(QIODevice::ReadOnly));
        QJsonParseError error;
        const QJsonDocument json = QJsonDocument::fromJson(jsonFile.readAll(), &error);
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
        QVERIFY(json.isObject());
    }

    void cullingOnAndOffGiveTheSameCounts() {
        // Bins to 1 deg on a 20 x 20 deg box: most pairs lie beyond theta_max.
        const QStringList bins{
            QStringLiteral("--bins"), QStringLiteral("log"),       QStringLiteral("--min"),
            QStringLiteral("1"),      QStringLiteral("--max"),     QStringLiteral("60"),
            QStringLiteral("--unit"), QStringLiteral("arcmin"),    QStringLiteral("--nbins"),
            QStringLiteral("8"),      QStringLiteral("--backend"), QStringLiteral("cpu")};
        std::vector<CsvFile> runs, counts;
        QString jsonCulling[2];
        for (const char* mode : {"on", "off"}) {
            const QString name = QString::fromLatin1(mode);
            const QString csvPath = path(QStringLiteral("w_culling_%1.csv").arg(name));
            const QString jsonPath = path(QStringLiteral("w_culling_%1.json").arg(name));
            Outcome outcome =
                tpacf(QStringList{QStringLiteral("run"), QStringLiteral("--data"), m_data,
                                  QStringLiteral("--random"), m_random1, QStringLiteral("--random"),
                                  m_random2, QStringLiteral("--culling"), name,
                                  QStringLiteral("--output"), csvPath, QStringLiteral("--json"),
                                  jsonPath} +
                      bins);
            QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));
            QVERIFY2(outcome.out.contains(QStringLiteral("precision, culling ")),
                     qPrintable(outcome.out));
            runs.push_back(readCsv(csvPath));
            const QString line = runs.back().meta(QStringLiteral("culling"));
            QVERIFY2(line.contains(QStringLiteral("(requested %1): ").arg(name)), qPrintable(line));
            if (name == QStringLiteral("off"))
                QCOMPARE(line, QStringLiteral("off (requested off): brute force, every pair "
                                              "computed"));
            else
                QVERIFY2(line == QStringLiteral("on (requested on): only cell pairs within reach "
                                                "of theta_max were visited; counts are identical "
                                                "to brute force") ||
                             line.startsWith(QStringLiteral("off (requested on): ")),
                         qPrintable(line));
            QFile jsonFile(jsonPath);
            QVERIFY(jsonFile.open(QIODevice::ReadOnly));
            const QJsonObject culling = QJsonDocument::fromJson(jsonFile.readAll())
                                            .object()
                                            .value(QStringLiteral("culling"))
                                            .toObject();
            QCOMPARE(culling.value(QStringLiteral("requested")).toString(), name);
            QCOMPARE(culling.value(QStringLiteral("used")).toString(),
                     line.section(QLatin1Char(' '), 0, 0));
            jsonCulling[runs.size() - 1] = culling.value(QStringLiteral("used")).toString();

            const QString countPath = path(QStringLiteral("dd_culling_%1.csv").arg(name));
            outcome = tpacf(QStringList{QStringLiteral("count"), QStringLiteral("--a"), m_data,
                                        QStringLiteral("--culling"), name,
                                        QStringLiteral("--output"), countPath} +
                            bins);
            QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));
            counts.push_back(readCsv(countPath));
            QVERIFY2(counts.back()
                         .meta(QStringLiteral("culling"))
                         .contains(QStringLiteral("(requested %1): ").arg(name)),
                     qPrintable(counts.back().metadata.join(QLatin1Char('\n'))));
        }
        QCOMPARE(jsonCulling[1], QStringLiteral("off"));
        // Identical integers, bin by bin, and enough of them for that to mean something.
        QCOMPARE(runs[0].rows.size(), std::size_t{8});
        QCOMPARE(runs[1].rows.size(), std::size_t{8});
        std::uint64_t dd = 0, rr = 0;
        for (std::size_t k = 0; k < 8; ++k) {
            for (const QString& column :
                 {QStringLiteral("DD"), QStringLiteral("DR"), QStringLiteral("RR")})
                QCOMPARE(runs[0].count(k, column), runs[1].count(k, column));
            QCOMPARE(runs[0].rows[k].at(runs[0].column(QStringLiteral("w"))),
                     runs[1].rows[k].at(runs[1].column(QStringLiteral("w"))));
            QCOMPARE(counts[0].count(k, QStringLiteral("count")),
                     counts[1].count(k, QStringLiteral("count")));
            QCOMPARE(counts[1].count(k, QStringLiteral("count")),
                     runs[1].count(k, QStringLiteral("DD")));
            dd += runs[1].count(k, QStringLiteral("DD"));
            rr += runs[1].count(k, QStringLiteral("RR"));
        }
        QVERIFY2(dd > 1000 && rr > 1000, qPrintable(QStringLiteral("%1 %2").arg(dd).arg(rr)));
        QVERIFY(dd < 400 * 399 / 2 / 2); // most data pairs lie beyond 1 deg
    }

    void cullingFlagDocumented() {
        for (const char* command : {"run", "count", "bench"}) {
            const Outcome outcome = tpacf({QString::fromLatin1(command), QStringLiteral("--help")});
            QCOMPARE(outcome.exitCode, 0);
            QVERIFY2(outcome.out.contains(QStringLiteral("--culling M")), command);
            QVERIFY2(outcome.out.contains(QStringLiteral("auto (default")), command);
        }
        const Outcome bench = tpacf({QStringLiteral("bench"), QStringLiteral("--help")});
        QVERIFY(bench.out.contains(QStringLiteral("--footprint F")));
        QVERIFY(bench.out.contains(QStringLiteral("--clustered")));
        QVERIFY(bench.out.contains(QStringLiteral("--outer-radius D")));
    }

    void runEstimatorFlag() {
        const QString csvPath = path(QStringLiteral("w_natural.csv"));
        const Outcome outcome =
            tpacf({QStringLiteral("run"), QStringLiteral("--data"), m_data,
                   QStringLiteral("--random"), m_random1, QStringLiteral("--preset"),
                   QStringLiteral("quarter-degree"), QStringLiteral("--estimator"),
                   QStringLiteral("natural"), QStringLiteral("--backend"), QStringLiteral("cpu"),
                   QStringLiteral("--quiet"), QStringLiteral("--output"), csvPath});
        QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));
        QVERIFY(outcome.out.isEmpty()); // --quiet
        const CsvFile csv = readCsv(csvPath);
        QCOMPARE(csv.rows.size(), std::size_t{360}); // 0-90 deg by 0.25 deg
        QVERIFY(csv.meta(QStringLiteral("estimator")).startsWith(QStringLiteral("Natural")));
        const double nd = 400, nr = 500;
        for (std::size_t k = 0; k < csv.rows.size(); ++k) {
            const double dd = static_cast<double>(csv.count(k, QStringLiteral("DD")));
            const double rr = static_cast<double>(csv.count(k, QStringLiteral("RR")));
            if (rr == 0)
                continue;
            const double expected = (dd / (nd * (nd - 1) / 2)) / (rr / (nr * (nr - 1) / 2)) - 1;
            QVERIFY(std::abs(csv.number(k, QStringLiteral("w")) - expected) <=
                    1e-12 * std::max(1.0, std::abs(expected)));
        }
    }

    void runHelpListsEveryEstimator() {
        // The --estimator help line and the unknown-estimator error come from core's table:
        // every key shows, so a new estimator is documented by being added.
        const Outcome help = tpacf({QStringLiteral("run"), QStringLiteral("--help")});
        QCOMPARE(help.exitCode, 0);
        const qsizetype start = help.out.indexOf(QStringLiteral("--estimator E"));
        QVERIFY2(start >= 0, qPrintable(help.out));
        const QString line =
            help.out.mid(start, help.out.indexOf(QLatin1Char('\n'), start) - start);
        const Outcome bad = tpacf(
            {QStringLiteral("run"), QStringLiteral("--data"), m_data, QStringLiteral("--random"),
             m_random1, QStringLiteral("--output"), QStringLiteral("/tmp/tpacf-test-never.csv"),
             QStringLiteral("--estimator"), QStringLiteral("xyz")});
        checkUsageError(bad, QStringLiteral("--estimator: \"xyz\" is not an estimator"));
        for (const tpacf::EstimatorInfo& info : tpacf::estimators()) {
            const QString key = QString::fromLatin1(info.key);
            // As a whole word: a key seen only inside a longer word is not listed.
            const QRegularExpression word(QStringLiteral("\\b%1\\b").arg(key));
            QVERIFY2(line.contains(word), qPrintable(key + QStringLiteral(" not in: ") + line));
            QVERIFY2(bad.err.contains(word),
                     qPrintable(key + QStringLiteral(" not in: ") + bad.err));
        }
        QVERIFY(line.contains(QStringLiteral("default")));
        QVERIFY(!QFile::exists(QStringLiteral("/tmp/tpacf-test-never.csv")));
    }

    void autoBackendFallsBackWithNotice() {
        const QString csvPath = path(QStringLiteral("w_auto.csv"));
        const Outcome outcome =
            tpacf({QStringLiteral("run"), QStringLiteral("--data"), m_data,
                   QStringLiteral("--random"), m_random1, QStringLiteral("--backend"),
                   QStringLiteral("auto"), QStringLiteral("--output"), csvPath});
        QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));
        const CsvFile csv = readCsv(csvPath);
        QCOMPARE(csv.rows.size(), std::size_t{30}); // the log5 default: 0.01'-10000', 6 decades
        if (gpuPresent()) {
            QCOMPARE(csv.meta(QStringLiteral("backend")), QStringLiteral("cuda"));
            return;
        }
        const QStringList lines = outcome.err.trimmed().split(QLatin1Char('\n'));
        QCOMPARE(lines.size(), 1); // exactly one notice line
        QVERIFY2(lines.front().startsWith(QStringLiteral("tpacf: ")) &&
                     lines.front().contains(QStringLiteral("CPU")),
                 qPrintable(outcome.err));
        QCOMPARE(csv.meta(QStringLiteral("backend")), QStringLiteral("cpu"));
    }

    void precisionAutoIsTheDefault() {
        // --precision auto is the backend's own choice: the same file as no --precision at all.
        QStringList base{QStringLiteral("run"),
                         QStringLiteral("--data"),
                         m_data,
                         QStringLiteral("--random"),
                         m_random1,
                         QStringLiteral("--bins"),
                         QStringLiteral("log"),
                         QStringLiteral("--min"),
                         QStringLiteral("1"),
                         QStringLiteral("--max"),
                         QStringLiteral("600"),
                         QStringLiteral("--unit"),
                         QStringLiteral("arcmin"),
                         QStringLiteral("--nbins"),
                         QStringLiteral("5"),
                         QStringLiteral("--backend"),
                         QStringLiteral("cpu"),
                         QStringLiteral("--output")};
        const QString plainPath = path(QStringLiteral("w_precision_default.csv"));
        const QString autoPath = path(QStringLiteral("w_precision_auto.csv"));
        const Outcome plain = tpacf(base + QStringList{plainPath});
        const Outcome chosen = tpacf(
            base + QStringList{autoPath, QStringLiteral("--precision"), QStringLiteral("auto")});
        QVERIFY2(plain.exitCode == 0, qPrintable(plain.err));
        QVERIFY2(chosen.exitCode == 0, qPrintable(chosen.err));
        const CsvFile expected = readCsv(plainPath);
        const CsvFile actual = readCsv(autoPath);
        QCOMPARE(actual.meta(QStringLiteral("precision")), QStringLiteral("double"));
        QCOMPARE(actual.rows, expected.rows);
        const Outcome bad = tpacf(
            base + QStringList{autoPath, QStringLiteral("--precision"), QStringLiteral("half")});
        checkUsageError(bad, QStringLiteral("is not a precision (float, double, auto)"));
    }

    void cudaWithoutGpuIsUsageError() {
        if (gpuPresent())
            QSKIP("a CUDA device is present: the no-GPU error cannot be provoked here");
        for (const QString& command : {QStringLiteral("run"), QStringLiteral("count")}) {
            QStringList args{command};
            if (command == QStringLiteral("run"))
                args << QStringLiteral("--data") << m_data << QStringLiteral("--random")
                     << m_random1;
            else
                args << QStringLiteral("--a") << m_data;
            args << QStringLiteral("--backend") << QStringLiteral("cuda")
                 << QStringLiteral("--output") << path(QStringLiteral("never_cuda.csv"));
            const Outcome outcome = tpacf(args);
            checkUsageError(outcome, QStringLiteral("CUDA"));
            QVERIFY2(outcome.err.contains(QStringLiteral("unavailable")) ||
                         outcome.err.contains(QStringLiteral("not available")),
                     qPrintable(outcome.err));
        }
        QVERIFY(!QFile::exists(path(QStringLiteral("never_cuda.csv"))));
    }

    void countMatchesDirectCounts_data() {
        QTest::addColumn<bool>("cross");
        QTest::newRow("auto") << false;
        QTest::newRow("cross") << true;
    }

    void countMatchesDirectCounts() {
        QFETCH(bool, cross);
        const QString csvPath = path(cross ? QStringLiteral("dr.csv") : QStringLiteral("dd.csv"));
        QStringList args{QStringLiteral("count"), QStringLiteral("--a"), m_data};
        if (cross)
            args << QStringLiteral("--b") << m_random1;
        args << QStringLiteral("--bins") << QStringLiteral("linear") << QStringLiteral("--min")
             << QStringLiteral("0") << QStringLiteral("--max") << QStringLiteral("10")
             << QStringLiteral("--width") << QStringLiteral("0.5") << QStringLiteral("--unit")
             << QStringLiteral("deg") << QStringLiteral("--threads") << QStringLiteral("2")
             << QStringLiteral("--backend") << QStringLiteral("cpu") << QStringLiteral("--output")
             << csvPath;
        const Outcome outcome = tpacf(args);
        QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));

        const tpacf::Catalog a = readBack(m_data);
        const tpacf::Catalog b = readBack(m_random1);
        const tpacf::Binning binning(
            tpacf::BinSpec::linearWidth(0, 10, tpacf::AngleUnit::Degree, 0.5));
        tpacf::CpuPairCounter counter(1);
        const auto expected =
            cross ? counter.countCross(a, b, binning) : counter.countAuto(a, binning);

        const CsvFile csv = readCsv(csvPath);
        QCOMPARE(csv.header.join(QLatin1Char(',')),
                 QStringLiteral("theta_lo,theta_hi,theta_mid,count"));
        QCOMPARE(csv.rows.size(), std::size_t{20});
        std::uint64_t total = 0;
        for (std::size_t k = 0; k < 20; ++k) {
            QCOMPARE(csv.number(k, QStringLiteral("theta_lo")), 0.5 * static_cast<double>(k));
            QCOMPARE(csv.count(k, QStringLiteral("count")), expected[k]);
            total += expected[k];
        }
        QVERIFY(total > 1000);
        const QString metadata = csv.metadata.join(QLatin1Char('\n'));
        QVERIFY2(metadata.contains(m_data), qPrintable(metadata));
        QCOMPARE(metadata.contains(m_random1), cross);
    }

    void readingFlagsReachTheReader() {
        // Columns "id dec ra" with RA in hours and Dec in arcmin: only the reading flags make
        // sense of this file.
        const tpacf::Catalog data = readBack(m_data);
        QByteArray text = "id dec_arcmin ra_hours\n";
        for (std::size_t i = 0; i < data.size(); ++i) {
            const double raDeg = data.ra()[i] * 180.0 / tpacf::kPi;
            const double decDeg = data.dec()[i] * 180.0 / tpacf::kPi;
            text += QByteArray::number(static_cast<qulonglong>(i)) + ' ' +
                    QByteArray::number(decDeg * 60.0, 'g', 17) + ' ' +
                    QByteArray::number(raDeg / 15.0, 'g', 17) + '\n';
        }
        const QString file = path(QStringLiteral("hours.txt"));
        writeText(file, text);
        const QString csvPath = path(QStringLiteral("hours.csv"));
        const Outcome outcome =
            tpacf({QStringLiteral("count"), QStringLiteral("--a"), file, QStringLiteral("--ra-col"),
                   QStringLiteral("ra_hours"), QStringLiteral("--dec-col"), QStringLiteral("2"),
                   QStringLiteral("--ra-hours"), QStringLiteral("--coord-unit"),
                   QStringLiteral("arcmin"), QStringLiteral("--preset"),
                   QStringLiteral("quarter-degree"), QStringLiteral("--backend"),
                   QStringLiteral("cpu"), QStringLiteral("--output"), csvPath});
        QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));

        tpacf::ReadOptions options;
        options.raColumn = tpacf::ColumnRef::parse("ra_hours");
        options.decColumn = tpacf::ColumnRef::parse("2");
        options.raInHours = true;
        options.coordUnit = tpacf::AngleUnit::Arcminute;
        const tpacf::Catalog converted = tpacf::readCatalog(file.toStdString(), options);
        const tpacf::Binning binning(tpacf::BinSpec::preset("quarter-degree"));
        tpacf::CpuPairCounter counter(1);
        const auto expected = counter.countAuto(converted, binning);
        const auto original = counter.countAuto(data, binning);
        const CsvFile csv = readCsv(csvPath);
        QCOMPARE(csv.rows.size(), expected.size());
        std::int64_t drift = 0;
        for (std::size_t k = 0; k < expected.size(); ++k) {
            QCOMPARE(csv.count(k, QStringLiteral("count")), expected[k]);
            drift += std::abs(static_cast<std::int64_t>(expected[k]) -
                              static_cast<std::int64_t>(original[k]));
        }
        // The unit round trip moves a pair across a bin edge only by rounding.
        QVERIFY2(drift <= 4, qPrintable(QString::number(drift)));
    }

    // A job file stands for its flags: the same result as the flags typed, the command line
    // overriding its keys (a repeated flag's whole list), and the result's metadata holding the
    // file line by line.
    void jobFileRunsAsItsFlags() {
        const QString job = path(QStringLiteral("job run.toml"));
        writeText(job, QStringLiteral("# a survey job\n[run]\ndata = \"%1\"\nrandom = [\"%2\",\n"
                                      "          '%3']   # two sets\nunit = 'deg'\n"
                                      "min = 0.1\nmax = 5\nnbins = 7\nestimator = \"ls\"\n"
                                      "backend = \"cpu\"\nquiet = true\noutput = \"%4\"\n")
                               .arg(m_data, m_random1, m_random2,
                                    path(QStringLiteral("job w.ecsv")))
                           .toUtf8());
        const Outcome fromJob = tpacf({QStringLiteral("run"), QStringLiteral("--config"), job});
        QVERIFY2(fromJob.exitCode == 0, qPrintable(fromJob.err));
        const QStringList typed{QStringLiteral("run"),     QStringLiteral("--data"),    m_data,
                                QStringLiteral("--random"), m_random1,                 QStringLiteral("--random"),
                                m_random2,                 QStringLiteral("--unit"),  QStringLiteral("deg"),
                                QStringLiteral("--min"),   QStringLiteral("0.1"),     QStringLiteral("--max"),
                                QStringLiteral("5"),       QStringLiteral("--nbins"), QStringLiteral("7"),
                                QStringLiteral("--backend"), QStringLiteral("cpu"),   QStringLiteral("--quiet"),
                                QStringLiteral("--output"), path(QStringLiteral("typed w.ecsv"))};
        const Outcome fromFlags = tpacf(typed);
        QVERIFY2(fromFlags.exitCode == 0, qPrintable(fromFlags.err));
        const CsvFile a = readCsv(path(QStringLiteral("job w.ecsv")));
        const CsvFile b = readCsv(path(QStringLiteral("typed w.ecsv")));
        QCOMPARE(a.header, b.header);
        QCOMPARE(a.rows.size(), std::size_t(7));
        for (std::size_t k = 0; k < a.rows.size(); ++k)
            QCOMPARE(a.rows[k], b.rows[k]);
        QCOMPARE(a.meta(QStringLiteral("job file")), job);
        const auto listed = [&](const QString& item) {
            return std::any_of(a.metadata.begin(), a.metadata.end(), [&](const QString& line) {
                return line.trimmed() == QStringLiteral("- ") + item;
            });
        };
        QVERIFY2(listed(QStringLiteral("'# a survey job'")),
                 qPrintable(a.metadata.join(QLatin1Char('\n'))));
        QVERIFY(listed(QStringLiteral("'nbins = 7'")));
        QVERIFY(b.meta(QStringLiteral("job file")).isEmpty());

        // The command line overrides: 4 bins, one random set.
        const Outcome over = tpacf({QStringLiteral("run"), QStringLiteral("--config"), job,
                                    QStringLiteral("--nbins"), QStringLiteral("4"),
                                    QStringLiteral("--random"), m_random1,
                                    QStringLiteral("--output"), path(QStringLiteral("over.ecsv"))});
        QVERIFY2(over.exitCode == 0, qPrintable(over.err));
        const CsvFile c = readCsv(path(QStringLiteral("over.ecsv")));
        QCOMPARE(c.rows.size(), std::size_t(4));
        QCOMPARE(c.meta(QStringLiteral("random sets")), QString());
        QVERIFY2(c.meta(QStringLiteral("random 2")).isEmpty(),
                 qPrintable(c.metadata.join(QLatin1Char('\n'))));
        // No output may overwrite the job file.
        checkUsageError(tpacf({QStringLiteral("run"), QStringLiteral("--config"), job,
                               QStringLiteral("--output"), job}),
                        QStringLiteral("same file as the input --config"));
        QVERIFY(QFile(job).size() > 100);
    }

    void jobFileErrors_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("misspelt key") << QByteArray("data = 'd.txt'\njacknife = 4\n")
                                      << QStringLiteral(":2: column 1: unknown key 'jacknife'"
                                                        ": not a flag of tpacf run (did you mean "
                                                        "'jackknife'?)");
        QTest::newRow("text without quotes")
            << QByteArray("[run]\n\ndata = my data.txt\n")
            << QStringLiteral(":3: column 8: 'my' is not a value: put text in quotes");
        QTest::newRow("switch with a number") << QByteArray("quiet = 1\n")
                                              << QStringLiteral(":1: column 10: 'quiet' is a switch");
        QTest::newRow("array for a single value")
            << QByteArray("data = ['a.txt', 'b.txt']\n")
            << QStringLiteral("'data' takes one value, not an array");
        QTest::newRow("key twice") << QByteArray("nbins = 4\n# again\nnbins = 5\n")
                                   << QStringLiteral(":3: column 1: 'nbins' is given twice (also "
                                                     "on line 1)");
        QTest::newRow("another command's table")
            << QByteArray("[count]\na = 'x.txt'\n")
            << QStringLiteral("a [count] table: this is tpacf run");
        QTest::newRow("unclosed string") << QByteArray("data = \"d.txt\n")
                                         << QStringLiteral("a string without its closing \"");
        QTest::newRow("a job file in a job file")
            << QByteArray("config = 'other.toml'\n")
            << QStringLiteral("cannot name another job file");
        QTest::newRow("binary") << QByteArray("data = 'x'\0\x01\x02", 13)
                                << QStringLiteral("binary data (a NUL byte): not a job file");
        QTest::newRow("bad escape") << QByteArray("data = \"C:\\data\\d.txt\"\n")
                                    << QStringLiteral("unknown escape \\d");
    }

    // Every bad job file is one line on stderr naming the file and the line, exit 2, nothing
    // written.
    void jobFileErrors() {
        QFETCH(QByteArray, content);
        QFETCH(QString, mentions);
        const QString job = path(QStringLiteral("bad job.toml"));
        writeText(job, content);
        const QString output = path(QStringLiteral("bad job w.ecsv"));
        QFile::remove(output);
        const Outcome outcome = tpacf({QStringLiteral("run"), QStringLiteral("--config"), job,
                                       QStringLiteral("--output"), output});
        checkUsageError(outcome, job + (mentions.startsWith(QLatin1Char(':')) ? QString()
                                                                               : QStringLiteral(":")));
        QVERIFY2(outcome.err.contains(mentions), qPrintable(outcome.err));
        QVERIFY(!QFile::exists(output));
        checkUsageError(tpacf({QStringLiteral("run"), QStringLiteral("--config"),
                               path(QStringLiteral("no such job.toml")), QStringLiteral("--output"),
                               output}),
                        QStringLiteral("cannot open the job file"));
    }
};

TPACF_TEST_MAIN(TestCliRun)
#include "test_cli_run.moc"
