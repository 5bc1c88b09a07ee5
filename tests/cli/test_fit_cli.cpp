// SPDX-License-Identifier: GPL-3.0-or-later
// tpacf run --fit end to end: on a clustered mock with jackknife errors, the parameters the CLI
// writes (--fit-output) are those of the library's fit of the same job run in this process (the
// same catalogs read back, the same regions), and every bad --fit is one line and exit 2.
#include "cli_process.h"
#include "tpacf_test_main.h"

#include "tpacf/catalog_reader.h"
#include "tpacf/correlation_job.h"
#include "tpacf/power_law_fit.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <map>
#include <memory>
#include <string>

#ifndef TPACF_EXE
#error "TPACF_EXE must name the tpacf executable"
#endif

namespace {

using Outcome = tpacf::test::ProcessOutcome;

Outcome runTpacf(const QStringList& arguments) {
    return tpacf::test::runProcess(QStringLiteral(TPACF_EXE), arguments, QString(), 120000);
}

QStringList args(std::initializer_list<std::string> list) {
    QStringList result;
    for (const std::string& word : list)
        result << QString::fromStdString(word);
    return result;
}

// parameter -> (value, error) of a --fit-output file.
std::map<QString, std::pair<double, double>> readFitCsv(const QString& path) {
    std::map<QString, std::pair<double, double>> rows;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly | QIODevice::Text))
        return rows;
    while (!file.atEnd()) {
        const QStringList fields = QString::fromUtf8(file.readLine()).trimmed().split(QLatin1Char(','));
        if (fields.size() < 2 || fields[0] == QStringLiteral("parameter"))
            continue;
        rows[fields[0]] = {fields[1].toDouble(), fields.size() > 2 ? fields[2].toDouble() : NAN};
    }
    return rows;
}

} // namespace

class TestFitCli : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_data = m_dir.filePath(QStringLiteral("d.txt"));
        m_random = m_dir.filePath(QStringLiteral("r.txt"));
        const Outcome mock = runTpacf(args(
            {"mock", "--n", "6000", "--seed", "3", "--cap", "180,30,10", "--output",
             m_data.toStdString(), "--randoms", "12000", "--random-output",
             m_random.toStdString()}));
        QVERIFY2(mock.exitCode == 0, qPrintable(mock.err));
    }

    void fitEqualsTheLibrarysFit() {
        const QString fitPath = m_dir.filePath(QStringLiteral("fit.csv"));
        const Outcome run = runTpacf(args(
            {"run", "--data", m_data.toStdString(), "--random", m_random.toStdString(), "--min",
             "1", "--max", "300", "--unit", "arcmin", "--per-decade", "5", "--jackknife", "16",
             "--backend", "cpu", "--output", m_dir.filePath(QStringLiteral("w.csv")).toStdString(),
             "--fit", "2:100", "--fit-output", fitPath.toStdString()}));
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.err.contains(QStringLiteral("gamma")) || run.err.contains(QStringLiteral("γ")),
                 qPrintable(run.err));
        const auto written = readFitCsv(fitPath);
        QVERIFY(written.count(QStringLiteral("A")) && written.count(QStringLiteral("gamma")));

        // The same job in this process, and the library's fit of it.
        tpacf::CorrelationParams params;
        params.data = std::make_shared<const tpacf::Catalog>(
            tpacf::readCatalog(m_data.toStdString()));
        params.randoms = {std::make_shared<const tpacf::Catalog>(
            tpacf::readCatalog(m_random.toStdString()))};
        params.bins = tpacf::BinSpec::logPerDecade(1.0, 300.0, tpacf::AngleUnit::Arcminute, 5);
        params.backend.name = "cpu";
        params.jackknife.regions = 16;
        const tpacf::CorrelationResult result = tpacf::CorrelationJob(params).run();
        tpacf::PowerLawFitOptions options;
        options.thetaMin = 2;
        options.thetaMax = 100;
        const tpacf::PowerLawFit fit = tpacf::fitPowerLaw(result, options);
        const auto same = [](double a, double b) {
            return std::abs(a - b) <= 1e-6 * std::max(std::abs(a), std::abs(b));
        };
        const auto [amplitude, amplitudeError] = written.at(QStringLiteral("A"));
        const auto [gamma, gammaError] = written.at(QStringLiteral("gamma"));
        QVERIFY2(same(amplitude, fit.amplitude),
                 qPrintable(QStringLiteral("A %1 vs %2").arg(amplitude).arg(fit.amplitude)));
        QVERIFY2(same(gamma, fit.gamma),
                 qPrintable(QStringLiteral("gamma %1 vs %2").arg(gamma).arg(fit.gamma)));
        QVERIFY(same(amplitudeError, fit.amplitudeError));
        QVERIFY(same(gammaError, fit.gammaError));
        QVERIFY(std::isfinite(fit.chi2) && fit.dof >= 1);
    }

    void badFitsAreOneLine_data() {
        QTest::addColumn<QStringList>("extra");
        QTest::newRow("reversed range") << QStringList{QStringLiteral("--fit"), QStringLiteral("5:1")};
        QTest::newRow("not numbers") << QStringList{QStringLiteral("--fit"), QStringLiteral("abc")};
        QTest::newRow("output without fit")
            << QStringList{QStringLiteral("--fit-output"), QStringLiteral("fit.csv")};
    }
    void badFitsAreOneLine() {
        QFETCH(QStringList, extra);
        QStringList arguments = args(
            {"run", "--data", m_data.toStdString(), "--random", m_random.toStdString(), "--output",
             m_dir.filePath(QStringLiteral("bad.csv")).toStdString()});
        arguments += extra;
        const Outcome run = runTpacf(arguments);
        QCOMPARE(run.exitCode, 2);
        QCOMPARE(run.err.trimmed().count(QLatin1Char('\n')), 0);
        QVERIFY(run.err.contains(QStringLiteral("--fit")));
        QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("bad.csv"))));
    }

private:
    QTemporaryDir m_dir;
    QString m_data, m_random;
};

TPACF_TEST_MAIN(TestFitCli)
#include "test_fit_cli.moc"
