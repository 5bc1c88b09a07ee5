// SPDX-License-Identifier: GPL-3.0-or-later
// The catalog format table: patterns, the choice by name and by content, and that reading
// through the table is reading with the format's own reader. Every entry needs a sample here.
#include "tpacf/catalog.h"
#include "tpacf/catalog_formats.h"
#include "tpacf/catalog_reader.h"
#include "tpacf/errors.h"
#include "tpacf_test_main.h"

#include <QtTest/QtTest>

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtEndian>

#include <bit>
#include <set>
#include <string>

#include <sys/stat.h>

#ifdef TPACF_TEST_HAVE_HDF5
#include <hdf5.h>
#endif

using tpacf::Catalog;
using tpacf::CatalogFormat;

namespace {

QByteArray fitsCard(const QByteArray& key, const QByteArray& value = {}) {
    QByteArray card = key.leftJustified(8, ' ');
    if (!value.isNull())
        card += "= " + value;
    return card.leftJustified(80, ' ', true);
}

void padBlock(QByteArray& bytes, char fill) {
    while (bytes.size() % 2880 != 0)
        bytes.append(fill);
}

// A FITS file (written from the standard, not by cfitsio): an empty primary HDU, then a binary
// table of double columns RA, DEC, WEIGHT.
QByteArray fitsTable(const QList<double>& ra, const QList<double>& dec,
                     const QList<double>& weight) {
    auto number = [](long long v) { return QByteArray::number(v).rightJustified(20); };
    auto text = [](const QByteArray& s) { return "'" + s.leftJustified(8) + "'"; };
    QByteArray bytes = fitsCard("SIMPLE", QByteArray("T").rightJustified(20)) +
                       fitsCard("BITPIX", number(8)) + fitsCard("NAXIS", number(0)) +
                       fitsCard("EXTEND", QByteArray("T").rightJustified(20)) + fitsCard("END");
    padBlock(bytes, ' ');
    const QList<QByteArray> names{"RA", "DEC", "WEIGHT"};
    QByteArray header = fitsCard("XTENSION", text("BINTABLE")) + fitsCard("BITPIX", number(8)) +
                        fitsCard("NAXIS", number(2)) + fitsCard("NAXIS1", number(24)) +
                        fitsCard("NAXIS2", number(ra.size())) + fitsCard("PCOUNT", number(0)) +
                        fitsCard("GCOUNT", number(1)) + fitsCard("TFIELDS", number(3));
    for (qsizetype i = 0; i < names.size(); ++i) {
        const QByteArray n = QByteArray::number(i + 1);
        header += fitsCard("TTYPE" + n, text(names[i])) + fitsCard("TFORM" + n, text("D"));
    }
    header += fitsCard("END");
    padBlock(header, ' ');
    QByteArray data;
    for (qsizetype r = 0; r < ra.size(); ++r)
        for (const double v : {ra[r], dec[r], weight[r]}) {
            char buffer[8];
            qToBigEndian(std::bit_cast<quint64>(v), buffer);
            data.append(buffer, 8);
        }
    padBlock(data, '\0');
    return bytes + header + data;
}

const QList<double> kRa{10.5, 359.25, 0.125, 187.0};
const QList<double> kDec{-20.75, 89.5, 0.0, -89.999};
const QList<double> kWeight{1.0, 2.5, 0.25, 3.0};

QByteArray asciiTable() {
    QByteArray text("# ra dec weight\nra dec weight\n");
    for (qsizetype i = 0; i < kRa.size(); ++i)
        text += QByteArray::number(kRa[i], 'g', 17) + ' ' + QByteArray::number(kDec[i], 'g', 17) +
                ' ' + QByteArray::number(kWeight[i], 'g', 17) + '\n';
    return text;
}

QByteArray fitsBytes() {
    return fitsTable(kRa, kDec, kWeight);
}

#ifdef TPACF_TEST_HAVE_HDF5
// The sample as HDF5: the three columns as 1-D datasets in the root group, written with the
// library and read back as the bytes of the file.
QByteArray hdf5Bytes() {
    const QString path = QDir::temp().filePath(QStringLiteral("tpacf-sample-%1.h5")
                                                   .arg(QCoreApplication::applicationPid()));
    const hid_t file = H5Fcreate(QFile::encodeName(path).constData(), H5F_ACC_TRUNC, H5P_DEFAULT,
                                 H5P_DEFAULT);
    const hsize_t rows = hsize_t(kRa.size());
    const hid_t space = H5Screate_simple(1, &rows, nullptr);
    for (const auto& [name, values] : {std::pair{"ra", kRa}, {"dec", kDec}, {"weight", kWeight}}) {
        const hid_t dataset = H5Dcreate2(file, name, H5T_IEEE_F64LE, space, H5P_DEFAULT,
                                         H5P_DEFAULT, H5P_DEFAULT);
        H5Dwrite(dataset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.constData());
        H5Dclose(dataset);
    }
    H5Sclose(space);
    H5Fclose(file);
    QFile written(path);
    if (!written.open(QIODevice::ReadOnly))
        qFatal("cannot read %s back", qPrintable(path));
    const QByteArray bytes = written.readAll();
    written.remove();
    return bytes;
}
#endif

// A sample file of each format in the table, by key: a new entry without one fails readThrough.
struct Sample {
    QString fileName;
    QByteArray bytes;
};
std::optional<Sample> sampleOf(std::string_view key) {
    if (key == "ascii")
        return Sample{QStringLiteral("sample.txt"), asciiTable()};
    if (key == "fits")
        return Sample{QStringLiteral("sample.fits"), fitsBytes()};
#ifdef TPACF_TEST_HAVE_HDF5
    if (key == "hdf5")
        return Sample{QStringLiteral("sample.h5"), hdf5Bytes()};
#endif
    return std::nullopt;
}

QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& content) {
    const QString path = dir.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(content) != content.size())
        qFatal("cannot write %s", qPrintable(path));
    return path;
}

