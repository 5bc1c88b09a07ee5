// SPDX-License-Identifier: GPL-3.0-or-later
// Run > Copy as Command Line: the `tpacf run` command reads back, through the CLI's own parser,
// into the window's settings and computes the window's result; shell quoting survives a real
// shell; notes where the CLI cannot say what the window does; tpacf-studio --help and --version
// without a display.
#include "backend_panel.h"
#include "catalog_source.h"
#include "command_line_export.h"
#include "main_window.h"
#include "session.h"
#include "tpacf_test_main.h"

#include "cli/args.h"
#include "cli/cli_main.h"
#include "cli/options.h"
#include "job_file.h"
#include "run_flags.h"

#include <tpacf/correlation_job.h>
#include <tpacf/cuda/cuda_backend.h>
#include <tpacf/result_io.h>
#include <tpacf/version.h>

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <sstream>

using namespace tpacf;
using namespace tpacf::ui;

Q_DECLARE_METATYPE(tpacf::ui::Session)

namespace {

std::vector<std::string> stdWords(const QStringList& words) {
    std::vector<std::string> result;
    for (const QString& word : words)
        result.push_back(word.toStdString());
    return result;
}

// What /bin/sh makes of `text` ("tpacf run ..."): the words the program would get.
QStringList shellWords(const QString& text) {
    QProcess shell;
    const QString command = text.section(QLatin1Char(' '), 1); // without "tpacf"
    shell.start(QStringLiteral("/bin/sh"),
                {QStringLiteral("-c"), QStringLiteral("printf '%s\\0' ") + command});
    if (!shell.waitForFinished(10000) || shell.exitCode() != 0)
        return {QStringLiteral("<shell failed>")};
    QList<QByteArray> parts = shell.readAllStandardOutput().split('\0');
    parts.removeLast(); // after the last NUL
    QStringList words;
    for (const QByteArray& part : parts)
        words.append(QString::fromUtf8(part));
    return words;
}

bool sameBits(double a, double b) {
    return std::memcmp(&a, &b, sizeof a) == 0;
}

CatalogSource source(const QString& path, int ra = 0, int dec = 0, int weight = 0,
                     AngleUnit unit = AngleUnit::Degree) {
    CatalogSource s;
    s.path = path;
    s.raColumn = ra;
    s.decColumn = dec;
    s.weightColumn = weight;
    s.unit = unit;
    return s;
}

// A catalog with a header "w dec ra region": uniform in RA 10-20 deg, Dec 0-10 deg, weights in
// [0.5, 1.5], four regions by RA, coordinates in `unit`.
void writeCatalog(const QString& path, int n, unsigned seed, AngleUnit unit) {
    std::mt19937_64 random(seed);
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    const double scale = unit == AngleUnit::Arcminute ? 60.0 : 1.0;
    std::ostringstream text;
    text.precision(17);
    text << "w dec ra region\n";
    for (int i = 0; i < n; ++i) {
        const double ra = 10.0 + 10.0 * uniform(random);
        const double dec = 10.0 * uniform(random);
        const double weight = 0.5 + uniform(random);
        text << weight << ' ' << dec * scale << ' ' << ra * scale << ' ' << int((ra - 10.0) / 2.5)
             << '\n';
    }
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QByteArray::fromStdString(text.str()));
}

} // namespace

class TestHelpCli : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void commandParsesBackToTheSettings_data();
    void commandParsesBackToTheSettings();
    void commandComputesTheWindowsResult_data();
    void commandComputesTheWindowsResult();
    void shellQuotingSurvivesAShell_data();
    void shellQuotingSurvivesAShell();
    void notesWhereTheCliDiffers();
    void copyAsCommandLineFillsTheClipboard();
    void jobFileHoldsTheCommand_data();
    void jobFileHoldsTheCommand();
    void studioHelpAndVersionWithoutDisplay_data();
    void studioHelpAndVersionWithoutDisplay();

private:
    QTemporaryDir m_dir;
};

void TestHelpCli::initTestCase() {
    QVERIFY(m_dir.isValid());
}

