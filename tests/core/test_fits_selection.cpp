// SPDX-License-Identifier: GPL-3.0-or-later
// FITS tables chosen with cfitsio's selection syntax: the HDU (by name, number or --hdu), row
// filters, column lists with computed and vector columns, .fits.gz, and the checks made before
// cfitsio reads anything (a header claiming 10^9 rows). The tables are written by cfitsio here;
// every expected row and value is computed by the test from its own seeded values.
#include "tpacf/catalog.h"
#include "tpacf/catalog_reader.h"
#include "tpacf/errors.h"
#include "tpacf_test_main.h"

#include <QtTest/QtTest>

#include <QElapsedTimer>
#include <QTemporaryDir>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#ifdef TPACF_TEST_HAVE_CFITSIO
#include <fitsio.h>
#endif

using tpacf::Catalog;
using tpacf::ColumnRef;
using tpacf::InputError;
using tpacf::ReadOptions;

namespace {

// One table's values, by column; POS is a 2-element vector column (another RA and Dec).
struct Table {
    std::vector<long long> targetId;
    std::vector<double> ra, dec, z, weight, wfkp, pos1, pos2;
    std::size_t size() const { return ra.size(); }
};

Table makeTable(std::size_t rows, unsigned seed) {
    std::mt19937_64 random(seed);
    std::uniform_real_distribution<double> raDist(0.0, 360.0), decDist(-60.0, 60.0),
        zDist(0.0, 1.2), wDist(0.5, 2.0), fkpDist(0.1, 1.0);
    Table t;
    for (std::size_t i = 0; i < rows; ++i) {
        t.targetId.push_back(39627000000000000LL + static_cast<long long>(i));
        t.ra.push_back(raDist(random));
        t.dec.push_back(decDist(random));
        t.z.push_back(zDist(random));
        t.weight.push_back(wDist(random));
        t.wfkp.push_back(fkpDist(random));
        t.pos1.push_back(raDist(random));
        t.pos2.push_back(decDist(random));
    }
    return t;
}

std::vector<double> radians(const std::vector<double>& degrees) {
    std::vector<double> out;
    for (double d : degrees)
        out.push_back(d * (3.14159265358979323846 / 180.0));
    return out;
}

// RA/Dec read back against the degrees written: the only difference allowed is the rounding
// of the conversion to radians (a few ulp of 2π); a wrong row is off by far more.
void compareAngles(std::span<const double> got, const std::vector<double>& expectedDegrees,
                   const char* what) {
    const std::vector<double> expected = radians(expectedDegrees);
    QCOMPARE(got.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i)
        QVERIFY2(std::abs(got[i] - expected[i]) <= 1e-14,
                 qPrintable(QStringLiteral("%1 row %2: %3, expected %4")
                                .arg(QLatin1String(what))
                                .arg(i + 1)
                                .arg(got[i], 0, 'g', 17)
                                .arg(expected[i], 0, 'g', 17)));
}

#ifdef TPACF_TEST_HAVE_CFITSIO

void check(int status, const char* what) {
    if (status) {
        char text[FLEN_STATUS] = {};
        fits_get_errstatus(status, text);
        qFatal("cfitsio %s: %s", what, text);
    }
}

// A binary table HDU named `extname` with the columns of the DESI-like sample.
void writeTable(fitsfile* file, const char* extname, const Table& t) {
    int status = 0;
    const char* names[] = {"TARGETID", "RA", "DEC", "Z", "WEIGHT", "WFKP", "POS"};
    const char* forms[] = {"K", "D", "D", "D", "D", "D", "2D"};
    fits_create_tbl(file, BINARY_TBL, 0, 7, const_cast<char**>(names), const_cast<char**>(forms),
                    nullptr, extname, &status);
    const auto n = static_cast<LONGLONG>(t.size());
    std::vector<long long> ids = t.targetId;
    std::vector<double> ra = t.ra, dec = t.dec, z = t.z, w = t.weight, fkp = t.wfkp;
    fits_write_col(file, TLONGLONG, 1, 1, 1, n, ids.data(), &status);
    fits_write_col(file, TDOUBLE, 2, 1, 1, n, ra.data(), &status);
    fits_write_col(file, TDOUBLE, 3, 1, 1, n, dec.data(), &status);
    fits_write_col(file, TDOUBLE, 4, 1, 1, n, z.data(), &status);
    fits_write_col(file, TDOUBLE, 5, 1, 1, n, w.data(), &status);
    fits_write_col(file, TDOUBLE, 6, 1, 1, n, fkp.data(), &status);
    std::vector<double> pos;
    for (std::size_t i = 0; i < t.size(); ++i) {
        pos.push_back(t.pos1[i]);
        pos.push_back(t.pos2[i]);
    }
    fits_write_col(file, TDOUBLE, 7, 1, 1, 2 * n, pos.data(), &status);
    check(status, "write table");
}

// Primary (empty), 1: CATALOG, 2: RANDOMS, 3: IMG (a small image). cfitsio gzips a .gz name.
void writeFile(const QString& path, const Table& catalog, const Table& randoms) {
    int status = 0;
    fitsfile* file = nullptr;
    const std::string name = "!" + path.toStdString(); // '!': overwrite
    fits_create_file(&file, name.c_str(), &status);
    check(status, "create");
    writeTable(file, "CATALOG", catalog);
    writeTable(file, "RANDOMS", randoms);
    long axes[2] = {4, 3};
    fits_create_img(file, SHORT_IMG, 2, axes, &status);
    fits_write_key(file, TSTRING, "EXTNAME", const_cast<char*>("IMG"), nullptr, &status);
    std::vector<short> pixels(12, 7);
    fits_write_img(file, TSHORT, 1, 12, pixels.data(), &status);
    fits_close_file(file, &status);
    check(status, "close");
}

// A table with the given column names, each column holding `values` (8-byte reals or ids).
void writeNamedColumns(const QString& path, const std::vector<const char*>& names,
                       const std::vector<std::vector<double>>& values) {
    int status = 0;
    fitsfile* file = nullptr;
    const std::string name = "!" + path.toStdString();
    fits_create_file(&file, name.c_str(), &status);
    std::vector<const char*> forms(names.size(), "D");
    fits_create_tbl(file, BINARY_TBL, 0, static_cast<int>(names.size()),
                    const_cast<char**>(names.data()), const_cast<char**>(forms.data()), nullptr,
                    "CATALOG", &status);
    for (std::size_t c = 0; c < names.size(); ++c) {
        std::vector<double> column = values[c];
        fits_write_col(file, TDOUBLE, static_cast<int>(c + 1), 1, 1,
                       static_cast<LONGLONG>(column.size()), column.data(), &status);
    }
    fits_close_file(file, &status);
    check(status, "write named columns");
}

#endif

QString messageOf(const QString& path, const ReadOptions& options = {}) {
    try {
        tpacf::readCatalog(path.toStdString(), options);
    } catch (const InputError& error) {
        return QString::fromStdString(error.what());
    }
    return {};
}

} // namespace