tpacf::ReadOptions withWeights() {
    tpacf::ReadOptions options;
    options.weightColumn = tpacf::ColumnRef::parse("weight");
    return options;
}

QString keyOf(const CatalogFormat& format) {
    return QString::fromUtf8(format.key.data(), qsizetype(format.key.size()));
}

// The key formatFor should give where this build has the format; ASCII (the fallback) where
// not, so the rows hold with and without cfitsio.
QString expectedKey(const QString& key) {
    return tpacf::findCatalogFormat(key.toStdString()) ? key : QStringLiteral("ascii");
}

void compareSpans(std::span<const double> got, std::span<const double> expected, const char* what) {
    QVERIFY2(got.size() == expected.size(), what);
    for (std::size_t i = 0; i < got.size(); ++i)
        QVERIFY2(std::bit_cast<quint64>(got[i]) == std::bit_cast<quint64>(expected[i]),
                 qPrintable(QStringLiteral("%1[%2]: %3 vs %4")
                                .arg(QLatin1String(what))
                                .arg(i)
                                .arg(got[i], 0, 'g', 17)
                                .arg(expected[i], 0, 'g', 17)));
}

void compareCatalogs(const Catalog& got, const Catalog& expected) {
    compareSpans(got.ra(), expected.ra(), "ra");
    compareSpans(got.dec(), expected.dec(), "dec");
    compareSpans(got.x(), expected.x(), "x");
    compareSpans(got.y(), expected.y(), "y");
    compareSpans(got.z(), expected.z(), "z");
    compareSpans(got.weight(), expected.weight(), "weight");
    QCOMPARE(got.name(), expected.name());
}

} // namespace

class TestCatalogFormats : public QObject {
    Q_OBJECT

private slots:
    void init() { QVERIFY(m_dir.isValid()); }

    void tableIsWellFormed();
    void patterns_data();
    void patterns();
    void matchesPattern_data();
    void matchesPattern();
    void formatForByNameAndContent_data();
    void formatForByNameAndContent();
    void formatForNeverBlocks();
    void readThroughTheTable();

private:
    QTemporaryDir m_dir;
};

