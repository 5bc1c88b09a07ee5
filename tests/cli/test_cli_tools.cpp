// SPDX-License-Identifier: GPL-3.0-or-later
// tpacf mock, devices, bench, the bundled sample, run --plot and Ctrl-C.
#include "cli_suite.h"

#include <QElapsedTimer>

using namespace clisuite;

class TestCliTools : public CliSuite {
    Q_OBJECT

private slots:
    void initTestCase() { initFixture(); }

    void mockWritesFootprintReproducibly_data() {
        QTest::addColumn<QStringList>("footprintArgs");
        QTest::addColumn<double>("raMin");
        QTest::addColumn<double>("raMax");
        QTest::addColumn<double>("decMin");
        QTest::addColumn<double>("decMax");
        QTest::addColumn<double>("capRadius");
        QTest::newRow("box") << QStringList{QStringLiteral("--box"), QStringLiteral("150,190,0,40")}
                             << 150.0 << 190.0 << 0.0 << 40.0 << 0.0;
        QTest::newRow("box through RA 0") << QStringList{QStringLiteral("--box=350,10,-20,-5")}
                                          << 350.0 << 10.0 << -20.0 << -5.0 << 0.0;
        QTest::newRow("cap") << QStringList{QStringLiteral("--cap"), QStringLiteral("30,60,5")}
                             << 30.0 << 60.0 << 0.0 << 0.0 << 5.0;
    }

    void mockWritesFootprintReproducibly() {
        QFETCH(QStringList, footprintArgs);
        QFETCH(double, raMin);
        QFETCH(double, raMax);
        QFETCH(double, decMin);
        QFETCH(double, decMax);
        QFETCH(double, capRadius);
        const auto footprint = capRadius > 0 ? tpacf::Footprint::cap(raMin, raMax, capRadius)
                                             : tpacf::Footprint::box(raMin, raMax, decMin, decMax);
        auto mock = [&](const QString& tag, int seed) {
            const QString data = path(QStringLiteral("mock_%1.txt").arg(tag));
            const QString randoms = path(QStringLiteral("mock_%1_r.txt").arg(tag));
            const Outcome outcome = tpacf(
                QStringList{QStringLiteral("mock"), QStringLiteral("--n"), QStringLiteral("777"),
                            QStringLiteral("--seed"), QString::number(seed),
                            QStringLiteral("--output"), data, QStringLiteral("--randoms"),
                            QStringLiteral("333"), QStringLiteral("--random-output"), randoms} +
                footprintArgs);
            if (outcome.exitCode != 0)
                qWarning("%s", qPrintable(outcome.err));
            return outcome;
        };
        const Outcome first = mock(QStringLiteral("a"), 5);
        QCOMPARE(first.exitCode, 0);
        QVERIFY2(first.out.contains(QStringLiteral("slope")), qPrintable(first.out));
        QCOMPARE(mock(QStringLiteral("b"), 5).exitCode, 0);
        QCOMPARE(mock(QStringLiteral("c"), 6).exitCode, 0);

        const QStringList a = dataLines(path(QStringLiteral("mock_a.txt")));
        QCOMPARE(a.size(), 777);
        QCOMPARE(dataLines(path(QStringLiteral("mock_a_r.txt"))).size(), 333);
        QCOMPARE(dataLines(path(QStringLiteral("mock_b.txt"))), a);
        QCOMPARE(dataLines(path(QStringLiteral("mock_b_r.txt"))),
                 dataLines(path(QStringLiteral("mock_a_r.txt"))));
        QVERIFY(dataLines(path(QStringLiteral("mock_c.txt"))) != a);
        QVERIFY(dataLines(path(QStringLiteral("mock_a_r.txt"))) != a);

        for (const QString& file : {QStringLiteral("mock_a.txt"), QStringLiteral("mock_a_r.txt")}) {
            const tpacf::Catalog catalog = readBack(path(file));
            for (std::size_t i = 0; i < catalog.size(); ++i) {
                const double ra = catalog.ra()[i] * 180.0 / tpacf::kPi;
                const double dec = catalog.dec()[i] * 180.0 / tpacf::kPi;
                // The file holds decimal text: allow its last digit of rounding at an edge.
                const bool inside = footprint.contains(ra, dec) ||
                                    footprint.contains(ra + 1e-9, dec + 1e-9) ||
                                    footprint.contains(ra - 1e-9, dec - 1e-9);
                QVERIFY2(inside, qPrintable(QStringLiteral("%1: (%2, %3) outside")
                                                .arg(file)
                                                .arg(ra, 0, 'g', 17)
                                                .arg(dec, 0, 'g', 17)));
            }
        }
    }

