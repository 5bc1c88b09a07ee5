// SPDX-License-Identifier: GPL-3.0-or-later
// End-to-end tests of the tpacf command line: the built executable is run with QProcess, and
// every number it writes is checked against the core API called directly here.
#include "tpacf/catalog_reader.h"
#include "tpacf/correlation_job.h"
#include "tpacf/cpu_pair_counter.h"
#include "tpacf/cuda/cuda_backend.h"
#include "tpacf/estimator.h"
#include "tpacf/mock.h"
#include "tpacf/version.h"
#include "tpacf_test_main.h"

#include <QFile>
#if TPACF_CLI_HAVE_PLOT
#include <QImage>
#endif
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <signal.h>
#include <string>
#include <vector>

#ifndef TPACF_EXE
#error "TPACF_EXE must name the tpacf executable"
#endif

namespace {

struct Outcome {
    int exitCode = -1;
    QString out;
    QString err;
};

/// A CSV written by the CLI, parsed here independently of core's reader.
struct CsvFile {
    QStringList metadata; // '#' lines without the "# "
    QStringList header;
    std::vector<QStringList> rows;

    // A value of the ECSV header's meta mapping ("key: 'value'"), YAML quotes removed.
    QString meta(const QString& key) const {
        for (const QString& line : metadata) {
            if (!line.startsWith(key + QStringLiteral(": ")))
                continue;
            QString value = line.mid(key.size() + 2);
            if (value.size() >= 2 && value.startsWith(QLatin1Char('\'')) &&
                value.endsWith(QLatin1Char('\'')))
                value = value.mid(1, value.size() - 2).replace(QStringLiteral("''"),
                                                               QStringLiteral("'"));
            return value;
        }
        return {};
    }
    int column(const QString& name) const { return header.indexOf(name); }
    std::uint64_t count(std::size_t row, const QString& name) const {
        bool ok = false;
        const auto value = rows.at(row).at(column(name)).toULongLong(&ok);
        if (!ok)
            qFatal("not an integer in column %s", qPrintable(name));
        return value;
    }
    double number(std::size_t row, const QString& name) const {
        const QString text = rows.at(row).at(column(name));
        if (text == QStringLiteral("nan"))
            return std::nan("");
        bool ok = false;
        const double value = text.toDouble(&ok);
        if (!ok)
            qFatal("not a number in column %s: %s", qPrintable(name), qPrintable(text));
        return value;
    }
};

CsvFile readCsv(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly | QIODevice::Text))
        qFatal("cannot open %s", qPrintable(path));
    CsvFile csv;
    while (!file.atEnd()) {
        const QString line = QString::fromUtf8(file.readLine()).trimmed();
        if (line.isEmpty())
            continue;
        if (line.startsWith(QLatin1Char('#'))) {
            csv.metadata << line.mid(1).trimmed();
        } else if (csv.header.isEmpty()) {
            csv.header = line.split(QLatin1Char(','));
        } else {
            csv.rows.push_back(line.split(QLatin1Char(',')));
        }
    }
    return csv;
}

QStringList dataLines(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly | QIODevice::Text))
        return {};
    QStringList lines;
    while (!file.atEnd()) {
        const QString line = QString::fromUtf8(file.readLine()).trimmed();
        if (!line.isEmpty() && !line.startsWith(QLatin1Char('#')))
            lines << line;
    }
    return lines;
}

QString q(const std::string& text) {
    return QString::fromStdString(text);
}

bool gpuPresent() {
    return !tpacf::cuda::makeProvider()->devices().empty();
}

/// w(theta) with jackknife errors computed here through the core API, on the files the CLI read.
tpacf::CorrelationResult directJackknife(const QString& data, const QStringList& randoms,
                                         const tpacf::BinSpec& bins,
                                         const tpacf::JackknifeSettings& jackknife,
                                         const tpacf::ReadOptions& read = {}) {
    tpacf::CorrelationParams params;
    params.data =
        std::make_shared<const tpacf::Catalog>(tpacf::readCatalog(data.toStdString(), read));
    for (const QString& random : randoms)
        params.randoms.push_back(
            std::make_shared<const tpacf::Catalog>(tpacf::readCatalog(random.toStdString(), read)));
    params.bins = bins;
    params.backend.name = "cpu";
    params.backend.cpuThreads = 1; // not the CLI's thread count: the result must not depend on it
    params.jackknife = jackknife;
    return tpacf::CorrelationJob(std::move(params)).run();
}

