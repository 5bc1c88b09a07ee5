// SPDX-License-Identifier: GPL-3.0-or-later
// Result writers and the CSV reader: exact round trip of every number (NaN included), the
// metadata lines and conventions, the exact header row, well-formed JSON holding the numbers
// (parsed back with QJsonDocument), pair-count CSV, and InputErrors that name file and line.
#include "tpacf_test_main.h"
#include "tpacf/errors.h"
#include "tpacf/result_io.h"
#include "tpacf/version.h"

#include <QtTest/QtTest>

#include <cmath>
#include <fstream>
#include <limits>
#include <locale>
#include <sstream>
#include <string>
#include <vector>

using tpacf::CorrelationResult;

namespace {

const char* const kHeader = "theta_lo,theta_hi,theta_mid,DD,DR,RR,DD_norm,DR_norm,RR_norm,w";
constexpr std::uint64_t kBeyondDouble = 9007199254740993ULL; // 2^53 + 1: not a double

// Four log bins with two random sets of different sizes. Bin 1 has no DD pairs, bin 2 a count
// past 2^53 (exact only as an integer), bin 3 no RR pairs, so its w is NaN.
CorrelationResult sampleResult(const std::string& dataName = "data, with comma.txt") {
    CorrelationResult result;
    result.bins = tpacf::BinSpec::logCount(0.1, 10, tpacf::AngleUnit::Degree, 4);
    const tpacf::Binning binning(result.bins);
    result.edges.assign(binning.edges().begin(), binning.edges().end());
    result.centres.assign(binning.centres().begin(), binning.centres().end());
    result.raw.dataSize = 1000;
    result.raw.randomSizes = {1500, 2000};
    result.raw.dd = {120, 0, kBeyondDouble, 7};
    result.raw.dr = {{300, 4, 5, 0}, {410, 6, 7, 0}};
    result.raw.rr = {{500, 3, 1, 0}, {900, 5, 2, 0}};
    result.normalised = tpacf::normalise(result.raw);
    result.estimator = tpacf::Estimator::LandySzalay;
    result.w = tpacf::estimate(result.estimator, result.normalised);
    result.backendName = "cpu";
    result.deviceDescription = "CPU, 2 threads";
    result.precision = tpacf::Precision::Double;
    result.backendNotice = "no CUDA device: running on the CPU";
    result.elapsedSeconds = 0.1 + 0.2; // not a short decimal: needs all 17 digits
    result.data = {dataName, 1000};
    result.randoms = {{"random 1.txt", 1500}, {"random\n2.txt", 2000}};
    return result;
}

std::string csvText(const CorrelationResult& result) {
    std::ostringstream out;
    tpacf::writeResultCsv(out, result);
    return out.str();
}

std::vector<std::string> linesOf(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line))
        lines.push_back(line);
    return lines;
}

// `wanted` as "# key: value": the ECSV header holds it as the metadata line "#   key: 'value'"
// (YAML single quotes, a quote written twice).
bool hasLine(const std::vector<std::string>& lines, const std::string& wanted) {
    std::string line = wanted;
    const std::size_t colon = wanted.find(": ");
    if (wanted.rfind("# ", 0) == 0 && colon != std::string::npos) {
        line = "#   " + wanted.substr(2, colon - 2) + ": '";
        for (const char c : wanted.substr(colon + 2))
            line += c == '\'' ? std::string("''") : std::string(1, c);
        line += "'";
    }
    return std::find(lines.begin(), lines.end(), line) != lines.end();
}

bool anyLineContains(const std::vector<std::string>& lines, const std::string& part) {
    for (const std::string& line : lines)
        if (line.rfind("#", 0) == 0 && line.find(part) != std::string::npos)
            return true;
    return false;
}

bool sameDouble(double actual, double expected) {
    return std::isnan(expected) ? std::isnan(actual) : actual == expected;
}

void writeFile(const std::string& path, const std::string& content) {
    std::ofstream out(path, std::ios::binary);
    out << content;
}

} // namespace

