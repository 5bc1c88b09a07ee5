// SPDX-License-Identifier: GPL-3.0-or-later
// Catalog, the ASCII and FITS readers, format dispatch, column references and the preview.
// Every error case checks that the message names the file, the line (or row) and the column.
#include "tpacf_test_main.h"
#include "tpacf/catalog.h"
#include "tpacf/catalog_reader.h"
#include "tpacf/errors.h"

#include <QtTest/QtTest>

#include <QTemporaryDir>
#include <QtEndian>

#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <algorithm>
#include <random>

#include <sys/stat.h>
#include <unistd.h>

using tpacf::AngleUnit;
using tpacf::Catalog;
using tpacf::ColumnRef;
using tpacf::ReadOptions;

namespace {

constexpr long double kDegreeL = 3.14159265358979323846264338327950288L / 180.0L;
constexpr double kDeg = 3.14159265358979323846 / 180.0;

ReadOptions makeOptions(const QString& ra = {}, const QString& dec = {}, const QString& weight = {},
                        const QString& unit = QStringLiteral("deg"), bool hours = false) {
    ReadOptions options;
    if (!ra.isEmpty())
        options.raColumn = ColumnRef::parse(ra.toStdString());
    if (!dec.isEmpty())
        options.decColumn = ColumnRef::parse(dec.toStdString());
    if (!weight.isEmpty())
        options.weightColumn = ColumnRef::parse(weight.toStdString());
    const auto parsed = tpacf::parseAngleUnit(unit.toStdString());
    options.coordUnit = parsed.value_or(AngleUnit::Degree);
    options.raInHours = hours;
    return options;
}

QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& content) {
    const QString path = dir.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(content) != content.size())
        qFatal("cannot write %s", qPrintable(path));
    return path;
}

// Checks an InputError's place and that its message says it: "file:line: column N: ...".
template <class Read>
void expectInputError(Read&& read, const QString& file, long line, int column,
                      const QString& mentions) {
    try {
        read();
        QFAIL("expected an InputError, but the read succeeded");
    } catch (const tpacf::InputError& e) {
        const QString message = QString::fromUtf8(e.what());
        QVERIFY2(QString::fromStdString(e.file()) == file, e.what());
        QVERIFY2(e.line() == line, qPrintable(QStringLiteral("line %1: ").arg(e.line()) + message));
        QVERIFY2(e.column() == column,
                 qPrintable(QStringLiteral("column %1: ").arg(e.column()) + message));
        QVERIFY2(message.startsWith(file), e.what());
        if (line > 0)
            QVERIFY2(message.contains(file + QLatin1Char(':') + QString::number(line) +
                                      QLatin1Char(':')),
                     e.what());
        if (column > 0)
            QVERIFY2(message.contains(QStringLiteral("column ") + QString::number(column)),
                     e.what());
        QVERIFY2(message.contains(mentions), e.what());
    }
}

void compareDegrees(std::span<const double> radians, const QList<double>& degrees,
                    double tolerance = 1e-13) {
    QCOMPARE(radians.size(), std::size_t(degrees.size()));
    for (qsizetype i = 0; i < degrees.size(); ++i)
        QVERIFY2(std::abs(radians[i] - static_cast<double>(degrees[i] * kDegreeL)) <= tolerance,
                 qPrintable(QStringLiteral("row %1: %2 rad, expected %3 deg")
                                .arg(i + 1)
                                .arg(radians[i], 0, 'g', 17)
                                .arg(degrees[i], 0, 'g', 17)));
}

// ---- A minimal FITS writer, written from the standard, independent of cfitsio ----------

struct FitsColumn {
    QByteArray name;
    char form; // 'D' double, 'E' float, 'J' int32, 'A' 8 characters of text
    QList<double> values;
};

QByteArray fitsCard(const QByteArray& key, const QByteArray& value = {}) {
    QByteArray card = key.leftJustified(8, ' ');
    if (!value.isNull())
        card += "= " + value;
    return card.leftJustified(80, ' ', true);
}
QByteArray fitsInt(long long v) {
    return QByteArray::number(v).rightJustified(20);
}
QByteArray fitsString(const QByteArray& s) {
    return "'" + s.leftJustified(8) + "'";
}
void padBlock(QByteArray& bytes, char fill) {
    while (bytes.size() % 2880 != 0)
        bytes.append(fill);
}

QByteArray fitsFile(const QList<FitsColumn>& columns, bool withTable = true) {
    QByteArray bytes = fitsCard("SIMPLE", QByteArray("T").rightJustified(20)) +
                       fitsCard("BITPIX", fitsInt(8)) + fitsCard("NAXIS", fitsInt(0)) +
                       fitsCard("EXTEND", QByteArray("T").rightJustified(20)) + fitsCard("END");
    padBlock(bytes, ' ');
    if (!withTable)
        return bytes;
    const qsizetype rows = columns.isEmpty() ? 0 : columns.front().values.size();
    int rowBytes = 0;
    for (const FitsColumn& c : columns)
        rowBytes += c.form == 'D' || c.form == 'A' ? 8 : 4;
    QByteArray header = fitsCard("XTENSION", fitsString("BINTABLE")) +
                        fitsCard("BITPIX", fitsInt(8)) + fitsCard("NAXIS", fitsInt(2)) +
                        fitsCard("NAXIS1", fitsInt(rowBytes)) + fitsCard("NAXIS2", fitsInt(rows)) +
                        fitsCard("PCOUNT", fitsInt(0)) + fitsCard("GCOUNT", fitsInt(1)) +
                        fitsCard("TFIELDS", fitsInt(columns.size()));
    for (qsizetype i = 0; i < columns.size(); ++i) {
        const QByteArray n = QByteArray::number(i + 1);
        header += fitsCard("TTYPE" + n, fitsString(columns[i].name));
        header += fitsCard(
            "TFORM" + n,
            fitsString(columns[i].form == 'A' ? QByteArray("8A") : QByteArray(1, columns[i].form)));
    }
    header += fitsCard("END");
    padBlock(header, ' ');
    bytes += header;
    QByteArray data;
    for (qsizetype r = 0; r < rows; ++r)
        for (const FitsColumn& c : columns) {
            const double v = c.values[r];
            char buffer[8];
            if (c.form == 'D') {
                qToBigEndian(std::bit_cast<quint64>(v), buffer);
                data.append(buffer, 8);
            } else if (c.form == 'E') {
                qToBigEndian(std::bit_cast<quint32>(static_cast<float>(v)), buffer);
                data.append(buffer, 4);
            } else if (c.form == 'J') {
                qToBigEndian(static_cast<qint32>(v), buffer);
                data.append(buffer, 4);
            } else {
                data.append(QByteArray("s" + QByteArray::number(v)).leftJustified(8, ' ', true));
            }
        }
    padBlock(data, '\0');
    return bytes + data;
}

// The FITS bytes with the value of header card `key` (the first one) replaced.
QByteArray withCard(QByteArray bytes, const QByteArray& key, long long value) {
    const qsizetype at = bytes.indexOf(key.leftJustified(8, ' ') + "= ");
    if (at < 0 || at % 80 != 0)
        qFatal("no card %s", key.constData());
    bytes.replace(at + 10, 20, fitsInt(value));
    return bytes;
}

// gzip with stored (uncompressed) deflate blocks: enough to check that .fits.gz is opened.
QByteArray gzipStored(const QByteArray& data) {
    QByteArray out("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff", 10);
    qsizetype pos = 0;
    do {
        const auto length = static_cast<quint16>(std::min<qsizetype>(65535, data.size() - pos));
        const bool last = pos + length == data.size();
        out.append(char(last ? 1 : 0));
        char le[4];
        qToLittleEndian(length, le);
        qToLittleEndian(static_cast<quint16>(~length), le + 2);
        out.append(le, 4);
        out.append(data.constData() + pos, length);
        pos += length;
    } while (pos < data.size());
    quint32 crc = 0xFFFFFFFFu;
    for (char byte : data) {
        crc ^= static_cast<unsigned char>(byte);
        for (int bit = 0; bit < 8; ++bit)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    char trailer[8];
    qToLittleEndian(~crc, trailer);
    qToLittleEndian(static_cast<quint32>(data.size()), trailer + 4);
    out.append(trailer, 8);
    return out;
}

QList<FitsColumn> standardFitsColumns() {
    return {{"ID", 'J', {1, 2, 3}},
            {"z", 'D', {0.1, 0.2, 0.3}},
            {"ra", 'D', {10, 370, -5}},
            {"Dec", 'E', {20, -90, 45.5}},
            {"WEIGHT", 'J', {2, 3, 4}}};
}

} // namespace

class TestCatalogReader : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();

    // Catalog
    void unitVectors();
    void catalogWrapsRa_data();
    void catalogWrapsRa();
    void catalogRejects_data();
    void catalogRejects();
    void catalogSizeMismatch();
    void catalogPoles();
    void extent();

    // ASCII
    void formats_data();
    void formats();
    void units_data();
    void units();
    void coordinatesFromMemory_data();
    void coordinatesFromMemory();
    void raWrap_data();
    void raWrap();
    void columns_data();
    void columns();
    void asciiErrors_data();
    void asciiErrors();
    void ecsvUnits_data();
    void ecsvUnits();
    void missingAndDirectory();
    void notRegularFiles_data();
    void notRegularFiles();
    void longFieldsAreCapped();
    void cancelledRead();
    void parseFromMemory();
    void randomRoundTrip();
    void origin_data();
    void origin();

    // Dispatch, FITS
    void dispatchByExtension_data();
    void dispatchByExtension();
    void fitsColumns_data();
    void fitsColumns();
    void fitsGzip();
    void fitsRegionColumn();
    void fitsErrors_data();
    void fitsErrors();
    void fitsDefaultColumnsByName();

    // ColumnRef, preview
    void columnRefParse_data();
    void columnRefParse();
    void columnRefRejects_data();
    void columnRefRejects();
    void previewAscii();
    void previewWithoutHeader();
    void previewLargeFile();
    void previewFits();
    void previewMissing();

private:
    QTemporaryDir m_dir;
};

void TestCatalogReader::initTestCase() {
    QVERIFY(m_dir.isValid());
}

// ---- Catalog ------------------------------------------------------------------------------

void TestCatalogReader::unitVectors() {
    std::mt19937_64 rng(12345);
    std::uniform_real_distribution<double> raDist(0.0, 360.0), decDist(-90.0, 90.0);
    std::vector<double> ra(1000), dec(1000);
    for (std::size_t i = 0; i < ra.size(); ++i) {
        ra[i] = raDist(rng);
        dec[i] = decDist(rng);
    }
    const Catalog catalog = Catalog::fromDegrees("random", ra, dec);
    QCOMPARE(catalog.size(), ra.size());
    QVERIFY(!catalog.hasWeights());
    for (std::size_t i = 0; i < ra.size(); ++i) {
        const long double a = ra[i] * kDegreeL, d = dec[i] * kDegreeL;
        QVERIFY(std::abs(catalog.x()[i] - static_cast<double>(std::cos(d) * std::cos(a))) < 1e-15);
        QVERIFY(std::abs(catalog.y()[i] - static_cast<double>(std::cos(d) * std::sin(a))) < 1e-15);
        QVERIFY(std::abs(catalog.z()[i] - static_cast<double>(std::sin(d))) < 1e-15);
        const double norm = catalog.x()[i] * catalog.x()[i] + catalog.y()[i] * catalog.y()[i] +
                            catalog.z()[i] * catalog.z()[i];
        QVERIFY(std::abs(norm - 1.0) < 1e-15);
        QVERIFY(std::abs(catalog.ra()[i] - static_cast<double>(a)) < 1e-15);
    }
}

