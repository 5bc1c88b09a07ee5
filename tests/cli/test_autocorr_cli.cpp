// SPDX-License-Identifier: GPL-3.0-or-later
// tpacf autocorr end to end on the CPU backend: a simulated stream's table read back (one row
// per channel and lag, then the mean rows; A and G equal to the library's counts of the frames
// it wrote, which are the library simulator's), raw and ASCII input giving the same table, the
// --bench report as JSON, Ctrl-C, and every bad input answered by one line and exit 2.
#include "cli_process.h"
#include "tpacf/cuda/cuda_backend.h"
#include "tpacf/fcs_io.h"
#include "tpacf/fcs_simulation.h"
#include "tpacf/multitau.h"
#include "tpacf_test_main.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#ifndef TPACF_EXE
#error "TPACF_EXE must name the tpacf executable"
#endif

namespace {

using Outcome = tpacf::test::ProcessOutcome;

Outcome runTpacf(const QStringList& arguments) {
    return tpacf::test::runProcess(QStringLiteral(TPACF_EXE), arguments, QString(), 120000);
}

struct Table {
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;
    std::string comments;
};

Table readTable(const QString& path) {
    Table table;
    std::ifstream in(path.toStdString());
    std::string line;
    while (std::getline(in, line)) {
        if (line.starts_with('#')) {
            table.comments += line + "\n";
            continue;
        }
        std::vector<std::string> fields;
        std::stringstream stream(line);
        for (std::string field; std::getline(stream, field, ',');)
            fields.push_back(field);
        if (!line.empty() && line.back() == ',')
            fields.emplace_back();
        if (table.header.empty())
            table.header = fields;
        else
            table.rows.push_back(fields);
    }
    return table;
}

tpacf::fcs::MultiTauCounts correlateFile(const std::string& path, std::size_t channels,
                                         const tpacf::fcs::MultiTauSettings& settings) {
    auto reader = tpacf::fcs::openRawFrames(path, channels);
    auto correlator = tpacf::fcs::makeCpuCorrelator(settings, channels);
    std::vector<std::uint8_t> frames;
    while (reader->read(frames, 1000))
        correlator->feed(frames);
    return correlator->counts();
}

// Every row of `table` against the counts: lags in order, A exact, G to the last bit.
QString compareTable(const Table& table, const tpacf::fcs::MultiTauCounts& counts,
                     double frameSeconds) {
    const auto lags = tpacf::fcs::lagsOf(counts.settings);
    if (table.header != std::vector<std::string>{"channel", "level", "j", "tau_frames", "tau_s",
                                                 "A", "G"})
        return QStringLiteral("header differs");
    if (table.rows.size() != (counts.channels + 1) * lags.size())
        return QStringLiteral("%1 rows").arg(table.rows.size());
    for (std::size_t r = 0; r < table.rows.size(); ++r) {
        const auto& row = table.rows[r];
        const tpacf::fcs::Lag& lag = lags[r % lags.size()];
        const std::size_t channel = r / lags.size();
        const bool mean = channel == counts.channels;
        const QString where = QStringLiteral("row %1").arg(r);
        if (row.size() != 7 || row[0] != (mean ? std::string("mean") : std::to_string(channel)) ||
            std::stoi(row[1]) != lag.level || std::stoi(row[2]) != lag.j ||
            std::stoull(row[3]) != lag.tauFrames ||
            std::stod(row[4]) != static_cast<double>(lag.tauFrames) * frameSeconds)
            return where + QStringLiteral(": lag columns");
        if (mean ? !row[5].empty() : std::stoull(row[5]) != counts.product(channel, lag.level, lag.j))
            return where + QStringLiteral(": A");
        const double g = mean ? counts.meanG(lag.level, lag.j) : counts.g(channel, lag.level, lag.j);
        if (std::isnan(g) ? row[6] != "nan" : std::stod(row[6]) != g)
            return where + QStringLiteral(": G ") + QString::fromStdString(row[6]);
    }
    return {};
}

void writeBytes(const QString& path, const std::string& bytes) {
    std::ofstream(path.toStdString(), std::ios::binary) << bytes;
}

} // namespace