class TestResultIo : public QObject {
    Q_OBJECT

private slots:
    void csvHeaderRowIsExact();
    void csvMetadataLines();
    void csvStatesConventions();
    void csvRoundTrip();
    void csvIntegersExact();
    void csvFileUnwritable();
    void cancelledResultHasNoRows();
    void inconsistentResultRejected();
    void jsonIsWellFormedAndHoldsNumbers();
    void jsonEscapesStrings();
    void cullingRecorded_data();
    void cullingRecorded();
    void countsCsv_data();
    void countsCsv();
    void readAcceptsVariants();
    void readRejectsMalformed_data();
    void readRejectsMalformed();
    void readMissingFile();
};

void TestResultIo::csvHeaderRowIsExact() {
    const std::vector<std::string> lines = linesOf(csvText(sampleResult()));
    std::size_t header = 0;
    while (header < lines.size() && lines[header].rfind("#", 0) == 0)
        ++header;
    QVERIFY(header > 0);
    QVERIFY(header < lines.size());
    QCOMPARE(lines[header], std::string(kHeader));
    QCOMPARE(lines.size(), header + 1 + 4); // one row per bin, nothing after
}

void TestResultIo::csvMetadataLines() {
    const CorrelationResult result = sampleResult();
    const std::vector<std::string> lines = linesOf(csvText(result));
    QVERIFY(hasLine(lines, "# tool: TPACF Studio " + std::string(tpacf::version())));
    QVERIFY(hasLine(lines, "# data: data, with comma.txt N=1000"));
    QVERIFY(hasLine(lines, "# random 1: random 1.txt N=1500"));
    // A line break in a name must not end the comment line.
    QVERIFY(hasLine(lines, "# random 2: random 2.txt N=2000"));
    QVERIFY(hasLine(lines, "# bins: " + result.bins.describe()));
    QVERIFY(hasLine(lines, "# bin count: 4"));
    QVERIFY(hasLine(lines, "# estimator: Landy-Szalay: w = (DD - 2 DR + RR) / RR"));
    QVERIFY(hasLine(lines, "# backend: cpu"));
    QVERIFY(hasLine(lines, "# device: CPU, 2 threads"));
    QVERIFY(hasLine(lines, "# precision: double"));
    QVERIFY(hasLine(lines, "# elapsed: 0.30000000000000004 s"));
    QVERIFY(hasLine(lines, "# notice: no CUDA device: running on the CPU"));
    QVERIFY(hasLine(lines, "# status: completed"));

    const QRegularExpression created(
        QStringLiteral("^#   created: '\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z'$"));
    bool dated = false;
    for (const std::string& line : lines)
        dated = dated || created.match(QString::fromStdString(line)).hasMatch();
    QVERIFY2(dated, "no '# created: YYYY-MM-DDThh:mm:ssZ' line");

    CorrelationResult quiet = result;
    quiet.backendNotice.clear();
    QVERIFY(!anyLineContains(linesOf(csvText(quiet)), "notice"));
}

void TestResultIo::csvStatesConventions() {
    const std::vector<std::string> lines = linesOf(csvText(sampleResult()));
    // The conventions in words, as the brief for every frontend states them.
    QVERIFY(anyLineContains(lines, "DD and RR_i count each unordered pair (i<j) once"));
    QVERIFY(anyLineContains(lines, "DR_i counts all N_D*N_Ri pairs"));
    QVERIFY(anyLineContains(lines, "theta_lo <= theta < theta_hi"));
    QVERIFY(anyLineContains(lines, "squared chord 4 sin^2(theta/2)"));
    QVERIFY(anyLineContains(lines, "computed in double"));
    QVERIFY(anyLineContains(lines, "raw counts summed over the 2 random set(s)"));
    QVERIFY(anyLineContains(lines, "DD_norm = DD/(N_D(N_D-1)/2)"));
    QVERIFY(anyLineContains(lines, "DR_norm = mean over sets i of DR_i/(N_D*N_Ri)"));
    QVERIFY(anyLineContains(lines, "RR_norm = mean over sets i of RR_i/(N_Ri(N_Ri-1)/2)"));
    QVERIFY(anyLineContains(lines, "theta_lo, theta_hi, theta_mid in deg"));
}