/// Two doubles as the CSV writer and the core hold them: equal, or both nan.
bool sameValue(double a, double b, double relative = 1e-12) {
    if (std::isnan(a) || std::isnan(b))
        return std::isnan(a) && std::isnan(b);
    return std::abs(a - b) <= relative * std::max(std::abs(a), std::abs(b));
}

/// One bench configuration: DD, DR and the batch, with the pairs each visits.
void checkBenchMeasurements(const QJsonArray& measurements) {
    QCOMPARE(measurements.size(), 3);
    const double n = 2000;
    const double expectedPairs[] = {n * (n - 1) / 2, n * n, n * (n - 1) / 2 * 2 + n * n};
    for (int i = 0; i < 3; ++i) {
        const QJsonObject m = measurements.at(i).toObject();
        QCOMPARE(m.value(QStringLiteral("pairs")).toDouble(), expectedPairs[i]);
        QCOMPARE(m.value(QStringLiteral("seconds")).toArray().size(), 2);
        const double seconds = m.value(QStringLiteral("median_seconds")).toDouble();
        const double rate = m.value(QStringLiteral("pairs_per_second")).toDouble();
        QVERIFY(seconds > 0);
        QVERIFY(rate > 0);
        QVERIFY(std::abs(rate * seconds - expectedPairs[i]) <= 1e-6 * expectedPairs[i]);
    }
}

/// Runs tpacf as on a machine without a display: no DISPLAY, WAYLAND_DISPLAY or QT_QPA_PLATFORM
/// (CTest sets the latter to offscreen; tpacf must choose it by itself).
[[maybe_unused]] Outcome tpacfWithoutDisplay(const QStringList& args, int timeoutMs = 60000) {
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
        environment.remove(QString::fromLatin1(name));
    QProcess process;
    process.setProcessEnvironment(environment);
    process.start(QStringLiteral(TPACF_EXE), args);
    Outcome outcome;
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished();
        qWarning("tpacf %s did not finish", qPrintable(args.join(QLatin1Char(' '))));
        return outcome;
    }
    outcome.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    outcome.out = QString::fromUtf8(process.readAllStandardOutput());
    outcome.err = QString::fromUtf8(process.readAllStandardError());
    return outcome;
}

} // namespace

