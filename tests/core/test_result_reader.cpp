// SPDX-License-Identifier: GPL-3.0-or-later
// Result files read back (readResultFile) in every form the tool writes: ECSV, the older plain
// CSV, FITS; each value equal to the result that was written, bad files refused with file and
// line (or HDU); and the bin-by-bin comparison of two runs against a direct computation.
#include "tpacf_test_main.h"
#include "tpacf/errors.h"
#include "tpacf/result_io.h"
#include "tpacf/result_reader.h"
#include "tpacf/run_comparison.h"

#include <QtTest/QtTest>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#ifdef TPACF_TEST_HAVE_CFITSIO
#include <fitsio.h>
#endif

using tpacf::CorrelationResult;
using tpacf::LoadedResult;

namespace {

// Five log bins of a result with two random sets; bin 4 has no RR pairs (w NaN). With
// `jackknife` a σ per bin and a covariance, as a jackknife run has.
CorrelationResult sampleResult(bool jackknife, tpacf::AngleUnit unit = tpacf::AngleUnit::Degree,
                               double wScale = 1.0) {
    CorrelationResult result;
    result.bins = tpacf::BinSpec::logCount(0.1, 10, unit, 5);
    const tpacf::Binning binning(result.bins);
    result.edges.assign(binning.edges().begin(), binning.edges().end());
    result.centres.assign(binning.centres().begin(), binning.centres().end());
    result.raw.dataSize = 1000;
    result.raw.randomSizes = {1500, 2000};
    result.raw.dd = {120, 31, 77, 7, 400};
    result.raw.dr = {{300, 40, 50, 3, 900}, {410, 60, 70, 2, 1200}};
    result.raw.rr = {{500, 30, 10, 0, 1000}, {900, 50, 20, 0, 2000}};
    result.normalised = tpacf::normalise(result.raw);
    result.w = tpacf::estimate(result.estimator, result.normalised);
    for (double& w : result.w)
        w *= wScale;
    result.backendName = "cpu";
    result.deviceDescription = "CPU, 2 threads";
    result.data = {"/some/where/galaxies.txt", 1000};
    result.randoms = {{"random 1.txt", 1500}, {"random 2.txt", 2000}};
    if (jackknife) {
        result.wError = {0.01, 0.02, 0.03, std::nan(""), 0.05};
        result.covariance.assign(25, 0.0001);
        result.jackknifeRegions.count = 4;
        result.jackknifeRegions.method = "k-means";
    }
    return result;
}

bool same(double a, double b) {
    return (std::isnan(a) && std::isnan(b)) || a == b;
}

bool sameValues(const std::vector<double>& a, const std::vector<double>& b) {
    if (a.size() != b.size())
        return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!same(a[i], b[i]))
            return false;
    return true;
}

void writeText(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
}

// The plain CSV of earlier versions: "# key: value" lines, then the same table.
std::string plainCsv(const CorrelationResult& result) {
    std::ostringstream ecsv;
    tpacf::writeResultCsv(ecsv, result);
    std::istringstream lines(ecsv.str());
    std::string text = "# tool: tpacf 0.1\n# data: " + result.data.name +
                       " N=1000\n# estimator: Landy-Szalay: (DD - 2DR + RR)/RR\n"
                       "# conventions: theta_lo, theta_hi, theta_mid in " +
                       std::string(tpacf::angleUnitName(result.bins.unit)) +
                       "; theta_mid is the geometric centre\n";
    for (std::string line; std::getline(lines, line);)
        if (line.empty() || line.front() != '#')
            text += line + "\n";
    return text;
}

} // namespace

class TestResultReader : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void roundTrip_data();
    void roundTrip();
    void loadedResultOfMatchesAFile();
    void malformed_data();
    void malformed();
    void fitsNotAResult();
    void comparison_data();
    void comparison();
    void differingBinsAreNamed();
    void peerOutputs_data();
    void peerOutputs();
    void badPeerOutputs_data();
    void badPeerOutputs();

private:
    QTemporaryDir m_dir;
    std::string path(const char* name) const { return m_dir.filePath(QString::fromLatin1(name)).toStdString(); }
};