// Keys and names unique and non-empty, patterns present, FITS exactly where fitsSupported(),
// and the last entry the fallback that takes any path.
void TestCatalogFormats::tableIsWellFormed() {
    const auto formats = tpacf::catalogFormats();
    QVERIFY(!formats.empty());
    std::set<std::string_view> keys, names;
    for (const CatalogFormat& format : formats) {
        QVERIFY2(!format.key.empty() && !format.name.empty(), qPrintable(keyOf(format)));
        QVERIFY2(keys.insert(format.key).second,
                 qPrintable(keyOf(format) + QStringLiteral(" twice")));
        QVERIFY2(names.insert(format.name).second, qPrintable(keyOf(format)));
        QVERIFY2(!format.patterns.empty(), qPrintable(keyOf(format)));
        for (const std::string_view pattern : format.patterns)
            QVERIFY2(pattern.starts_with("*."), qPrintable(keyOf(format)));
        QVERIFY(format.matches && format.read && format.preview);
        QCOMPARE(tpacf::findCatalogFormat(format.key), &format);
    }
    QCOMPARE(tpacf::fitsSupported(), tpacf::findCatalogFormat("fits") != nullptr);
    QVERIFY(!tpacf::findCatalogFormat("no such format"));
    QCOMPARE(keyOf(formats.back()), QStringLiteral("ascii"));
    for (const char* path : {"catalog", "Datapnts.1", "cat.fits[1][col RA;DEC]", "", "a/b.xyz"})
        QVERIFY2(formats.back().matches(path), path);
}

// Each row: a name and the format whose patterns (the dialogs' filter) take it; "" for none.
void TestCatalogFormats::patterns_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("key");
    struct Row {
        const char *tag, *name, *key;
    };
    static constexpr Row kRows[] = {
        {".txt", "cat.txt", "ascii"},
        {".dat", "cat.dat", "ascii"},
        {".DAT", "CAT.DAT", "ascii"},
        {".csv", "cat.csv", "ascii"},
        {".cat", "galaxies.cat", "ascii"},
        {".fits.txt", "cat.fits.txt", "ascii"},
        {".fits", "cat.fits", "fits"},
        {".FITS", "CAT.FITS", "fits"},
        {".fit", "cat.fit", "fits"},
        {".Fts", "cat.Fts", "fits"},
        {".fits.gz", "cat.fits.gz", "fits"},
        {".fit.GZ", "cat.fit.GZ", "fits"},
        {".fts.gz", "cat.fts.gz", "fits"},
        {"in a folder", "/data/run.1/cat.fits", "fits"},
        {"hidden .fits", ".fits", "fits"},
        {"folder named .fits", "/data/x.fits/cat", ""},
        {"extended syntax", "cat.fits[1][col RA;DEC]", ""},
        {"extended copy", "cat.fits(copy.fits)", ""},
        {"parboil .1", "Datapnts.1", ""},
        {"no extension", "catalog", ""},
        {".gz alone", "cat.gz", ""},
        {".txt.gz", "cat.txt.gz", ""},
        {".fitsx", "cat.fitsx", ""},
        {"fits without dot", "catfits", ""},
        {".tar.gz", "cat.fits.tar.gz", ""},
    };
    for (const Row& row : kRows)
        QTest::newRow(row.tag) << QString::fromUtf8(row.name) << QString::fromUtf8(row.key);
}

void TestCatalogFormats::patterns() {
    QFETCH(QString, name);
    QFETCH(QString, key);
    for (const CatalogFormat& format : tpacf::catalogFormats())
        QVERIFY2(tpacf::matchesAnyPattern(format, name.toStdString()) == (keyOf(format) == key),
                 qPrintable(keyOf(format)));
}