class TestAutocorrCli : public QObject {
    Q_OBJECT

private slots:
    void simulatedStreamEndToEnd() {
        QTemporaryDir dir;
        const QString table = dir.filePath(QStringLiteral("g.csv"));
        const QString frames = dir.filePath(QStringLiteral("sim.u8"));
        const Outcome outcome = runTpacf(
            QStringList{QStringLiteral("autocorr"), QStringLiteral("--simulate")} +
            tpacf::test::words({"--frames", "20001", "--channels", "3", "--seed", "5",
                                "--lags-per-level", "8", "--levels", "6", "--frame-time", "1e-6",
                                "--backend", "cpu", "--threads", "2", "--tau-d-frames", "20"}) +
            QStringList{QStringLiteral("--output"), table, QStringLiteral("--write-frames"), frames});
        QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));
        QVERIFY(outcome.err.isEmpty());
        QVERIFY2(outcome.out.contains(QStringLiteral("wrote ")), qPrintable(outcome.out));
        QVERIFY(outcome.out.contains(QStringLiteral("expected")));

        // The frames are the library simulator's for these parameters.
        tpacf::fcs::FcsSimulationParams params;
        params.channels = 3;
        params.seed = 5;
        params.tauDFrames = 20;
        std::vector<std::uint8_t> simulated;
        tpacf::fcs::FcsSimulator(params).generate(20001, simulated);
        QFile file(frames);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray written = file.readAll();
        QVERIFY(written.size() == static_cast<qsizetype>(simulated.size()) &&
                std::equal(simulated.begin(), simulated.end(),
                           reinterpret_cast<const std::uint8_t*>(written.constData())));

        const tpacf::fcs::MultiTauSettings settings{8, 6};
        const auto counts = correlateFile(frames.toStdString(), 3, settings);
        const Table result = readTable(table);
        const QString difference = compareTable(result, counts, 1e-6);
        QVERIFY2(difference.isEmpty(), qPrintable(difference));
        for (const char* meta : {"#   channels: '3'", "#   frames: '20001'", "#   backend: 'cpu'",
                                 "#   lags per level: '8'", "#   levels: '6'", "#   simulation:",
                                 "#   command: 'tpacf autocorr --simulate"})
            QVERIFY2(result.comments.find(meta) != std::string::npos, meta);
    }

    void rawAndAsciiGiveOneTable() {
        QTemporaryDir dir;
        std::string raw, ascii = "# three channels\nch0,ch1,ch2\n";
        for (int f = 0; f < 3000; ++f)
            for (int c = 0; c < 3; ++c) {
                const int value = (f * 7 + c * 13 + (f * f) % 11) % 9;
                raw += static_cast<char>(value);
                ascii += std::to_string(value) + (c < 2 ? "," : "\n");
            }
        const QString rawPath = dir.filePath(QStringLiteral("f.u8"));
        const QString asciiPath = dir.filePath(QStringLiteral("f.txt"));
        writeBytes(rawPath, raw);
        writeBytes(asciiPath, ascii);
        const QString fromRaw = dir.filePath(QStringLiteral("raw.csv"));
        const QString fromAscii = dir.filePath(QStringLiteral("ascii.csv"));
        const QString converted = dir.filePath(QStringLiteral("converted.u8"));
        const QStringList common = tpacf::test::words({"--backend", "cpu", "--chunk", "77", "--quiet"});
        Outcome outcome = runTpacf(QStringList{QStringLiteral("autocorr"), QStringLiteral("--input"),
                                               rawPath, QStringLiteral("--channels"), QStringLiteral("3"),
                                               QStringLiteral("--output"), fromRaw} + common);
        QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));
        outcome = runTpacf(QStringList{QStringLiteral("autocorr"), QStringLiteral("--input"), asciiPath,
                                       QStringLiteral("--output"), fromAscii,
                                       QStringLiteral("--write-frames"), converted} + common);
        QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));
        const Table a = readTable(fromRaw), b = readTable(fromAscii);
        QVERIFY(!a.rows.empty());
        QVERIFY(a.rows == b.rows);
        QVERIFY(compareTable(a, correlateFile(rawPath.toStdString(), 3, {}), 1.6e-6).isEmpty());
        QFile file(converted);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll().toStdString(), raw);
    }

    void benchReportAsJson() {
        const Outcome outcome = runTpacf(tpacf::test::words(
            {"autocorr", "--bench", "--frames", "3000", "--channels", "70", "--chunk", "1000",
             "--repeat", "2", "--backend", "cpu", "--check", "--json"}));
        QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));
        QJsonParseError error;
        const QJsonObject report = QJsonDocument::fromJson(outcome.out.toUtf8(), &error).object();
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(outcome.out));
        QCOMPARE(report.value(QStringLiteral("tool")).toString(), QStringLiteral("tpacf autocorr --bench"));
        QCOMPARE(report.value(QStringLiteral("backend")).toString(), QStringLiteral("cpu"));
        QCOMPARE(report.value(QStringLiteral("frames")).toInt(), 3000);
        QCOMPARE(report.value(QStringLiteral("channels")).toInt(), 70);
        QCOMPARE(report.value(QStringLiteral("lags_per_level")).toInt(), 32);
        QCOMPARE(report.value(QStringLiteral("seconds")).toArray().size(), 2);
        QVERIFY(report.value(QStringLiteral("samples_per_second")).toDouble() > 0);
        QCOMPARE(report.value(QStringLiteral("samples_per_second")).toDouble(),
                 3000.0 * 70.0 / report.value(QStringLiteral("median_seconds")).toDouble());
        QCOMPARE(report.value(QStringLiteral("check")).toString(),
                 QStringLiteral("the CPU is the reference"));
        const Outcome text = runTpacf(tpacf::test::words(
            {"autocorr", "--bench", "--frames", "2000", "--channels", "8", "--backend", "cpu"}));
        QVERIFY2(text.exitCode == 0, qPrintable(text.err));
        QVERIFY(text.out.contains(QStringLiteral("samples/s")));
        QVERIFY(text.out.contains(QStringLiteral("x real time")));
    }

    void badInput_data() {
        QTest::addColumn<QString>("arguments"); // {dir} is the temporary folder
        QTest::addColumn<QString>("named");
        QTest::newRow("length not a multiple of C")
            << QStringLiteral("--input {dir}/odd.u8 --channels 4 --output {dir}/g.csv")
            << QStringLiteral("1001 bytes, not a multiple of 4");
        QTest::newRow("C = 0") << QStringLiteral("--input {dir}/odd.u8 --channels 0 --output {dir}/g.csv")
                               << QStringLiteral("at least one channel");
        QTest::newRow("simulated C = 0") << QStringLiteral("--simulate --channels 0 --output {dir}/g.csv")
                                         << QStringLiteral("at least one channel");
        QTest::newRow("P odd")
            << QStringLiteral("--input {dir}/odd.u8 --channels 7 --lags-per-level 7 --output {dir}/g.csv")
            << QStringLiteral("--lags-per-level: lags per level P = 7 is odd");
        QTest::newRow("L = 0")
            << QStringLiteral("--simulate --levels 0 --output {dir}/g.csv")
            << QStringLiteral("--levels: levels L = 0 is too small");
        QTest::newRow("unreadable file")
            << QStringLiteral("--input {dir}/missing.u8 --channels 2 --output {dir}/g.csv")
            << QStringLiteral("missing.u8: cannot read the photon counts: the file does not exist");
        QTest::newRow("folder as input")
            << QStringLiteral("--input {dir} --channels 2 --output {dir}/g.csv")
            << QStringLiteral("cannot read the photon counts");
        QTest::newRow("bad ASCII number")
            << QStringLiteral("--input {dir}/bad.txt --output {dir}/g.csv")
            << QStringLiteral("bad.txt:3: column 2: 'x7' is not a photon count");
        QTest::newRow("binary without --channels")
            << QStringLiteral("--input {dir}/odd.u8 --output {dir}/g.csv")
            << QStringLiteral("--channels C");
        QTest::newRow("output over input")
            << QStringLiteral("--input {dir}/bad.txt --output {dir}/bad.txt")
            << QStringLiteral("same file as the input");
        QTest::newRow("no input") << QStringLiteral("--output {dir}/g.csv")
                                  << QStringLiteral("give --input FILE, --simulate or --bench");
        QTest::newRow("no output") << QStringLiteral("--simulate")
                                   << QStringLiteral("give --output FILE");
        QTest::newRow("bad frame time")
            << QStringLiteral("--simulate --frame-time -1 --output {dir}/g.csv")
            << QStringLiteral("--frame-time");
        QTest::newRow("simulation flag with a file")
            << QStringLiteral("--input {dir}/bad.txt --particles 3 --output {dir}/g.csv")
            << QStringLiteral("--particles belongs to --simulate");
        QTest::newRow("bad simulation")
            << QStringLiteral("--simulate --tau-d-frames 0.5 --output {dir}/g.csv")
            << QStringLiteral("tau_D = 0.5");
        QTest::newRow("unknown backend")
            << QStringLiteral("--simulate --backend abacus --output {dir}/g.csv")
            << QStringLiteral("--backend: \"abacus\" is not a backend");
        QTest::newRow("bench with an output")
            << QStringLiteral("--bench --output {dir}/g.csv") << QStringLiteral("does not apply to --bench");
    }
    void badInput() {
        QFETCH(QString, arguments);
        QFETCH(QString, named);
        QTemporaryDir dir;
        writeBytes(dir.filePath(QStringLiteral("odd.u8")), std::string(1001, '\1'));
        writeBytes(dir.filePath(QStringLiteral("bad.txt")), "1 2\n3 4\n5 x7\n");
        const Outcome outcome = runTpacf(
            QStringList{QStringLiteral("autocorr")} +
            tpacf::test::splitWords(arguments.replace(QStringLiteral("{dir}"), dir.path())));
        QCOMPARE(outcome.exitCode, 2);
        QVERIFY(outcome.out.isEmpty());
        QCOMPARE(outcome.err.count(QLatin1Char('\n')), 1);
        QVERIFY2(outcome.err.startsWith(QStringLiteral("tpacf: ")) && outcome.err.contains(named),
                 qPrintable(outcome.err));
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("g.csv"))));
    }

    void cudaWithoutAGpu() {
        if (!tpacf::cuda::makeProvider()->devices().empty())
            QSKIP("a GPU is present: --backend cuda runs here");
        QTemporaryDir dir;
        const Outcome outcome = runTpacf(
            tpacf::test::words({"autocorr", "--simulate", "--frames", "100", "--backend", "cuda",
                                "--output"}) << dir.filePath(QStringLiteral("g.csv")));
        QCOMPARE(outcome.exitCode, 2);
        QCOMPARE(outcome.err.count(QLatin1Char('\n')), 1);
        QVERIFY2(outcome.err.contains(QStringLiteral("unavailable")), qPrintable(outcome.err));
        // auto falls back to the CPU, and says so.
        const Outcome fallback = runTpacf(
            tpacf::test::words({"autocorr", "--simulate", "--frames", "100", "--quiet", "--output"})
            << dir.filePath(QStringLiteral("g.csv")));
        QCOMPARE(fallback.exitCode, 0);
        QVERIFY2(fallback.err.contains(QStringLiteral("correlating on the CPU")), qPrintable(fallback.err));
    }

    void ctrlCCancels() {
        QTemporaryDir dir;
        const QString table = dir.filePath(QStringLiteral("g.csv"));
        QProcess process;
        process.start(QStringLiteral(TPACF_EXE),
                      tpacf::test::words({"autocorr", "--simulate", "--frames", "1000000000",
                                          "--channels", "16", "--output"})
                          << table);
        QVERIFY(process.waitForStarted());
        QTest::qWait(1000);
        QCOMPARE(process.state(), QProcess::Running);
        ::kill(static_cast<pid_t>(process.processId()), SIGINT);
        QVERIFY2(process.waitForFinished(30000), "still running 30 s after Ctrl-C");
        QCOMPARE(process.exitCode(), 130);
        QVERIFY(QString::fromLocal8Bit(process.readAllStandardError()).contains(QStringLiteral("cancelled")));
        QVERIFY(!QFile::exists(table));
    }

    void help() {
        const Outcome own = runTpacf(tpacf::test::words({"autocorr", "--help"}));
        QCOMPARE(own.exitCode, 0);
        for (const char* flag : {"--input", "--channels", "--simulate", "--bench", "--lags-per-level",
                                 "--levels", "--frame-time", "--write-frames", "--backend"})
            QVERIFY2(own.out.contains(QLatin1String(flag)), flag);
        const Outcome tool = runTpacf(tpacf::test::words({"--help"}));
        QVERIFY(tool.out.contains(QStringLiteral("autocorr")));
    }
};

TPACF_TEST_MAIN(TestAutocorrCli)
#include "test_autocorr_cli.moc"