void TestHelpCli::commandParsesBackToTheSettings_data() {
    QTest::addColumn<Session>("session");
    const auto base = [] {
        Session s;
        s.data = source(QStringLiteral("/data/galaxies.txt"));
        s.randoms = {source(QStringLiteral("/data/randoms 1.txt")),
                     source(QStringLiteral("/data/it's random 2.txt"))};
        return s;
    };
    QTest::newRow("defaults") << base();
    {
        Session s = base();
        s.settings.bins = BinSpec::logCount(0.5, 250, AngleUnit::Arcsecond, 17);
        s.settings.estimator = Estimator::Hamilton;
        s.settings.errors.method = ErrorSettings::Method::Regions;
        s.settings.errors.regions = 25;
        s.settings.errors.seed = 123456789012345ull;
        s.settings.backend.name = "cpu";
        s.settings.backend.cpuThreads = 3;
        s.settings.backend.precision = Precision::Double;
        s.settings.backend.culling = CullingMode::Off;
        QTest::newRow("log count, hamilton, jackknife, cpu") << s;
    }
    {
        Session s = base();
        s.settings.errors.method = ErrorSettings::Method::Healpix;
        s.settings.errors.regions = 12;
        s.settings.errors.healpixNside = 256;
        s.settings.errors.bootstrapSamples = 200;
        QTest::newRow("jackknife, HEALPix regions, bootstrap") << s;
    }
    {
        Session s = base();
        s.settings.errors.method = ErrorSettings::Method::Regions;
        s.settings.errors.regions = 9;
        s.settings.errors.crossRegionWeight = CrossRegionWeight::Match;
        QTest::newRow("jackknife, cross-region weight match") << s;
    }
    {
        Session s = base();
        s.settings.bins = BinSpec::linearWidth(0, 90, AngleUnit::Degree, 0.25);
        s.settings.estimator = Estimator::DavisPeebles;
        s.settings.errors.method = ErrorSettings::Method::Column;
        s.settings.errors.regionColumn = QStringLiteral("patch id");
        s.settings.backend.name = "cuda";
        s.settings.backend.gpuDevices = {1};
        s.settings.backend.precision = Precision::Float;
        s.settings.backend.culling = CullingMode::On;
        QTest::newRow("linear width, dp, column, one gpu") << s;
    }
    {
        Session s = base();
        s.settings.bins = BinSpec::linearCount(0.1, 0.7, AngleUnit::Radian, 3);
        s.settings.estimator = Estimator::Natural;
        QTest::newRow("linear count, natural") << s;
    }
    {
        Session s = base();
        s.settings.bins =
            BinSpec::fromEdges({0.1, 0.30000000000000004, 1, 3.3, 10}, AngleUnit::Degree);
        QTest::newRow("custom edges") << s;
    }
    {
        Session s = base();
        s.settings.bins = BinSpec::logPerDecade(0.01, 10000, AngleUnit::Arcminute, 7.5);
        for (CatalogSource* c : {&*s.data, &s.randoms[0], &s.randoms[1]}) {
            c->raColumn = 3;
            c->decColumn = 4;
            c->weightColumn = 6;
            c->unit = AngleUnit::Arcminute;
            c->raInHours = true;
        }
        QTest::newRow("columns, unit, hours, weights shared") << s;
    }
    {
        Session s = base();
        s.data->weightColumn = 5;
        s.data2 = source(QStringLiteral("/data/quasars.txt"), 0, 0, 5);
        s.randoms2 = {source(QStringLiteral("/data/qr1.txt")),
                      source(QStringLiteral("/data/qr2.txt"))};
        QTest::newRow("cross, data weights only") << s;
    }
    {
        Session s = base();
        for (CatalogSource* c : {&*s.data, &s.randoms[0], &s.randoms[1]}) {
            c->path.replace(QStringLiteral(".txt"), QStringLiteral(".fits"));
            c->hdu = QStringLiteral("CATALOG");
        }
        s.randoms[1].rowFilter = QStringLiteral("Z>0.4 && Z<0.8");
        QTest::newRow("fits, one hdu, a row filter") << s;
    }
    {
        Session s = base();
        s.data->path = QStringLiteral("/d/g.fits");
        s.data->hdu = QStringLiteral("2");
        s.randoms[0].path = QStringLiteral("/d/r.fits");
        s.randoms[0].hdu = QStringLiteral("RANDOMS");
        s.randoms[0].rowFilter = QStringLiteral("W>0");
        QTest::newRow("fits, hdus differ") << s;
    }
    {
        Session s = base();
        s.data->path = QStringLiteral("--data.txt");
        QTest::newRow("path starting with dashes") << s;
    }
}