void TestCatalogReader::catalogWrapsRa_data() {
    QTest::addColumn<double>("raRadians");
    QTest::addColumn<double>("expected");
    const double twoPi = 2.0 * M_PI;
    QTest::newRow("negative") << -0.5 << twoPi - 0.5;
    QTest::newRow("beyond a turn") << 7.0 << 7.0 - twoPi;
    QTest::newRow("exactly a turn") << twoPi << 0.0;
    QTest::newRow("two turns back") << -2.0 * twoPi + 1.0 << 1.0;
    QTest::newRow("tiny negative rounds to a turn") << -1e-300 << 0.0;
    QTest::newRow("inside") << 3.0 << 3.0;
}

void TestCatalogReader::catalogWrapsRa() {
    QFETCH(double, raRadians);
    QFETCH(double, expected);
    const Catalog catalog = Catalog::fromRadians("c", {raRadians}, {0.25});
    QVERIFY(catalog.ra()[0] >= 0.0 && catalog.ra()[0] < 2.0 * M_PI);
    QVERIFY2(std::abs(catalog.ra()[0] - expected) < 1e-14,
             qPrintable(QString::number(catalog.ra()[0], 'g', 17)));
    // The unit vector is that of the unwrapped angle.
    QVERIFY(std::abs(catalog.x()[0] - std::cos(0.25) * std::cos(raRadians)) < 1e-14);
    QVERIFY(std::abs(catalog.y()[0] - std::cos(0.25) * std::sin(raRadians)) < 1e-14);
}

void TestCatalogReader::catalogRejects_data() {
    QTest::addColumn<bool>("degrees");
    QTest::addColumn<double>("badRa");
    QTest::addColumn<double>("badDec");
    QTest::addColumn<QString>("mentions");
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    QTest::newRow("deg dec above 90") << true << 10.0 << 90.5 << "Dec 90.5 deg is outside";
    QTest::newRow("deg dec below -90") << true << 10.0 << -91.0 << "Dec -91 deg is outside";
    QTest::newRow("deg nan ra") << true << nan << 0.0 << "RA nan is not finite";
    QTest::newRow("deg inf dec") << true << 0.0 << inf << "not finite";
    QTest::newRow("rad dec above pi/2") << false << 0.0 << 1.6 << "Dec 1.6 rad is outside";
    QTest::newRow("rad inf ra") << false << -inf << 0.0 << "not finite";
    QTest::newRow("rad nan dec") << false << 0.0 << nan << "not finite";
}

void TestCatalogReader::catalogRejects() {
    QFETCH(bool, degrees);
    QFETCH(double, badRa);
    QFETCH(double, badDec);
    QFETCH(QString, mentions);
    // The bad value is on the third row: the error must say row 3.
    const std::vector<double> ra{1.0, 2.0, badRa, 3.0}, dec{0.1, 0.2, badDec, 0.3};
    const auto build = [&] {
        (void)(degrees ? Catalog::fromDegrees("my catalog", ra, dec)
                       : Catalog::fromRadians("my catalog", ra, dec));
    };
    expectInputError(build, QStringLiteral("my catalog"), 3, 0, mentions);
    expectInputError(build, QStringLiteral("my catalog"), 3, 0, QStringLiteral("row 3"));
}

void TestCatalogReader::catalogSizeMismatch() {
    QVERIFY_THROWS_EXCEPTION(tpacf::ConfigError, Catalog::fromDegrees("c", {1, 2}, {1, 2}, {1.0}));
    QVERIFY_THROWS_EXCEPTION(tpacf::ConfigError,
                             Catalog::fromRadians("c", {1, 2}, {1, 2}, {}, {0, 1, 2}));
    QVERIFY_THROWS_EXCEPTION(tpacf::ConfigError, Catalog::fromRadians("c", {1, 2}, {1}));
    const Catalog withBoth = Catalog::fromDegrees("c", {1, 2}, {1, 2}, {0.5, 2.0}, {3, 4});
    QVERIFY(withBoth.hasWeights());
    QCOMPARE(withBoth.weight()[1], 2.0);
    QCOMPARE(withBoth.region()[0], 3);
    // Columns of built points are taken as they are; only their lengths must agree.
    const Catalog copied = Catalog::fromBuiltColumns(
        "copy", {{withBoth.ra().begin(), withBoth.ra().end()},
                 {withBoth.dec().begin(), withBoth.dec().end()},
                 {withBoth.x().begin(), withBoth.x().end()},
                 {withBoth.y().begin(), withBoth.y().end()},
                 {withBoth.z().begin(), withBoth.z().end()},
                 {withBoth.weight().begin(), withBoth.weight().end()},
                 {withBoth.region().begin(), withBoth.region().end()}});
    QCOMPARE(copied.size(), withBoth.size());
    QCOMPARE(copied.z()[1], withBoth.z()[1]);
    QCOMPARE(copied.region()[1], 4);
    QVERIFY_THROWS_EXCEPTION(tpacf::ConfigError,
                             Catalog::fromBuiltColumns("c", {{1, 2}, {1, 2}, {1, 0}, {0, 1}, {0}}));
    QVERIFY_THROWS_EXCEPTION(tpacf::ConfigError,
                             Catalog::fromBuiltColumns("c", {{1, 2}, {1, 2}, {1, 0}, {0, 1}, {0, 0},
                                                             {}, {0, 1, 2}}));
    expectInputError(
        [] {
            (void)Catalog::fromDegrees("weighted", {1, 2}, {1, 2},
                                       {1.0, std::numeric_limits<double>::quiet_NaN()});
        },
        QStringLiteral("weighted"), 2, 0, QStringLiteral("weight"));
}

void TestCatalogReader::catalogPoles() {
    const Catalog degrees = Catalog::fromDegrees("poles", {0, 180}, {90, -90});
    QCOMPARE(degrees.z()[0], 1.0);
    QCOMPARE(degrees.z()[1], -1.0);
    QVERIFY(degrees.dec()[0] <= M_PI / 2);
    const Catalog radians = Catalog::fromRadians("poles", {0}, {M_PI / 2});
    QCOMPARE(radians.z()[0], 1.0);
}

void TestCatalogReader::extent() {
    const Catalog empty;
    QVERIFY(empty.empty());
    const tpacf::SkyExtent none = empty.extent();
    QCOMPARE(none.raMin, 0.0);
    QCOMPARE(none.decMax, 0.0);
    const Catalog catalog = Catalog::fromDegrees("c", {350, 10, -20, 100}, {5, -30, 60, 0});
    const tpacf::SkyExtent e = catalog.extent();
    QVERIFY(std::abs(e.raMin - 10 * kDeg) < 1e-15); // -20 wraps to 340
    QVERIFY(std::abs(e.raMax - 350 * kDeg) < 1e-14);
    QVERIFY(std::abs(e.decMin + 30 * kDeg) < 1e-15);
    QVERIFY(std::abs(e.decMax - 60 * kDeg) < 1e-15);
    // The shortest arc holding the points: 340° to 100° across RA 0 (the largest gap is
    // 100°–340°); a field that does not cross RA 0 keeps its min and max.
    QVERIFY(e.raWraps());
    QVERIFY(std::abs(e.raFrom - 340 * kDeg) < 1e-14);
    QVERIFY(std::abs(e.raTo - 100 * kDeg) < 1e-14);
    const tpacf::SkyExtent wrap =
        Catalog::fromDegrees("w", {355.5, 359.99, 0.0, 4.25, 358}, {0, 1, 2, 3, 4}).extent();
    QVERIFY(wrap.raWraps());
    QVERIFY(std::abs(wrap.raFrom - 355.5 * kDeg) < 1e-14);
    QVERIFY(std::abs(wrap.raTo - 4.25 * kDeg) < 1e-15);
    const tpacf::SkyExtent plain =
        Catalog::fromDegrees("p", {150, 190, 170}, {0, 40, 20}).extent();
    QVERIFY(!plain.raWraps());
    QCOMPARE(plain.raFrom, plain.raMin);
    QCOMPARE(plain.raTo, plain.raMax);
    // Brute force over 500 random fields: the arc holds every point, and no arc of the
    // points' own RAs that is shorter (by more than the grid) holds them all.
    std::mt19937_64 random(5);
    std::uniform_real_distribution<double> centre(0, 360), width(1, 300), unit(0, 1);
    for (int field = 0; field < 500; ++field) {
        const double c = centre(random), w = width(random);
        std::vector<double> ras(40);
        for (double& ra : ras)
            ra = std::fmod(c + w * unit(random) + 360.0, 360.0);
        const tpacf::SkyExtent x = Catalog::fromDegrees("r", ras, std::vector<double>(40, 0)).extent();
        const auto along = [&](double ra) { // eastward distance from raFrom, in radians
            double d = ra - x.raFrom;
            return d < 0 ? d + 2 * tpacf::kPi : d;
        };
        const double arc = along(x.raTo);
        std::vector<double> sorted;
        for (const double ra : ras)
            sorted.push_back(std::fmod(ra * kDeg, 2 * tpacf::kPi));
        std::sort(sorted.begin(), sorted.end());
        double widestGap = sorted.front() + 2 * tpacf::kPi - sorted.back();
        for (std::size_t i = 1; i < sorted.size(); ++i)
            widestGap = std::max(widestGap, sorted[i] - sorted[i - 1]);
        for (const double ra : sorted)
            QVERIFY(along(ra) <= arc + 1e-12);
        QVERIFY2(std::abs(arc - (2 * tpacf::kPi - widestGap)) <= 2 * (2 * tpacf::kPi / (360 * 16)),
                 qPrintable(QStringLiteral("field %1: arc %2, shortest %3").arg(field).arg(arc).arg(2 * tpacf::kPi - widestGap)));
    }
}

// ---- ASCII formats ----------------------------------------------------------------------

void TestCatalogReader::formats_data() {
    QTest::addColumn<QByteArray>("content");
    // Every row holds the same two points: (10, 20) and (30.5, -40.25) degrees.
    QTest::newRow("spaces") << QByteArray("10 20\n30.5 -40.25\n");
    QTest::newRow("tabs") << QByteArray("10\t20\n30.5\t-40.25\n");
    QTest::newRow("mixed blanks") << QByteArray("  10 \t 20  \n\t30.5   -40.25\t\n");
    QTest::newRow("commas") << QByteArray("10,20\n30.5,-40.25\n");
    QTest::newRow("comma and blanks") << QByteArray("10, 20\n30.5 ,\t-40.25\n");
    QTest::newRow("comments") << QByteArray(
        "# catalog\n10 20 # first\n\n   # indented comment\n30.5 -40.25#tight\n# end\n");
    QTest::newRow("CRLF") << QByteArray("10 20\r\n30.5 -40.25\r\n");
    QTest::newRow("CRLF comments blanks") << QByteArray("# c\r\n10 20\r\n\r\n30.5 -40.25 # x\r\n");
    // Classic Mac OS line ends: a lone CR ends a line (as a blank it would make one row).
    QTest::newRow("lone CR") << QByteArray("10 20\r30.5 -40.25\r");
    QTest::newRow("lone CR, no final") << QByteArray("10 20\r30.5 -40.25");
    QTest::newRow("lone CR, comments") << QByteArray("# c\r10 20 # x\r\r30.5 -40.25\r");
    QTest::newRow("LF, CRLF and CR mixed") << QByteArray("10 20\r\n30.5 -40.25\r");
    QTest::newRow("LF CR") << QByteArray("10 20\n\r30.5 -40.25\n\r");
    QTest::newRow("no final newline") << QByteArray("10 20\n30.5 -40.25");
    QTest::newRow("blank lines") << QByteArray("\n\n10 20\n   \n\t\n30.5 -40.25\n\n");
    QTest::newRow("header") << QByteArray("ra dec\n10 20\n30.5 -40.25\n");
    QTest::newRow("csv header") << QByteArray("RA,DEC\n10,20\n30.5,-40.25\n");
    QTest::newRow("trailing commas") << QByteArray("10,20,\n30.5,-40.25,\n");
    QTest::newRow("csv header, names with blanks")
        << QByteArray("RA (deg), Dec (deg)\n10, 20\n30.5, -40.25\n");
    QTest::newRow("header after comments") << QByteArray("# x\nra\tdec\n10\t20\n30.5\t-40.25\n");
    QTest::newRow("count line") << QByteArray("2\n10 20\n30.5 -40.25\n");
    QTest::newRow("count line after comment") << QByteArray("# parboil\n2\n10 20\n30.5 -40.25\n");
    QTest::newRow("count line and header") << QByteArray("2\nra dec\n10 20\n30.5 -40.25\n");
    QTest::newRow("extra columns") << QByteArray("10 20 1 2 3\n30.5 -40.25 4 5 6\n");
    QTest::newRow("exponents and plus") << QByteArray("1e1 +2.0E1\n3.05e+1 -4.025e1\n");
    QTest::newRow("byte order mark") << QByteArray("\xEF\xBB\xBF"
                                                   "10 20\n30.5 -40.25\n");
    QTest::newRow("text id column") << QByteArray("gal1 10 20\ngal2 30.5 -40.25\n");
    QTest::newRow("header names ra dec not first")
        << QByteArray("z ra dec\n0.1 10 20\n0.2 30.5 -40.25\n");
}