class TestCli : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_data, m_random1, m_random2;
    QString m_dataPatch, m_randomPatch; // the same points with a jackknife region column

    /// `source` rewritten as "ra dec patch": labels 10, 20, 30, 40 by RA stripe of 5 deg, and
    /// 99 for the first three points (a tiny region the CLI must warn about).
    void writeWithRegions(const QString& source, const QString& target) {
        const tpacf::Catalog catalog = readBack(source);
        QByteArray text = "ra dec patch\n";
        for (std::size_t i = 0; i < catalog.size(); ++i) {
            const double ra = catalog.ra()[i] * 180.0 / tpacf::kPi;
            const double dec = catalog.dec()[i] * 180.0 / tpacf::kPi;
            const int stripe = std::clamp(static_cast<int>((ra - 150.0) / 5.0), 0, 3);
            const int label = i < 3 ? 99 : 10 * (stripe + 1);
            text += QByteArray::number(ra, 'g', 17) + ' ' + QByteArray::number(dec, 'g', 17) + ' ' +
                    QByteArray::number(label) + '\n';
        }
        writeText(target, text);
    }

    QString path(const QString& name) const { return m_dir.filePath(name); }

    Outcome tpacf(const QStringList& args, int timeoutMs = 60000) {
        QProcess process;
        process.start(QStringLiteral(TPACF_EXE), args);
        if (!process.waitForFinished(timeoutMs)) {
            process.kill();
            process.waitForFinished();
            qWarning("tpacf %s did not finish", qPrintable(args.join(QLatin1Char(' '))));
            return {};
        }
        Outcome outcome;
        outcome.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
        outcome.out = QString::fromUtf8(process.readAllStandardOutput());
        outcome.err = QString::fromUtf8(process.readAllStandardError());
        return outcome;
    }

    void writeText(const QString& file, const QByteArray& content) {
        QFile out(file);
        QVERIFY(out.open(QIODevice::WriteOnly | QIODevice::Truncate));
        QCOMPARE(out.write(content), content.size());
    }

    static tpacf::Catalog readBack(const QString& file) {
        return tpacf::readCatalog(file.toStdString());
    }

    /// Usage errors are one line on stderr that starts with "tpacf: ".
    static void checkUsageError(const Outcome& outcome, const QString& mentions) {
        QCOMPARE(outcome.exitCode, 2);
        const QString err = outcome.err.trimmed();
        QVERIFY2(err.startsWith(QStringLiteral("tpacf: ")), qPrintable(err));
        QVERIFY2(!err.contains(QLatin1Char('\n')), qPrintable(err));
        QVERIFY2(err.contains(mentions, Qt::CaseInsensitive),
                 qPrintable(QStringLiteral("expected \"%1\" in: %2").arg(mentions, err)));
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        QVERIFY2(QFile::exists(QStringLiteral(TPACF_EXE)), TPACF_EXE);
        // Small catalogs with a known footprint, written by core (not by the CLI under test).
        const auto box = tpacf::Footprint::box(150, 170, 0, 20);
        tpacf::MockParams params;
        params.count = 400;
        params.seed = 11;
        params.footprint = box;
        params.outerRadiusDeg = 3;
        m_data = path(QStringLiteral("data.txt"));
        m_random1 = path(QStringLiteral("random1.txt"));
        m_random2 = path(QStringLiteral("random2.txt"));
        tpacf::writeCatalogAscii(m_data.toStdString(), tpacf::generateClusteredMock(params));
        tpacf::writeCatalogAscii(m_random1.toStdString(),
                                 tpacf::generateUniformRandoms(500, box, 12));
        tpacf::writeCatalogAscii(m_random2.toStdString(),
                                 tpacf::generateUniformRandoms(450, box, 13));
        m_dataPatch = path(QStringLiteral("data_patch.txt"));
        m_randomPatch = path(QStringLiteral("random_patch.txt"));
        writeWithRegions(m_data, m_dataPatch);
        writeWithRegions(m_random1, m_randomPatch);
    }

    void helpOfEveryCommand_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("expected");
        QTest::newRow("--help") << QStringList{QStringLiteral("--help")}
                                << QStringLiteral("Usage: tpacf <command>");
        QTest::newRow("-h") << QStringList{QStringLiteral("-h")}
                            << QStringLiteral("Usage: tpacf <command>");
        for (const char* command : {"run", "count", "devices", "mock", "bench"}) {
            const QString name = QString::fromLatin1(command);
            QTest::newRow(qPrintable(name + QStringLiteral(" --help")))
                << QStringList{name, QStringLiteral("--help")}
                << QStringLiteral("Usage: tpacf ") + name;
            QTest::newRow(qPrintable(name + QStringLiteral(" -h")))
                << QStringList{name, QStringLiteral("-h")}
                << QStringLiteral("Usage: tpacf ") + name;
        }
        // Help wins over an otherwise bad command line.
        QTest::newRow("run --bogus --help")
            << QStringList{QStringLiteral("run"), QStringLiteral("--bogus"),
                           QStringLiteral("--help")}
            << QStringLiteral("Usage: tpacf run");
    }

    void helpOfEveryCommand() {
        QFETCH(QStringList, args);
        QFETCH(QString, expected);
        const Outcome outcome = tpacf(args);
        QCOMPARE(outcome.exitCode, 0);
        QVERIFY2(outcome.out.startsWith(expected) || outcome.out.contains(expected),
                 qPrintable(outcome.out));
        QVERIFY(outcome.err.isEmpty());
    }

    void version() {
        const Outcome outcome = tpacf({QStringLiteral("--version")});
        QCOMPARE(outcome.exitCode, 0);
        QCOMPARE(outcome.out.trimmed(),
                 QStringLiteral("tpacf ") + q(std::string(tpacf::version())));
    }

    void noArgumentsIsUsageError() {
        const Outcome outcome = tpacf({});
        QCOMPARE(outcome.exitCode, 2);
        QVERIFY(outcome.err.contains(QStringLiteral("Usage: tpacf")));
    }

    void readerErrors_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QStringList>("flags");
        QTest::addColumn<int>("line");
        QTest::addColumn<int>("column"); // 0: the message names no column
        const QStringList none;
        QTest::newRow("non-numeric field")
            << QByteArray("10 20\n11 21\n12 abc\n") << none << 3 << 2;
        QTest::newRow("dec out of range") << QByteArray("10 20\n11 95.5\n") << none << 2 << 2;
        QTest::newRow("too few columns") << QByteArray("10 20\n11 21\n12\n") << none << 3 << 2;
        QTest::newRow("nan") << QByteArray("# ra dec\n10 20\nnan 21\n") << none << 3 << 1;
        QTest::newRow("inf") << QByteArray("10 20\ninf 21\n") << none << 2 << 1;
        QTest::newRow("count line mismatch") << QByteArray("3\n10 20\n11 21\n") << none << 1 << 1;
        QTest::newRow("empty field") << QByteArray("10,,20\n11,12,21\n") << none << 1 << 2;
        QTest::newRow("header lacks the named column")
            << QByteArray("ra dec\n10 20\n")
            << QStringList{QStringLiteral("--ra-col"), QStringLiteral("foo")} << 1 << 0;
    }

    void readerErrors() {
        QFETCH(QByteArray, content);
        QFETCH(QStringList, flags);
        QFETCH(int, line);
        QFETCH(int, column);
        const QString file = path(QStringLiteral("bad_%1.txt")
                                      .arg(QString::fromLatin1(QTest::currentDataTag()))
                                      .replace(QLatin1Char(' '), QLatin1Char('_')));
        writeText(file, content);
        const Outcome outcome =
            tpacf(QStringList{QStringLiteral("count"), QStringLiteral("--a"), file,
                              QStringLiteral("--output"), path(QStringLiteral("never.csv"))} +
                  flags);
        checkUsageError(outcome, QStringLiteral("%1:%2").arg(file).arg(line));
        if (column > 0)
            QVERIFY2(outcome.err.contains(QStringLiteral("column %1").arg(column)),
                     qPrintable(outcome.err));
        QVERIFY(!QFile::exists(path(QStringLiteral("never.csv"))));
    }

    void emptyCatalog() {
        const QString file = path(QStringLiteral("empty.txt"));
        writeText(file, QByteArray("# only a comment\n"));
        const Outcome outcome =
            tpacf({QStringLiteral("count"), QStringLiteral("--a"), file, QStringLiteral("--output"),
                   path(QStringLiteral("never.csv"))});
        checkUsageError(outcome, file);
        QVERIFY2(outcome.err.contains(QStringLiteral("no data rows")), qPrintable(outcome.err));
        QVERIFY(!QFile::exists(path(QStringLiteral("never.csv"))));
    }

    void missingFile() {
        const QString file = path(QStringLiteral("no_such_catalog.txt"));
        const Outcome outcome = tpacf({QStringLiteral("run"), QStringLiteral("--data"), file,
                                       QStringLiteral("--random"), m_random1,
                                       QStringLiteral("--output"), path(QStringLiteral("x.csv"))});
        checkUsageError(outcome, file);
        QVERIFY(outcome.err.contains(QStringLiteral("does not exist")));
    }

    void badCommandLines_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("mentions");
        const QString out = QStringLiteral("--output");
        const QString csv = QStringLiteral("/tmp/tpacf-test-never.csv");
        auto run = [&](QStringList extra) {
            QStringList args{QStringLiteral("run"),
                             QStringLiteral("--data"),
                             m_data,
                             QStringLiteral("--random"),
                             m_random1,
                             out,
                             csv};
            return args + extra;
        };
        QTest::newRow("unknown command") << QStringList{QStringLiteral("frobnicate")}
                                         << QStringLiteral("unknown command \"frobnicate\"");
        QTest::newRow("unknown flag")
            << run({QStringLiteral("--frobnicate")}) << QStringLiteral("unknown flag --frobnicate");
        QTest::newRow("missing value")
            << run({QStringLiteral("--estimator")}) << QStringLiteral("--estimator needs a value");
        QTest::newRow("value then flag")
            << run({QStringLiteral("--min"), QStringLiteral("--max"), QStringLiteral("5")})
            << QStringLiteral("--min needs a value");
        QTest::newRow("bad number") << run({QStringLiteral("--min"), QStringLiteral("1x"),
                                            QStringLiteral("--max"), QStringLiteral("100")})
                                    << QStringLiteral("--min: \"1x\" is not a number");
        QTest::newRow("bad integer") << run({QStringLiteral("--threads"), QStringLiteral("two")})
                                     << QStringLiteral("--threads: \"two\"");
        QTest::newRow("preset and min") << run({QStringLiteral("--preset"), QStringLiteral("log5"),
                                                QStringLiteral("--min"), QStringLiteral("1")})
                                        << QStringLiteral("--preset cannot be combined with --min");
        QTest::newRow("per-decade and nbins")
            << run({QStringLiteral("--min"), QStringLiteral("1"), QStringLiteral("--max"),
                    QStringLiteral("100"), QStringLiteral("--per-decade"), QStringLiteral("5"),
                    QStringLiteral("--nbins"), QStringLiteral("8")})
            << QStringLiteral("only one of --per-decade, --nbins, --width");
        QTest::newRow("width on log bins")
            << run({QStringLiteral("--min"), QStringLiteral("1"), QStringLiteral("--max"),
                    QStringLiteral("100"), QStringLiteral("--width"), QStringLiteral("5")})
            << QStringLiteral("--width is for --bins linear");
        QTest::newRow("zero width")
            << run({QStringLiteral("--bins"), QStringLiteral("linear"), QStringLiteral("--min"),
                    QStringLiteral("0"), QStringLiteral("--max"), QStringLiteral("10"),
                    QStringLiteral("--width"), QStringLiteral("0")})
            << QStringLiteral("--width must be > 0, got \"0\"");
        QTest::newRow("negative per-decade")
            << run({QStringLiteral("--min"), QStringLiteral("1"), QStringLiteral("--max"),
                    QStringLiteral("100"), QStringLiteral("--per-decade"), QStringLiteral("-2")})
            << QStringLiteral("--per-decade must be > 0");
        QTest::newRow("log bins from zero") << run({QStringLiteral("--min"), QStringLiteral("0"),
                                                    QStringLiteral("--max"), QStringLiteral("100")})
                                            << QStringLiteral("min");
        QTest::newRow("unknown preset") << run({QStringLiteral("--preset"), QStringLiteral("log7")})
                                        << QStringLiteral("unknown preset \"log7\"");
        QTest::newRow("bad unit") << run({QStringLiteral("--coord-unit"),
                                          QStringLiteral("furlong")})
                                  << QStringLiteral("--coord-unit: \"furlong\"");
        QTest::newRow("bad estimator")
            << run({QStringLiteral("--estimator"), QStringLiteral("xyz")})
            << QStringLiteral("--estimator: \"xyz\"");
        QTest::newRow("bad backend") << run({QStringLiteral("--backend"), QStringLiteral("tpu")})
                                     << QStringLiteral("--backend: \"tpu\"");
        QTest::newRow("gpu memory limit not a size")
            << run({QStringLiteral("--gpu-memory-limit"), QStringLiteral("12Q")})
            << QStringLiteral("--gpu-memory-limit: \"12Q\" is not a memory size");
        QTest::newRow("gpu memory limit below 1M")
            << run({QStringLiteral("--gpu-memory-limit"), QStringLiteral("512K")})
            << QStringLiteral("at least 1M");
        QTest::newRow("gpu memory limit negative")
            << run({QStringLiteral("--gpu-memory-limit"), QStringLiteral("-3G")})
            << QStringLiteral("is not a memory size");
        QTest::newRow("float on cpu")
            << run({QStringLiteral("--backend"), QStringLiteral("cpu"),
                    QStringLiteral("--precision"), QStringLiteral("float")})
            << QStringLiteral("double");
        QTest::newRow("jackknife 1") << run({QStringLiteral("--jackknife"), QStringLiteral("1")})
                                     << QStringLiteral("K must be at least 2");
        QTest::newRow("jackknife 0") << run({QStringLiteral("--jackknife"), QStringLiteral("0")})
                                     << QStringLiteral("K must be at least 2");
        QTest::newRow("jackknife negative")
            << run({QStringLiteral("--jackknife"), QStringLiteral("-4")})
            << QStringLiteral("K must be at least 2");
        QTest::newRow("jackknife not a number")
            << run({QStringLiteral("--jackknife"), QStringLiteral("many")})
            << QStringLiteral("--jackknife: \"many\" is not a whole number");
        QTest::newRow("jackknife too many")
            << run({QStringLiteral("--jackknife"), QStringLiteral("10001")})
            << QStringLiteral("limit of 10000");
        QTest::newRow("jackknife far too many")
            << run({QStringLiteral("--jackknife"), QStringLiteral("99999999999")})
            << QStringLiteral("limit of 10000");
        QTest::newRow("jackknife seed alone")
            << run({QStringLiteral("--jackknife-seed"), QStringLiteral("3")})
            << QStringLiteral("--jackknife-seed");
        QTest::newRow("jackknife seed with column")
            << run({QStringLiteral("--jackknife-column"), QStringLiteral("patch"),
                    QStringLiteral("--jackknife-seed"), QStringLiteral("3")})
            << QStringLiteral("take no seed");
        QTest::newRow("jackknife column index 0")
            << run({QStringLiteral("--jackknife-column"), QStringLiteral("0")})
            << QStringLiteral("--jackknife-column");
        QTest::newRow("covariance without jackknife")
            << run({QStringLiteral("--covariance"), QStringLiteral("/tmp/tpacf-test-never.csv")})
            << QStringLiteral("--covariance needs jackknife");