class TestFitsSelection : public QObject {
    Q_OBJECT

private slots:
    void init();
    void firstTableByDefault();
    void hduByNameAndNumber_data();
    void hduByNameAndNumber();
    void rowFilter();
    void columnExpressionWeights();
    void vectorColumnElements();
    void gzip();
    void lyingRowCount_data();
    void lyingRowCount();
    void selectionErrors_data();
    void selectionErrors();
    void zeroRowsPassFilter();
    void desiColumnNames();
    void origin();
    void previewListsHdus();
    void fileParts();

private:
    QTemporaryDir m_dir;
    QString m_path;
    Table m_catalog = makeTable(300, 20240614);
    Table m_randoms = makeTable(200, 77);
};

void TestFitsSelection::init() {
#ifdef TPACF_TEST_HAVE_CFITSIO
    if (!tpacf::fitsSupported())
        QSKIP("this build reads no FITS (no cfitsio)");
    QVERIFY(m_dir.isValid());
    m_path = m_dir.filePath(QStringLiteral("d.fits"));
    if (!QFileInfo::exists(m_path))
        writeFile(m_path, m_catalog, m_randoms);
#else
    QSKIP("the suite writes its tables with cfitsio, which the tests were not built with");
#endif
}

void TestFitsSelection::firstTableByDefault() {
    const Catalog catalog = tpacf::readCatalog(m_path.toStdString());
    compareAngles(catalog.ra(), m_catalog.ra, "RA");
    compareAngles(catalog.dec(), m_catalog.dec, "Dec");
}