void TestResultReader::roundTrip_data() {
    QTest::addColumn<QString>("format");
    QTest::addColumn<bool>("jackknife");
    QTest::newRow("ecsv") << QStringLiteral("ecsv") << false;
    QTest::newRow("ecsv, jackknife") << QStringLiteral("ecsv") << true;
    QTest::newRow("plain csv") << QStringLiteral("csv") << false;
    QTest::newRow("plain csv, jackknife") << QStringLiteral("csv") << true;
    QTest::newRow("fits") << QStringLiteral("fits") << false;
    QTest::newRow("fits, jackknife") << QStringLiteral("fits") << true;
}

void TestResultReader::roundTrip() {
    QFETCH(QString, format);
    QFETCH(bool, jackknife);
    const CorrelationResult result = sampleResult(jackknife, tpacf::AngleUnit::Arcminute);
    std::string file;
    if (format == QLatin1String("ecsv")) {
        file = path("result.csv"); // the tool's CSV is ECSV: content decides, not the name
        tpacf::writeResultCsvFile(file, result);
    } else if (format == QLatin1String("csv")) {
        file = path("plain.csv");
        writeText(file, plainCsv(result));
    } else {
        if (!tpacf::fitsOutputSupported())
            QSKIP("built without cfitsio");
        file = path("result.fits");
        tpacf::writeResultFitsFile(file, result);
    }
    const LoadedResult loaded = tpacf::readResultFile(file);
    QCOMPARE(QString::fromStdString(loaded.format), format);
    QCOMPARE(loaded.binCount(), result.binCount());
    QVERIFY(sameValues(loaded.thetaLo,
                       std::vector<double>(result.edges.begin(), result.edges.end() - 1)));
    QVERIFY(sameValues(loaded.thetaHi,
                       std::vector<double>(result.edges.begin() + 1, result.edges.end())));
    QVERIFY(sameValues(loaded.thetaMid, result.centres));
    QVERIFY(loaded.thetaUnit == tpacf::AngleUnit::Arcminute);
    QVERIFY(sameValues(loaded.w, result.w));
    QCOMPARE(loaded.hasErrors(), jackknife);
    QVERIFY(sameValues(loaded.wError, result.wError));
    for (const char* name : {"DD", "DR", "RR", "DD_norm", "DR_norm", "RR_norm"})
        QVERIFY2(loaded.column(name), name);
    const auto summed = result.rrSummed();
    QVERIFY(sameValues(*loaded.column("RR"), std::vector<double>(summed.begin(), summed.end())));
    QVERIFY(sameValues(*loaded.column("DD_norm"), result.normalised.dd));
    QVERIFY(sameValues(*loaded.column("RR_norm"), result.normalised.rr));
    QVERIFY(!loaded.column("RD"));
    // The metadata gives the label: the data file's name and the estimator.
    QCOMPARE(QString::fromStdString(loaded.summary()), QStringLiteral("galaxies.txt, Landy-Szalay"));
}

void TestResultReader::loadedResultOfMatchesAFile() {
    const CorrelationResult result = sampleResult(true);
    const std::string file = path("direct.csv");
    tpacf::writeResultCsvFile(file, result);
    const LoadedResult read = tpacf::readResultFile(file);
    const LoadedResult direct = tpacf::loadedResultOf(result);
    QVERIFY(sameValues(direct.thetaLo, read.thetaLo));
    QVERIFY(sameValues(direct.thetaHi, read.thetaHi));
    QVERIFY(sameValues(direct.thetaMid, read.thetaMid));
    QVERIFY(sameValues(direct.w, read.w));
    QVERIFY(sameValues(direct.wError, read.wError));
    QVERIFY(direct.thetaUnit == read.thetaUnit);
    QCOMPARE(direct.counts.size(), read.counts.size());
    for (std::size_t c = 0; c < read.counts.size(); ++c) {
        QCOMPARE(direct.counts[c].name, read.counts[c].name);
        QVERIFY(sameValues(direct.counts[c].values, read.counts[c].values));
    }
    QCOMPARE(direct.summary(), read.summary());
}