#if TPACF_CLI_HAVE_PLOT
        // Checked before the count: no CSV either.
        QTest::newRow("plot bad suffix")
            << run({QStringLiteral("--plot"), QStringLiteral("/tmp/tpacf-test-never.jpg")})
            << QStringLiteral("\"/tmp/tpacf-test-never.jpg\" must end in .png, .pdf");
        QTest::newRow("plot no suffix")
            << run({QStringLiteral("--plot"), QStringLiteral("/tmp/tpacf-test-never")})
            << QStringLiteral("must end in .png, .pdf");
        QTest::newRow("plot folder missing")
            << run({QStringLiteral("--plot"), QStringLiteral("/nonexistent-folder/w.png")})
            << QStringLiteral("folder \"/nonexistent-folder\" does not exist (--plot)");
        // A folder nobody may create files in, root included.
        QTest::newRow("plot folder unwritable")
            << run({QStringLiteral("--plot"), QStringLiteral("/proc/tpacf-test-never.png")})
            << QStringLiteral("/proc/tpacf-test-never.png: cannot write here");
#else
        QTest::newRow("plot without Qt")
            << run({QStringLiteral("--plot"), QStringLiteral("/tmp/tpacf-test-never.png")})
            << QStringLiteral("no plotting (built without Qt");