void TestCatalogFormats::matchesPattern_data() {
    QTest::addColumn<QString>("pattern");
    QTest::addColumn<QString>("path");
    QTest::addColumn<bool>("matches");
    struct Row {
        const char *tag, *pattern, *path;
        bool matches;
    };
    static constexpr Row kRows[] = {
        {"suffix", "*.fits", "a.fits", true},
        {"suffix any case", "*.fits", "A.FiTs", true},
        {"longer suffix", "*.fits", "a.fits.gz", false},
        {"empty star", "*.fits", ".fits", true},
        {"star everything", "*", "anything at all", true},
        {"question", "?.txt", "a.txt", true},
        {"question one only", "?.txt", "ab.txt", false},
        {"two stars", "*.t*t", "cat.tsv.txt", true},
        {"backtrack", "*.fits.gz", "a.fits.fits.gz", true},
        {"file name only", "*.fits", "dir.fits/x", false},
        {"literal", "catalog", "catalog", true},
        {"empty", "", "", true},
        {"empty pattern", "", "a", false},
    };
    for (const Row& row : kRows)
        QTest::newRow(row.tag) << QString::fromUtf8(row.pattern) << QString::fromUtf8(row.path)
                               << row.matches;
}

void TestCatalogFormats::matchesPattern() {
    QFETCH(QString, pattern);
    QFETCH(QString, path);
    QFETCH(bool, matches);
    QCOMPARE(tpacf::matchesPattern(path.toStdString(), pattern.toStdString()), matches);
}

// The name decides where it names a format for sure; the content where it does not: FITS bytes
// are FITS under .dat, .cat or no extension, a .fits name goes to the FITS reader (which
// refuses text), and .txt and .csv promise text: the ASCII reader refuses FITS bytes there.
void TestCatalogFormats::formatForByNameAndContent_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("content");
    QTest::addColumn<QString>("key");
    struct Row {
        const char *tag, *name, *content, *key;
    };
    static constexpr Row kRows[] = {
        {"text .txt", "cat.txt", "ascii", "ascii"},
        {"text, no extension", "catalog", "ascii", "ascii"},
        {"FITS .dat", "cat.dat", "fits", "fits"},
        {"FITS .cat (LDAC)", "sextractor.cat", "fits", "fits"},
        {"FITS, no extension", "catalog", "fits", "fits"},
        {"FITS .1", "Datapnts.1", "fits", "fits"},
        {"FITS .fits", "cat.fits", "fits", "fits"},
        {"FITS .txt", "cat.txt", "fits", "ascii"},
        {"FITS .CSV", "cat.CSV", "fits", "ascii"},
        {"text .fits", "cat.fits", "ascii", "fits"},
        {"empty .dat", "empty.dat", "empty", "ascii"},
        {"SIMPLE cut short", "short.dat", "SIMPLE", "ascii"},
        {"missing .txt", "missing.txt", "missing", "ascii"},
        {"missing .fits", "missing.fits", "missing", "fits"},
        {"directory .dat", "folder.dat", "directory", "ascii"},
    };
    for (const Row& row : kRows)
        QTest::newRow(row.tag) << QString::fromUtf8(row.name) << QString::fromUtf8(row.content)
                               << QString::fromUtf8(row.key);
}

void TestCatalogFormats::formatForByNameAndContent() {
    QFETCH(QString, name);
    QFETCH(QString, content);
    QFETCH(QString, key);
    const QString path = m_dir.filePath(name);
    if (content == QLatin1String("ascii"))
        writeFile(m_dir, name, asciiTable());
    else if (content == QLatin1String("fits"))
        writeFile(m_dir, name, fitsBytes());
    else if (content == QLatin1String("empty"))
        writeFile(m_dir, name, {});
    else if (content == QLatin1String("SIMPLE"))
        writeFile(m_dir, name, "SIMPLE");
    else if (content == QLatin1String("directory"))
        QVERIFY(QDir().mkpath(path));
    const std::string stdPath = QFile::encodeName(path).toStdString();
    QCOMPARE(keyOf(tpacf::formatFor(stdPath)), expectedKey(key));

    if (content != QLatin1String("ascii") && content != QLatin1String("fits"))
        return;
    // The choice is the one readCatalog and previewCatalogFile act on.
    const CatalogFormat& format = tpacf::formatFor(stdPath);
    if (keyOf(format) == QLatin1String("fits") && content == QLatin1String("ascii")) {
        QVERIFY_THROWS_EXCEPTION(tpacf::InputError, tpacf::readCatalog(stdPath));
        return;
    }
    if (keyOf(format) == QLatin1String("ascii") && content == QLatin1String("fits")) {
        // A text name, or no cfitsio: the ASCII reader refuses FITS bytes, saying they are FITS.
        try {
            (void)tpacf::readCatalog(stdPath);
            QFAIL("FITS bytes read as text");
        } catch (const tpacf::InputError& error) {
            QVERIFY2(QString::fromUtf8(error.what()).contains(QStringLiteral("FITS")),
                     error.what());
        }
        return;
    }
    compareCatalogs(tpacf::readCatalog(stdPath), format.read(stdPath, {}));
    const tpacf::TablePreview preview = tpacf::previewCatalogFile(stdPath, 2);
    QCOMPARE(preview.rows.size(), std::size_t(2));
    QCOMPARE(preview.columnNames.size(), std::size_t(3));
}