void TestResultReader::malformed_data() {
    QTest::addColumn<QString>("content");
    QTest::addColumn<int>("line");
    QTest::addColumn<QString>("problem");
    const QString header = QStringLiteral("theta_lo,theta_hi,theta_mid,DD,w\n");
    QTest::newRow("not a number") << QString(header + QStringLiteral("1,2,1.5,3,0.5\n2,4,3,x,0.1\n")) << 3
                                  << QStringLiteral("not a number: 'x' in column DD");
    QTest::newRow("too few fields") << QString(header + QStringLiteral("1,2,1.5,3\n")) << 2
                                    << QStringLiteral("expected 5 fields as in the header, found 4");
    QTest::newRow("missing column w")
        << QStringLiteral("# a: b\ntheta_lo,theta_hi,theta_mid,DD\n1,2,1.5,3\n") << 2
        << QStringLiteral("no column 'w' (columns: theta_lo, theta_hi, theta_mid, DD)");
    QTest::newRow("a catalog") << QStringLiteral("ra,dec\n10,20\n11,21\n") << 1
                               << QStringLiteral("not a w(theta) result of this tool: no column 'theta_lo'");
    QTest::newRow("a count file")
        << QStringLiteral("theta_lo,theta_hi,theta_mid,count\n1,2,1.5,3\n") << 1
        << QStringLiteral("a pair-count table (tpacf count)");
    QTest::newRow("no bins") << header << 1 << QStringLiteral("holds no bins");
    QTest::newRow("bins out of order") << QString(header + QStringLiteral("2,4,3,1,0.1\n1,2,1.5,3,0.5\n")) << 3
                                       << QStringLiteral("bin 2: the bins must be in increasing theta");
    QTest::newRow("inverted bin") << QString(header + QStringLiteral("2,1,1.5,1,0.1\n")) << 2
                                  << QStringLiteral("bin 1: theta_lo < theta_hi must hold");
    QTest::newRow("no table at all") << QStringLiteral("just some words\n") << 1
                                     << QStringLiteral("no column 'theta_lo' (columns: just some words)");
}

void TestResultReader::malformed() {
    QFETCH(QString, content);
    QFETCH(int, line);
    QFETCH(QString, problem);
    const std::string file = path("bad.csv");
    writeText(file, content.toStdString());
    try {
        tpacf::readResultFile(file);
        QFAIL("a bad file was read");
    } catch (const tpacf::InputError& error) {
        QCOMPARE(error.file(), file);
        QCOMPARE(int(error.line()), line);
        QVERIFY2(QString::fromStdString(error.problem()).contains(problem), error.what());
    }
}

void TestResultReader::fitsNotAResult() {
#ifndef TPACF_TEST_HAVE_CFITSIO
    QSKIP("built without cfitsio");
#else
    // A FITS catalog: a binary table of ra and dec.
    const std::string file = path("catalog.fits");
    int status = 0;
    fitsfile* fits = nullptr;
    fits_create_file(&fits, ("!" + file).c_str(), &status);
    char ra[] = "ra", dec[] = "dec", form[] = "1D", name[] = "CATALOG";
    char* names[] = {ra, dec};
    char* forms[] = {form, form};
    fits_create_tbl(fits, BINARY_TBL, 0, 2, names, forms, nullptr, name, &status);
    double values[] = {1.0, 2.0};
    fits_write_col(fits, TDOUBLE, 1, 1, 1, 2, values, &status);
    fits_write_col(fits, TDOUBLE, 2, 1, 1, 2, values, &status);
    fits_close_file(fits, &status);
    QCOMPARE(status, 0);
    try {
        tpacf::readResultFile(file);
        QFAIL("a catalog was read as a result");
    } catch (const tpacf::InputError& error) {
        QCOMPARE(error.file(), file);
        QVERIFY2(QString::fromStdString(error.problem()).startsWith(QStringLiteral("HDU 2 (CATALOG): ")),
                 error.what());
        QVERIFY2(QString::fromStdString(error.problem()).contains(QStringLiteral("no column 'theta_lo'")),
                 error.what());
    }
#endif
}