void TestFitsSelection::hduByNameAndNumber_data() {
    QTest::addColumn<QString>("suffix");
    QTest::addColumn<QString>("hdu");
    QTest::addColumn<bool>("randoms");
    QTest::newRow("[CATALOG]") << "[CATALOG]"
                               << "" << false;
    QTest::newRow("[RANDOMS]") << "[RANDOMS]"
                               << "" << true;
    QTest::newRow("[randoms] any case") << "[randoms]"
                                        << "" << true;
    QTest::newRow("[1]") << "[1]"
                         << "" << false;
    QTest::newRow("[2]") << "[2]"
                         << "" << true;
    QTest::newRow("--hdu 2") << ""
                             << "2" << true;
    QTest::newRow("--hdu RANDOMS") << ""
                                   << "RANDOMS" << true;
    QTest::newRow("--hdu CATALOG") << ""
                                   << "CATALOG" << false;
    QTest::newRow("path overrides --hdu") << "[1]"
                                          << "RANDOMS" << false;
}

void TestFitsSelection::hduByNameAndNumber() {
    QFETCH(QString, suffix);
    QFETCH(QString, hdu);
    QFETCH(bool, randoms);
    ReadOptions options;
    options.hdu = hdu.toStdString();
    const Catalog catalog = tpacf::readCatalog((m_path + suffix).toStdString(), options);
    const Table& expected = randoms ? m_randoms : m_catalog;
    compareAngles(catalog.ra(), expected.ra, "RA");
    compareAngles(catalog.dec(), expected.dec, "Dec");
}

void TestFitsSelection::rowFilter() {
    std::vector<double> ra, dec;
    for (std::size_t i = 0; i < m_catalog.size(); ++i)
        if (m_catalog.z[i] > 0.4 && m_catalog.z[i] < 0.8) {
            ra.push_back(m_catalog.ra[i]);
            dec.push_back(m_catalog.dec[i]);
        }
    QVERIFY(ra.size() > 50 && ra.size() < m_catalog.size()); // the filter does select
    const Catalog catalog =
        tpacf::readCatalog((m_path + QStringLiteral("[1][Z>0.4 && Z<0.8]")).toStdString());
    compareAngles(catalog.ra(), ra, "RA");
    compareAngles(catalog.dec(), dec, "Dec");
    // The same rows with the HDU from --hdu and the filter alone in the path.
    ReadOptions options;
    options.hdu = "CATALOG";
    const Catalog again =
        tpacf::readCatalog((m_path + QStringLiteral("[Z>0.4 && Z<0.8]")).toStdString(), options);
    compareAngles(again.ra(), ra, "RA (--hdu)");
}

void TestFitsSelection::columnExpressionWeights() {
    ReadOptions options;
    options.weightColumn = ColumnRef::parse("W");
    const Catalog catalog = tpacf::readCatalog(
        (m_path + QStringLiteral("[1][col RA;DEC;W=WEIGHT*WFKP]")).toStdString(), options);
    compareAngles(catalog.ra(), m_catalog.ra, "RA");
    QCOMPARE(catalog.weight().size(), m_catalog.size());
    for (std::size_t i = 0; i < m_catalog.size(); ++i) {
        // cfitsio multiplies the two doubles: one rounding, as here.
        const double expected = m_catalog.weight[i] * m_catalog.wfkp[i];
        QVERIFY2(catalog.weight()[i] == expected,
                 qPrintable(QStringLiteral("row %1: %2, expected %3")
                                .arg(i + 1)
                                .arg(catalog.weight()[i], 0, 'g', 17)
                                .arg(expected, 0, 'g', 17)));
    }
    // With a row filter too: the column list goes first, so the filter names a kept column.
    const Catalog filtered = tpacf::readCatalog(
        (m_path + QStringLiteral("[1][col RA;DEC;Z;W=WEIGHT*WFKP][Z>0.5]")).toStdString(), options);
    std::size_t kept = 0;
    for (double z : m_catalog.z)
        kept += z > 0.5 ? 1 : 0;
    QCOMPARE(filtered.size(), kept);
}

