// SPDX-License-Identifier: GPL-3.0-or-later
// FITS count files: every mode of run reads back bit for bit and gives the very JSON of the store
// it was written from; FITS and JSON shares combine alike; malformed, foreign and cut-short FITS
// files are InputErrors that name the file and the problem. The malformed files are made by
// editing a good one with cfitsio here.
#include "count_store_fixtures.h"
#include "tpacf/errors.h"
#include "tpacf_test_main.h"

#include <QtTest/QtTest>

#include <QFile>
#include <QTemporaryDir>

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#ifdef TPACF_TEST_HAVE_CFITSIO
#include <fitsio.h>
#endif

namespace {

std::string jsonOf(const CountStore& store) {
    std::ostringstream text;
    tpacf::writeCountStoreJson(text, store);
    return text.str();
}

template <typename Call> QString inputErrorOf(Call call) {
    try {
        call();
    } catch (const tpacf::InputError& error) {
        return QString::fromStdString(error.what());
    }
    return QStringLiteral("<no InputError>");
}

QByteArray bytesOf(const std::string& path) {
    QFile file(QString::fromStdString(path));
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

void writeBytes(const std::string& path, const QByteArray& bytes) {
    QFile file(QString::fromStdString(path));
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(file.write(bytes), bytes.size());
}

} // namespace

class TestCountFileFits : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

    std::string path(const char* name) const {
        return m_dir.filePath(QString::fromLatin1(name)).toStdString();
    }

private slots:
    void init() {
        if (!tpacf::fitsCountFilesSupported()) {
            // Refused before any work, with a message that says why.
            QString message;
            try {
                tpacf::requireCountFileFormat("c.fits");
            } catch (const tpacf::ConfigError& error) {
                message = QString::fromStdString(error.what());
            }
            QVERIFY2(message.contains(QStringLiteral("without cfitsio")), qPrintable(message));
            QSKIP("this build has no FITS support (cfitsio)");
        }
    }

    // Field by field, and the JSON of what was read is the JSON of what was written: every
    // field the JSON form holds (shares, culling, precision, names) survived, doubles exactly.
    void roundTripIsExact_data() { addModeRows(); }
    void roundTripIsExact() {
        QFETCH(int, mode);
        const CorrelationResult result = run(params(Mode(mode)));
        QVERIFY(result.counts);
        const CountStore& store = *result.counts;
        const std::string file = path("run.counts.fits");
        tpacf::writeCountFile(file, store);
        QVERIFY(bytesOf(file).startsWith("SIMPLE  ="));
        const CountStore read = tpacf::readCountFile(file);
        QCOMPARE(read.source, file);
        compareStores(read, store);
        QCOMPARE(read.culled, store.culled);
        QCOMPARE(read.culling, store.culling);
        QCOMPARE(read.precision, store.precision);
        QCOMPARE(read.unit, store.unit);
        QCOMPARE(jsonOf(read), jsonOf(store));
        // FITS → JSON → FITS: the same bytes again.
        tpacf::writeCountFile(path("again.json"), read);
        tpacf::writeCountFile(path("again.fits"), tpacf::readCountFile(path("again.json")));
        QCOMPARE(bytesOf(path("again.fits")), bytesOf(file));
    }

    // What no run makes but a store may hold: parts 1 and 3 of 4, names FITS would trim or
    // quote, non-ASCII, an empty name, a weight sum that is not a short decimal, NaN.
    void oddStoresReadBack() {
        CountStore store = *run(params(Mode::WeightedJackknife)).counts;
        store.shareParts = 4;
        store.sharesHeld = {0, 2};
        store.catalogs[0].name = "data with trailing blanks.txt   ";
        store.catalogs[1].name = std::string("r\xc3\xa9gion's [1].fits");
        store.catalogs.push_back(store.catalogs[1]);
        store.catalogs.back().name.clear();
        store.catalogs.back().content.low ^= 1;
        // Odd but possible values (a NaN Σw² is refused as implausible on reading).
        store.catalogs.back().weights = {std::nextafter(1.0, 2.0),
                                         std::numeric_limits<double>::denorm_min()};
        store.binsDescription = std::string(150, 'x') + " 'quoted' description";
        store.counts[0].counts.weighted[0] = std::nextafter(0.1, 1.0);
        store.counts[0].regions->weightedTotal[0] = store.counts[0].counts.weighted[0];
        const std::string file = path("odd [1].fits");
        tpacf::writeCountFile(file, store);
        const CountStore read = tpacf::readCountFile(file);
        QCOMPARE(jsonOf(read), jsonOf(store));
        QCOMPARE(read.catalogs[0].name, store.catalogs[0].name);
        QCOMPARE(read.describeShares(), std::string("parts 1, 3 of 4"));
    }