void TestHelpCli::commandParsesBackToTheSettings() {
    QFETCH(Session, session);
    const RunCommandLine command = runCommandLine(session);
    QVERIFY2(command.exact(), qPrintable(command.notes.join(QLatin1Char('\n'))));
    // The text is what a shell turns back into exactly these words.
    QCOMPARE(shellWords(command.text()), command.arguments);
    QCOMPARE(command.arguments.front(), QStringLiteral("run"));

    const std::vector<std::string> words = stdWords(command.arguments.mid(1));
    const cli::ParsedArgs args = cli::parseArgs(cli::flags::kRunFlags, words);

    // Catalogs, in order, with how each is read (the CLI's options plus what its path selects).
    const ReadOptions read = cli::readOptionsFrom(args);
    const auto checkCatalog = [&](const CatalogSource& expected, const std::string& path,
                                  const cli::Flag& role) {
        const ReadOptions wanted = expected.readOptions();
        QCOMPARE(read.raColumn.index, wanted.raColumn.index);
        QCOMPARE(read.decColumn.index, wanted.decColumn.index);
        QCOMPARE(read.coordUnit, wanted.coordUnit);
        QCOMPARE(read.raInHours, wanted.raInHours);
        QCOMPARE(cli::weightColumnFor(args, role).index, wanted.weightColumn.index);
        // The HDU: the option, unless the path names one ("d.fits[2]..." overrides it).
        const std::string readPath = expected.readPath().toStdString();
        if (path == readPath) {
            if (expected.rowFilter.isEmpty())
                QCOMPARE(QString::fromStdString(read.hdu), expected.hdu);
        } else {
            QCOMPARE(QString::fromStdString(path),
                     expected.path + QLatin1Char('[') + expected.hdu + QLatin1Char(']'));
        }
    };
    QVERIFY(session.data);
    const auto data = args.value("--data");
    QVERIFY(data);
    checkCatalog(*session.data, *data, cli::flags::run::kDataWeightCol);
    const auto randoms = args.values("--random");
    QCOMPARE(randoms.size(), std::size_t(session.randoms.size()));
    for (qsizetype i = 0; i < session.randoms.size(); ++i)
        checkCatalog(session.randoms[i], randoms[std::size_t(i)], cli::flags::run::kRandomWeightCol);
    QCOMPARE(args.has("--data2"), session.data2.has_value());
    if (session.data2)
        checkCatalog(*session.data2, *args.value("--data2"), cli::flags::run::kDataWeightCol);
    const auto randoms2 = args.values("--random2");
    QCOMPARE(randoms2.size(), std::size_t(session.randoms2.size()));
    for (qsizetype i = 0; i < session.randoms2.size(); ++i)
        checkCatalog(session.randoms2[i], randoms2[std::size_t(i)], cli::flags::run::kRandomWeightCol);

    // Bins: the same edges, bit for bit, in the same unit.
    const Binning expectedBins(session.settings.bins);
    const Binning bins(cli::binSpecFrom(args));
    QCOMPARE(bins.unit(), expectedBins.unit());
    QCOMPARE(bins.count(), expectedBins.count());
    for (std::size_t k = 0; k <= bins.count(); ++k)
        QVERIFY2(sameBits(bins.edges()[k], expectedBins.edges()[k]),
                 qPrintable(QStringLiteral("edge %1").arg(k)));

    QCOMPARE(parseEstimator(args.value("--estimator").value_or("")),
             std::optional(session.settings.estimator));

    const JackknifeSettings jackknife = session.settings.errors.jackknife();
    QCOMPARE(int(args.integer("--jackknife", 0, 0, 1 << 30)), jackknife.regions);
    if (jackknife.regions > 0)
        QCOMPARE(args.unsignedInteger("--jackknife-seed").value_or(1), jackknife.seed);
    QCOMPARE(args.value("--jackknife-column").value_or(""), jackknife.regionColumn);
    QCOMPARE(args.integer("--jackknife-healpix", 0, 1, 1 << 20), jackknife.healpixNside);
    QCOMPARE(int(args.integer("--bootstrap", 0, 2, 1 << 20)), jackknife.bootstrapSamples);
    QCOMPARE(parseCrossRegionWeight(args.value("--cross-region-weight").value_or("")),
             jackknife.crossRegionWeight);
    QCOMPARE(args.has("--covariance"), jackknife.enabled());

    // The registry knows "cuda" (as a module without devices in this build): the name resolves.
    BackendRegistry registry;
    registry.add(tpacf::cuda::makeProvider());
    const BackendOptions backend = cli::backendOptionsFrom(args, registry);
    const BackendOptions& wanted = session.settings.backend;
    QCOMPARE(backend.name, wanted.name);
    QCOMPARE(backend.precision, wanted.precision);
    QCOMPARE(backend.cpuThreads, wanted.cpuThreads);
    QCOMPARE(backend.gpuDevices, wanted.gpuDevices);
    QCOMPARE(backend.culling, wanted.culling);
}