void TestResultReader::comparison_data() {
    QTest::addColumn<bool>("ratio");
    QTest::addColumn<bool>("otherUnit");
    QTest::newRow("ratio") << true << false;
    QTest::newRow("difference") << false << false;
    QTest::newRow("ratio, reference in degrees") << true << true;
}

void TestResultReader::comparison() {
    QFETCH(bool, ratio);
    QFETCH(bool, otherUnit);
    const LoadedResult run =
        tpacf::loadedResultOf(sampleResult(true, tpacf::AngleUnit::Arcminute, 1.3));
    // The same bins in degrees (0.1′–10′ = 1/600°–1/6°) are the same bins.
    CorrelationResult referenceResult = sampleResult(true, tpacf::AngleUnit::Arcminute);
    if (otherUnit) {
        referenceResult.bins.unit = tpacf::AngleUnit::Degree;
        for (double& edge : referenceResult.edges)
            edge /= 60;
        for (double& centre : referenceResult.centres)
            centre /= 60;
    }
    referenceResult.wError = {0.02, 0.01, 0.04, 0.1, 0.03};
    const LoadedResult reference = tpacf::loadedResultOf(referenceResult);
    const tpacf::RunComparison comparison = tpacf::compareRuns(
        run, reference, ratio ? tpacf::ComparisonKind::Ratio : tpacf::ComparisonKind::Difference);
    QCOMPARE(comparison.value.size(), run.binCount());
    QCOMPARE(comparison.error.size(), run.binCount());
    for (std::size_t k = 0; k < run.binCount(); ++k) {
        const double w = run.w[k], ref = reference.w[k];
        const double s = run.wError[k], sRef = reference.wError[k];
        const double expected = ratio ? w / ref : w - ref;
        const double sigma = ratio ? std::abs(w / ref) * std::sqrt(s * s / (w * w) +
                                                                   sRef * sRef / (ref * ref))
                                   : std::sqrt(s * s + sRef * sRef);
        if (!std::isfinite(expected)) {
            QVERIFY(std::isnan(comparison.value[k]));
            continue;
        }
        QVERIFY2(std::abs(comparison.value[k] - expected) <= 1e-14 * std::abs(expected),
                 qPrintable(QStringLiteral("bin %1").arg(k)));
        if (std::isfinite(sigma))
            QVERIFY(std::abs(comparison.error[k] - sigma) <= 1e-12 * sigma);
        else
            QVERIFY(std::isnan(comparison.error[k]));
    }
    // Without σ on one side there are no error bars.
    LoadedResult plain = reference;
    plain.wError.clear();
    QVERIFY(tpacf::compareRuns(run, plain, tpacf::ComparisonKind::Ratio).error.empty());
}

void TestResultReader::differingBinsAreNamed() {
    const LoadedResult run = tpacf::loadedResultOf(sampleResult(false));
    CorrelationResult other = sampleResult(false);
    other.edges[3] *= 1.01;
    const LoadedResult shifted = tpacf::loadedResultOf(other);
    const QString problem = QString::fromStdString(tpacf::binsDifference(run, shifted, "A", "B"));
    QVERIFY2(problem.startsWith(QStringLiteral("bin 3 differs: A [")), qPrintable(problem));
    QVERIFY2(problem.contains(QStringLiteral(") deg, B [")), qPrintable(problem));
    try {
        tpacf::compareRuns(run, shifted, tpacf::ComparisonKind::Ratio, "A", "B");
        QFAIL("differing bins were compared");
    } catch (const tpacf::ConfigError& error) {
        QVERIFY2(QString::fromUtf8(error.what()).contains(problem), error.what());
    }
    other = sampleResult(false);
    other.edges.pop_back();
    other.centres.pop_back();
    other.w.pop_back();
    QCOMPARE(tpacf::binsDifference(run, tpacf::loadedResultOf(other), "A", "B"),
             std::string("A has 5 bins, B has 4"));
    QCOMPARE(tpacf::binsDifference(run, run, "A", "B"), std::string());
}