#endif
        QTest::newRow("no random")
            << QStringList{QStringLiteral("run"), QStringLiteral("--data"), m_data, out, csv}
            << QStringLiteral("--random is required");
        QTest::newRow("no output") << QStringList{QStringLiteral("run"), QStringLiteral("--data"),
                                                  m_data, QStringLiteral("--random"), m_random1}
                                   << QStringLiteral("--output is required");
        QTest::newRow("output folder missing")
            << QStringList{QStringLiteral("run"),
                           QStringLiteral("--data"),
                           m_data,
                           QStringLiteral("--random"),
                           m_random1,
                           out,
                           QStringLiteral("/nonexistent-folder/w.csv")}
            << QStringLiteral("does not exist");
        QTest::newRow("stray argument")
            << QStringList{QStringLiteral("count"), QStringLiteral("data.txt")}
            << QStringLiteral("unexpected argument \"data.txt\"");
        QTest::newRow("mock box needs four") << QStringList{QStringLiteral("mock"),
                                                            QStringLiteral("--n"),
                                                            QStringLiteral("10"),
                                                            QStringLiteral("--output"),
                                                            csv,
                                                            QStringLiteral("--box"),
                                                            QStringLiteral("1,2,3")}
                                             << QStringLiteral("--box takes 4 numbers");
        QTest::newRow("mock negative n")
            << QStringList{QStringLiteral("mock"), QStringLiteral("--n"), QStringLiteral("-5"),
                           QStringLiteral("--output"), csv}
            << QStringLiteral("--n: \"-5\" is out of range");
        QTest::newRow("run bad culling")
            << run({QStringLiteral("--culling"), QStringLiteral("maybe")})
            << QStringLiteral("--culling: \"maybe\" is not a culling mode (auto, on, off)");
        QTest::newRow("count bad culling")
            << QStringList{QStringLiteral("count"),     QStringLiteral("--a"), m_data, out, csv,
                           QStringLiteral("--culling"), QStringLiteral("yes")}
            << QStringLiteral("--culling: \"yes\" is not a culling mode (auto, on, off)");
        QTest::newRow("bench bad culling")
            << QStringList{QStringLiteral("bench"), QStringLiteral("--culling"),
                           QStringLiteral("ON!")}
            << QStringLiteral("--culling: \"ON!\" is not a culling mode (auto, on, off)");
        QTest::newRow("culling without value")
            << run({QStringLiteral("--culling")}) << QStringLiteral("--culling needs a value");
        QTest::newRow("bench bad footprint")
            << QStringList{QStringLiteral("bench"), QStringLiteral("--footprint"),
                           QStringLiteral("square:1,2")}
            << QStringLiteral("--footprint: \"square:1,2\" is not a footprint");
        QTest::newRow("bench box needs four")
            << QStringList{QStringLiteral("bench"), QStringLiteral("--footprint"),
                           QStringLiteral("box:150,190,0")}
            << QStringLiteral("--footprint box takes 4 numbers");
        QTest::newRow("bench box not numbers")
            << QStringList{QStringLiteral("bench"), QStringLiteral("--footprint"),
                           QStringLiteral("box:150,190,zero,40")}
            << QStringLiteral("\"zero\"");
        QTest::newRow("bench box outside the sky")
            << QStringList{QStringLiteral("bench"), QStringLiteral("--footprint"),
                           QStringLiteral("box:150,190,0,95")}
            << QStringLiteral("Dec limits");
        QTest::newRow("bench clustering without --clustered")
            << QStringList{QStringLiteral("bench"), QStringLiteral("--levels"), QStringLiteral("4")}
            << QStringLiteral("add --clustered");
        QTest::newRow("bench bad precision")
            << QStringList{QStringLiteral("bench"), QStringLiteral("--precision"),
                           QStringLiteral("half")}
            << QStringLiteral("--precision: \"half\"");
    }

    void badCommandLines() {
        QFETCH(QStringList, args);
        QFETCH(QString, mentions);
        const Outcome outcome = tpacf(args);
        checkUsageError(outcome, mentions);
        QVERIFY(!QFile::exists(QStringLiteral("/tmp/tpacf-test-never.csv")));
    }

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
        // The CPU case, small: a clustered mock in a 40 x 40 deg box, bins to 10 deg.
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

TPACF_TEST_MAIN(TestCli)
#include "test_cli.moc"