void TestHelpCli::commandComputesTheWindowsResult_data() {
    QTest::addColumn<Session>("session");
    // Folders and files with spaces and quotes: the command must carry them through a shell.
    const QString folder = m_dir.filePath(QStringLiteral("it's a \"survey\""));
    QVERIFY(QDir().mkpath(folder));
    const auto file = [&](const char* name) {
        return folder + QLatin1Char('/') + QLatin1String(name);
    };
    writeCatalog(file("data arcmin.txt"), 300, 1, AngleUnit::Arcminute);
    writeCatalog(file("random 1 arcmin.txt"), 600, 2, AngleUnit::Arcminute);
    writeCatalog(file("random 2 arcmin.txt"), 500, 3, AngleUnit::Arcminute);
    writeCatalog(file("data.txt"), 250, 4, AngleUnit::Degree);
    writeCatalog(file("data2.txt"), 200, 5, AngleUnit::Degree);
    writeCatalog(file("random.txt"), 500, 6, AngleUnit::Degree);
    writeCatalog(file("random2.txt"), 450, 7, AngleUnit::Degree);
    {
        Session s;
        s.data = source(file("data arcmin.txt"), 3, 2, 1, AngleUnit::Arcminute);
        s.randoms = {source(file("random 1 arcmin.txt"), 3, 2, 1, AngleUnit::Arcminute),
                     source(file("random 2 arcmin.txt"), 3, 2, 1, AngleUnit::Arcminute)};
        s.settings.bins = BinSpec::logCount(3, 300, AngleUnit::Arcminute, 6);
        s.settings.estimator = Estimator::Hamilton;
        s.settings.errors.method = ErrorSettings::Method::Regions;
        s.settings.errors.regions = 4;
        s.settings.errors.seed = 7;
        s.settings.backend.name = "cpu";
        s.settings.backend.cpuThreads = 2;
        s.settings.backend.culling = CullingMode::On;
        QTest::newRow("weighted, columns by index, arcmin, jackknife") << s;
    }
    {
        Session s;
        s.data = source(file("data.txt"), 3, 2, 1);
        s.randoms = {source(file("random.txt"), 3, 2)};
        s.settings.bins = BinSpec::logCount(3, 300, AngleUnit::Arcminute, 6);
        s.settings.errors.method = ErrorSettings::Method::Healpix;
        s.settings.errors.regions = 5;
        s.settings.errors.healpixNside = 16;
        s.settings.errors.bootstrapSamples = 20;
        s.settings.backend.name = "cpu";
        QTest::newRow("jackknife, HEALPix regions, bootstrap") << s;
    }
    {
        Session s;
        s.data = source(file("data.txt"), 3, 2, 1);
        s.randoms = {source(file("random.txt"), 3, 2)};
        s.settings.bins = BinSpec::logCount(3, 300, AngleUnit::Arcminute, 6);
        s.settings.errors.method = ErrorSettings::Method::Regions;
        s.settings.errors.regions = 6;
        s.settings.errors.crossRegionWeight = CrossRegionWeight::Match;
        s.settings.backend.name = "cpu";
        QTest::newRow("jackknife, cross-region weight match") << s;
    }
    {
        Session s;
        s.data = source(file("data.txt"), 3, 2, 1);
        s.randoms = {source(file("random.txt"), 3, 2)};
        s.data2 = source(file("data2.txt"), 3, 2, 1);
        s.randoms2 = {source(file("random2.txt"), 3, 2)};
        s.settings.bins = BinSpec::linearWidth(0, 3, AngleUnit::Degree, 0.5);
        s.settings.backend.culling = CullingMode::Off;
        QTest::newRow("cross, data weights only, linear") << s;
    }
    {
        Session s;
        s.data = source(file("data.txt"), 3, 2);
        s.randoms = {source(file("random.txt"), 3, 2)};
        s.settings.bins = BinSpec::fromEdges({0.05, 0.2, 0.7, 2.5}, AngleUnit::Degree);
        s.settings.estimator = Estimator::Natural;
        s.settings.errors.method = ErrorSettings::Method::Column;
        s.settings.errors.regionColumn = QStringLiteral("region");
        s.settings.backend.name = "cpu";
        s.settings.backend.precision = Precision::Double;
        QTest::newRow("custom edges, natural, regions from a column") << s;
    }
}