// Looking at the content must not open a FIFO (that blocks without a writer): the reader
// chosen then refuses the path as it always did.
void TestCatalogFormats::formatForNeverBlocks() {
    const QString path = m_dir.filePath(QStringLiteral("pipe.dat"));
    QVERIFY(::mkfifo(QFile::encodeName(path).constData(), 0600) == 0);
    QElapsedTimer timer;
    timer.start();
    QCOMPARE(keyOf(tpacf::formatFor(path.toStdString())), QStringLiteral("ascii"));
    QVERIFY_THROWS_EXCEPTION(tpacf::InputError, tpacf::readCatalog(path.toStdString()));
    QVERIFY(timer.elapsed() < 5000);
}

// readCatalog through the table gives exactly the points of the format's reader called
// directly, for every format in the table (each needs a sample in sampleOf).
void TestCatalogFormats::readThroughTheTable() {
    for (const CatalogFormat& format : tpacf::catalogFormats()) {
        const std::optional<Sample> sample = sampleOf(format.key);
        QVERIFY2(sample, qPrintable(QStringLiteral("no sample file for format ") + keyOf(format)));
        const std::string path = writeFile(m_dir, sample->fileName, sample->bytes).toStdString();
        QCOMPARE(&tpacf::formatFor(path), &format);
        const Catalog direct = format.read(path, withWeights());
        QCOMPARE(direct.size(), std::size_t(kRa.size()));
        QVERIFY(direct.hasWeights());
        compareCatalogs(tpacf::readCatalog(path, withWeights()), direct);
        const tpacf::TablePreview preview = tpacf::previewCatalogFile(path, 3);
        const tpacf::TablePreview directPreview = format.preview(path, 3);
        QCOMPARE(preview.columnNames, directPreview.columnNames);
        QCOMPARE(preview.rows, directPreview.rows);
        QCOMPARE(preview.rows.size(), std::size_t(3));
    }
    // The ASCII entry is the public ASCII reader; where FITS is built in, it reads the same
    // points as the ASCII sample (both hold the same doubles).
    const std::string text =
        writeFile(m_dir, QStringLiteral("same.txt"), asciiTable()).toStdString();
    compareCatalogs(tpacf::readCatalog(text, withWeights()),
                    tpacf::readAsciiCatalog(text, withWeights()));
    if (const CatalogFormat* fits = tpacf::findCatalogFormat("fits")) {
        const std::string named =
            writeFile(m_dir, QStringLiteral("same.dat"), fitsBytes()).toStdString();
        const Catalog viaTable = tpacf::readCatalog(named, withWeights());
        compareCatalogs(viaTable, fits->read(named, withWeights()));
        const Catalog ascii = tpacf::readAsciiCatalog(text, withWeights());
        compareSpans(viaTable.ra(), ascii.ra(), "ra");
        compareSpans(viaTable.dec(), ascii.dec(), "dec");
        compareSpans(viaTable.weight(), ascii.weight(), "weight");
    }
}

TPACF_TEST_MAIN(TestCatalogFormats)
#include "test_catalog_formats.moc"