void TestCatalogReader::formats() {
    QFETCH(QByteArray, content);
    const QString path = writeFile(m_dir, QStringLiteral("format.txt"), content);
    const Catalog catalog = tpacf::readAsciiCatalog(path.toStdString());
    QCOMPARE(QString::fromStdString(catalog.name()), path);
    compareDegrees(catalog.ra(), {10, 30.5});
    compareDegrees(catalog.dec(), {20, -40.25});
    QVERIFY(!catalog.hasWeights());
}

void TestCatalogReader::units_data() {
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("unit");
    QTest::addColumn<bool>("hours");
    QTest::addColumn<double>("raRadians");
    QTest::addColumn<double>("decRadians");
    QTest::newRow("deg") << QByteArray("10 20") << "deg" << false << 10 * kDeg << 20 * kDeg;
    QTest::newRow("arcmin") << QByteArray("600 -300") << "arcmin" << false << 10 * kDeg
                            << -5 * kDeg;
    QTest::newRow("arcsec") << QByteArray("36000 18000") << "arcsec" << false << 10 * kDeg
                            << 5 * kDeg;
    QTest::newRow("rad") << QByteArray("1.25 -0.5") << "rad" << false << 1.25 << -0.5;
    QTest::newRow("hours, deg") << QByteArray("1.5 20") << "deg" << true << 22.5 * kDeg
                                << 20 * kDeg;
    QTest::newRow("hours, arcmin")
        << QByteArray("2 1200") << "arcmin" << true << 30 * kDeg << 20 * kDeg;
    QTest::newRow("hours, rad") << QByteArray("12 0.25") << "rad" << true << M_PI << 0.25;
    QTest::newRow("north pole deg") << QByteArray("0 90") << "deg" << false << 0.0 << M_PI / 2;
    QTest::newRow("south pole deg") << QByteArray("0 -90") << "deg" << false << 0.0 << -M_PI / 2;
    QTest::newRow("pole arcmin") << QByteArray("0 5400") << "arcmin" << false << 0.0 << M_PI / 2;
    QTest::newRow("pole arcsec") << QByteArray("0 -324000") << "arcsec" << false << 0.0
                                 << -M_PI / 2;
    QTest::newRow("pole rad") << QByteArray("0 1.5707963267948966") << "rad" << false << 0.0
                              << M_PI / 2;
}

void TestCatalogReader::units() {
    QFETCH(QByteArray, content);
    QFETCH(QString, unit);
    QFETCH(bool, hours);
    QFETCH(double, raRadians);
    QFETCH(double, decRadians);
    const QString path = writeFile(m_dir, QStringLiteral("units.txt"), content);
    const Catalog catalog =
        tpacf::readCatalog(path.toStdString(), makeOptions({}, {}, {}, unit, hours));
    QCOMPARE(catalog.size(), std::size_t(1));
    QVERIFY2(std::abs(catalog.ra()[0] - raRadians) < 1e-14,
             qPrintable(QString::number(catalog.ra()[0], 'g', 17)));
    QVERIFY2(std::abs(catalog.dec()[0] - decRadians) < 1e-14,
             qPrintable(QString::number(catalog.dec()[0], 'g', 17)));
    QVERIFY(std::abs(catalog.dec()[0]) <= M_PI / 2);
    QVERIFY(std::abs(catalog.z()[0] - std::sin(decRadians)) < 1e-15);
}

// catalogFromCoordinates, the readers' conversion for values in memory: the same radians as the
// file reader gives for the same text, and out-of-range Dec worded as the readers word it, with
// the row.
void TestCatalogReader::coordinatesFromMemory_data() {
    units_data();
}

void TestCatalogReader::coordinatesFromMemory() {
    QFETCH(QByteArray, content);
    QFETCH(QString, unit);
    QFETCH(bool, hours);
    const QString path = writeFile(m_dir, QStringLiteral("memory.txt"), content);
    const ReadOptions options = makeOptions({}, {}, {}, unit, hours);
    const Catalog fromFile = tpacf::readCatalog(path.toStdString(), options);
    const QList<QByteArray> fields = content.split(' ');
    const Catalog fromMemory = tpacf::catalogFromCoordinates(
        "memory", {fields[0].toDouble()}, {fields[1].toDouble()}, {}, {}, options);
    QCOMPARE(fromMemory.size(), std::size_t(1));
    QVERIFY2(fromMemory.ra()[0] == fromFile.ra()[0],
             qPrintable(QString::number(fromMemory.ra()[0], 'g', 17)));
    QVERIFY2(fromMemory.dec()[0] == fromFile.dec()[0],
             qPrintable(QString::number(fromMemory.dec()[0], 'g', 17)));

    // Just past the pole in this unit, in row 2: the file reader's words, and the row.
    const double pole = unit == QLatin1String("arcmin")   ? 5400.0
                        : unit == QLatin1String("arcsec") ? 324000.0
                        : unit == QLatin1String("rad")    ? M_PI / 2
                                                          : 90.0;
    const double beyond = -pole * 1.01;
    const QByteArray text = QByteArray::number(beyond, 'g', QLocale::FloatingPointShortest);
    const QString badPath =
        writeFile(m_dir, QStringLiteral("beyond.txt"), content + "\n0 " + text + "\n");
    QString fileProblem;
    try {
        (void)tpacf::readCatalog(badPath.toStdString(), options);
        QFAIL("the file reader took a Dec beyond the pole");
    } catch (const tpacf::InputError& e) {
        fileProblem = QString::fromUtf8(e.what());
    }
    const qsizetype at = fileProblem.indexOf(QStringLiteral("Dec "));
    QVERIFY2(at >= 0, qPrintable(fileProblem));
    const QString problem = fileProblem.mid(at);
    expectInputError(
        [&] {
            (void)tpacf::catalogFromCoordinates("memory", {fields[0].toDouble(), 0.0},
                                                {fields[1].toDouble(), beyond}, {}, {}, options);
        },
        QStringLiteral("memory"), 2, 0, problem + QStringLiteral(" (row 2)"));
}

void TestCatalogReader::raWrap_data() {
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("unit");
    QTest::addColumn<bool>("hours");
    QTest::addColumn<double>("expectedRadians");
    QTest::newRow("-10 deg") << QByteArray("-10 0") << "deg" << false << 350 * kDeg;
    QTest::newRow("360 deg") << QByteArray("360 0") << "deg" << false << 0.0;
    QTest::newRow("725 deg") << QByteArray("725 0") << "deg" << false << 5 * kDeg;
    QTest::newRow("-720 deg") << QByteArray("-720 0") << "deg" << false << 0.0;
    QTest::newRow("359.5 deg") << QByteArray("359.5 0") << "deg" << false << 359.5 * kDeg;
    QTest::newRow("25 h") << QByteArray("25 0") << "deg" << true << 15 * kDeg;
    QTest::newRow("-60 arcmin") << QByteArray("-60 0") << "arcmin" << false << 359 * kDeg;
    QTest::newRow("-0.5 rad") << QByteArray("-0.5 0") << "rad" << false << 2 * M_PI - 0.5;
}

void TestCatalogReader::raWrap() {
    QFETCH(QByteArray, content);
    QFETCH(QString, unit);
    QFETCH(bool, hours);
    QFETCH(double, expectedRadians);
    const QString path = writeFile(m_dir, QStringLiteral("wrap.txt"), content);
    const Catalog catalog =
        tpacf::readCatalog(path.toStdString(), makeOptions({}, {}, {}, unit, hours));
    QVERIFY(catalog.ra()[0] >= 0 && catalog.ra()[0] < 2 * M_PI);
    QVERIFY2(std::abs(catalog.ra()[0] - expectedRadians) < 1e-13,
             qPrintable(QString::number(catalog.ra()[0], 'g', 17)));
}

