// SPDX-License-Identifier: GPL-3.0-or-later
// tpacf count on FITS tables chosen with cfitsio's selection syntax and --hdu: the counts of a
// filtered table equal those of the same rows written as text; a bad selection is exit 2 and
// one line on stderr. Runs the built executable; the tables are written by cfitsio here.
#include "tpacf/catalog_reader.h"
#include "cli_process.h"
#include "tpacf_test_main.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <random>
#include <string>
#include <vector>

#ifdef TPACF_TEST_HAVE_CFITSIO
#include <fitsio.h>
#endif

#ifndef TPACF_EXE
#error "TPACF_EXE must name the tpacf executable"
#endif

namespace {

using Outcome = tpacf::test::ProcessOutcome;

Outcome runTpacf(const QStringList& arguments) {
    return tpacf::test::runProcess(QStringLiteral(TPACF_EXE), arguments);
}

// The data rows of a counts CSV (comment lines, which may name the input, left out).
QStringList countRows(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {QStringLiteral("<missing %1>").arg(path)};
    QStringList rows;
    for (const QByteArray& line : file.readAll().split('\n'))
        if (!line.isEmpty() && !line.startsWith('#'))
            rows << QString::fromUtf8(line);
    return rows;
}

QStringList words(std::initializer_list<QString> list) {
    return QStringList(list);
}

const QStringList kBins{
    QStringLiteral("--bins"), QStringLiteral("log"),       QStringLiteral("--min"),
    QStringLiteral("1"),      QStringLiteral("--max"),     QStringLiteral("600"),
    QStringLiteral("--unit"), QStringLiteral("arcmin"),    QStringLiteral("--nbins"),
    QStringLiteral("6"),      QStringLiteral("--backend"), QStringLiteral("cpu")};

} // namespace

class TestFitsCli : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_fits;
    std::vector<double> m_ra, m_dec, m_z;

    QString path(const QString& name) const { return m_dir.filePath(name); }

    // The rows with z > `above`, as a text catalog with every digit.
    QString textOf(double above, const QString& name) const {
        QFile file(path(name));
        if (!file.open(QIODevice::WriteOnly))
            qFatal("cannot write %s", qPrintable(name));
        file.write("ra dec\n");
        for (std::size_t i = 0; i < m_ra.size(); ++i)
            if (m_z[i] > above)
                file.write(QByteArray::number(m_ra[i], 'g', 17) + ' ' +
                           QByteArray::number(m_dec[i], 'g', 17) + '\n');
        return file.fileName();
    }