void TestResultIo::csvRoundTrip() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath(QStringLiteral("result.csv")).toStdString();
    const CorrelationResult result = sampleResult();
    tpacf::writeResultCsvFile(path, result);
    const tpacf::ResultTable table = tpacf::readResultCsv(path);

    const std::vector<std::string> columns{"theta_lo", "theta_hi", "theta_mid", "DD",      "DR",
                                           "RR",       "DD_norm",  "DR_norm",   "RR_norm", "w"};
    QCOMPARE(table.columns, columns);
    QCOMPARE(table.rows.size(), std::size_t(4));
    const std::vector<std::uint64_t> dr = result.drSummed();
    const std::vector<std::uint64_t> rr = result.rrSummed();
    QCOMPARE(dr, (std::vector<std::uint64_t>{710, 10, 12, 0}));
    QCOMPARE(rr, (std::vector<std::uint64_t>{1400, 8, 3, 0}));
    for (std::size_t k = 0; k < 4; ++k) {
        const std::vector<double>& row = table.rows[k];
        QCOMPARE(row.size(), std::size_t(10));
        // Shortest round-trip text reads back to the identical double: compare exactly.
        const std::vector<double> expected{result.edges[k],         result.edges[k + 1],
                                           result.centres[k],       double(result.raw.dd[k]),
                                           double(dr[k]),           double(rr[k]),
                                           result.normalised.dd[k], result.normalised.dr[k],
                                           result.normalised.rr[k], result.w[k]};
        for (std::size_t column = 0; column < 10; ++column)
            QVERIFY2(sameDouble(row[column], expected[column]),
                     qPrintable(QStringLiteral("row %1, %2: read %3, wrote %4")
                                    .arg(k)
                                    .arg(QString::fromStdString(columns[column]))
                                    .arg(row[column], 0, 'g', 17)
                                    .arg(expected[column], 0, 'g', 17)));
    }
    QVERIFY(std::isnan(table.rows[3][9])); // RR = 0 in bin 3: w is NaN and stays NaN
}

void TestResultIo::csvIntegersExact() {
    const std::string text = csvText(sampleResult());
    // 2^53 + 1 would print as ...992 through a double.
    QVERIFY(text.find(",9007199254740993,") != std::string::npos);
    QVERIFY(text.find(",nan\n") != std::string::npos);

    // A stream imbued with a digit-grouping locale must not leak separators into the numbers.
    struct Grouping : std::numpunct<char> {
        char do_thousands_sep() const override { return '~'; }
        std::string do_grouping() const override { return "\3"; }
    };
    for (const bool json : {false, true}) {
        std::ostringstream grouped;
        grouped.imbue(std::locale(grouped.getloc(), new Grouping));
        if (json)
            tpacf::writeResultJson(grouped, sampleResult());
        else
            tpacf::writeResultCsv(grouped, sampleResult());
        QVERIFY2(grouped.str().find('~') == std::string::npos, grouped.str().c_str());
    }
}

void TestResultIo::csvFileUnwritable() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    for (const QString& relative : {QStringLiteral("no/such/dir/result.csv"), QString()}) {
        // The second path is the directory itself: it exists but is not a writable file.
        const std::string path =
            (relative.isEmpty() ? dir.path() : dir.filePath(relative)).toStdString();
        try {
            tpacf::writeResultCsvFile(path, sampleResult());
            QFAIL("no InputError for an unwritable path");
        } catch (const tpacf::InputError& error) {
            QCOMPARE(error.file(), path);
            QVERIFY2(std::string(error.what()).find(path) != std::string::npos, error.what());
        }
    }
}

void TestResultIo::cancelledResultHasNoRows() {
    CorrelationResult result = sampleResult();
    result.status = tpacf::JobStatus::Cancelled;
    result.raw = {};
    result.normalised = {};
    result.w.clear();
    const std::vector<std::string> lines = linesOf(csvText(result));
    QVERIFY(hasLine(lines, "# status: cancelled"));
    QCOMPARE(lines.back(), std::string(kHeader));

    std::ostringstream json;
    tpacf::writeResultJson(json, result);
    QJsonParseError error;
    const QJsonDocument document =
        QJsonDocument::fromJson(QByteArray::fromStdString(json.str()), &error);
    QCOMPARE(error.error, QJsonParseError::NoError);
    QCOMPARE(document.object().value(QStringLiteral("w")).toArray().size(), 0);
}