void TestFitsSelection::vectorColumnElements() {
    const Catalog catalog = tpacf::readCatalog(
        (m_path + QStringLiteral("[1][col RA=POS[1];DEC=POS[2]]")).toStdString());
    compareAngles(catalog.ra(), m_catalog.pos1, "POS[1]");
    compareAngles(catalog.dec(), m_catalog.pos2, "POS[2]");
}

void TestFitsSelection::gzip() {
#ifdef TPACF_TEST_HAVE_CFITSIO
    const QString gz = m_dir.filePath(QStringLiteral("d.fits.gz"));
    writeFile(gz, m_catalog, m_randoms);
    QFile file(gz);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.read(2), QByteArray("\x1f\x8b", 2)); // really gzip
    std::vector<double> ra;
    for (std::size_t i = 0; i < m_randoms.size(); ++i)
        if (m_randoms.z[i] > 0.5)
            ra.push_back(m_randoms.ra[i]);
    const Catalog catalog =
        tpacf::readCatalog((gz + QStringLiteral("[RANDOMS][Z>0.5]")).toStdString());
    compareAngles(catalog.ra(), ra, "RA");
    const Catalog whole = tpacf::readCatalog(gz.toStdString());
    compareAngles(whole.ra(), m_catalog.ra, "RA");
#endif
}

void TestFitsSelection::lyingRowCount_data() {
    QTest::addColumn<QString>("suffix");
    QTest::newRow("plain") << "";
    QTest::newRow("row filter") << "[1][Z>0.5]";
    QTest::newRow("column list") << "[CATALOG][col RA;DEC]";
}

void TestFitsSelection::lyingRowCount() {
    QFETCH(QString, suffix);
#ifdef TPACF_TEST_HAVE_CFITSIO
    // A small file (a few KB) whose header then claims 10^9 rows of 64 bytes: 64 GB.
    const QString small = m_dir.filePath(QStringLiteral("lying.fits"));
    writeFile(small, makeTable(5, 3), makeTable(5, 4));
    QFile file(small);
    QVERIFY(file.open(QIODevice::ReadWrite));
    QByteArray bytes = file.readAll();
    const qsizetype at = bytes.indexOf("NAXIS2  = ");
    QVERIFY(at > 0 && at % 80 == 0);
    bytes.replace(at + 10, 20, QByteArray::number(1000000000).rightJustified(20));
    QVERIFY(file.seek(0));
    QCOMPARE(file.write(bytes), bytes.size());
    file.close();
    QVERIFY(bytes.size() < 64 * 1024);

    const QString path = small + suffix;
    QElapsedTimer timer;
    timer.start();
    try {
        tpacf::readCatalog(path.toStdString());
        QFAIL("a header claiming 10^9 rows was read");
    } catch (const InputError& error) {
        QCOMPARE(QString::fromStdString(error.file()), path);
        const QString message = QString::fromStdString(error.what());
        QVERIFY2(message.contains(QStringLiteral("1000000000")), qPrintable(message));
        QVERIFY2(!message.contains(QLatin1Char('\n')), qPrintable(message));
    }
    QVERIFY2(timer.elapsed() < 5000, "refused only after reading what was not there");
#endif
}