private slots:
    void initTestCase() {
#ifdef TPACF_TEST_HAVE_CFITSIO
        if (!tpacf::fitsSupported())
            QSKIP("this build reads no FITS (no cfitsio)");
        QVERIFY(m_dir.isValid());
        std::mt19937_64 random(4242);
        std::uniform_real_distribution<double> ra(30.0, 50.0), dec(-10.0, 10.0), z(0.0, 1.0);
        for (int i = 0; i < 400; ++i) {
            m_ra.push_back(ra(random));
            m_dec.push_back(dec(random));
            m_z.push_back(z(random));
        }
        // Primary (empty), 1: MASK (image), 2: CATALOG (RA, DEC, Z).
        m_fits = path(QStringLiteral("d.fits"));
        int status = 0;
        fitsfile* file = nullptr;
        fits_create_file(&file, m_fits.toLocal8Bit().constData(), &status);
        fits_create_img(file, SHORT_IMG, 0, nullptr, &status); // the empty primary HDU
        long axes[2] = {2, 2};
        fits_create_img(file, SHORT_IMG, 2, axes, &status);
        fits_write_key(file, TSTRING, "EXTNAME", const_cast<char*>("MASK"), nullptr, &status);
        short pixels[4] = {1, 1, 1, 1};
        fits_write_img(file, TSHORT, 1, 4, pixels, &status);
        const char* names[] = {"RA", "DEC", "Z"};
        const char* forms[] = {"D", "D", "D"};
        fits_create_tbl(file, BINARY_TBL, 0, 3, const_cast<char**>(names),
                        const_cast<char**>(forms), nullptr, "CATALOG", &status);
        const auto n = static_cast<LONGLONG>(m_ra.size());
        fits_write_col(file, TDOUBLE, 1, 1, 1, n, m_ra.data(), &status);
        fits_write_col(file, TDOUBLE, 2, 1, 1, n, m_dec.data(), &status);
        fits_write_col(file, TDOUBLE, 3, 1, 1, n, m_z.data(), &status);
        fits_close_file(file, &status);
        QCOMPARE(status, 0);
#else
        QSKIP("the suite writes its tables with cfitsio, which the tests were not built with");
#endif
    }

    // `tpacf count --a 'd.fits[2][Z>0.5]'` counts exactly the rows the filter keeps.
    void rowFilterInPath() {
        const QString text = textOf(0.5, QStringLiteral("kept.txt"));
        const QString fromText = path(QStringLiteral("text.csv"));
        const QString fromFits = path(QStringLiteral("fits.csv"));
        QCOMPARE(runTpacf(words({QStringLiteral("count"), QStringLiteral("--a"), text,
                                 QStringLiteral("--output"), fromText}) +
                          kBins)
                     .exitCode,
                 0);
        const Outcome outcome = runTpacf(
            words({QStringLiteral("count"), QStringLiteral("--a"),
                   m_fits + QStringLiteral("[2][Z>0.5]"), QStringLiteral("--output"), fromFits}) +
            kBins);
        QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));
        QCOMPARE(countRows(fromFits), countRows(fromText));
    }

    // --hdu CATALOG picks the table behind an image extension; the whole table is counted.
    void hduFlag() {
        const QString text = textOf(-1.0, QStringLiteral("all.txt"));
        const QString fromText = path(QStringLiteral("all_text.csv"));
        const QString fromFits = path(QStringLiteral("all_fits.csv"));
        QCOMPARE(runTpacf(words({QStringLiteral("count"), QStringLiteral("--a"), text,
                                 QStringLiteral("--output"), fromText}) +
                          kBins)
                     .exitCode,
                 0);
        const Outcome outcome = runTpacf(
            words({QStringLiteral("count"), QStringLiteral("--a"), m_fits, QStringLiteral("--hdu"),
                   QStringLiteral("CATALOG"), QStringLiteral("--output"), fromFits}) +
            kBins);
        QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));
        QCOMPARE(countRows(fromFits), countRows(fromText));
    }

    void badSelections_data() {
        QTest::addColumn<QString>("suffix");
        QTest::addColumn<QStringList>("flags");
        QTest::addColumn<QString>("expected");
        QTest::newRow("bad filter")
            << QStringLiteral("[2][Z>>0.5]") << QStringList() << QStringLiteral("syntax error");
        QTest::newRow("missing column")
            << QStringLiteral("[2][col RA;DEC;QQ]") << QStringList() << QStringLiteral("QQ");
        QTest::newRow("bad --hdu")
            << QString() << QStringList{QStringLiteral("--hdu"), QStringLiteral("NOPE")}
            << QStringLiteral("no HDU named 'NOPE'");
        QTest::newRow("--hdu image")
            << QString() << QStringList{QStringLiteral("--hdu"), QStringLiteral("1")}
            << QStringLiteral("HDU 1 (MASK) is an image");
        QTest::newRow("zero rows") << QStringLiteral("[2][Z>2]") << QStringList()
                                   << QStringLiteral("no rows pass the row filter");
    }

    // Exit 2 and exactly one line on stderr, naming the file; no output written.
    void badSelections() {
        QFETCH(QString, suffix);
        QFETCH(QStringList, flags);
        QFETCH(QString, expected);
        const QString output = path(QStringLiteral("never.csv"));
        const QString input = m_fits + suffix;
        const Outcome outcome = runTpacf(words({QStringLiteral("count"), QStringLiteral("--a"),
                                                input, QStringLiteral("--output"), output}) +
                                         flags + kBins);
        QCOMPARE(outcome.exitCode, 2);
        QVERIFY2(outcome.err.endsWith(QLatin1Char('\n')) &&
                     outcome.err.count(QLatin1Char('\n')) == 1,
                 qPrintable(outcome.err));
        QVERIFY2(outcome.err.contains(input), qPrintable(outcome.err));
        QVERIFY2(outcome.err.contains(expected), qPrintable(outcome.err));
        QVERIFY(!QFile::exists(output));
    }
};

TPACF_TEST_MAIN(TestFitsCli)
#include "test_fits_cli.moc"