void TestCatalogReader::columns_data() {
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("ra");
    QTest::addColumn<QString>("dec");
    QTest::addColumn<QString>("weight");
    QTest::addColumn<QList<double>>("raDeg");
    QTest::addColumn<QList<double>>("decDeg");
    QTest::addColumn<QList<double>>("weights");
    const QByteArray named("id ra dec w\n1 10 20 0.5\n2 30 40 1.5\n");
    QTest::newRow("by name") << named << "ra"
                             << "dec"
                             << "w" << QList<double>{10, 30} << QList<double>{20, 40}
                             << QList<double>{0.5, 1.5};
    QTest::newRow("by name, other case")
        << named << "RA"
        << "Dec"
        << "W" << QList<double>{10, 30} << QList<double>{20, 40} << QList<double>{0.5, 1.5};
    QTest::newRow("by index, swapped")
        << QByteArray("20 10\n40 30\n") << "2"
        << "1"
        << "" << QList<double>{10, 30} << QList<double>{20, 40} << QList<double>{};
    QTest::newRow("header names by default")
        << QByteArray("id z ra dec\n1 0.1 10 20\n2 0.2 30 40\n") << ""
        << ""
        << "" << QList<double>{10, 30} << QList<double>{20, 40} << QList<double>{};
    QTest::newRow("first numeric by default")
        << QByteArray("gal1 10 20\ngal2 30 40\n") << ""
        << ""
        << "" << QList<double>{10, 30} << QList<double>{20, 40} << QList<double>{};
    QTest::newRow("RA by index, Dec first free")
        << QByteArray("5 10 20\n6 30 40\n") << "2"
        << ""
        << "" << QList<double>{10, 30} << QList<double>{5, 6} << QList<double>{};
    QTest::newRow("csv names with blanks")
        << QByteArray("id, Dec (deg), RA (deg)\n1, 20, 10\n2, 40, 30\n") << "RA (deg)"
        << "Dec (deg)"
        << "id" << QList<double>{10, 30} << QList<double>{20, 40} << QList<double>{1, 2};
    // Issue 35, item 11: names written as a comment right above the data are a header.
    QTest::newRow("header as a comment, by default")
        << QByteArray("# made by a survey pipeline\n# z ra dec\n0.1 10 20\n0.2 30 40\n") << ""
        << ""
        << "" << QList<double>{10, 30} << QList<double>{20, 40} << QList<double>{};
    QTest::newRow("header as a comment, by name")
        << QByteArray("#dec ra w\n\n20 10 0.5\n40 30 1.5\n") << "ra"
        << "dec"
        << "w" << QList<double>{10, 30} << QList<double>{20, 40} << QList<double>{0.5, 1.5};
    QTest::newRow("a comment in prose is no header")
        << QByteArray("# RA and Dec in degrees\n10 20\n30 40\n") << ""
        << ""
        << "" << QList<double>{10, 30} << QList<double>{20, 40} << QList<double>{};
    QTest::newRow("a comment of values is no header")
        << QByteArray("# epoch 2000\n10 20\n30 40\n") << ""
        << ""
        << "" << QList<double>{10, 30} << QList<double>{20, 40} << QList<double>{};
    QTest::newRow("weight by index")
        << QByteArray("10 20 2.5\n30 40 -1\n") << ""
        << ""
        << "3" << QList<double>{10, 30} << QList<double>{20, 40} << QList<double>{2.5, -1};
    // Named columns: ra/dec, else the one name that starts with an RA (Dec) word.
    QTest::newRow("DESI-like names by default")
        << QByteArray("targetid z ra_j2000 dec_j2000\n396 0.1 10 20\n397 0.2 30 40\n") << ""
        << ""
        << "" << QList<double>{10, 30} << QList<double>{20, 40} << QList<double>{};
    QTest::newRow("SExtractor names by default")
        << QByteArray("NUMBER ALPHA_J2000 DELTA_J2000\n1 10 20\n2 30 40\n") << ""
        << ""
        << "" << QList<double>{10, 30} << QList<double>{20, 40} << QList<double>{};
    QTest::newRow("VizieR names by default")
        << QByteArray("RAJ2000,DEJ2000,Vmag\n10,20,5\n30,40,6\n") << ""
        << ""
        << "" << QList<double>{10, 30} << QList<double>{20, 40} << QList<double>{};
    QTest::newRow("'RA (deg)' names by default")
        << QByteArray("id, Dec (deg), RA (deg)\n1, 20, 10\n2, 40, 30\n") << ""
        << ""
        << "" << QList<double>{10, 30} << QList<double>{20, 40} << QList<double>{};
    QTest::newRow("exact name wins over RA-like names")
        << QByteArray("ra_err ra dec dec_err\n0.1 10 20 0.2\n0.1 30 40 0.2\n") << ""
        << ""
        << "" << QList<double>{10, 30} << QList<double>{20, 40} << QList<double>{};
    QTest::newRow("DESI-like upper case by default")
        << QByteArray("TARGETID Z RA_J2000 DEC_J2000\n39627 0.5 10 20\n39628 0.7 30 40\n") << ""
        << ""
        << "" << QList<double>{10, 30} << QList<double>{20, 40} << QList<double>{};
    QTest::newRow("RA_DEG DEC_DEG by default")
        << QByteArray("ID RA_DEG DEC_DEG\n1 10 20\n2 30 40\n") << ""
        << ""
        << "" << QList<double>{10, 30} << QList<double>{20, 40} << QList<double>{};
    QTest::newRow("Gaia RA_ICRS DE_ICRS by default")
        << QByteArray("Source,RA_ICRS,DE_ICRS\n7,10,20\n8,30,40\n") << ""
        << ""
        << "" << QList<double>{10, 30} << QList<double>{20, 40} << QList<double>{};
    QTest::newRow("VizieR _RAJ2000 _DEJ2000 by default")
        << QByteArray("_RAJ2000 _DEJ2000 Vmag\n10 20 5\n30 40 6\n") << ""
        << ""
        << "" << QList<double>{10, 30} << QList<double>{20, 40} << QList<double>{};
    QTest::newRow("VizieR RAdeg DEdeg by default")
        << QByteArray("Seq\tRAdeg\tDEdeg\n1\t10\t20\n2\t30\t40\n") << ""
        << ""
        << "" << QList<double>{10, 30} << QList<double>{20, 40} << QList<double>{};
    QTest::newRow("Ra Dec in mixed case by default")
        << QByteArray("Dec Ra\n20 10\n40 30\n") << ""
        << ""
        << "" << QList<double>{10, 30} << QList<double>{20, 40} << QList<double>{};
    // Without a header: the first two columns; text id columns that stay text are stepped over,
    // also ids that start with a digit (2MASS), since every row holds text there.
    QTest::newRow("no header: first two columns")
        << QByteArray("10 20 5 6\n30 40 7 8\n") << ""
        << ""
        << "" << QList<double>{10, 30} << QList<double>{20, 40} << QList<double>{};
    QTest::newRow("no header: 2MASS ids stay text")
        << QByteArray("2MASSJ0001+01 10 20\n2MASSJ0002+02 30 40\n") << ""
        << ""
        << "" << QList<double>{10, 30} << QList<double>{20, 40} << QList<double>{};
    QTest::newRow("index and name mixed")
        << QByteArray("a b c\n20 10 1\n40 30 2\n") << "2"
        << "1"
        << "c" << QList<double>{10, 30} << QList<double>{20, 40} << QList<double>{1, 2};
}

void TestCatalogReader::columns() {
    QFETCH(QByteArray, content);
    QFETCH(QString, ra);
    QFETCH(QString, dec);
    QFETCH(QString, weight);
    QFETCH(QList<double>, raDeg);
    QFETCH(QList<double>, decDeg);
    QFETCH(QList<double>, weights);
    const QString path = writeFile(m_dir, QStringLiteral("columns.txt"), content);
    const Catalog catalog = tpacf::readCatalog(path.toStdString(), makeOptions(ra, dec, weight));
    compareDegrees(catalog.ra(), raDeg);
    compareDegrees(catalog.dec(), decDeg);
    QCOMPARE(catalog.hasWeights(), !weights.isEmpty());
    for (qsizetype i = 0; i < weights.size(); ++i)
        QCOMPARE(catalog.weight()[i], weights[i]);
}