void TestFitsSelection::selectionErrors_data() {
    QTest::addColumn<QString>("suffix");
    QTest::addColumn<QString>("hdu");
    QTest::addColumn<QString>("expected"); // a part of the message
    QTest::newRow("no such HDU name") << "[NOPE]"
                                      << ""
                                      << "no HDU named 'NOPE'";
    QTest::newRow("no such HDU number") << "[7]"
                                        << ""
                                        << "no HDU 7";
    QTest::newRow("--hdu no such name") << ""
                                        << "NOPE"
                                        << "no HDU named 'NOPE'";
    QTest::newRow("--hdu image") << ""
                                 << "IMG"
                                 << "HDU 3 (IMG) is an image";
    QTest::newRow("--hdu primary") << ""
                                   << "0"
                                   << "primary HDU is an image";
    QTest::newRow("listing") << "[NOPE]"
                             << ""
                             << "1: CATALOG (300 rows, 7 columns)";
    QTest::newRow("bad filter") << "[1][Z>>0.5]"
                                << ""
                                << "row filter [Z>>0.5] failed: syntax error";
    QTest::newRow("filter on missing column")
        << "[1][QQ>1]"
        << ""
        << "row filter [QQ>1] failed: could not find column: QQ";
    QTest::newRow("missing column in list") << "[1][col RA;DEC;QQ]"
                                            << ""
                                            << "column list [col RA;DEC;QQ] failed";
    QTest::newRow("vector index out of range") << "[1][col RA=POS[3];DEC]"
                                               << ""
                                               << "Index out of range";
    QTest::newRow("binning") << "[1][bin RA,DEC]"
                             << ""
                             << "makes an image";
    QTest::newRow("unclosed") << "[1][Z>0.5"
                              << ""
                              << "cannot parse the selection";
}

void TestFitsSelection::selectionErrors() {
    QFETCH(QString, suffix);
    QFETCH(QString, hdu);
    QFETCH(QString, expected);
    ReadOptions options;
    options.hdu = hdu.toStdString();
    const QString path = m_path + suffix;
    try {
        tpacf::readCatalog(path.toStdString(), options);
        QFAIL("read without error");
    } catch (const InputError& error) {
        const QString message = QString::fromStdString(error.what());
        QCOMPARE(QString::fromStdString(error.file()), path);
        QVERIFY2(message.contains(expected), qPrintable(message));
        QVERIFY2(!message.contains(QLatin1Char('\n')), qPrintable(message));
    }
}

void TestFitsSelection::zeroRowsPassFilter() {
    const QString path = m_path + QStringLiteral("[1][Z>5]");
    const QString message = messageOf(path);
    QVERIFY2(message.startsWith(path), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("no rows pass the row filter [Z>5]")),
             qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("empty")), qPrintable(message));
}

void TestFitsSelection::desiColumnNames() {
#ifdef TPACF_TEST_HAVE_CFITSIO
    const std::vector<double> ids{39627000000000001.0, 39627000000000002.0, 39627000000000003.0};
    const std::vector<double> z{0.5, 0.7, 0.9}, ra{10.5, 20.5, 30.5}, dec{-5.0, 5.0, 15.0};
    const QString desi = m_dir.filePath(QStringLiteral("desi.fits"));
    writeNamedColumns(desi, {"TARGETID", "Z", "RA_J2000", "DEC_J2000"}, {ids, z, ra, dec});
    const Catalog catalog = tpacf::readCatalog(desi.toStdString());
    compareAngles(catalog.ra(), ra, "RA_J2000");
    compareAngles(catalog.dec(), dec, "DEC_J2000");
    QCOMPARE(QString::fromStdString(catalog.origin().raColumn), QStringLiteral("RA_J2000"));

    // No column says RA: an error listing the columns, never TARGETID read as RA.
    const QString xy = m_dir.filePath(QStringLiteral("xy.fits"));
    writeNamedColumns(xy, {"TARGETID", "Z", "X", "Y"}, {ids, z, ra, dec});
    const QString message = messageOf(xy);
    QVERIFY2(message.contains(QStringLiteral("cannot tell which column holds RA")),
             qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("TARGETID, Z, X, Y")), qPrintable(message));
    // Naming them works.
    ReadOptions options;
    options.raColumn = ColumnRef::parse("X");
    options.decColumn = ColumnRef::parse("Y");
    compareAngles(tpacf::readCatalog(xy.toStdString(), options).ra(), ra, "X");
#endif
}