void TestResultIo::inconsistentResultRejected() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath(QStringLiteral("bad.csv")).toStdString();
    CorrelationResult result = sampleResult();
    result.w.pop_back();
    QVERIFY_THROWS_EXCEPTION(tpacf::ConfigError, tpacf::writeResultCsvFile(path, result));
    QVERIFY2(!QFile::exists(QString::fromStdString(path)), "a half-written file was left");
    std::ostringstream json;
    QVERIFY_THROWS_EXCEPTION(tpacf::ConfigError, tpacf::writeResultJson(json, result));
}

void TestResultIo::jsonIsWellFormedAndHoldsNumbers() {
    const CorrelationResult result = sampleResult();
    std::ostringstream out;
    tpacf::writeResultJson(out, result);
    QJsonParseError error;
    const QJsonDocument document =
        QJsonDocument::fromJson(QByteArray::fromStdString(out.str()), &error);
    QVERIFY2(
        error.error == QJsonParseError::NoError,
        qPrintable(error.errorString() + QStringLiteral(" at ") + QString::number(error.offset)));
    QVERIFY(document.isObject());
    const QJsonObject root = document.object();

    QCOMPARE(root.value(QStringLiteral("tool")).toString(), QStringLiteral("TPACF Studio"));
    QCOMPARE(root.value(QStringLiteral("version")).toString().toStdString(),
             std::string(tpacf::version()));
    QCOMPARE(root.value(QStringLiteral("status")).toString(), QStringLiteral("completed"));
    QVERIFY(!root.value(QStringLiteral("created")).toString().isEmpty());
    const QJsonObject data = root.value(QStringLiteral("data")).toObject();
    QCOMPARE(data.value(QStringLiteral("name")).toString(), QStringLiteral("data, with comma.txt"));
    QCOMPARE(data.value(QStringLiteral("size")).toDouble(), 1000.0);
    const QJsonArray randoms = root.value(QStringLiteral("randoms")).toArray();
    QCOMPARE(randoms.size(), 2);
    QCOMPARE(randoms[1].toObject().value(QStringLiteral("size")).toDouble(), 2000.0);
    QCOMPARE(randoms[1].toObject().value(QStringLiteral("name")).toString(),
             QStringLiteral("random\n2.txt")); // JSON keeps the name as it is
    const QJsonObject bins = root.value(QStringLiteral("bins")).toObject();
    QCOMPARE(bins.value(QStringLiteral("count")).toInt(), 4);
    QCOMPARE(bins.value(QStringLiteral("unit")).toString(), QStringLiteral("deg"));
    QCOMPARE(bins.value(QStringLiteral("description")).toString().toStdString(),
             result.bins.describe());
    const QJsonObject estimator = root.value(QStringLiteral("estimator")).toObject();
    QCOMPARE(estimator.value(QStringLiteral("key")).toString(), QStringLiteral("ls"));
    QCOMPARE(estimator.value(QStringLiteral("formula")).toString(),
             QStringLiteral("w = (DD - 2 DR + RR) / RR"));
    QCOMPARE(root.value(QStringLiteral("backend")).toString(), QStringLiteral("cpu"));
    QCOMPARE(root.value(QStringLiteral("device")).toString(), QStringLiteral("CPU, 2 threads"));
    QCOMPARE(root.value(QStringLiteral("precision")).toString(), QStringLiteral("double"));
    QCOMPARE(root.value(QStringLiteral("elapsed_seconds")).toDouble(), 0.1 + 0.2);
    QVERIFY(root.value(QStringLiteral("conventions")).toArray().size() >= 4);

    const QJsonObject counts = root.value(QStringLiteral("counts")).toObject();
    const QJsonArray dd = counts.value(QStringLiteral("dd")).toArray();
    const QJsonArray dr = counts.value(QStringLiteral("dr")).toArray();
    const QJsonArray rr = counts.value(QStringLiteral("rr")).toArray();
    QCOMPARE(dd.size(), 4);
    QCOMPARE(dr.size(), 2); // per random set
    QCOMPARE(rr.size(), 2);
    const QJsonObject normalised = root.value(QStringLiteral("normalised")).toObject();
    const QJsonArray w = root.value(QStringLiteral("w")).toArray();
    QCOMPARE(w.size(), 4);
    for (int k = 0; k < 4; ++k) {
        const auto bin = std::size_t(k);
        // Counts below 2^53 are exact in a JSON reader's double.
        if (bin != 2)
            QCOMPARE(dd[k].toDouble(), double(result.raw.dd[bin]));
        for (int set = 0; set < 2; ++set) {
            QCOMPARE(dr[set].toArray()[k].toDouble(), double(result.raw.dr[std::size_t(set)][bin]));
            QCOMPARE(rr[set].toArray()[k].toDouble(), double(result.raw.rr[std::size_t(set)][bin]));
        }
        QCOMPARE(root.value(QStringLiteral("theta_lo")).toArray()[k].toDouble(), result.edges[bin]);
        QCOMPARE(root.value(QStringLiteral("theta_hi")).toArray()[k].toDouble(),
                 result.edges[bin + 1]);
        QCOMPARE(root.value(QStringLiteral("theta_mid")).toArray()[k].toDouble(),
                 result.centres[bin]);
        QCOMPARE(normalised.value(QStringLiteral("dd")).toArray()[k].toDouble(),
                 result.normalised.dd[bin]);
        QCOMPARE(normalised.value(QStringLiteral("dr")).toArray()[k].toDouble(),
                 result.normalised.dr[bin]);
        QCOMPARE(normalised.value(QStringLiteral("rr")).toArray()[k].toDouble(),
                 result.normalised.rr[bin]);
        if (std::isnan(result.w[bin]))
            QVERIFY2(w[k].isNull(), "NaN must be written as null");
        else
            QCOMPARE(w[k].toDouble(), result.w[bin]);
    }
    QVERIFY(w[3].isNull());
    // The integer past 2^53 is written exactly in the text even if a double reader rounds it.
    QVERIFY(out.str().find("9007199254740993") != std::string::npos);
}