void TestCatalogReader::asciiErrors_data() {
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("ra");
    QTest::addColumn<QString>("dec");
    QTest::addColumn<QString>("weight");
    QTest::addColumn<QString>("unit");
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("column");
    QTest::addColumn<QString>("mentions");
    const QString none;
    const QString deg = QStringLiteral("deg");
    QTest::newRow("non-numeric Dec") << QByteArray("10 20\n30 abc\n") << none << none << none << deg
                                     << 2 << 2 << "'abc' is not a number";
    // Skipping the empty field would read Dec from the third column without a word.
    QTest::newRow("empty field in the first row")
        << QByteArray("10,,20\n11,21,22\n") << none << none << none << deg << 1 << 2
        << "Dec value is an empty field";
    QTest::newRow("non-numeric RA after comments")
        << QByteArray("# h\n\n10 20\n3O.5 40\n") << none << none << none << deg << 4 << 1
        << "'3O.5' is not a number";
    QTest::newRow("second header line") << QByteArray("ra dec\nra dec\n10 20\n") << none << none
                                        << none << deg << 2 << 1 << "'ra' is not a number";
    QTest::newRow("too few columns") << QByteArray("10 20\n30\n") << none << none << none << deg
                                     << 2 << 2 << "the line has 1, but Dec is column 2";
    QTest::newRow("too few for the weight")
        << QByteArray("10 20 1\n30 40\n") << none << none << "3" << deg << 2 << 3
        << "the line has 2, but the weight is column 3";
    QTest::newRow("single column")
        << QByteArray("1.5\n2.5\n") << none << none << none << deg << 1 << 0 << "too few columns";
    QTest::newRow("Dec above 90") << QByteArray("10 20\n10 95.3\n") << none << none << none << deg
                                  << 2 << 2 << "Dec 95.3 deg is outside [-90, 90]";
    QTest::newRow("Dec below -90, csv")
        << QByteArray("ra,dec\n10,-90.001\n") << none << none << none << deg << 2 << 2
        << "Dec -90.001 deg is outside [-90, 90]";
    QTest::newRow("Dec beyond 5400 arcmin") << QByteArray("0 5400.5\n") << none << none << none
                                            << "arcmin" << 1 << 2 << "Dec 5400.5 arcmin is outside";
    QTest::newRow("Dec beyond pi/2 rad") << QByteArray("0 1.6\n") << none << none << none << "rad"
                                         << 1 << 2 << "Dec 1.6 rad is outside [-pi/2, pi/2]";
    QTest::newRow("nan Dec") << QByteArray("10 nan\n") << none << none << none << deg << 1 << 2
                             << "'nan' is not finite";
    QTest::newRow("inf RA") << QByteArray("10 20\ninf 20\n") << none << none << none << deg << 2
                            << 1 << "'inf' is not finite";
    QTest::newRow("overflowing RA") << QByteArray("1e999 20\n") << none << none << none << deg << 1
                                    << 1 << "'1e999' is out of the range";
    QTest::newRow("empty field") << QByteArray("10,20\n30,,40\n") << none << none << none << deg
                                 << 2 << 2 << "empty field";
    QTest::newRow("nan weight") << QByteArray("10 20 nan\n") << none << none << "3" << deg << 1 << 3
                                << "weight value 'nan' is not finite";
    QTest::newRow("text weight") << QByteArray("10 20 1\n10 20 heavy\n") << none << none << "3"
                                 << deg << 2 << 3 << "'heavy' is not a number";
    QTest::newRow("unknown header name") << QByteArray("ra dec\n10 20\n") << "alpha" << none << none
                                         << deg << 1 << 0 << "available: ra, dec";
    QTest::newRow("unknown weight name") << QByteArray("# x\nra dec\n10 20\n") << none << none
                                         << "w" << deg << 2 << 0 << "no column named 'w'";
    QTest::newRow("name without header")
        << QByteArray("10 20\n") << none << "dec" << none << deg << 1 << 0 << "no header line";
    QTest::newRow("index beyond columns")
        << QByteArray("10 20\n") << none << "5" << none << deg << 1 << 5 << "only 2 columns";
    QTest::newRow("weight index beyond columns") << QByteArray("ra dec\n10 20\n") << none << none
                                                 << "4" << deg << 2 << 4 << "only 2 columns";
    QTest::newRow("count line too large")
        << QByteArray("3\n10 20\n30 40\n") << none << none << none << deg << 1 << 1
        << "count line says 3 rows, but the file holds 2";
    QTest::newRow("count line too small") << QByteArray("# x\n1\n10 20\n30 40\n") << none << none
                                          << none << deg << 2 << 1 << "says 1 rows";
    QTest::newRow("binary data") << QByteArray("10 20\n30 \0 40\n", 13) << none << none << none
                                 << deg << 2 << 0 << "binary data";
    // A first line of numbers from_chars refuses is bad data, not a header to drop.
    QTest::newRow("hex floats on the first line")
        << QByteArray("0x1p3 0x1p4\n10 20\n") << none << none << none << deg << 1 << 1
        << "'0x1p3' is not a number (hexadecimal";
    QTest::newRow("lone signs on the first line") << QByteArray("+ -\n10 20\n") << none << none
                                                  << none << deg << 1 << 1 << "'+' is not a number";
    QTest::newRow("stray dots on the first line")
        << QByteArray("1.2.3 4\n10 20\n") << none << none << none << deg << 1 << 1 << "'1.2.3'";
    // A decimal comma turns "12,5 30,1" into the fields "12", "5 30", "1": never four numbers.
    QTest::newRow("decimal comma") << QByteArray("12,5 30,1\n13,5 31,1\n") << none << none << none
                                   << deg << 1 << 2 << "'5 30' is not a number (blanks inside";
    QTest::newRow("decimal comma, Dec only")
        << QByteArray("10.5 30,1\n") << none << none << none << deg << 1 << 1 << "'10.5 30'";
    QTest::newRow("sexagesimal") << QByteArray("12:30:00 +12:00:00\n") << none << none << none
                                 << deg << 1 << 1 << "(sexagesimal";
    QTest::newRow("semicolons, not skipped as text")
        << QByteArray("gal1 10 5;6\n") << none << none << none << deg << 1 << 3 << "'5;6'";
    QTest::newRow("UTF-16 byte order mark") << QByteArray("\xFF\xFE"
                                                          "1\0 \0"
                                                          "2\0\n\0",
                                                          10)
                                            << none << none << none << deg << 1 << 0 << "UTF-16";
    QTest::newRow("gzip data") << QByteArray("\x1F\x8B\x08\0\0\0", 6) << none << none << none << deg
                               << 1 << 0 << "gzip-compressed";
    // Formats not read, named by their first bytes with what to do, never "a NUL byte" or
    // "<?xml" as a column name.
    QTest::newRow("Parquet") << QByteArray("PAR1\x15\x04\x15\0\0", 9) << none << none << none
                             << deg << 1 << 0 << "is a Parquet file, which is not read";
#ifdef TPACF_TEST_HAVE_HDF5
    // Read by the HDF5 reader (under any name, by its signature), which finds it damaged.
    QTest::newRow("HDF5") << QByteArray("\x89HDF\r\n\x1A\n\0\0\0", 11) << none << none << none
                          << deg << 0 << 0 << "cannot open as HDF5 (a damaged or truncated file)";
#else
    QTest::newRow("HDF5") << QByteArray("\x89HDF\r\n\x1A\n\0\0\0", 11) << none << none << none
                          << deg << 1 << 0 << "is an HDF5 file, and this build reads none";
#endif
    QTest::newRow("NumPy .npy") << QByteArray("\x93NUMPY\x01\0v\0", 10) << none << none << none
                                << deg << 1 << 0 << "(numpy.savetxt)";
    QTest::newRow("VOTable") << QByteArray("<?xml version=\"1.0\"?>\n<VOTABLE version=\"1.4\">\n")
                             << none << none << none << deg << 1 << 0
                             << "is a VOTable (XML), which is not read as a catalog";
    QTest::newRow("VOTable after blanks, no declaration")
        << QByteArray("\n  <VOTABLE>\n<RESOURCE>\n") << none << none << none << deg << 1 << 0
        << "stilts tcopy in=cat.vot out=cat.fits";
    QTest::newRow("ZIP archive") << QByteArray("PK\x03\x04\x14\0\0\0", 8) << none << none
                                 << none << deg << 1 << 0 << "is a ZIP archive";
    // Named columns, none or several like RA: ask rather than take the first numeric column.
    QTest::newRow("header without RA") << QByteArray("x y\n10 20\n") << none << none << none << deg
                                       << 1 << 0 << "cannot tell which column holds RA";
    QTest::newRow("header without Dec") << QByteArray("ra y\n10 20\n") << none << none << none
                                        << deg << 1 << 0 << "cannot tell which column holds Dec";
    QTest::newRow("header with two RA-like columns")
        << QByteArray("ra_j2000 ra_b1950 dec\n10 11 20\n") << none << none << none << deg << 1 << 0
        << "'ra_j2000' and 'ra_b1950' both could";
    // A text column stepped over in the first row must stay text, or RA came from elsewhere.
    QTest::newRow("text column then a number")
        << QByteArray("abc 10 20\n5 11 21\n") << none << none << none << deg << 2 << 1
        << "held text in the first row";
    // Issue 14: columns that cannot be misread. Names that do not say RA and Dec are refused
    // with every column listed and the flags to give, never TARGETID read as RA.
    QTest::newRow("DESI-like header without RA-like names")
        << QByteArray("TARGETID Z X Y\n39627 0.5 10 20\n") << none << none << none << deg << 1 << 0
        << "cannot tell which column holds RA: none is named ra or like it";
    QTest::newRow("DESI-like header: columns listed, flags asked")
        << QByteArray("TARGETID Z X Y\n39627 0.5 10 20\n") << none << none << none << deg << 1 << 0
        << "(--ra-col/--dec-col); columns: TARGETID, Z, X, Y";
    QTest::newRow("two RA-like names: columns listed")
        << QByteArray("RA_J2000 RA_B1950 DEC\n10 11 20\n") << none << none << none << deg << 1 << 0
        << "both could; choose the RA and Dec columns by name or 1-based number "
           "(--ra-col/--dec-col); columns: RA_J2000, RA_B1950, DEC";
    QTest::newRow("Dec not named, after comments")
        << QByteArray("# x\n\nRA_J2000 Y\n10 20\n") << none << none << none << deg << 3 << 0
        << "cannot tell which column holds Dec";
    // A typo in the first row is a bad number there, not a header nor a text column to step
    // over (which would read RA from column 2 and Dec from column 3).
    QTest::newRow("typo in row 1 of a headerless file")
        << QByteArray("1O.5 3.4 0.7\n10.5 3.5 0.8\n10.6 3.6 0.9\n") << none << none << none << deg
        << 1 << 1 << "RA value '1O.5' is not a number; the rows after it hold numbers";
    QTest::newRow("typo in row 1, one later row")
        << QByteArray("1O.5 3.4 0.7\n10.5 3.5 0.8\n") << none << none << none << deg << 1 << 1
        << "RA value '1O.5' is not a number";
    QTest::newRow("typo in the only row") << QByteArray("1O.5 3.4 0.7\n") << none << none << none
                                          << deg << 1 << 1 << "RA value '1O.5' is not a number";
    QTest::newRow("typo in row 1, Dec column")
        << QByteArray("# c\n10.5 3.4O 0.7\n10.6 3.5 0.8\n") << none << none << none << deg << 2 << 2
        << "Dec value '3.4O' is not a number";
    QTest::newRow("typo in row 1 after a count line")
        << QByteArray("2\n1O.5 3.4\n10.5 3.5\n") << none << none << none << deg << 2 << 1
        << "'1O.5' is not a number";
    QTest::newRow("typos only in row 1: not a header")
        << QByteArray("1O.5 2O.1\n10 20\n11 21\n") << none << none << none << deg << 1 << 1
        << "RA value '1O.5' is not a number";
    // A word is a text column; a later row with a number there names both rows.
    QTest::newRow("word in row 1, numbers in every later row")
        << QByteArray("abc 10 20\n5 11 21\n6 12 22\n") << none << none << none << deg << 2 << 1
        << "held text in the first row (line 1)";
    QTest::newRow("id starting with a digit, then a number")
        << QByteArray("2MASSJ1 10 20\n2MASSJ2 11 21\n5 12 22\n") << none << none << none << deg << 3
        << 1 << "held text in the first row (line 1)";
    QTest::newRow("typo in row 1 of a csv")
        << QByteArray("1O.5,3.4\r\n10.5,3.5\r\n") << none << none << none << deg << 1 << 1
        << "'1O.5' is not a number";
    // Lone CR line ends count as line ends in the places errors name.
    QTest::newRow("lone CR: bad value on line 2")
        << QByteArray("10 20\r30 x\r") << none << none << none << deg << 2 << 2
        << "Dec value 'x' is not a number";
    QTest::newRow("lone CR: blank line counted")
        << QByteArray("10 20\r\r30 40\r31 4O\r") << none << none << none << deg << 4 << 2
        << "'4O' is not a number";
    QTest::newRow("lone CR: typo in row 1") << QByteArray("1O.5 3.4\r10.5 3.5\r") << none << none
                                            << none << deg << 1 << 1 << "'1O.5' is not a number";
    // Decimal commas: never three (or four) silently wrong numbers.
    QTest::newRow("decimal comma '10,5 1,2'")
        << QByteArray("10,5 1,2\n11,5 2,2\n") << none << none << none << deg << 1 << 2
        << "'5 1' is not a number (blanks inside a comma-separated field: a decimal comma?";
    QTest::newRow("decimal comma, tab separated")
        << QByteArray("10,5\t1,2\n") << none << none << none << deg << 1 << 2 << "decimal comma";
    QTest::newRow("decimal comma, csv field count doubles")
        << QByteArray("ra,dec\n10,5,1,2\n11,5,-2,25\n") << none << none << none << deg << 2 << 0
        << "4 comma-separated whole numbers where the header (line 1) names 2 columns: decimal "
           "commas (10,5 for 10.5)?";
    QTest::newRow("decimal comma, doubles under a blank-separated header")
        << QByteArray("# c\nRA DEC\n-10,5,+1,2,\n") << none << none << none << deg << 3 << 0
        << "decimal commas";
    QTest::newRow("decimal comma, semicolon separated")
        << QByteArray("10,5;1,2\n") << none << none << none << deg << 1 << 2
        << "'5;1' is not a number (semicolons do not separate fields";
    QTest::newRow("sexagesimal with letters")
        << QByteArray("12h30m00s +12d00m00s\n12h31m00s +12d01m00s\n") << none << none << none << deg
        << 1 << 1 << "'12h30m00s' is not a number (sexagesimal";
    QTest::newRow("empty file") << QByteArray() << none << none << none << deg << 0 << 0
                                << "no data rows";
    QTest::newRow("only comments") << QByteArray("# a\n\n  # b\n\r\n") << none << none << none
                                   << deg << 0 << 0 << "no data rows";
    QTest::newRow("header only") << QByteArray("ra dec\n") << none << none << none << deg << 0 << 0
                                 << "no data rows after its header";
    QTest::newRow("count line only") << QByteArray("5\n") << none << none << none << deg << 0 << 0
                                     << "no data rows after its count line";
}

void TestCatalogReader::asciiErrors() {
    QFETCH(QByteArray, content);
    QFETCH(QString, ra);
    QFETCH(QString, dec);
    QFETCH(QString, weight);
    QFETCH(QString, unit);
    QFETCH(int, line);
    QFETCH(int, column);
    QFETCH(QString, mentions);
    const QString path = writeFile(m_dir, QStringLiteral("bad.txt"), content);
    const ReadOptions options = makeOptions(ra, dec, weight, unit);
    expectInputError([&] { (void)tpacf::readCatalog(path.toStdString(), options); }, path, line,
                     column, mentions);
}

void TestCatalogReader::ecsvUnits_data() {
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("unit");    // --coord-unit
    QTest::addColumn<bool>("hours");      // --ra-hours
    QTest::addColumn<QString>("problem"); // empty: RA 15°, Dec 30° and RA 300°, Dec −45°
    const QByteArray flow = "# %ECSV 1.0\n# ---\n# datatype:\n";
    QTest::newRow("deg") << flow + "# - {name: ra, unit: deg, datatype: float64}\n"
                                   "# - {name: dec, unit: deg, datatype: float64}\n"
                                   "# schema: astropy-2.0\nra dec\n15 30\n300 -45\n"
                         << "deg" << false << QString();
    QTest::newRow("rad, with the default --coord-unit")
        << flow + "# - {name: ra, unit: rad, datatype: float64}\n"
                  "# - {name: dec, unit: rad, datatype: float64}\nra dec\n"
                  "0.26179938779914941 0.52359877559829882\n5.2359877559829888 "
                  "-0.78539816339744828\n"
        << "deg" << false << QString();
    QTest::newRow("hourangle and arcmin, comma-delimited, block style, quoted")
        << flow + "# - name: ra\n#   unit: hourangle\n#   datatype: float64\n"
                  "# - name: dec\n#   unit: 'arcmin'\n#   datatype: float64\n"
                  "# - {name: z, datatype: float64}\n# delimiter: ','\nra,dec,z\n"
                  "1,1800,0.5\n20,-2700,0.7\n"
        << "deg" << false << QString();
    QTest::newRow("no units: the flags decide")
        << flow + "# - {name: ra, datatype: float64}\n# - {name: dec, datatype: float64}\n"
                  "ra dec\n0.26179938779914941 0.52359877559829882\n5.2359877559829888 "
                  "-0.78539816339744828\n"
        << "rad" << false << QString();
    QTest::newRow("--coord-unit against the file")
        << flow + "# - {name: ra, unit: deg, datatype: float64}\n"
                  "# - {name: dec, unit: deg, datatype: float64}\nra dec\n15 30\n"
        << "arcmin" << false << QStringLiteral("--coord-unit arcmin, but the ECSV header gives");
    QTest::newRow("--ra-hours against the file")
        << flow + "# - {name: ra, unit: deg, datatype: float64}\n"
                  "# - {name: dec, unit: deg, datatype: float64}\nra dec\n15 30\n"
        << "deg" << true << QStringLiteral("--ra-hours, but the ECSV header gives RA");
    QTest::newRow("a unit that is no angle")
        << flow + "# - {name: ra, unit: km, datatype: float64}\n"
                  "# - {name: dec, unit: deg, datatype: float64}\nra dec\n15 30\n"
        << "deg" << false << QStringLiteral("the unit 'km', which is no angle");
    QTest::newRow("two angle units")
        << flow + "# - {name: ra, unit: deg, datatype: float64}\n"
                  "# - {name: dec, unit: rad, datatype: float64}\nra dec\n15 0.5\n"
        << "deg" << false << QStringLiteral("one angle unit for both");
}