// Peer outputs: TreeCorr's NNCorrelation.write and Corrfunc's DDtheta_mocks, written here the way
// those codes write them (their format strings), for bins this tool also makes.
namespace {

struct PeerCase {
    tpacf::BinSpec bins;
    std::vector<double> edges, centres, w;
    std::vector<std::uint64_t> pairs;
};

PeerCase peerCase(bool linear, tpacf::AngleUnit unit) {
    PeerCase c;
    c.bins = linear ? tpacf::BinSpec::linearCount(0.5, 5.5, unit, 10)
                    : tpacf::BinSpec::logCount(1, 100, unit, 12);
    const tpacf::Binning binning(c.bins);
    c.edges.assign(binning.edges().begin(), binning.edges().end());
    c.centres.assign(binning.centres().begin(), binning.centres().end());
    for (std::size_t k = 0; k < binning.count(); ++k) {
        c.w.push_back(0.8 / (1.0 + double(k)) - 0.01);
        c.pairs.push_back(1000 * (k + 1) + 7 * k * k);
    }
    return c;
}

std::string printed(const char* format, double value) {
    char text[64];
    std::snprintf(text, sizeof text, format, value);
    return text;
}

// TreeCorr's AsciiWriter: "## {params}", a '#' header of centred names, "%12.4e" columns.
std::string treecorrAscii(const PeerCase& c, const char* unit, const char* binType) {
    std::string text = std::string("## {'tot': 499500.0, 'coords': 'spherical', 'metric': "
                                   "'Arc', 'sep_units': '") +
                       unit + "', 'bin_type': '" + binType + "'}\n";
    text += "#   r_nom       meanr      meanlogr       xi        sigma_xi        DD      "
            "     RR          DR         npairs   \n";
    for (std::size_t k = 0; k < c.w.size(); ++k) {
        const double r = c.centres[k];
        for (const double value : {r, r * 1.01, std::log(r), c.w[k], 0.05, double(c.pairs[k]),
                                   double(c.pairs[k]) / (1 + c.w[k]), 900.0 + double(k),
                                   double(c.pairs[k])})
            text += " " + printed("%12.4e", value);
        text += "\n";
    }
    return text;
}

// The C program DDtheta_mocks: "%20.8lf %20.8lf %20.8lf %10lu %20.8lf" per bin, θ in degrees.
std::string corrfuncText(const PeerCase& c, bool numpyHeader) {
    std::string text = numpyHeader ? "# thetamin thetamax thetaavg npairs weightavg\n" : "";
    for (std::size_t k = 0; k < c.w.size(); ++k) {
        char line[160];
        std::snprintf(line, sizeof line, "%20.8lf %20.8lf %20.8lf %10llu %20.8lf\n", c.edges[k],
                      c.edges[k + 1], 0.0, static_cast<unsigned long long>(c.pairs[k]), 0.0);
        text += line;
    }
    return text;
}

// This tool's result on the same bins with DD = the peer's pair counts.
LoadedResult ownResult(const PeerCase& c) {
    CorrelationResult result;
    result.bins = c.bins;
    result.edges = c.edges;
    result.centres = c.centres;
    result.w = c.w;
    result.raw.dd = c.pairs;
    result.raw.dataSize = 1000;
    return tpacf::loadedResultOf(result);
}

double parsedPrinted(const char* format, double value) {
    return std::stod(printed(format, value));
}

} // namespace

void TestResultReader::peerOutputs_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<bool>("linear");
    QTest::addColumn<int>("unit");
    QTest::newRow("TreeCorr ASCII, log, arcmin") << QStringLiteral("treecorr") << false << int(tpacf::AngleUnit::Arcminute);
    QTest::newRow("TreeCorr ASCII, linear, deg") << QStringLiteral("treecorr") << true << int(tpacf::AngleUnit::Degree);
    QTest::newRow("TreeCorr FITS, log, arcsec") << QStringLiteral("treecorr-fits") << false << int(tpacf::AngleUnit::Arcsecond);
    QTest::newRow("Corrfunc C program, log") << QStringLiteral("corrfunc") << false << int(tpacf::AngleUnit::Degree);
    QTest::newRow("Corrfunc numpy.savetxt, linear") << QStringLiteral("corrfunc-header") << true << int(tpacf::AngleUnit::Degree);
}