    // JSON and FITS shares combine to the same whole; the file form does not matter.
    void combineOfFitsIsCombineOfJson() {
        const int parts = 3;
        std::vector<CountStore> fromJson, fromFits;
        for (int part = 0; part < parts; ++part) {
            CorrelationParams p = params(Mode::WeightedJackknife);
            p.share = {std::uint32_t(part), std::uint32_t(parts)};
            const CountStore store = *run(p).counts;
            const std::string stem = "share" + std::to_string(part + 1);
            tpacf::writeCountFile(path((stem + ".json").c_str()), store);
            tpacf::writeCountFile(path((stem + ".fits").c_str()), store);
            fromJson.push_back(tpacf::readCountFile(path((stem + ".json").c_str())));
            fromFits.push_back(tpacf::readCountFile(path((stem + ".fits").c_str())));
        }
        const CountStore a = tpacf::combineCountStores(fromJson);
        const CountStore b = tpacf::combineCountStores(fromFits);
        QVERIFY(a.whole());
        QCOMPARE(jsonOf(b), jsonOf(a));
        std::vector<CountStore> mixed{fromFits[0], fromJson[1], fromFits[2]};
        QCOMPARE(jsonOf(tpacf::combineCountStores(mixed)), jsonOf(a));
    }

    // The content decides: FITS under a .json name is read as FITS, JSON under .fits is not.
    void contentDecidesTheForm() {
        const CountStore store = *run(params(Mode::Plain)).counts;
        tpacf::writeCountFile(path("real.fits"), store);
        writeBytes(path("fits-named.json"), bytesOf(path("real.fits")));
        QCOMPARE(jsonOf(tpacf::readCountFile(path("fits-named.json"))), jsonOf(store));
        writeBytes(path("json-named.fits"), QByteArray::fromStdString(jsonOf(store)));
        const QString message =
            inputErrorOf([&] { tpacf::readCountFile(path("json-named.fits")); });
        QVERIFY2(message.contains(QStringLiteral("json-named.fits: not a FITS file")),
                 qPrintable(message));
        for (const char* name : {"c.fits.gz", "c.FITS.GZ", "c.fz"}) {
            QString refusal;
            try {
                tpacf::writeCountFile(path(name), store);
            } catch (const tpacf::ConfigError& error) {
                refusal = QString::fromStdString(error.what());
            }
            QVERIFY2(refusal.contains(QStringLiteral("compressed FITS count files are not "
                                                     "supported")),
                     qPrintable(refusal));
        }
    }

#ifdef TPACF_TEST_HAVE_CFITSIO
    // Each edit of a good file, made with cfitsio, is one clear InputError naming the file.
    void malformedFilesAreInputErrors_data() {
        QTest::addColumn<QString>("edit");
        QTest::addColumn<QString>("expected");
        QTest::newRow("no COUNTS") << "delete COUNTS"
                                   << "it has no binary table COUNTS";
        QTest::newRow("no REGIONS") << "delete REGIONS 3"
                                    << "it has no binary table REGIONS 3 (of count";
        QTest::newRow("RAW as doubles")
            << "RAW as D"
            << "table COUNTS: the column RAW is not unsigned 64-bit integers";
        QTest::newRow("no EDGE") << "delete column EDGE"
                                 << "table BINS: the column EDGE is missing";
        QTest::newRow("NBINS wrong") << "NBINS 8"
                                     << "table BINS: it has 10 rows where 9 belong";
        QTest::newRow("version 9") << "TPVERS 9"
                                   << "version 9 is not one this build reads";
        QTest::newRow("foreign FITS") << "no TPFORMAT"
                                      << "not a tpacf count file";
        QTest::newRow("bad fingerprint")
            << "FINGERPR"
            << "table CATALOGS: the FINGERPR of row 1 is not 32 hex digits";
        QTest::newRow("catalog index") << "FIRST 7"
                                       << "FIRST of row 1 names catalog 7 of";
    }
    void malformedFilesAreInputErrors() {
        QFETCH(QString, edit);
        QFETCH(QString, expected);
        const std::string file = path("edited.fits");
        tpacf::writeCountFile(file, *run(params(Mode::WeightedJackknife)).counts);
        int status = 0;
        fitsfile* fits = nullptr;
        fits_open_diskfile(&fits, file.c_str(), READWRITE, &status);
        int type = 0;
        const auto move = [&](const char* name, int version) {
            fits_movnam_hdu(fits, BINARY_TBL, const_cast<char*>(name), version, &status);
        };
        const auto column = [&](const char* name) {
            int number = 0;
            fits_get_colnum(fits, CASESEN, const_cast<char*>(name), &number, &status);
            return number;
        };
        if (edit == QLatin1String("delete COUNTS")) {
            move("COUNTS", 0);
            fits_delete_hdu(fits, &type, &status);
        } else if (edit == QLatin1String("delete REGIONS 3")) {
            move("REGIONS", 3);
            fits_delete_hdu(fits, &type, &status);
        } else if (edit == QLatin1String("RAW as D")) {
            move("COUNTS", 0);
            const int raw = column("RAW");
            fits_delete_col(fits, raw, &status);
            fits_insert_col(fits, raw, const_cast<char*>("RAW"), const_cast<char*>("9D"), &status);
        } else if (edit == QLatin1String("delete column EDGE")) {
            move("BINS", 0);
            fits_delete_col(fits, column("EDGE"), &status);
        } else if (edit == QLatin1String("NBINS 8")) {
            fits_update_key_lng(fits, "NBINS", 8, nullptr, &status);
        } else if (edit == QLatin1String("TPVERS 9")) {
            fits_update_key_lng(fits, "TPVERS", 9, nullptr, &status);
        } else if (edit == QLatin1String("no TPFORMAT")) {
            fits_delete_key(fits, "TPFORMAT", &status);
        } else if (edit == QLatin1String("FINGERPR")) {
            move("CATALOGS", 0);
            const char* text[] = {"not hex"};
            fits_write_col(fits, TSTRING, column("FINGERPR"), 1, 1, 1, text, &status);
        } else if (edit == QLatin1String("FIRST 7")) {
            move("COUNTS", 0);
            LONGLONG seven = 7;
            fits_write_col(fits, TLONGLONG, column("FIRST"), 1, 1, 1, &seven, &status);
        }
        fits_close_file(fits, &status);
        QCOMPARE(status, 0);
        const QString message = inputErrorOf([&] { tpacf::readCountFile(file); });
        QVERIFY2(message.startsWith(QString::fromStdString(file)), qPrintable(message));
        QVERIFY2(message.contains(expected), qPrintable(message));
        QVERIFY(!message.contains(QLatin1Char('\n')));
    }
#endif