// An ECSV catalog's column units are honoured: the same sky in every unit the file may state
// (against the radians computed here), and a contradiction with the flags is an error.
void TestCatalogReader::ecsvUnits() {
    QFETCH(QByteArray, content);
    QFETCH(QString, unit);
    QFETCH(bool, hours);
    QFETCH(QString, problem);
    const QString path = writeFile(m_dir, QStringLiteral("units.ecsv"), content);
    ReadOptions options;
    options.coordUnit = *tpacf::parseAngleUnit(unit.toStdString());
    options.raInHours = hours;
    if (!problem.isEmpty()) {
        expectInputError([&] { (void)tpacf::readCatalog(path.toStdString(), options); }, path, 0,
                         0, problem);
        return;
    }
    const Catalog catalog = tpacf::readCatalog(path.toStdString(), options);
    QCOMPARE(catalog.size(), std::size_t(2));
    const double degree = tpacf::kPi / 180;
    const double ra[] = {15 * degree, 300 * degree}, dec[] = {30 * degree, -45 * degree};
    for (std::size_t i = 0; i < 2; ++i) {
        QVERIFY2(std::abs(catalog.ra()[i] - ra[i]) <= 1e-15 * std::abs(ra[i]),
                 qPrintable(QString::number(catalog.ra()[i], 'g', 17)));
        QVERIFY2(std::abs(catalog.dec()[i] - dec[i]) <= 1e-15 * std::abs(dec[i]),
                 qPrintable(QString::number(catalog.dec()[i], 'g', 17)));
    }
}

void TestCatalogReader::missingAndDirectory() {
    const QString missing = m_dir.filePath(QStringLiteral("nope.txt"));
    expectInputError([&] { (void)tpacf::readCatalog(missing.toStdString()); }, missing, 0, 0,
                     QStringLiteral("does not exist"));
    const QString directory = m_dir.filePath(QStringLiteral("adir"));
    QVERIFY(QDir().mkpath(directory));
    expectInputError([&] { (void)tpacf::readAsciiCatalog(directory.toStdString()); }, directory, 0,
                     0, QStringLiteral("directory"));
}

// Only regular files are read: what else a path names is said, and nothing blocks or never ends.
void TestCatalogReader::notRegularFiles_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("mentions");
    QTest::newRow("FIFO without writer") << "fifo"
                                         << "FIFO";
    QTest::newRow("/dev/zero") << "/dev/zero"
                               << "character device";
    QTest::newRow("/dev/null") << "/dev/null"
                               << "character device";
    QTest::newRow("symbolic link loop") << "loop"
                                        << "symbolic link loop";
    QTest::newRow("dangling symbolic link") << "dangling"
                                            << "symbolic link to a file that does not exist";
    QTest::newRow("empty path") << ""
                                << "the file name is empty";
    QTest::newRow("a file as a folder") << "notdir"
                                        << "is a file, not a directory";
    QTest::newRow("/proc file of size 0") << "/proc/self/status"
                                          << "says it is empty but has content";
}

void TestCatalogReader::notRegularFiles() {
    QFETCH(QString, kind);
    QFETCH(QString, mentions);
    QString path = kind;
    const QString dir = m_dir.filePath(QStringLiteral("special-") + QString::number(qHash(kind)));
    QVERIFY(QDir().mkpath(dir));
    if (kind == QLatin1String("fifo")) {
        path = dir + QStringLiteral("/fifo.txt");
        QCOMPARE(::mkfifo(QFile::encodeName(path).constData(), 0600), 0);
    } else if (kind == QLatin1String("loop")) {
        path = dir + QStringLiteral("/a.txt");
        QVERIFY(QFile::link(dir + QStringLiteral("/b.txt"), path));
        QVERIFY(QFile::link(path, dir + QStringLiteral("/b.txt")));
    } else if (kind == QLatin1String("dangling")) {
        path = dir + QStringLiteral("/link.txt");
        QVERIFY(QFile::link(dir + QStringLiteral("/gone.txt"), path));
    } else if (kind == QLatin1String("notdir")) {
        path = writeFile(m_dir, QStringLiteral("plain.txt"), "10 20\n") + QStringLiteral("/x.txt");
    }
    expectInputError([&] { (void)tpacf::readCatalog(path.toStdString()); }, path, 0, 0, mentions);
    expectInputError([&] { (void)tpacf::previewCatalogFile(path.toStdString()); }, path, 0, 0,
                     mentions);
    if (kind == QLatin1String("fifo") && tpacf::fitsSupported()) {
        // The FITS reader checks alike: a .fits link to the FIFO.
        const QString link = dir + QStringLiteral("/fifo.fits");
        QVERIFY(QFile::link(path, link));
        expectInputError([&] { (void)tpacf::readCatalog(link.toStdString()); }, link, 0, 0,
                         mentions);
    }
}

// A 1 MB field or header name is quoted by its first characters and its size, not whole.
void TestCatalogReader::longFieldsAreCapped() {
    const QByteArray huge(1 << 20, 'x');
    const std::pair<QByteArray, std::string> cases[] = {
        {"10 20\n11 " + huge + "\n", ""},
        {"10 " + QByteArray(1 << 20, '9') + "\n", ""},
        {huge + " y\n10 20\n", ""},
        {"ra dec\n10 20\n", std::string(1 << 20, 'w')}};
    for (const auto& [content, weight] : cases) {
        const QString path = writeFile(m_dir, QStringLiteral("long.txt"), content);
        ReadOptions options;
        if (!weight.empty())
            options.weightColumn = ColumnRef::parse(weight);
        try {
            (void)tpacf::readCatalog(path.toStdString(), options);
            QFAIL("read without error");
        } catch (const tpacf::InputError& e) {
            const QString message = QString::fromStdString(e.what());
            QVERIFY2(message.size() < 400 + path.size(), qPrintable(message.left(400)));
            QVERIFY2(message.contains(QLatin1String("...")), qPrintable(message)); // where cut
        }
    }
}

// A set cancel token stops any read with Cancelled; a clear one changes nothing.
void TestCatalogReader::cancelledRead() {
    QByteArray text;
    for (int i = 0; i < 200000; ++i)
        text += QByteArray::number(i % 360) + " " + QByteArray::number(i % 90) + "\n";
    QList<QString> paths{writeFile(m_dir, QStringLiteral("cancel.txt"), text)};
    if (tpacf::fitsSupported()) {
        paths << writeFile(m_dir, QStringLiteral("cancel.fits"), fitsFile(standardFitsColumns()));
        paths << writeFile(m_dir, QStringLiteral("cancel.fits.gz"),
                           gzipStored(fitsFile(standardFitsColumns())));
    }
    for (const QString& path : paths) {
        std::atomic<bool> cancel{false};
        ReadOptions options;
        options.cancelRequested = &cancel;
        QVERIFY(!tpacf::readCatalog(path.toStdString(), options).empty());
        cancel = true;
        QVERIFY_THROWS_EXCEPTION(tpacf::Cancelled, tpacf::readCatalog(path.toStdString(), options));
    }
}

void TestCatalogReader::parseFromMemory() {
    const Catalog catalog = tpacf::parseAsciiCatalog("1 2\n3 4\n", "memory");
    QCOMPARE(catalog.size(), std::size_t(2));
    QCOMPARE(QString::fromStdString(catalog.name()), QStringLiteral("memory"));
    compareDegrees(catalog.dec(), {2, 4});
    expectInputError([] { (void)tpacf::parseAsciiCatalog("1 2\n3 x\n", "memory"); },
                     QStringLiteral("memory"), 2, 2, QStringLiteral("'x'"));
    // The origin is filled from memory as from a file.
    const tpacf::CatalogOrigin& origin = catalog.origin();
    QCOMPARE(QString::fromStdString(origin.format), QStringLiteral("ascii"));
    QCOMPARE(QString::fromStdString(origin.raColumn), QStringLiteral("column 1"));
    QCOMPARE(QString::fromStdString(origin.decColumn), QStringLiteral("column 2"));
    QCOMPARE(QString::fromStdString(origin.columnChoice),
             QStringLiteral("first two columns (no header)"));
    QCOMPARE(origin.rows, std::uint64_t(2));
    const Catalog named = tpacf::parseAsciiCatalog("RA_J2000,DEC_J2000\n1,2\n", "memory");
    QCOMPARE(QString::fromStdString(named.origin().raColumn), QStringLiteral("RA_J2000"));
    QCOMPARE(QString::fromStdString(named.origin().columnChoice), QStringLiteral("header names"));
}

// CatalogOrigin says which columns were read, in which unit, how they were chosen, how many rows.
void TestCatalogReader::origin_data() {
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("ra");
    QTest::addColumn<QString>("dec");
    QTest::addColumn<QString>("weight");
    QTest::addColumn<QString>("region");
    QTest::addColumn<QString>("unit");
    QTest::addColumn<bool>("hours");
    // Expected: RA column, Dec column, weight column, region column, unit, choice, rows.
    QTest::addColumn<QByteArrayList>("expected");
    QTest::addColumn<int>("rows");
    const QString none;
    QTest::newRow("header names")
        << QByteArray("TARGETID Z RA_J2000 DEC_J2000\n1 0.5 10 20\n2 0.6 30 40\n") << none << none
        << none << none << "deg" << false
        << QByteArrayList{"RA_J2000", "DEC_J2000", "", "", "deg", "header names"} << 2;
    QTest::newRow("header as a comment")
        << QByteArray("# ra dec z\n10 20 0.5\n30 40 0.6\n") << none << none << none << none
        << "deg" << false << QByteArrayList{"ra", "dec", "", "", "deg", "header names"} << 2;
    QTest::newRow("no header") << QByteArray("10 20 3\n30 40 4\n50 60 5\n") << none << none << none
                               << none << "deg" << false
                               << QByteArrayList{"column 1", "column 2",
                                                 "",         "",
                                                 "deg",      "first two columns (no header)"}
                               << 3;
    QTest::newRow("no header, text id column")
        << QByteArray("gal1 10 20\ngal2 30 40\n") << none << none << none << none << "deg" << false
        << QByteArrayList{"column 2", "column 3", "",
                          "",         "deg",      "first two numeric columns (no header)"}
        << 2;
    QTest::newRow("weighted, header")
        << QByteArray("ra,dec,w\n10,20,0.5\n30,40,1.5\n") << none << none << "w" << none << "deg"
        << false << QByteArrayList{"ra", "dec", "w", "", "deg", "header names"} << 2;
    QTest::newRow("weighted, no header")
        << QByteArray("3\n10 20 0.5\n30 40 1.5\n31 41 1\n") << none << none << "3" << none
        << "arcmin" << false
        << QByteArrayList{"column 1", "column 2", "column 3",
                          "",         "arcmin",   "first two columns (no header)"}
        << 3;
    QTest::newRow("by flags, RA in hours")
        << QByteArray("a b c patch\n20 1 1 7\n40 2 2 8\n") << "2"
        << "a" << none << "patch"
        << "deg" << true << QByteArrayList{"b",
                                           "a",
                                           "",
                                           "patch",
                                           "RA in hours, Dec in deg",
                                           "named by --ra-col/--dec-col"}
        << 2;
    QTest::newRow("RA by flag, Dec by position")
        << QByteArray("0.5 1 20\n0.25 3 40\n") << "2" << none << none << "3"
        << "rad" << false
        << QByteArrayList{"column 2",
                          "column 1",
                          "",
                          "column 3",
                          "rad",
                          "RA named by --ra-col, Dec the first free numeric column (no header)"}
        << 2;
    QTest::newRow("Dec by flag, RA by header name")
        << QByteArray("ra d\n10 20\n") << none << "d" << none << none << "deg" << false
        << QByteArrayList{"ra", "d", "", "", "deg", "RA by header name, Dec named by --dec-col"}
        << 1;
}