void TestResultReader::peerOutputs() {
    QFETCH(QString, kind);
    QFETCH(bool, linear);
    QFETCH(int, unit);
    const auto angleUnit = static_cast<tpacf::AngleUnit>(unit);
    const PeerCase c = peerCase(linear, angleUnit);
    const std::string unitName(tpacf::angleUnitName(angleUnit));
    std::string file = path(qPrintable(QStringLiteral("peer-%1.dat").arg(QString::fromLatin1(QTest::currentDataTag()))));
    if (kind == QLatin1String("treecorr")) {
        writeText(file, treecorrAscii(c, unitName == "deg" ? "degrees" : unitName.c_str(),
                                      linear ? "Linear" : "Log"));
    } else if (kind.startsWith(QLatin1String("corrfunc"))) {
        writeText(file, corrfuncText(c, kind.endsWith(QLatin1String("header"))));
    } else {
#ifndef TPACF_TEST_HAVE_CFITSIO
        QSKIP("built without cfitsio");
#else
        // fitsio's form: one binary table of 'f8' columns, the parameters as keywords (HIERARCH
        // for sep_units, longer than 8 characters).
        file = path("peer-treecorr.fits");
        int status = 0;
        fitsfile* fits = nullptr;
        fits_create_file(&fits, ("!" + file).c_str(), &status);
        const char* names[] = {"r_nom", "meanr", "meanlogr", "xi", "sigma_xi", "DD", "RR", "npairs"};
        std::vector<char*> ttype, tform;
        char form[] = "1D";
        for (const char* name : names) {
            ttype.push_back(const_cast<char*>(name));
            tform.push_back(form);
        }
        fits_create_tbl(fits, BINARY_TBL, 0, 8, ttype.data(), tform.data(), nullptr, nullptr,
                        &status);
        const std::size_t bins = c.w.size();
        std::vector<double> r(c.centres), pairs(c.pairs.begin(), c.pairs.end()), w(c.w),
            sigma(bins, 0.05), logr(bins);
        for (std::size_t k = 0; k < bins; ++k)
            logr[k] = std::log(r[k]);
        const std::vector<double>* columns[] = {&r, &r, &logr, &w, &sigma, &pairs, &pairs, &pairs};
        for (int col = 0; col < 8; ++col)
            fits_write_col(fits, TDOUBLE, col + 1, 1, 1, LONGLONG(bins),
                           const_cast<double*>(columns[col]->data()), &status);
        double tot = 499500;
        fits_write_key(fits, TDOUBLE, "TOT", &tot, nullptr, &status);
        char coords[] = "spherical", binType[] = "Log";
        std::string sepUnits = unitName == "arcsec" ? "arcsec" : unitName;
        fits_write_key(fits, TSTRING, "COORDS", coords, nullptr, &status);
        fits_write_key(fits, TSTRING, "BIN_TYPE", binType, nullptr, &status);
        fits_write_key(fits, TSTRING, "HIERARCH SEP_UNITS", sepUnits.data(), nullptr, &status);
        fits_close_file(fits, &status);
        QCOMPARE(status, 0);
#endif
    }
    const LoadedResult read = tpacf::readResultFile(file);
    const bool corrfunc = kind.startsWith(QLatin1String("corrfunc"));
    QCOMPARE(QString::fromStdString(read.format),
             corrfunc ? QStringLiteral("corrfunc") : kind);
    QVERIFY(read.thetaUnit.has_value());
    QCOMPARE(int(*read.thetaUnit), corrfunc ? int(tpacf::AngleUnit::Degree) : unit);
    const LoadedResult own = ownResult(c);
    QCOMPARE(tpacf::binsDifference(read, own, "peer", "own"), std::string());
    QCOMPARE(tpacf::countAgreement(read, own, "DD", "'peer'", "'own'"),
             "DD equal in all " + std::to_string(c.w.size()) + " bins");
    // The edges are matched to the printed digits, no looser: bins 0.1 % wider are other bins.
    CorrelationResult wider;
    wider.bins = c.bins;
    wider.edges = c.edges;
    for (double& edge : wider.edges)
        edge *= 1.001;
    wider.centres = c.centres;
    wider.w = c.w;
    QVERIFY(!tpacf::binsDifference(read, tpacf::loadedResultOf(wider), "peer", "own").empty());
    for (std::size_t k = 0; k < c.w.size(); ++k) {
        if (corrfunc) {
            QVERIFY(std::isnan(read.w[k]));
        } else {
            const double xi = kind == QLatin1String("treecorr") ? parsedPrinted("%12.4e", c.w[k])
                                                                : c.w[k];
            QCOMPARE(read.w[k], xi);
            QCOMPARE(read.wError.at(k), 0.05);
        }
    }
    // One differing count is named with its bin.
    LoadedResult changed = own;
    for (auto& column : changed.counts)
        if (column.name == "DD")
            column.values[3] += 1;
    const QString differs =
        QString::fromStdString(tpacf::countAgreement(read, changed, "DD", "'peer'", "'own'"));
    QVERIFY2(differs.startsWith(QStringLiteral("DD differs in 1 of ")), qPrintable(differs));
    QVERIFY2(differs.contains(QStringLiteral("(first: bin 4, ")), qPrintable(differs));
}