void TestHelpCli::commandComputesTheWindowsResult() {
    QFETCH(Session, session);
    const QString tag =
        QString::fromLatin1(QTest::currentDataTag()).replace(QLatin1Char(','), QLatin1Char('_'));
    const CommandLineOutputs outputs{m_dir.filePath(tag + QStringLiteral(" cli w.csv")),
                                     m_dir.filePath(tag + QStringLiteral(" cli cov.csv"))};
    const RunCommandLine command = runCommandLine(session, outputs);
    QVERIFY2(command.exact(), qPrintable(command.notes.join(QLatin1Char('\n'))));

    // The window's run: catalogs read as the window reads them, the job as startRun() builds it.
    const ErrorSettings& errors = session.settings.errors;
    const QString regionColumn =
        errors.method == ErrorSettings::Method::Column ? errors.regionColumn : QString();
    CorrelationParams params;
    params.data = loadCatalog(*session.data, regionColumn);
    for (const CatalogSource& random : session.randoms)
        params.randoms.push_back(loadCatalog(random, regionColumn));
    if (session.data2)
        params.data2 = loadCatalog(*session.data2, regionColumn);
    for (const CatalogSource& random : session.randoms2)
        params.randoms2.push_back(loadCatalog(random, regionColumn));
    params.bins = session.settings.bins;
    params.estimator = session.settings.estimator;
    params.backend = session.settings.backend;
    params.jackknife = errors.jackknife();
    const CorrelationResult window = CorrelationJob(params).run();
    QCOMPARE(window.status, JobStatus::Completed);
    const std::string windowCsv =
        m_dir.filePath(tag + QStringLiteral(" window w.csv")).toStdString();
    writeResultCsvFile(windowCsv, window);

    // The command, through a shell's word splitting, run by the CLI's own entry point.
    const QStringList words = shellWords(command.text());
    QCOMPARE(words, command.arguments);
    std::vector<std::string> storage{"tpacf"};
    for (const QString& word : words)
        storage.push_back(word.toStdString());
    std::vector<char*> argv;
    for (std::string& word : storage)
        argv.push_back(word.data());
    std::ostringstream out, err;
    const int code = cli::runCli(int(argv.size()), argv.data(), out, err);
    QVERIFY2(code == 0, err.str().c_str());

    // The same run as Save Run as Job File writes it, run by the CLI with --config (its output
    // moved aside on the command line): the same table as the command's, bit for bit.
    const QString jobPath = m_dir.filePath(tag + QStringLiteral(" job.toml"));
    {
        QFile job(jobPath);
        QVERIFY(job.open(QIODevice::WriteOnly));
        job.write(command.jobFileText().toUtf8());
    }
    const std::string jobResult = m_dir.filePath(tag + QStringLiteral(" job w.csv")).toStdString();
    std::vector<std::string> jobWords{"tpacf", "run", "--config", jobPath.toStdString(),
                                      "--output", jobResult};
    if (QFile::exists(outputs.covariance))
        jobWords.insert(jobWords.end(),
                        {"--covariance",
                         m_dir.filePath(tag + QStringLiteral(" job cov.csv")).toStdString()});
    std::vector<char*> jobArgv;
    for (std::string& word : jobWords)
        jobArgv.push_back(word.data());
    std::ostringstream jobOut, jobErr;
    QVERIFY2(cli::runCli(int(jobArgv.size()), jobArgv.data(), jobOut, jobErr) == 0,
             jobErr.str().c_str());
    const ResultTable fromCommand = readResultCsv(outputs.result.toStdString());
    const ResultTable fromJob = readResultCsv(jobResult);
    QCOMPARE(fromJob.columns, fromCommand.columns);
    QCOMPARE(fromJob.rows.size(), fromCommand.rows.size());
    // Weighted sums may differ in their last bits between two CPU runs (below).
    const bool weightedJob = std::find(fromJob.columns.begin(), fromJob.columns.end(),
                                       std::string("DD_w")) != fromJob.columns.end();
    for (std::size_t r = 0; r < fromJob.rows.size(); ++r)
        for (std::size_t c = 0; c < fromJob.rows[r].size(); ++c) {
            const double a = fromJob.rows[r][c], b = fromCommand.rows[r][c];
            QVERIFY2(sameBits(a, b) || (std::isnan(a) && std::isnan(b)) ||
                         (weightedJob &&
                          std::abs(a - b) <= 1e-12 * std::max(std::abs(a), std::abs(b))),
                     qPrintable(QStringLiteral("job file: row %1, column %2").arg(r).arg(c)));
        }

    const ResultTable expected = readResultCsv(windowCsv);
    const ResultTable actual = readResultCsv(outputs.result.toStdString());
    QCOMPARE(actual.columns, expected.columns);
    QCOMPARE(actual.rows.size(), expected.rows.size());
    // Bit for bit, but for the weighted sums (and what is computed from them): the CPU adds
    // its threads' partial sums in whatever order they finish, so two runs of the same job may
    // differ in the last bits there (documented; the raw counts never do).
    const bool weightedRun = std::find(actual.columns.begin(), actual.columns.end(),
                                       std::string("DD_w")) != actual.columns.end();
    const auto close = [&](double a, double b) {
        return weightedRun && std::abs(a - b) <= 1e-12 * std::max(std::abs(a), std::abs(b));
    };
    for (std::size_t r = 0; r < actual.rows.size(); ++r)
        for (std::size_t c = 0; c < actual.rows[r].size(); ++c)
            QVERIFY2(sameBits(actual.rows[r][c], expected.rows[r][c]) ||
                         (std::isnan(actual.rows[r][c]) && std::isnan(expected.rows[r][c])) ||
                         close(actual.rows[r][c], expected.rows[r][c]),
                     qPrintable(QStringLiteral("row %1, %2: %3 vs %4")
                                    .arg(r)
                                    .arg(QString::fromStdString(actual.columns[c]))
                                    .arg(actual.rows[r][c], 0, 'g', 17)
                                    .arg(expected.rows[r][c], 0, 'g', 17)));
    // Something to compare: counts in some bin, and the error bars where asked for.
    QVERIFY(std::any_of(window.raw.dd.begin(), window.raw.dd.end(), [](auto n) { return n > 0; }));
    QCOMPARE(QFile::exists(outputs.covariance), window.hasJackknife());
    QCOMPARE(window.hasJackknife(), errors.method != ErrorSettings::Method::None);
}