void TestCatalogReader::origin() {
    QFETCH(QByteArray, content);
    QFETCH(QString, ra);
    QFETCH(QString, dec);
    QFETCH(QString, weight);
    QFETCH(QString, region);
    QFETCH(QString, unit);
    QFETCH(bool, hours);
    QFETCH(QByteArrayList, expected);
    QFETCH(int, rows);
    const QString path = writeFile(m_dir, QStringLiteral("origin.txt"), content);
    ReadOptions options = makeOptions(ra, dec, weight, unit, hours);
    if (!region.isEmpty())
        options.regionColumn = ColumnRef::parse(region.toStdString());
    const Catalog catalog = tpacf::readCatalog(path.toStdString(), options);
    const tpacf::CatalogOrigin& origin = catalog.origin();
    QVERIFY(origin.known());
    QCOMPARE(QString::fromStdString(origin.format), QStringLiteral("ascii"));
    QCOMPARE(QByteArray::fromStdString(origin.raColumn), expected[0]);
    QCOMPARE(QByteArray::fromStdString(origin.decColumn), expected[1]);
    QCOMPARE(QByteArray::fromStdString(origin.weightColumn), expected[2]);
    QCOMPARE(QByteArray::fromStdString(origin.regionColumn), expected[3]);
    QCOMPARE(QByteArray::fromStdString(origin.unit), expected[4]);
    QCOMPARE(QByteArray::fromStdString(origin.columnChoice), expected[5]);
    QVERIFY(origin.selection.empty());
    QCOMPARE(origin.rows, std::uint64_t(rows));
    QCOMPARE(origin.rows, std::uint64_t(catalog.size()));
    QCOMPARE(catalog.hasWeights(), !expected[2].isEmpty());
    QCOMPARE(catalog.region().empty(), expected[3].isEmpty());
}

void TestCatalogReader::randomRoundTrip() {
    // Seeded values written with 17 digits read back to the same doubles; RA spans several
    // turns so the wrap is exercised, and the unit vectors match an independent computation.
    std::mt19937_64 rng(987654321);
    std::uniform_real_distribution<double> raDist(-360.0, 720.0), decDist(-90.0, 90.0);
    QList<double> ra, dec, weight;
    QByteArray text("# seeded\nra,dec,w\n");
    for (int i = 0; i < 2000; ++i) {
        ra << raDist(rng);
        dec << decDist(rng);
        weight << std::ldexp(static_cast<double>(rng() % 1000), -3);
        text += QByteArray::number(ra.back(), 'g', 17) + ", " +
                QByteArray::number(dec.back(), 'g', 17) + "," +
                QByteArray::number(weight.back(), 'g', 17) + (i % 2 ? "\r\n" : "\n");
    }
    const QString path = writeFile(m_dir, QStringLiteral("random.csv"), text);
    const Catalog catalog =
        tpacf::readCatalog(path.toStdString(), makeOptions({}, {}, QStringLiteral("w")));
    QCOMPARE(catalog.size(), std::size_t(2000));
    for (int i = 0; i < 2000; ++i) {
        const long double a = ra[i] * kDegreeL, d = dec[i] * kDegreeL;
        QVERIFY(catalog.ra()[i] >= 0 && catalog.ra()[i] < 2 * M_PI);
        QVERIFY(std::abs(catalog.dec()[i] - static_cast<double>(d)) < 1e-15);
        QVERIFY(std::abs(catalog.x()[i] - static_cast<double>(std::cos(d) * std::cos(a))) < 1e-14);
        QVERIFY(std::abs(catalog.y()[i] - static_cast<double>(std::cos(d) * std::sin(a))) < 1e-14);
        QCOMPARE(catalog.weight()[i], weight[i]);
    }
}

// ---- dispatch and FITS -------------------------------------------------------------------

void TestCatalogReader::dispatchByExtension_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("fits");
    QTest::newRow(".txt") << "cat.txt" << false;
    QTest::newRow(".csv") << "cat.csv" << false;
    QTest::newRow("parboil .1") << "Datapnts.1" << false;
    QTest::newRow("no extension") << "catalog" << false;
    QTest::newRow(".fits") << "cat.fits" << true;
    QTest::newRow(".FITS") << "CAT.FITS" << true;
    QTest::newRow(".fit") << "cat.fit" << true;
    QTest::newRow(".Fts") << "cat.Fts" << true;
    QTest::newRow(".fits.gz") << "cat.fits.gz" << true;
    QTest::newRow(".fits.txt") << "cat.fits.txt" << false;
}

void TestCatalogReader::dispatchByExtension() {
    QFETCH(QString, name);
    QFETCH(bool, fits);
    // ASCII content: the ASCII reader reads it, the FITS reader refuses it as not FITS.
    const QString path = writeFile(m_dir, name, QByteArray("10 20\n30 40\n"));
    if (fits && tpacf::fitsSupported()) {
        expectInputError([&] { (void)tpacf::readCatalog(path.toStdString()); }, path, 0, 0,
                         QStringLiteral("FITS"));
    } else {
        const Catalog catalog = tpacf::readCatalog(path.toStdString());
        compareDegrees(catalog.ra(), {10, 30});
    }
}

void TestCatalogReader::fitsColumns_data() {
    QTest::addColumn<QString>("ra");
    QTest::addColumn<QString>("dec");
    QTest::addColumn<QString>("weight");
    QTest::addColumn<QString>("unit");
    QTest::addColumn<bool>("hours");
    QTest::addColumn<QList<double>>("raDeg");
    QTest::addColumn<QList<double>>("decDeg");
    QTest::addColumn<QList<double>>("weights");
    // standardFitsColumns(): ID, z, ra (10, 370, -5), Dec float (20, -90, 45.5), WEIGHT.
    QTest::newRow("default names, any case") << ""
                                             << ""
                                             << ""
                                             << "deg" << false << QList<double>{10, 10, 355}
                                             << QList<double>{20, -90, 45.5} << QList<double>{};
    QTest::newRow("by name with weight") << "RA"
                                         << "dec"
                                         << "weight"
                                         << "deg" << false << QList<double>{10, 10, 355}
                                         << QList<double>{20, -90, 45.5} << QList<double>{2, 3, 4};
    QTest::newRow("by index") << "2"
                              << "1"
                              << ""
                              << "deg" << false << QList<double>{0.1, 0.2, 0.3}
                              << QList<double>{1, 2, 3} << QList<double>{};
    QTest::newRow("arcmin") << ""
                            << ""
                            << ""
                            << "arcmin" << false
                            << QList<double>{10.0 / 60, 370.0 / 60, 360 - 5.0 / 60}
                            << QList<double>{20.0 / 60, -1.5, 45.5 / 60} << QList<double>{};
    QTest::newRow("hours") << ""
                           << ""
                           << ""
                           << "deg" << true << QList<double>{150, 150, 285}
                           << QList<double>{20, -90, 45.5} << QList<double>{};
}

void TestCatalogReader::fitsColumns() {
    QFETCH(QString, ra);
    QFETCH(QString, dec);
    QFETCH(QString, weight);
    QFETCH(QString, unit);
    QFETCH(bool, hours);
    QFETCH(QList<double>, raDeg);
    QFETCH(QList<double>, decDeg);
    QFETCH(QList<double>, weights);
    const QString path =
        writeFile(m_dir, QStringLiteral("table.fits"), fitsFile(standardFitsColumns()));
    const ReadOptions options = makeOptions(ra, dec, weight, unit, hours);
    if (!tpacf::fitsSupported()) {
        // Without cfitsio a .fits file goes to the ASCII reader, which must refuse it.
        QVERIFY_THROWS_EXCEPTION(tpacf::InputError,
                                 tpacf::readCatalog(path.toStdString(), options));
        return;
    }
    const Catalog catalog = tpacf::readCatalog(path.toStdString(), options);
    QCOMPARE(QString::fromStdString(catalog.name()), path);
    compareDegrees(catalog.ra(), raDeg);
    compareDegrees(catalog.dec(), decDeg);
    QCOMPARE(catalog.hasWeights(), !weights.isEmpty());
    for (qsizetype i = 0; i < weights.size(); ++i)
        QCOMPARE(catalog.weight()[i], weights[i]);
}

void TestCatalogReader::fitsGzip() {
    const QString path = writeFile(m_dir, QStringLiteral("table.fits.gz"),
                                   gzipStored(fitsFile(standardFitsColumns())));
    if (!tpacf::fitsSupported()) {
        QVERIFY_THROWS_EXCEPTION(tpacf::InputError, tpacf::readCatalog(path.toStdString()));
        return;
    }
    // Decompressed into a private folder under TMPDIR, which is gone afterwards.
    const QString tmp = m_dir.filePath(QStringLiteral("gz-tmp"));
    QVERIFY(QDir().mkpath(tmp));
    const QByteArray previous = qgetenv("TMPDIR");
    qputenv("TMPDIR", QFile::encodeName(tmp));
    const Catalog catalog = tpacf::readCatalog(path.toStdString());
    if (previous.isNull())
        qunsetenv("TMPDIR");
    else
        qputenv("TMPDIR", previous);
    compareDegrees(catalog.ra(), {10, 10, 355});
    compareDegrees(catalog.dec(), {20, -90, 45.5});
    QVERIFY(QDir(tmp).isEmpty(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot));
    // The same bytes under a .fits name: the gzip magic decides, not the name.
    const QString misnamed = writeFile(m_dir, QStringLiteral("gzipped.fits"),
                                       gzipStored(fitsFile(standardFitsColumns())));
    compareDegrees(tpacf::readCatalog(misnamed.toStdString()).ra(), {10, 10, 355});
}