void TestResultIo::jsonEscapesStrings() {
    const std::string awkward = "he said \"hi\"\\ tab\there \x01 end, \xc3\xa9t\xc3\xa9";
    std::ostringstream out;
    tpacf::writeResultJson(out, sampleResult(awkward));
    QJsonParseError error;
    const QJsonDocument document =
        QJsonDocument::fromJson(QByteArray::fromStdString(out.str()), &error);
    QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
    QCOMPARE(document.object()
                 .value(QStringLiteral("data"))
                 .toObject()
                 .value(QStringLiteral("name"))
                 .toString(),
             QString::fromStdString(awkward));
}

void TestResultIo::cullingRecorded_data() {
    QTest::addColumn<int>("requested");
    QTest::addColumn<bool>("culled");
    QTest::addColumn<QString>("line");
    const QString on = QStringLiteral(": only cell pairs within reach of theta_max were visited; "
                                      "counts are identical to brute force");
    const QString off = QStringLiteral(": brute force, every pair computed");
    QTest::newRow("auto, culled") << int(tpacf::CullingMode::Auto) << true
                                  << QStringLiteral("# culling: on (requested auto)") + on;
    QTest::newRow("auto, brute force") << int(tpacf::CullingMode::Auto) << false
                                       << QStringLiteral("# culling: off (requested auto)") + off;
    QTest::newRow("on") << int(tpacf::CullingMode::On) << true
                        << QStringLiteral("# culling: on (requested on)") + on;
    QTest::newRow("off") << int(tpacf::CullingMode::Off) << false
                         << QStringLiteral("# culling: off (requested off)") + off;
}