void TestResultReader::badPeerOutputs_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("problem");
    QTest::addColumn<int>("line");
    QTest::newRow("TreeCorr, uneven r_nom")
        << QString::fromLatin1("#   r_nom   xi   npairs\n 1.0000e+00 0.1 10\n 2.0000e+00 0.1 10\n 5.0000e+00 0.1 10\n")
        << QString::fromLatin1("r_nom is not evenly spaced in log r") << 2;
    QTest::newRow("TreeCorr, hours")
        << QString::fromLatin1("## {'sep_units': 'hours'}\n#   r_nom   xi   npairs\n 1.0e+00 0.1 10\n 2.0e+00 0.1 10\n")
        << QString::fromLatin1("sep_units 'hours'") << 0;
    QTest::newRow("TreeCorr, TwoD")
        << QString::fromLatin1("## {'bin_type': 'TwoD'}\n#   r_nom   xi   npairs\n 1.0e+00 0.1 10\n 2.0e+00 0.1 10\n")
        << QString::fromLatin1("only Log and Linear bins") << 0;
    QTest::newRow("TreeCorr, one bin")
        << QString::fromLatin1("#   r_nom   xi   npairs\n 1.0e+00 0.1 10\n") << QString::fromLatin1("from one bin") << 1;
    QTest::newRow("TreeCorr, a word in a row")
        << QString::fromLatin1("#   r_nom   xi   npairs\n 1.0e+00 0.1 10\n 2.0e+00 abc 10\n") << QString::fromLatin1("not a number: 'abc'") << 3;
    QTest::newRow("Corrfunc, fractional npairs")
        << QString::fromLatin1("# thetamin thetamax thetaavg npairs weightavg\n0.1 0.2 0 10 0\n0.2 0.4 0 10.5 0\n")
        << QString::fromLatin1("npairs is not a pair count") << 3;
    QTest::newRow("Corrfunc, bins out of order")
        << QString::fromLatin1("# thetamin thetamax thetaavg npairs weightavg\n0.2 0.4 0 10 0\n0.1 0.2 0 10 0\n")
        << QString::fromLatin1("bins in order") << 3;
    QTest::newRow("Corrfunc, a row short")
        << QString::fromLatin1("# thetamin thetamax thetaavg npairs weightavg\n0.1 0.2 0 10 0\n0.2 0.4 0 10\n")
        << QString::fromLatin1("expected 5 fields") << 3;
}

void TestResultReader::badPeerOutputs() {
    QFETCH(QString, text);
    QFETCH(QString, problem);
    QFETCH(int, line);
    const std::string file = path("bad-peer.dat");
    writeText(file, text.toStdString());
    try {
        tpacf::readResultFile(file);
        QFAIL("a malformed peer output was read");
    } catch (const tpacf::InputError& error) {
        QCOMPARE(error.file(), file);
        QVERIFY2(QString::fromStdString(error.problem()).contains(problem), error.what());
        QCOMPARE(error.line(), long(line));
    }
}

TPACF_TEST_MAIN(TestResultReader)
#include "test_result_reader.moc"