// Jackknife labels from an integer (J) or float (E) column; a fractional label names its row.
void TestCatalogReader::fitsRegionColumn() {
    if (!tpacf::fitsSupported())
        QSKIP("built without cfitsio");
    const QList<FitsColumn> columns{{"RA", 'D', {1, 2, 3}},
                                    {"DEC", 'D', {0, 10, 20}},
                                    {"PATCH", 'J', {12, -4, 12}},
                                    {"ZONE", 'E', {1, 2.5, 3}}};
    const QString path = writeFile(m_dir, QStringLiteral("regions.fits"), fitsFile(columns));
    ReadOptions options;
    options.regionColumn = tpacf::ColumnRef::parse("patch");
    const Catalog catalog = tpacf::readCatalog(path.toStdString(), options);
    QCOMPARE(std::vector<std::int32_t>(catalog.region().begin(), catalog.region().end()),
             std::vector<std::int32_t>({12, -4, 12}));
    QVERIFY(tpacf::readCatalog(path.toStdString()).region().empty());
    options.regionColumn = tpacf::ColumnRef::parse("ZONE");
    try {
        tpacf::readCatalog(path.toStdString(), options);
        QFAIL("a fractional region label was accepted");
    } catch (const tpacf::InputError& e) {
        QCOMPARE(e.line(), 2L);
        QCOMPARE(e.column(), 4);
        QVERIFY(std::string(e.what()).find("2.5") != std::string::npos);
    }
    options.regionColumn = tpacf::ColumnRef::parse("nope");
    QVERIFY_THROWS_EXCEPTION(tpacf::InputError, tpacf::readCatalog(path.toStdString(), options));
}

void TestCatalogReader::fitsErrors_data() {
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("ra");
    QTest::addColumn<QString>("dec");
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("column");
    QTest::addColumn<QString>("mentions");
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const QString none;
    const QList<FitsColumn> outOfRange{{"RA", 'D', {1, 2, 3}}, {"DEC", 'D', {0, 10, 91}}};
    QTest::newRow("Dec out of range") << fitsFile(outOfRange) << none << none << 3 << 2
                                      << "row 3, column 'DEC': Dec 91 deg is outside [-90, 90]";
    const QList<FitsColumn> nanRa{{"RA", 'D', {1, nan, 3}}, {"DEC", 'E', {0, 10, 20}}};
    QTest::newRow("NaN RA") << fitsFile(nanRa) << none << none << 2 << 1
                            << "row 2, column 'RA': RA value";
    const QList<FitsColumn> plain{{"ID", 'J', {1}}, {"RA", 'D', {1}}, {"DEC", 'D', {2}}};
    QTest::newRow("unknown name") << fitsFile(plain) << "alpha" << none << 0 << 0
                                  << "available: ID, RA, DEC";
    QTest::newRow("index beyond") << fitsFile(plain) << none << "7" << 0 << 7 << "only 3 columns";
    const QList<FitsColumn> text{{"NAME", 'A', {1}}, {"RA", 'D', {1}}, {"DEC", 'D', {2}}};
    QTest::newRow("text column") << fitsFile(text) << "NAME" << none << 0 << 1
                                 << "does not hold one number per row";
    QTest::newRow("no table") << fitsFile({}, false) << none << none << 0 << 0 << "no binary table";
    const QList<FitsColumn> empty{{"RA", 'D', {}}, {"DEC", 'D', {}}};
    QTest::newRow("no rows") << fitsFile(empty) << none << none << 0 << 0 << "has no rows";
    QTest::newRow("not FITS") << QByteArray("10 20\n") << none << none << 0 << 0
                              << "cannot open as FITS";
    // Lying headers: NAXIS2 is checked against the file before anything is allocated.
    const QByteArray table = fitsFile(plain);
    QTest::newRow("NAXIS2 beyond the file")
        << withCard(table, "NAXIS2", 1000000000000000LL) << none << none << 0 << 0
        << "says 1000000000000000 rows of 20 bytes";
    const QList<FitsColumn> three{{"RA", 'D', {1, 2, 3}}, {"DEC", 'D', {0, 10, 20}}};
    QTest::newRow("NAXIS2 too small") << withCard(fitsFile(three), "NAXIS2", 2) << none << none << 0
                                      << 0 << "where only zero padding belongs";
    QTest::newRow("NAXIS1 wrong") << withCard(table, "NAXIS1", 40) << none << none << 0 << 0
                                  << "NAXIS1 = 40 is not equal to the sum of column widths";
    QTest::newRow("cut short") << table.left(2880 * 2 + 10) << none << none << 0 << 0
                               << "the file is cut short or NAXIS2 is wrong";
    QTest::newRow("zip compressed")
        << QByteArray("PK\x03\x04", 4) + table << none << none << 0 << 0 << "compressed (zip)";
    QTest::newRow("gzip damaged") << gzipStored(table).chopped(12) << none << none << 0 << 0
                                  << "the gzip data is damaged or cut short";
}

void TestCatalogReader::fitsErrors() {
    QFETCH(QByteArray, content);
    QFETCH(QString, ra);
    QFETCH(QString, dec);
    QFETCH(int, line);
    QFETCH(int, column);
    QFETCH(QString, mentions);
    const QString path = writeFile(m_dir, QStringLiteral("bad.fits"), content);
    const ReadOptions options = makeOptions(ra, dec);
    // Without cfitsio these files go to the ASCII reader, whose verdict on them is tested with
    // the dispatch; only the missing file is reported alike.
    if (tpacf::fitsSupported())
        expectInputError([&] { (void)tpacf::readCatalog(path.toStdString(), options); }, path, line,
                         column, mentions);
    const QString missing = m_dir.filePath(QStringLiteral("missing.fits"));
    expectInputError([&] { (void)tpacf::readCatalog(missing.toStdString()); }, missing, 0, 0,
                     QStringLiteral("does not exist"));
}

// Default columns of a FITS table: named RA/DEC, else the one RA-like (Dec-like) name.
void TestCatalogReader::fitsDefaultColumnsByName() {
    if (!tpacf::fitsSupported())
        QSKIP("built without cfitsio");
    const QList<FitsColumn> desi{{"TARGETID", 'J', {39627, 39628}},
                                 {"Z", 'D', {0.5, 0.7}},
                                 {"RA_J2000", 'D', {10, 30}},
                                 {"DEC_J2000", 'D', {20, 40}}};
    const QString path = writeFile(m_dir, QStringLiteral("desi.fits"), fitsFile(desi));
    const Catalog catalog = tpacf::readCatalog(path.toStdString());
    compareDegrees(catalog.ra(), {10, 30});
    compareDegrees(catalog.dec(), {20, 40});
    const QList<FitsColumn> unnamedLike{
        {"ID", 'J', {1, 2}}, {"X", 'D', {10, 30}}, {"Y", 'D', {20, 40}}};
    const QString other = writeFile(m_dir, QStringLiteral("xy.fits"), fitsFile(unnamedLike));
    expectInputError([&] { (void)tpacf::readCatalog(other.toStdString()); }, other, 0, 0,
                     QStringLiteral("cannot tell which column holds RA"));
}

// ---- ColumnRef and preview ---------------------------------------------------------------

void TestCatalogReader::columnRefParse_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("index");
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("described");
    QTest::newRow("index") << "3" << 3 << ""
                           << "column 3";
    QTest::newRow("large index") << "120" << 120 << ""
                                 << "column 120";
    QTest::newRow("name") << "dec" << 0 << "dec"
                          << "column 'dec'";
    QTest::newRow("digits then letters") << "3a" << 0 << "3a"
                                         << "column '3a'";
    QTest::newRow("name with minus") << "-ra" << 0 << "-ra"
                                     << "column '-ra'";
}

void TestCatalogReader::columnRefParse() {
    QFETCH(QString, text);
    QFETCH(int, index);
    QFETCH(QString, name);
    QFETCH(QString, described);
    const ColumnRef ref = ColumnRef::parse(text.toStdString());
    QCOMPARE(ref.index, index);
    QCOMPARE(QString::fromStdString(ref.name), name);
    QVERIFY(ref.isSet());
    QCOMPARE(QString::fromStdString(ref.describe()), described);
}

void TestCatalogReader::columnRefRejects_data() {
    QTest::addColumn<QString>("text");
    QTest::newRow("zero") << "0";
    QTest::newRow("negative") << "-2";
    QTest::newRow("empty") << "";
    QTest::newRow("overflowing") << "99999999999";
}

void TestCatalogReader::columnRefRejects() {
    QFETCH(QString, text);
    QVERIFY_THROWS_EXCEPTION(tpacf::ConfigError, ColumnRef::parse(text.toStdString()));
    QVERIFY(!ColumnRef{}.isSet());
}

void TestCatalogReader::previewAscii() {
    const QString path = writeFile(m_dir, QStringLiteral("preview.txt"),
                                   "# comment\n3\nra dec w\n1 2 3\n4,5,6 # c\n7 8 9\n");
    const tpacf::TablePreview preview = tpacf::previewCatalogFile(path.toStdString(), 2);
    QVERIFY(preview.hasCountLine);
    QVERIFY(preview.hasHeader);
    QCOMPARE(preview.columnNames, (std::vector<std::string>{"ra", "dec", "w"}));
    QCOMPARE(preview.columnCount, std::size_t(3));
    QCOMPARE(preview.rows.size(), std::size_t(2));
    QCOMPARE(preview.rows[1], (std::vector<std::string>{"4", "5", "6"}));
}

void TestCatalogReader::previewWithoutHeader() {
    const QString path = writeFile(m_dir, QStringLiteral("plain.csv"), "1,2\r\n3,4,5\r\n");
    const tpacf::TablePreview preview = tpacf::previewCatalogFile(path.toStdString());
    QVERIFY(!preview.hasHeader);
    QVERIFY(!preview.hasCountLine);
    QVERIFY(preview.columnNames.empty());
    QCOMPARE(preview.columnCount, std::size_t(3));
    QCOMPARE(preview.rows.size(), std::size_t(2));
    QCOMPARE(preview.rows[0], (std::vector<std::string>{"1", "2"}));
}

void TestCatalogReader::previewLargeFile() {
    // Larger than what the preview reads: every row it returns must be whole.
    QByteArray text;
    int rows = 0;
    while (text.size() < 3 * 1024 * 1024) {
        text += QByteArray::number(rows) + " " + QByteArray::number(1000000 + rows) + "\n";
        ++rows;
    }
    const QString path = writeFile(m_dir, QStringLiteral("large.txt"), text);
    const tpacf::TablePreview preview =
        tpacf::previewCatalogFile(path.toStdString(), std::size_t(rows) + 10);
    QVERIFY(preview.rows.size() > 1000);
    QVERIFY(preview.rows.size() <= std::size_t(rows));
    for (std::size_t i = 0; i < preview.rows.size(); ++i) {
        QCOMPARE(preview.rows[i].size(), std::size_t(2));
        QCOMPARE(preview.rows[i][1], std::to_string(1000000 + i));
    }
    QCOMPARE(tpacf::previewCatalogFile(path.toStdString(), 5).rows.size(), std::size_t(5));
}

void TestCatalogReader::previewFits() {
    const QString path =
        writeFile(m_dir, QStringLiteral("preview.fits"), fitsFile(standardFitsColumns()));
    if (!tpacf::fitsSupported()) {
        QVERIFY_THROWS_EXCEPTION(tpacf::InputError, tpacf::readCatalog(path.toStdString()));
        return;
    }
    const tpacf::TablePreview preview = tpacf::previewCatalogFile(path.toStdString(), 2);
    QVERIFY(preview.hasHeader);
    QCOMPARE(preview.columnNames, (std::vector<std::string>{"ID", "z", "ra", "Dec", "WEIGHT"}));
    QCOMPARE(preview.columnCount, std::size_t(5));
    QCOMPARE(preview.rows.size(), std::size_t(2));
    QCOMPARE(std::stod(preview.rows[1][2]), 370.0);
    QCOMPARE(std::stoi(preview.rows[0][0]), 1);
}

void TestCatalogReader::previewMissing() {
    const QString missing = m_dir.filePath(QStringLiteral("absent.txt"));
    expectInputError([&] { (void)tpacf::previewCatalogFile(missing.toStdString()); }, missing, 0, 0,
                     QStringLiteral("does not exist"));
}

TPACF_TEST_MAIN(TestCatalogReader)
#include "test_catalog_reader.moc"