void TestHelpCli::shellQuotingSurvivesAShell_data() {
    QTest::addColumn<QString>("word");
    QTest::addColumn<QString>("quoted");
    QTest::newRow("plain") << QStringLiteral("/data/d-1_2.txt")
                           << QStringLiteral("/data/d-1_2.txt");
    QTest::newRow("space") << QStringLiteral("/my data/d.txt")
                           << QStringLiteral("'/my data/d.txt'");
    QTest::newRow("single quote") << QStringLiteral("it's.txt") << QStringLiteral("'it'\\''s.txt'");
    QTest::newRow("double quote") << QStringLiteral("a\"b.txt") << QStringLiteral("'a\"b.txt'");
    QTest::newRow("shell specials")
        << QStringLiteral("$HOME/*?[x]`id`;|&.txt") << QStringLiteral("'$HOME/*?[x]`id`;|&.txt'");
    QTest::newRow("backslash") << QStringLiteral("a\\b") << QStringLiteral("'a\\b'");
    QTest::newRow("newline") << QStringLiteral("a\nb") << QStringLiteral("'a\nb'");
    QTest::newRow("empty") << QString() << QStringLiteral("''");
    QTest::newRow("non-ascii") << QStringLiteral("données/δ.txt")
                               << QStringLiteral("'données/δ.txt'");
    QTest::newRow("fits selection") << QStringLiteral("d.fits[1][Z>0.4 && Z<0.8]")
                                    << QStringLiteral("'d.fits[1][Z>0.4 && Z<0.8]'");
}

void TestHelpCli::shellQuotingSurvivesAShell() {
    QFETCH(QString, word);
    QFETCH(QString, quoted);
    QCOMPARE(shellQuoted(word), quoted);
    QCOMPARE(shellWords(QStringLiteral("tpacf ") + shellQuoted(word)), QStringList{word});
}