void TestFitsSelection::origin() {
    ReadOptions options;
    options.weightColumn = ColumnRef::parse("W");
    const QString path = m_path + QStringLiteral("[CATALOG][col RA;DEC;Z;W=WEIGHT*WFKP][Z>0.5]");
    const Catalog catalog = tpacf::readCatalog(path.toStdString(), options);
    const tpacf::CatalogOrigin& origin = catalog.origin();
    QCOMPARE(QString::fromStdString(origin.format), QStringLiteral("fits"));
    QCOMPARE(QString::fromStdString(origin.raColumn), QStringLiteral("RA"));
    QCOMPARE(QString::fromStdString(origin.decColumn), QStringLiteral("DEC"));
    QCOMPARE(QString::fromStdString(origin.weightColumn), QStringLiteral("W"));
    QCOMPARE(QString::fromStdString(origin.regionColumn), QString());
    QCOMPARE(QString::fromStdString(origin.unit), QStringLiteral("deg"));
    QCOMPARE(origin.rows, static_cast<std::uint64_t>(catalog.size()));
    const QString selection = QString::fromStdString(origin.selection);
    QVERIFY2(selection.contains(QStringLiteral("HDU 1 (CATALOG)")), qPrintable(selection));
    QVERIFY2(selection.contains(QStringLiteral("W=WEIGHT*WFKP")), qPrintable(selection));
    QVERIFY2(selection.contains(QStringLiteral("Z>0.5")), qPrintable(selection));
    QVERIFY2(selection.contains(QStringLiteral("of 300")), qPrintable(selection));

    const Catalog plain = tpacf::readCatalog(m_path.toStdString());
    QCOMPARE(QString::fromStdString(plain.origin().selection), QStringLiteral("HDU 1 (CATALOG)"));
    QCOMPARE(QString::fromStdString(plain.origin().columnChoice), QStringLiteral("column names"));
}

void TestFitsSelection::previewListsHdus() {
    const tpacf::TablePreview preview = tpacf::previewCatalogFile(m_path.toStdString(), 3);
    const std::vector<std::string> expected{"1: CATALOG (300 rows, 7 columns)",
                                            "2: RANDOMS (200 rows, 7 columns)", "3: IMG (image)"};
    QCOMPARE(preview.hdus, expected);
    QCOMPARE(preview.rows.size(), std::size_t(3));
    // The preview of a selection shows the selected table.
    const tpacf::TablePreview randoms = tpacf::previewCatalogFile(
        (m_path + QStringLiteral("[RANDOMS][col RA;DEC]")).toStdString(), 2);
    QCOMPARE(randoms.columnNames, (std::vector<std::string>{"RA", "DEC"}));
    QCOMPARE(randoms.hdus, expected);
}

void TestFitsSelection::fileParts() {
    // The checks on the file apply to the part before the selection.
    const QString dir = m_dir.filePath(QStringLiteral("folder.fits"));
    QVERIFY(QDir().mkpath(dir));
    QString message = messageOf(dir + QStringLiteral("[1]"));
    QVERIFY2(message.contains(QStringLiteral("directory")), qPrintable(message));
    message = messageOf(m_dir.filePath(QStringLiteral("missing.fits[1][Z>0.5]")));
    QVERIFY2(message.contains(QStringLiteral("does not exist")), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("missing.fits")), qPrintable(message));
    // A text file with a selection: said plainly, not read as text.
    const QString text = m_dir.filePath(QStringLiteral("cat.txt"));
    QFile file(text);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("1 2\n3 4\n");
    file.close();
    message = messageOf(text + QStringLiteral("[1]"));
    QVERIFY2(message.contains(QStringLiteral("no FITS file")), qPrintable(message));
    // A file whose name holds brackets is that file.
    const QString odd = m_dir.filePath(QStringLiteral("odd[2].fits"));
    QVERIFY(QFile::copy(m_path, odd));
    compareAngles(tpacf::readCatalog(odd.toStdString()).ra(), m_catalog.ra, "RA");
    // ...and takes a selection after its name.
    compareAngles(tpacf::readCatalog((odd + QStringLiteral("[2]")).toStdString()).ra(),
                  m_randoms.ra, "RA");
}

TPACF_TEST_MAIN(TestFitsSelection)
#include "test_fits_selection.moc"