void TestResultIo::cullingRecorded() {
    QFETCH(int, requested);
    QFETCH(bool, culled);
    QFETCH(QString, line);
    const auto mode = tpacf::CullingMode(requested);
    CorrelationResult result = sampleResult();
    result.cullingRequested = mode;
    result.culled = culled;

    // Result CSV: one metadata line, in the block of backend lines.
    const std::vector<std::string> lines = linesOf(csvText(result));
    QVERIFY2(hasLine(lines, line.toStdString()), qPrintable(line));
    const auto at = [&](const std::string& wanted) {
        return std::find_if(lines.begin(), lines.end(),
                            [&](const std::string& l) { return l.rfind(wanted, 0) == 0; }) -
               lines.begin();
    };
    QCOMPARE(at("#   culling: "), at("#   precision: ") + 1);
    QCOMPARE(std::count_if(lines.begin(), lines.end(),
                           [](const std::string& l) { return l.rfind("#   culling: ", 0) == 0; }),
             std::ptrdiff_t{1});

    // JSON: what was used and what was asked for.
    std::ostringstream json;
    tpacf::writeResultJson(json, result);
    QJsonParseError error;
    const QJsonDocument document =
        QJsonDocument::fromJson(QByteArray::fromStdString(json.str()), &error);
    QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
    const QJsonObject culling = document.object().value(QStringLiteral("culling")).toObject();
    QCOMPARE(culling.value(QStringLiteral("used")).toString(),
             culled ? QStringLiteral("on") : QStringLiteral("off"));
    QCOMPARE(culling.value(QStringLiteral("requested")).toString().toStdString(),
             std::string(tpacf::cullingModeName(mode)));

    // The counts CSV of 'tpacf count' says the same.
    const tpacf::Binning binning(result.bins);
    const std::string backend = "cpu", device = "CPU, 2 threads";
    tpacf::CountSummary summary{binning,
                                tpacf::PairCounts{1, 2, 3, 4},
                                tpacf::InputSummary{"a.txt", 10},
                                std::nullopt,
                                backend,
                                device,
                                tpacf::Precision::Double,
                                1.0};
    summary.cullingRequested = mode;
    summary.culled = culled;
    std::ostringstream counts;
    tpacf::writeCountsCsv(counts, summary);
    QVERIFY2(hasLine(linesOf(counts.str()), line.toStdString()), counts.str().c_str());

    // The covariance CSV carries the result's metadata, culling included.
    CorrelationResult withErrors = result;
    withErrors.wError.assign(4, 0.1);
    withErrors.covariance.assign(16, 0.01);
    withErrors.jackknifeRegions.count = 2;
    std::ostringstream covariance;
    tpacf::writeCovarianceCsv(covariance, withErrors);
    QVERIFY(hasLine(linesOf(covariance.str()), line.toStdString()));
}

void TestResultIo::countsCsv_data() {
    QTest::addColumn<bool>("cross");
    QTest::newRow("auto") << false;
    QTest::newRow("cross") << true;
}

void TestResultIo::countsCsv() {
    QFETCH(bool, cross);
    const tpacf::BinSpec spec = tpacf::BinSpec::linearCount(0, 2, tpacf::AngleUnit::Arcminute, 3);
    const tpacf::Binning binning(spec);
    const tpacf::PairCounts counts{5, 0, kBeyondDouble};
    const tpacf::InputSummary first{"a.txt", 100};
    const std::string backend = "cpu", device = "CPU, 2 threads";
    tpacf::CountSummary summary{
        binning, counts, first, std::nullopt, backend, device, tpacf::Precision::Double, 2.5};
    if (cross)
        summary.second = tpacf::InputSummary{"b.txt", 50};
    std::ostringstream out;
    tpacf::writeCountsCsv(out, summary);
    const std::vector<std::string> lines = linesOf(out.str());
    QVERIFY(hasLine(lines, "# tool: TPACF Studio " + std::string(tpacf::version())));
    QVERIFY(hasLine(lines, "# bins: " + spec.describe()));
    QVERIFY(hasLine(lines, "# backend: cpu"));
    QVERIFY(hasLine(lines, "# elapsed: 2.5 s"));
    QVERIFY(anyLineContains(lines, "theta_lo <= theta < theta_hi"));
    QVERIFY(anyLineContains(lines, "in arcmin"));
    if (cross) {
        QVERIFY(hasLine(lines, "# first: a.txt N=100"));
        QVERIFY(hasLine(lines, "# second: b.txt N=50"));
        QVERIFY(anyLineContains(lines, "all N_first*N_second pairs"));
    } else {
        QVERIFY(hasLine(lines, "# catalog: a.txt N=100"));
        QVERIFY(anyLineContains(lines, "unordered pair (i<j) is counted once"));
    }
    const std::vector<std::string> table(lines.end() - 4, lines.end());
    QCOMPARE(table[0], std::string("theta_lo,theta_hi,theta_mid,count"));
    // Linear bins of 2/3 arcmin: edges in shortest round-trip form, counts as exact integers.
    QVERIFY2(table[3].rfind("1.3333333333333333,2,", 0) == 0, table[3].c_str());
    QVERIFY2(table[3].size() > 17 &&
                 table[3].compare(table[3].size() - 17, 17, ",9007199254740993") == 0,
             table[3].c_str());

    // The generic reader takes a counts file too.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath(QStringLiteral("counts.csv")).toStdString();
    writeFile(path, out.str());
    const tpacf::ResultTable read = tpacf::readResultCsv(path);
    QCOMPARE(read.columns,
             (std::vector<std::string>{"theta_lo", "theta_hi", "theta_mid", "count"}));
    QCOMPARE(read.rows.size(), std::size_t(3));
    QCOMPARE(read.rows[0][3], 5.0);
    QCOMPARE(read.rows[1][1], binning.edges()[2]);
    QCOMPARE(read.rows[2][2], binning.centres()[2]);
}