void TestHelpCli::notesWhereTheCliDiffers() {
    Session uniform;
    uniform.data = source(QStringLiteral("/d.txt"), 2, 3);
    uniform.randoms = {source(QStringLiteral("/r.txt"), 2, 3)};
    QVERIFY(runCommandLine(uniform).exact());

    Session columns = uniform;
    columns.randoms[0].raColumn = 5;
    const RunCommandLine differing = runCommandLine(columns);
    QCOMPARE(differing.notes.size(), 1);
    QVERIFY(differing.notes[0].contains(QStringLiteral("--ra-col")));
    QVERIFY(differing.clipboardText().contains(QStringLiteral("\n# note: ")));

    Session units = uniform;
    units.data->unit = AngleUnit::Radian;
    QVERIFY(runCommandLine(units).notes.join(QString()).contains(QStringLiteral("--coord-unit")));

    Session weights = uniform;
    weights.randoms.append(source(QStringLiteral("/r2.txt"), 2, 3, 4));
    QVERIFY(runCommandLine(weights).notes.join(QString()).contains(
        QStringLiteral("--random-weight-col")));

    Session sample;
    sample.data = source(QStringLiteral(":/samples/sample_data.txt"));
    sample.randoms = {source(QStringLiteral(":/samples/sample_random_1.txt"))};
    const RunCommandLine bundled = runCommandLine(sample);
    QVERIFY(!bundled.exact());
    QVERIFY(bundled.arguments.contains(QStringLiteral("sample_data.txt")));
    QVERIFY(!bundled.text().contains(QStringLiteral(":/")));

    const RunCommandLine empty = runCommandLine(Session{});
    QCOMPARE(empty.notes.size(), 2);
    QVERIFY(empty.arguments.contains(QStringLiteral("DATA")));
    QVERIFY(empty.arguments.contains(QStringLiteral("RANDOM")));
}

void TestHelpCli::copyAsCommandLineFillsTheClipboard() {
    const QString data = m_dir.filePath(QStringLiteral("copy data.txt"));
    const QString random = m_dir.filePath(QStringLiteral("copy random.txt"));
    writeCatalog(data, 50, 11, AngleUnit::Degree);
    writeCatalog(random, 80, 12, AngleUnit::Degree);
    MainWindow window(BackendRegistry{}, MainWindow::Options{false, false, false});
    QVERIFY(window.setDataCatalog(source(data, 3, 2)));
    QVERIFY(window.addRandomCatalog(source(random, 3, 2)));
    QVERIFY(QTest::qWaitFor([&] { return !window.isLoading() && window.dataCatalog(); }, 30000));
    window.backendPanel()->setEstimator(Estimator::DavisPeebles);
    auto* copy = window.findChild<QAction*>(QStringLiteral("copyCommandLineAction"));
    QVERIFY(copy);
    QApplication::clipboard()->clear();
    copy->trigger();
    const QString text = QApplication::clipboard()->text();
    QCOMPARE(text, runCommandLine(window.session()).clipboardText());
    QVERIFY(text.startsWith(QStringLiteral("tpacf run --data '") + data + QLatin1Char('\'')));
    QVERIFY(text.contains(QStringLiteral("--estimator dp")));

    // Save Run as Job File writes the same run as TOML, with ECSV outputs.
    QVERIFY(window.findChild<QAction*>(QStringLiteral("saveRunAsJobFileAction")));
    const QString jobPath = m_dir.filePath(QStringLiteral("studio job.toml"));
    QVERIFY(window.saveRunAsJobFile(jobPath));
    QFile written(jobPath);
    QVERIFY(written.open(QIODevice::ReadOnly));
    const QString job = QString::fromUtf8(written.readAll());
    QCOMPARE(job, runCommandLine(window.session(), {QStringLiteral("wtheta.ecsv"),
                                                    QStringLiteral("wtheta_covariance.ecsv")})
                      .jobFileText());
    QVERIFY2(job.contains(QStringLiteral("\n[run]\ndata = \"") + data + QLatin1Char('"')),
             qPrintable(job));
    QVERIFY2(job.contains(QStringLiteral("\nestimator = \"dp\"\n")), qPrintable(job));
    QVERIFY2(job.contains(QStringLiteral("\noutput = \"wtheta.ecsv\"\n")), qPrintable(job));
    // A job file may not overwrite a catalog.
    QVERIFY(!window.saveRunAsJobFile(data));
}

void TestHelpCli::jobFileHoldsTheCommand_data() {
    commandParsesBackToTheSettings_data();
}

