// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Shared by the tpacf command-line suites (test_cli_*.cpp): the built executable is run with
// QProcess, and every number it writes is checked against the core API called directly here.
// CliSuite holds the catalogs every suite reads (written by core, not by the CLI under test).
#include "tpacf/catalog_reader.h"
#include "tpacf/correlation_job.h"
#include "tpacf/cpu_pair_counter.h"
#include "tpacf/cuda/cuda_backend.h"
#include "tpacf/estimator.h"
#include "tpacf/mock.h"
#include "tpacf/version.h"
#include "tpacf_test_main.h"

#include <QObject>

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

namespace clisuite {

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
                value = value.mid(1, value.size() - 2)
                            .replace(QStringLiteral("''"), QStringLiteral("'"));
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

class CliSuite : public QObject {
protected:
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

    /// Writes the catalogs; each suite's initTestCase calls it.
    void initFixture() {
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
};

} // namespace clisuite