    // Every cut of a good file and seeded byte changes: read, or an InputError; never a crash,
    // another exception or a store that breaks its own sizes.
    void brokenFilesAreInputErrors() {
        const std::string good = path("good.fits");
        tpacf::writeCountFile(good, *run(params(Mode::WeightedJackknife)).counts);
        const QByteArray bytes = bytesOf(good);
        const std::string broken = path("broken.fits");
        for (qsizetype length = 0; length < bytes.size(); length += 1440) {
            writeBytes(broken, bytes.left(length));
            const QString message = inputErrorOf([&] { tpacf::readCountFile(broken); });
            QVERIFY2(message.startsWith(QString::fromStdString(broken)),
                     qPrintable(QStringLiteral("%1 bytes: %2").arg(length).arg(message)));
        }
        std::mt19937_64 rng(9);
        for (int round = 0; round < 300; ++round) {
            QByteArray variant = bytes;
            for (int edit = 0; edit < 3; ++edit)
                variant[qsizetype(rng() % std::uint64_t(variant.size()))] = char(rng() % 128);
            writeBytes(broken, variant);
            try {
                const CountStore store = tpacf::readCountFile(broken);
                const std::size_t bins = store.edges.size() - 1;
                for (const StoredCount& count : store.counts) {
                    QCOMPARE(count.counts.raw.size(), bins);
                    if (count.regions)
                        QCOMPARE(count.regions->touching.size(), store.regionCount * bins);
                }
            } catch (const tpacf::InputError&) {
            }
        }
    }
};

TPACF_TEST_MAIN(TestCountFileFits)
#include "test_count_file_fits.moc"