// Save Run as Job File: the job file read by the CLI's reader stands for the same flags and
// values as Copy as Command Line's words, flag for flag; the window writes exactly that text.
void TestHelpCli::jobFileHoldsTheCommand() {
    QFETCH(Session, session);
    const RunCommandLine command = runCommandLine(session);
    const std::string text = command.jobFileText().toStdString();
    const cli::JobFile job = cli::parseJobFile(cli::flags::kRunFlags, "job.toml", text);
    const std::vector<std::string> fromJob = cli::withJobFile(cli::flags::kRunFlags, job, {});
    const cli::ParsedArgs jobArgs = cli::parseArgs(cli::flags::kRunFlags, fromJob);
    const cli::ParsedArgs lineArgs =
        cli::parseArgs(cli::flags::kRunFlags, stdWords(command.arguments.mid(1)));
    int compared = 0;
    for (const cli::FlagGroup* group : cli::flags::kRunFlags.groups)
        for (const cli::Flag* flag : group->flags) {
            QCOMPARE(jobArgs.has(flag->name), lineArgs.has(flag->name));
            if (flag->kind != cli::FlagKind::Switch)
                QCOMPARE(jobArgs.values(flag->name), lineArgs.values(flag->name));
            compared += lineArgs.has(flag->name) ? 1 : 0;
        }
    QVERIFY(compared >= 3); // data, random, output at least
}

void TestHelpCli::studioHelpAndVersionWithoutDisplay_data() {
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("expected"); // a regular expression the whole stdout matches
    const QString version = QRegularExpression::escape(QString::fromLatin1(tpacf::version()));
    QTest::newRow("--version") << QStringList{QStringLiteral("--version")} << 0
                               << QStringLiteral("TPACF Studio ") + version + QStringLiteral("\n");
    QTest::newRow("-v") << QStringList{QStringLiteral("-v")} << 0
                        << QStringLiteral("TPACF Studio ") + version + QStringLiteral("\n");
    // QCommandLineParser's help: usage, description, the options and the positional argument,
    // without the hidden screenshot options.
    const QString help =
        QStringLiteral("Usage: \\S*tpacf-studio \\[options\\] session\n"
                       "Two-point angular correlation function w\\(θ\\) on GPU and CPU.\n\n"
                       "Options:\n(?:(?!.*screenshot).*\n)*\nArguments:\n"
                       "  session +A session \\(\\.json\\) or data catalog to open\\.\n");
    QTest::newRow("--help") << QStringList{QStringLiteral("--help")} << 0 << help;
    QTest::newRow("-h after a file")
        << QStringList{QStringLiteral("s.json"), QStringLiteral("-h")} << 0 << help;
    // With Qt's own options, as far as a program without a display knows them.
    QTest::newRow("--help-all") << QStringList{QStringLiteral("--help-all")} << 0
                                << QStringLiteral(
                                       "Usage: \\S*tpacf-studio \\[options\\] session\n"
                                       "(?:.*\n)*  --help-all +Displays help including Qt "
                                       "(?:.*\n)*");
    // Everything else still needs a display: one message on stderr, exit 2.
    QTest::newRow("no arguments") << QStringList{} << 2 << QString();
    QTest::newRow("--help as a file name")
        << QStringList{QStringLiteral("--"), QStringLiteral("--help")} << 2 << QString();
}

void TestHelpCli::studioHelpAndVersionWithoutDisplay() {
    QFETCH(QStringList, arguments);
    QFETCH(int, exitCode);
    QFETCH(QString, expected);
    QProcess studio;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
        environment.remove(QString::fromLatin1(name));
    studio.setProcessEnvironment(environment);
    studio.start(QStringLiteral(TPACF_STUDIO_EXE), arguments);
    QVERIFY(studio.waitForFinished(30000));
    const QString out = QString::fromUtf8(studio.readAllStandardOutput());
    const QString err = QString::fromUtf8(studio.readAllStandardError());
    QCOMPARE(studio.exitStatus(), QProcess::NormalExit);
    QVERIFY2(studio.exitCode() == exitCode, qPrintable(out + err));
    if (exitCode == 0) {
        QVERIFY2(
            QRegularExpression(QRegularExpression::anchoredPattern(expected)).match(out).hasMatch(),
            qPrintable(out));
    } else {
        QVERIFY2(err.contains(QStringLiteral("no display")), qPrintable(err));
    }
}

TPACF_TEST_MAIN(TestHelpCli)
#include "test_help_cli.moc"