void TestResultIo::readAcceptsVariants() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath(QStringLiteral("variants.csv")).toStdString();
    // CRLF line ends, a byte-order mark, blank lines, spaces around fields, nan/-inf, a '+'.
    writeFile(
        path,
        "\xEF\xBB\xBF# comment\r\n\r\n a , b \r\n1, nan\r\n\r\n+2.5e-3,-inf\r\n# trailing\r\n");
    const tpacf::ResultTable table = tpacf::readResultCsv(path);
    QCOMPARE(table.columns, (std::vector<std::string>{"a", "b"}));
    QCOMPARE(table.rows.size(), std::size_t(2));
    QCOMPARE(table.rows[0][0], 1.0);
    QVERIFY(std::isnan(table.rows[0][1]));
    QCOMPARE(table.rows[1][0], 2.5e-3);
    QCOMPARE(table.rows[1][1], -std::numeric_limits<double>::infinity());
}

void TestResultIo::readRejectsMalformed_data() {
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("column");
    QTest::newRow("word in a number column") << QByteArray("# meta\nh1,h2\n1,2\n3,abc\n") << 4 << 2;
    QTest::newRow("trailing garbage") << QByteArray("h1,h2\n1,2x\n") << 2 << 2;
    QTest::newRow("empty field") << QByteArray("h1,h2\n1,\n") << 2 << 2;
    QTest::newRow("too many fields") << QByteArray("h1,h2\n1,2,3\n") << 2 << 0;
    QTest::newRow("too few fields") << QByteArray("h1,h2\n\n1\n") << 3 << 0;
    QTest::newRow("empty column name") << QByteArray("h1,,h3\n") << 1 << 2;
    QTest::newRow("no table") << QByteArray("# only metadata\n") << 0 << 0;
    QTest::newRow("empty file") << QByteArray() << 0 << 0;
}

void TestResultIo::readRejectsMalformed() {
    QFETCH(QByteArray, content);
    QFETCH(int, line);
    QFETCH(int, column);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath(QStringLiteral("bad.csv")).toStdString();
    writeFile(path, content.toStdString());
    try {
        tpacf::readResultCsv(path);
        QFAIL("no InputError for malformed content");
    } catch (const tpacf::InputError& error) {
        QCOMPARE(error.file(), path);
        QCOMPARE(error.line(), long(line));
        QCOMPARE(error.column(), column);
        QVERIFY2(std::string(error.what()).find(path) != std::string::npos, error.what());
    }
}

void TestResultIo::readMissingFile() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath(QStringLiteral("missing.csv")).toStdString();
    try {
        tpacf::readResultCsv(path);
        QFAIL("no InputError for a missing file");
    } catch (const tpacf::InputError& error) {
        QCOMPARE(error.file(), path);
    }
}

TPACF_TEST_MAIN(TestResultIo)
#include "test_result_io.moc"