    void mockRandomsOnly() {
        const QString randoms = path(QStringLiteral("only_r.txt"));
        const Outcome outcome =
            tpacf({QStringLiteral("mock"), QStringLiteral("--randoms"), QStringLiteral("100"),
                   QStringLiteral("--random-output"), randoms, QStringLiteral("--random-seed"),
                   QStringLiteral("9")});
        QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));
        QCOMPARE(dataLines(randoms).size(), 100);
    }

    void devicesMentionsCpu() {
        const Outcome outcome = tpacf({QStringLiteral("devices")});
        QCOMPARE(outcome.exitCode, 0);
        QVERIFY2(outcome.out.contains(QStringLiteral("cpu: available")), qPrintable(outcome.out));
        QVERIFY2(outcome.out.contains(QStringLiteral("cuda")), qPrintable(outcome.out));
        if (!gpuPresent())
            QVERIFY2(outcome.out.contains(q(tpacf::cuda::makeProvider()->unavailableReason())),
                     qPrintable(outcome.out));
    }

    void benchJson() {
        const Outcome outcome =
            tpacf({QStringLiteral("bench"), QStringLiteral("--n"), QStringLiteral("2000"),
                   QStringLiteral("--repeat"), QStringLiteral("2"), QStringLiteral("--backend"),
                   QStringLiteral("cpu"), QStringLiteral("--sets"), QStringLiteral("1"),
                   QStringLiteral("--json")});
        QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));
        QJsonParseError error;
        const QJsonDocument json = QJsonDocument::fromJson(outcome.out.toUtf8(), &error);
        QVERIFY2(error.error == QJsonParseError::NoError,
                 qPrintable(error.errorString() + QStringLiteral("\n") + outcome.out));
        const QJsonObject root = json.object();
        QCOMPARE(root.value(QStringLiteral("points")).toInt(), 2000);
        QCOMPARE(root.value(QStringLiteral("culling_requested")).toString(),
                 QStringLiteral("auto"));
        QCOMPARE(root.value(QStringLiteral("footprint")).toString(), QStringLiteral("full sky"));
        QCOMPARE(root.value(QStringLiteral("data")).toString(), QStringLiteral("uniform"));
        QVERIFY(root.value(QStringLiteral("clustering")).isNull());
        const QJsonArray results = root.value(QStringLiteral("results")).toArray();
        // --precision defaults to all: cpu double runs (once per CPU kernel variant: the
        // vector one where the processor has it, and the portable one), cpu float is skipped.
        QVERIFY(results.size() == 2 || results.size() == 3);
        int ran = 0;
        for (const QJsonValue& value : results) {
            const QJsonObject result = value.toObject();
            QCOMPARE(result.value(QStringLiteral("backend")).toString(), QStringLiteral("cpu"));
            if (result.value(QStringLiteral("precision")).toString() == QStringLiteral("float")) {
                QCOMPARE(result.value(QStringLiteral("status")).toString(),
                         QStringLiteral("skipped"));
                continue;
            }
            QCOMPARE(result.value(QStringLiteral("status")).toString(), QStringLiteral("ok"));
            checkBenchMeasurements(result.value(QStringLiteral("measurements")).toArray());
            for (const QJsonValue& m : result.value(QStringLiteral("measurements")).toArray()) {
                const QString culling = m.toObject().value(QStringLiteral("culling")).toString();
                QVERIFY2(culling == QStringLiteral("on") || culling == QStringLiteral("off"),
                         qPrintable(culling));
            }
            if (QTest::currentTestFailed())
                return;
            ++ran;
        }
        QCOMPARE(ran, static_cast<int>(results.size()) - 1);
    }

    // --cpu-kernel: the kernels of the cpu double rows, in the JSON's "kernel" (the best is
    // avx512 or portable, as this processor has it).
    void benchCpuKernelChoice_data() {
        QTest::addColumn<QString>("choice");
        QTest::newRow("best") << QStringLiteral("best");
        QTest::newRow("portable") << QStringLiteral("portable");
        QTest::newRow("all") << QStringLiteral("all");
    }

    void benchCpuKernelChoice() {
        QFETCH(QString, choice);
        const Outcome outcome = tpacf(
            {QStringLiteral("bench"), QStringLiteral("--n"), QStringLiteral("500"),
             QStringLiteral("--repeat"), QStringLiteral("1"), QStringLiteral("--backend"),
             QStringLiteral("cpu"), QStringLiteral("--precision"), QStringLiteral("double"),
             QStringLiteral("--cpu-kernel"), choice, QStringLiteral("--json")});
        QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));
        QStringList kernels;
        const QJsonArray results = QJsonDocument::fromJson(outcome.out.toUtf8())
                                       .object()
                                       .value(QStringLiteral("results"))
                                       .toArray();
        for (const QJsonValue& value : results)
            kernels << value.toObject().value(QStringLiteral("kernel")).toString();
        const QString best = QString::fromStdString(tpacf::CpuPairCounter(1).kernelName());
        QStringList want;
        if (choice == QLatin1String("best"))
            want = {best};
        else if (choice == QLatin1String("portable"))
            want = {QStringLiteral("portable")};
        else
            want = best == QLatin1String("portable") ? QStringList{best}
                                                     : QStringList{best, QStringLiteral("portable")};
        QCOMPARE(kernels, want);
    }

    void benchTableListsSkippedBackends() {
        // "all" spelled out, as scripts/device-check.sh does.
        const Outcome outcome =
            tpacf({QStringLiteral("bench"), QStringLiteral("--n"), QStringLiteral("500"),
                   QStringLiteral("--repeat"), QStringLiteral("1"), QStringLiteral("--backend"),
                   QStringLiteral("all"), QStringLiteral("--precision"), QStringLiteral("all")});
        QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));
        QVERIFY(
            outcome.out.contains(QRegularExpression(QStringLiteral("\\ncpu +double +\\S+ +DD "))));
        QVERIFY(outcome.out.contains(QRegularExpression(QStringLiteral("\\ncpu +float +skipped"))));
        if (!gpuPresent())
            QVERIFY(outcome.out.contains(
                QRegularExpression(QStringLiteral("\\ncuda +double +skipped"))));
    }

    void benchClusteredFootprint() {
        // The issue's CPU case, small: a clustered mock in a 40 x 40 deg box, bins to 10 deg.
        const QStringList common{QStringLiteral("bench"),       QStringLiteral("--backend"),
                                 QStringLiteral("cpu"),         QStringLiteral("--n"),
                                 QStringLiteral("2000"),        QStringLiteral("--clustered"),
                                 QStringLiteral("--footprint"), QStringLiteral("box:150,190,0,40"),
                                 QStringLiteral("--bins"),      QStringLiteral("20"),
                                 QStringLiteral("--theta-min"), QStringLiteral("0.01"),
                                 QStringLiteral("--theta-max"), QStringLiteral("10"),
                                 QStringLiteral("--unit"),      QStringLiteral("deg"),
                                 QStringLiteral("--repeat"),    QStringLiteral("1"),
                                 QStringLiteral("--levels"),    QStringLiteral("6")};
        Outcome outcome =
            tpacf(common + QStringList{QStringLiteral("--culling"), QStringLiteral("off"),
                                       QStringLiteral("--json")});
        QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));
        QJsonParseError error;
        const QJsonObject root = QJsonDocument::fromJson(outcome.out.toUtf8(), &error).object();
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(outcome.out));
        QCOMPARE(root.value(QStringLiteral("culling_requested")).toString(), QStringLiteral("off"));
        QCOMPARE(root.value(QStringLiteral("data")).toString(), QStringLiteral("clustered"));
        QCOMPARE(root.value(QStringLiteral("footprint")).toString(),
                 q(tpacf::Footprint::box(150, 190, 0, 40).describe()));
        const QJsonObject clustering = root.value(QStringLiteral("clustering")).toObject();
        QCOMPARE(clustering.value(QStringLiteral("levels")).toInt(), 6);
        QCOMPARE(clustering.value(QStringLiteral("eta")).toInt(), 2);
        int measurements = 0;
        for (const QJsonValue& value : root.value(QStringLiteral("results")).toArray()) {
            const QJsonObject result = value.toObject();
            if (result.value(QStringLiteral("status")).toString() != QStringLiteral("ok"))
                continue;
            for (const QJsonValue& m : result.value(QStringLiteral("measurements")).toArray()) {
                // Off is brute force on every backend.
                QCOMPARE(m.toObject().value(QStringLiteral("culling")).toString(),
                         QStringLiteral("off"));
                ++measurements;
            }
        }
        QVERIFY(measurements >= 2);

        // The table has a culling column after the count and names the points.
        outcome = tpacf(common + QStringList{QStringLiteral("--culling"), QStringLiteral("on")});
        QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));
        QVERIFY2(
            outcome.out.contains(QStringLiteral("2000 clustered (Soneira-Peebles) data points")),
            qPrintable(outcome.out));
        QVERIFY2(outcome.out.contains(QStringLiteral("culling on, median")),
                 qPrintable(outcome.out));
        QVERIFY2(outcome.out.contains(QRegularExpression(
                     QStringLiteral("\\nbackend +precision +kernel +count +culling +pairs "))),
                 qPrintable(outcome.out));
        QVERIFY2(outcome.out.contains(QRegularExpression(
                     QStringLiteral("\\ncpu +double +\\S+ +DD +(on|off) +[0-9,]+ "))),
                 qPrintable(outcome.out));
    }

    void bundledSampleShowsClustering() {
        const QString samples = QStringLiteral(TPACF_SOURCE_DIR "/resources/samples/");
        const QString csvPath = path(QStringLiteral("sample-w.csv"));
        // The exact command scripts/run-sample.sh runs.
        const Outcome outcome =
            tpacf({QStringLiteral("run"), QStringLiteral("--data"),
                   samples + QStringLiteral("sample_data.txt"), QStringLiteral("--random"),
                   samples + QStringLiteral("sample_random_1.txt"), QStringLiteral("--random"),
                   samples + QStringLiteral("sample_random_2.txt"), QStringLiteral("--preset"),
                   QStringLiteral("log5"), QStringLiteral("--estimator"), QStringLiteral("ls"),
                   QStringLiteral("--output"), csvPath});
        QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));
        const CsvFile csv = readCsv(csvPath);
        QCOMPARE(csv.rows.size(), std::size_t{30});
        QVERIFY(csv.meta(QStringLiteral("data")).contains(QStringLiteral("N=5000")));
        int positive = 0;
        for (std::size_t k = 0; k < csv.rows.size(); ++k) {
            const double theta = csv.number(k, QStringLiteral("theta_mid"));
            // 1'-100': enough random pairs per bin that w is well measured, and well inside
            // the clustered range of the mock (README: about 0.08 deg to 5 deg).
            if (theta < 1.0 || theta > 100.0)
                continue;
            const double w = csv.number(k, QStringLiteral("w"));
            QVERIFY2(w > 0.5, qPrintable(QStringLiteral("w(%1') = %2").arg(theta).arg(w)));
            ++positive;
        }
        QCOMPARE(positive, 10);
    }

    void runWritesPlot_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QStringList>("extra");
        const QStringList jackknife{QStringLiteral("--jackknife"), QStringLiteral("4")};
        QTest::newRow("png, log bins, jackknife") << QStringLiteral("w.png") << jackknife;
        QTest::newRow("png, linear bins")
            << QStringLiteral("w-linear.png")
            << QStringList{QStringLiteral("--bins"),  QStringLiteral("linear"),
                           QStringLiteral("--min"),   QStringLiteral("0"),
                           QStringLiteral("--max"),   QStringLiteral("5"),
                           QStringLiteral("--unit"),  QStringLiteral("deg"),
                           QStringLiteral("--nbins"), QStringLiteral("10")};
        QTest::newRow("upper-case suffix") << QStringLiteral("w-upper.PNG") << QStringList();
        QTest::newRow("pdf, log bins, jackknife") << QStringLiteral("w.pdf") << jackknife;
    }

    void runWritesPlot() {
#if !TPACF_CLI_HAVE_PLOT
        QSKIP("built without the GUI: badCommandLines checks that --plot says so");
#else
        QFETCH(QString, file);
        QFETCH(QStringList, extra);
        const QString csvPath = path(QStringLiteral("plotted.csv"));
        const QString plotPath = path(file);
        const Outcome outcome = tpacfWithoutDisplay(
            QStringList{QStringLiteral("run"), QStringLiteral("--data"), m_data,
                        QStringLiteral("--random"), m_random1, QStringLiteral("--output"), csvPath,
                        QStringLiteral("--plot"), plotPath} +
            extra);
        QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));
        QVERIFY2(outcome.out.contains(QStringLiteral("plot written to ") + plotPath),
                 qPrintable(outcome.out));
        QVERIFY(QFile::exists(csvPath));
        // Only tpacf's own notices on stderr: Qt has nothing to say about the offscreen drawing.
        for (const QString& line : outcome.err.split(QLatin1Char('\n'), Qt::SkipEmptyParts))
            QVERIFY2(line.startsWith(QStringLiteral("tpacf: ")), qPrintable(line));

        if (file.endsWith(QStringLiteral(".pdf"))) {
            QFile pdf(plotPath);
            QVERIFY(pdf.open(QIODevice::ReadOnly));
            const QByteArray content = pdf.readAll();
            QVERIFY2(content.startsWith("%PDF"), content.left(16).constData());
            QVERIFY(content.size() > 1000);
            return;
        }
        // The app's default export: 1800 x 1200 pixels tagged 300 dpi.
        const QImage image(plotPath, "png");
        QVERIFY2(!image.isNull(), qPrintable(plotPath));
        QCOMPARE(image.size(), QSize(1800, 1200));
        QCOMPARE(qRound(image.dotsPerMeterX() * 0.0254), 300);
        // Drawn, not blank: a white page with axes, text, and the w points in their blue.
        const QColor wColor(0x1f, 0x4e, 0x9c);
        qint64 inked = 0, wPixels = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x) {
                const QColor pixel = image.pixelColor(x, y);
                if (pixel != QColor(Qt::white))
                    ++inked;
                if (std::abs(pixel.red() - wColor.red()) < 8 &&
                    std::abs(pixel.green() - wColor.green()) < 8 &&
                    std::abs(pixel.blue() - wColor.blue()) < 8)
                    ++wPixels;
            }
        const qint64 total = qint64(image.width()) * image.height();
        QVERIFY2(inked > total / 100 && inked < total / 2, qPrintable(QString::number(inked)));
        QVERIFY2(wPixels > 500, qPrintable(QString::number(wPixels)));
#endif
    }

    // stderr is a pipe here, as in a batch job's log: progress comes as time-stamped lines.
    void progressLinesInALog() {
        const QString sky = path(QStringLiteral("log_sky.txt"));
        tpacf::writeCatalogAscii(sky.toStdString(), tpacf::generateUniformRandoms(
                                                        120000, tpacf::Footprint::fullSky(), 4));
        const auto count = [&](const QString& interval, const QString& output) {
            return tpacf({QStringLiteral("count"), QStringLiteral("--a"), sky,
                          QStringLiteral("--bins"), QStringLiteral("log"), QStringLiteral("--min"),
                          QStringLiteral("0.01"), QStringLiteral("--max"), QStringLiteral("10800"),
                          QStringLiteral("--nbins"), QStringLiteral("30"), QStringLiteral("--unit"),
                          QStringLiteral("arcmin"), QStringLiteral("--backend"),
                          QStringLiteral("cpu"), QStringLiteral("--progress-interval"), interval,
                          QStringLiteral("--output"), path(output)});
        };
        QElapsedTimer timer;
        timer.start();
        const Outcome logged = count(QStringLiteral("0.1"), QStringLiteral("log_a.csv"));
        const double seconds = timer.elapsed() / 1000.0;
        QCOMPARE(logged.exitCode, 0);
        const QRegularExpression line(QStringLiteral(
            R"(^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d tpacf: (preparing|counting) (\d+\.\d) %, )"
            R"([0-9.]+( [kMGTP])? pairs/s, ETA (--:--|\d+:\d\d)$)"));
        int progressLines = 0;
        double lastPercent = -1;
        const QStringList lines = logged.err.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        for (const QString& text : lines) {
            QVERIFY2(!text.contains(QLatin1Char('\r')), qPrintable(text)); // no bar in a log
            const QRegularExpressionMatch match = line.match(text);
            if (!match.hasMatch())
                continue;
            ++progressLines;
            const double percent = match.captured(2).toDouble();
            QVERIFY2(percent >= lastPercent, qPrintable(logged.err)); // never backwards
            lastPercent = percent;
        }
        // The count takes about a second here (120,000 points over the whole sky; 60,000 took
        // 0.4 s on 2 cores once the plan ran on every core); the CPU reports every ~100 ms, so
        // lines 0.1 s apart come several times.
        QVERIFY2(seconds > 0.5, qPrintable(QString::number(seconds)));
        QVERIFY2(progressLines >= 2, qPrintable(logged.err));
        QVERIFY2(lines.last().contains(QRegularExpression(
                     QStringLiteral(R"(tpacf: counting done after \d+:\d\d$)"))),
                 qPrintable(logged.err));
        // 0: no lines at all, the same count otherwise.
        const Outcome silent = count(QStringLiteral("0"), QStringLiteral("log_b.csv"));
        QCOMPARE(silent.exitCode, 0);
        QVERIFY2(!silent.err.contains(QStringLiteral("tpacf: counting")), qPrintable(silent.err));
        QCOMPARE(dataLines(path(QStringLiteral("log_b.csv"))),
                 dataLines(path(QStringLiteral("log_a.csv"))));
    }

    void progressIntervalIsChecked_data() {
        QTest::addColumn<QString>("value");
        for (const char* value : {"-1", "ten", "nan", "inf", "1e400"})
            QTest::newRow(value) << QString::fromLatin1(value);
    }

    void progressIntervalIsChecked() {
        QFETCH(QString, value);
        const QString sky = path(QStringLiteral("interval_sky.txt"));
        tpacf::writeCatalogAscii(sky.toStdString(),
                                 tpacf::generateUniformRandoms(100, tpacf::Footprint::fullSky(), 5));
        for (const QString& command : {QStringLiteral("count"), QStringLiteral("run")}) {
            const QStringList input =
                command == QStringLiteral("count")
                    ? QStringList{QStringLiteral("--a"), sky}
                    : QStringList{QStringLiteral("--data"), sky, QStringLiteral("--random"), sky};
            const Outcome outcome =
                tpacf(QStringList{command} + input +
                      QStringList{QStringLiteral("--progress-interval"), value,
                                  QStringLiteral("--output"), path(QStringLiteral("never.csv"))});
            QCOMPARE(outcome.exitCode, 2);
            QVERIFY2(outcome.err.contains(QStringLiteral("--progress-interval")),
                     qPrintable(outcome.err));
            QVERIFY(!QFile::exists(path(QStringLiteral("never.csv"))));
        }
    }

    void ctrlCCancels() {
        // Big enough that the count is still running when the signal arrives on any machine
        // this suite targets; the CPU backend polls its cancel flag every ~100 ms.
        const QString big = path(QStringLiteral("big.txt"));
        const QString bigRandom = path(QStringLiteral("big_r.txt"));
        tpacf::writeCatalogAscii(big.toStdString(), tpacf::generateUniformRandoms(
                                                        150000, tpacf::Footprint::fullSky(), 3));
        QFile::copy(big, bigRandom);
        QProcess process;
        process.start(QStringLiteral(TPACF_EXE),
                      {QStringLiteral("run"), QStringLiteral("--data"), big,
                       QStringLiteral("--random"), bigRandom, QStringLiteral("--backend"),
                       QStringLiteral("cpu"), QStringLiteral("--output"),
                       path(QStringLiteral("cancelled.csv"))});
        QVERIFY(process.waitForStarted());
        QTest::qWait(1500);
        QCOMPARE(process.state(), QProcess::Running);
        ::kill(static_cast<pid_t>(process.processId()), SIGINT);
        QVERIFY(process.waitForFinished(10000));
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QCOMPARE(process.exitCode(), 130);
        QVERIFY(QString::fromUtf8(process.readAllStandardError())
                    .contains(QStringLiteral("cancelled")));
        QVERIFY(!QFile::exists(path(QStringLiteral("cancelled.csv"))));
    }
};

TPACF_TEST_MAIN(TestCliTools)
#include "test_cli_tools.moc"
