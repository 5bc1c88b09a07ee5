// SPDX-License-Identifier: GPL-3.0-or-later
// The ASCII row parser cut into chunks on several threads (core/src/catalog/ascii_rows.h):
// seeded generated files (random rows, LF, CRLF, lone CR and mixed line ends, blank and comment
// lines, weights and regions, errors in various places) parsed with forced small chunks and
// several thread counts must give bit for bit the catalog, or exactly the error, of a
// one-thread, one-chunk parse; an error's line must be the one the generator wrote it on.
#include "catalog/ascii_rows.h"
#include "catalog/ascii_text.h"
#include "tpacf/catalog.h"
#include "tpacf/catalog_reader.h"
#include "tpacf/errors.h"
#include "tpacf_test_main.h"

#include <QtTest/QtTest>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

using tpacf::Catalog;
using tpacf::ColumnRef;
using tpacf::ReadOptions;
using tpacf::detail::ChunkPlan;

namespace {

enum class LineEnd { Lf, CrLf, Cr, Mixed };

constexpr int kNoCount = -1000; // no count line

// A bad field the generator can put into a row, and where.
struct Fault {
    int row = 0;      // 0-based data row
    std::string kind; // see badRow()
};

struct FileSpec {
    int rows = 200;
    LineEnd ending = LineEnd::Lf;
    bool noise = false; // blank, blank-with-spaces and comment lines between rows
    bool header = false;
    bool countLine = false;
    int countOffset = 0; // the count line says rows + countOffset
    bool weightAndRegion = false;
    bool finalLineEnd = true;
    std::vector<Fault> faults;
};

struct Generated {
    std::string text;
    std::optional<long> firstFaultLine; // the line of the first fault, as the generator wrote it
};

std::string number(double value, std::mt19937_64& rng) {
    char buffer[64];
    const int style = static_cast<int>(rng() % 3);
    if (style == 0)
        std::snprintf(buffer, sizeof buffer, "%.9f", value);
    else if (style == 1)
        std::snprintf(buffer, sizeof buffer, "%.17g", value);
    else
        std::snprintf(buffer, sizeof buffer, "%+.6e", value);
    return buffer;
}

// A row with one fault; every kind is an error the reader reports with a message of its own.
std::string badRow(const std::string& kind, const std::string& ra, const std::string& dec,
                   bool weightAndRegion) {
    const std::string tail = weightAndRegion ? " 1.5 3" : "";
    if (kind == "text")
        return "abc " + dec + tail;
    if (kind == "range")
        return ra + " 1e400" + tail;
    if (kind == "hex")
        return "0x1p3 " + dec + tail;
    if (kind == "dec")
        return ra + " 95.5" + tail;
    if (kind == "columns")
        return ra;
    if (kind == "sign")
        return ra + " +" + tail;
    if (kind == "region")
        return ra + " " + dec + " 1.5 2.5";
    if (kind == "weight")
        return ra + " " + dec + " inf 3";
    return "?";
}

Generated generate(const FileSpec& spec, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> raDist(0.0, 360.0), decDist(-90.0, 90.0);
    Generated out;
    long line = 0;
    int endings = 0;
    const auto end = [&](std::string& text) {
        ++line;
        switch (spec.ending) {
        case LineEnd::Lf:
            text += '\n';
            break;
        case LineEnd::CrLf:
            text += "\r\n";
            break;
        case LineEnd::Cr:
            text += '\r';
            break;
        case LineEnd::Mixed: {
            const int kind = endings++ % 3;
            // An LF right after a lone CR would make one CRLF of the two line ends.
            const bool afterLoneCr = !text.empty() && text.back() == '\r';
            text += kind == 0 || (kind == 1 && afterLoneCr) ? "\r\n" : kind == 1 ? "\n" : "\r";
            break;
        }
        }
    };
    if (spec.countLine) {
        out.text += std::to_string(spec.rows + spec.countOffset);
        end(out.text);
    }
    if (spec.header) {
        out.text += spec.weightAndRegion ? "ra dec w region" : "ra dec";
        end(out.text);
    }
    for (int row = 0; row < spec.rows; ++row) {
        while (spec.noise && rng() % 4 == 0) {
            const int kind = static_cast<int>(rng() % 3);
            out.text += kind == 0 ? "" : kind == 1 ? "   \t" : "# a comment 1 2 3";
            end(out.text);
        }
        const std::string ra = number(raDist(rng), rng), dec = number(decDist(rng), rng);
        // Appended piecewise: GCC 12 warns (-Wrestrict, a false alarm) on string + literal.
        std::string content = ra;
        content.append(rng() % 2 ? " " : "  \t");
        content.append(dec);
        if (spec.weightAndRegion) {
            content.push_back(' ');
            content.append(number(0.5 + static_cast<double>(rng() % 1000) / 1000.0, rng));
            content.push_back(' ');
            content.append(std::to_string(static_cast<int>(rng() % 7) - 3));
        }
        for (const Fault& fault : spec.faults)
            if (fault.row == row) {
                content = badRow(fault.kind, ra, dec, spec.weightAndRegion);
                if (!out.firstFaultLine)
                    out.firstFaultLine = line + 1;
            }
        if (spec.noise && rng() % 5 == 0)
            content += "  # trailing comment";
        out.text += content;
        if (row + 1 < spec.rows || spec.finalLineEnd)
            end(out.text);
    }
    return out;
}

ReadOptions optionsFor(const FileSpec& spec) {
    ReadOptions options;
    if (spec.weightAndRegion) {
        options.weightColumn = ColumnRef::parse("3");
        options.regionColumn = ColumnRef::parse("4");
    }
    return options;
}

// What a parse gave: the catalog, or the error's type and message.
struct Outcome {
    std::optional<Catalog> catalog;
    std::string error;
    long errorLine = -1;
};

Outcome parse(const std::string& text, const ReadOptions& options, ChunkPlan plan) {
    Outcome outcome;
    try {
        outcome.catalog = tpacf::detail::parseAsciiCatalog(text, "gen.txt", options, plan);
    } catch (const tpacf::InputError& error) {
        outcome.error = std::string("InputError: ") + error.what();
        outcome.errorLine = error.line();
    } catch (const std::exception& error) {
        outcome.error = std::string("other: ") + error.what();
    }
    return outcome;
}

template <class T> bool sameBits(std::span<const T> a, std::span<const T> b) {
    return a.size() == b.size() &&
           (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

void compareOutcomes(const Outcome& got, const Outcome& want, const QByteArray& where) {
    QVERIFY2(got.error == want.error, (where + ": error '" + QByteArray::fromStdString(got.error) +
                                       "', want '" + QByteArray::fromStdString(want.error) + "'")
                                          .constData());
    if (!want.catalog)
        return;
    QVERIFY2(got.catalog.has_value(), where.constData());
    const Catalog& a = *got.catalog;
    const Catalog& b = *want.catalog;
    QVERIFY2(a.size() == b.size(), where.constData());
    QVERIFY2(sameBits(a.ra(), b.ra()) && sameBits(a.dec(), b.dec()), where.constData());
    QVERIFY2(sameBits(a.x(), b.x()) && sameBits(a.y(), b.y()) && sameBits(a.z(), b.z()),
             where.constData());
    QVERIFY2(sameBits(a.weight(), b.weight()) && sameBits(a.region(), b.region()),
             where.constData());
    QVERIFY2(a.origin().describe() == b.origin().describe(), where.constData());
}

} // namespace

class TestAsciiChunks : public QObject {
    Q_OBJECT

private slots:
    void chunksMatchOnePass_data() {
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("ending");
        QTest::addColumn<bool>("noise");
        QTest::addColumn<bool>("header");
        QTest::addColumn<int>("countLine"); // kNoCount, or the count line's offset from rows
        QTest::addColumn<bool>("weightAndRegion");
        QTest::addColumn<bool>("finalLineEnd");
        QTest::addColumn<QString>("faults"); // "row:kind,row:kind"
        const int lf = int(LineEnd::Lf), crlf = int(LineEnd::CrLf), cr = int(LineEnd::Cr),
                  mixed = int(LineEnd::Mixed);
        QTest::newRow("lf") << 300 << lf << false << false << kNoCount << false << true << "";
        QTest::newRow("crlf") << 300 << crlf << false << false << kNoCount << false << true << "";
        QTest::newRow("lone cr") << 300 << cr << false << false << kNoCount << false << true << "";
        QTest::newRow("lone cr, no final end")
            << 300 << cr << true << false << kNoCount << false << false << "";
        QTest::newRow("mixed, noise")
            << 300 << mixed << true << true << kNoCount << true << true << "";
        QTest::newRow("lf noise header count")
            << 300 << lf << true << true << 0 << true << false << "";
        QTest::newRow("crlf noise, count wrong")
            << 300 << crlf << true << false << 2 << false << true << "";
        QTest::newRow("count wrong and a bad row")
            << 300 << lf << true << false << -5 << false << true << "250:text";
        QTest::newRow("one row") << 1 << lf << false << false << kNoCount << false << true << "";
        QTest::newRow("two rows, cr")
            << 2 << cr << true << false << kNoCount << false << false << "";
        QTest::newRow("text in first row")
            << 300 << lf << false << false << kNoCount << false << true << "0:text";
        QTest::newRow("text in second row")
            << 300 << crlf << true << false << kNoCount << false << true << "1:text";
        QTest::newRow("last row, cr")
            << 300 << cr << true << false << kNoCount << false << false << "299:range";
        QTest::newRow("middle, mixed")
            << 300 << mixed << true << true << kNoCount << true << true << "150:hex";
        QTest::newRow("two faults far apart")
            << 400 << lf << true << false << kNoCount << false << true << "40:dec,350:text";
        QTest::newRow("two faults, later first in file")
            << 400 << crlf << true << false << -1 << false << true << "380:sign,90:columns";
        QTest::newRow("two faults adjacent")
            << 400 << cr << true << false << kNoCount << true << true << "200:region,201:weight";
        QTest::newRow("faults in every part")
            << 400 << mixed << true << false << kNoCount << true << true
            << "399:text,300:hex,220:dec,120:range,60:region";
        QTest::newRow("weight not finite")
            << 300 << lf << false << true << kNoCount << true << true << "123:weight";
    }

    void chunksMatchOnePass() {
        QFETCH(int, rows);
        QFETCH(int, ending);
        QFETCH(bool, noise);
        QFETCH(bool, header);
        QFETCH(int, countLine);
        QFETCH(bool, weightAndRegion);
        QFETCH(bool, finalLineEnd);
        QFETCH(QString, faults);
        FileSpec spec;
        spec.rows = rows;
        spec.ending = static_cast<LineEnd>(ending);
        spec.noise = noise;
        spec.header = header;
        spec.countLine = countLine != kNoCount;
        spec.countOffset = spec.countLine ? countLine : 0;
        spec.weightAndRegion = weightAndRegion;
        spec.finalLineEnd = finalLineEnd;
        for (const QString& fault : faults.split(QLatin1Char(','), Qt::SkipEmptyParts))
            spec.faults.push_back(Fault{fault.section(QLatin1Char(':'), 0, 0).toInt(),
                                        fault.section(QLatin1Char(':'), 1, 1).toStdString()});

        for (const unsigned seed : {1u, 2u, 3u}) {
            const Generated file = generate(spec, seed);
            const ReadOptions options = optionsFor(spec);
            const Outcome want = parse(file.text, options, ChunkPlan{file.text.size() + 1, 1});
            // The reference itself: a fault is reported on the line the generator wrote it on.
            if (file.firstFaultLine) {
                QVERIFY2(!want.catalog, want.error.c_str());
                QCOMPARE(want.errorLine, *file.firstFaultLine);
            } else if (!spec.countLine || spec.countOffset == 0) {
                QVERIFY2(want.catalog.has_value(), want.error.c_str());
                QCOMPARE(want.catalog->size(), std::size_t(rows));
            } else {
                QVERIFY2(want.error.find("the count line says") != std::string::npos,
                         want.error.c_str());
            }
            for (const std::size_t chunkBytes : {1, 5, 64, 257, 1000})
                for (const int threads : {1, 2, 3, 8}) {
                    const QByteArray where = QByteArray("seed ") + QByteArray::number(seed) +
                                             ", chunk " + QByteArray::number(chunkBytes) + " B, " +
                                             QByteArray::number(threads) + " threads";
                    compareOutcomes(parse(file.text, options, ChunkPlan{chunkBytes, threads}), want,
                                    where);
                }
        }
    }

    // The same rows with LF, CRLF, lone CR or mixed line ends are the same catalog, whatever
    // the chunks: an independent check of where lines end.
    void lineEndsGiveSameCatalog() {
        FileSpec spec;
        spec.rows = 500;
        spec.noise = true;
        spec.weightAndRegion = true;
        const Generated lf = generate(spec, 9);
        const Outcome want = parse(lf.text, optionsFor(spec), ChunkPlan{lf.text.size() + 1, 1});
        QVERIFY2(want.catalog && want.catalog->size() == 500, want.error.c_str());
        for (const LineEnd ending : {LineEnd::CrLf, LineEnd::Cr, LineEnd::Mixed}) {
            spec.ending = ending;
            const Generated file = generate(spec, 9);
            QVERIFY(file.text != lf.text);
            for (const std::size_t chunkBytes :
                 {std::size_t(7), std::size_t(100), file.text.size()})
                compareOutcomes(parse(file.text, optionsFor(spec), ChunkPlan{chunkBytes, 3}), want,
                                "line end " + QByteArray::number(int(ending)) + ", chunk " +
                                    QByteArray::number(qulonglong(chunkBytes)));
        }
    }

    // Catalog::fromRadians spreads its sines and cosines over threads: every thread count gives
    // the bits of one thread, and z is sin(Dec) of the point itself.
    void unitVectorsSameOnAnyThreads() {
        std::mt19937_64 rng(15);
        std::uniform_real_distribution<double> raDist(-7.0, 13.0), decDist(-1.5, 1.5);
        std::vector<double> ra(300001), dec(ra.size());
        for (std::size_t i = 0; i < ra.size(); ++i) {
            ra[i] = raDist(rng);
            dec[i] = decDist(rng);
        }
        const Catalog one = Catalog::fromRadians("one", ra, dec, {}, {}, 1);
        for (const double z : {one.z()[0], one.z()[150000], one.z()[300000]})
            QVERIFY(std::isfinite(z));
        QCOMPARE(one.z()[12345], std::sin(dec[12345]));
        for (const int threads : {0, 2, 3, 7}) {
            const Catalog many = Catalog::fromRadians("many", ra, dec, {}, {}, threads);
            QVERIFY(sameBits(many.ra(), one.ra()) && sameBits(many.dec(), one.dec()));
            QVERIFY(sameBits(many.x(), one.x()) && sameBits(many.y(), one.y()) &&
                    sameBits(many.z(), one.z()));
        }
    }

    // countNewlines (eight bytes a step, bytewise sums folded every 255 steps) against
    // std::count: random bytes with no LF, few, half and only LFs (every byte of every step an LF:
    // the sums' largest values), every start offset in a word and lengths across several folds.
    void newlinesCounted_data() {
        QTest::addColumn<int>("percentNewlines");
        for (const int percent : {0, 3, 50, 100})
            QTest::newRow(qPrintable(QString::number(percent) + QStringLiteral(" % LF"))) << percent;
    }

    void newlinesCounted() {
        QFETCH(int, percentNewlines);
        std::mt19937_64 rng(std::uint64_t(percentNewlines) + 41);
        std::string text(6000, '\0');
        for (char& c : text)
            c = int(rng() % 100) < percentNewlines ? '\n' : static_cast<char>(rng() % 256);
        if (percentNewlines == 0)
            std::replace(text.begin(), text.end(), '\n', 'x');
        for (std::size_t offset = 0; offset < 8; ++offset)
            for (std::size_t length = 0; offset + length <= text.size(); length += 61) {
                const std::string_view view(text.data() + offset, length);
                QCOMPARE(tpacf::detail::countNewlines(view),
                         std::size_t(std::count(view.begin(), view.end(), '\n')));
            }
        QCOMPARE(tpacf::detail::countNewlines(std::string_view()), std::size_t(0));
    }

    // A chunk of several MB (a large file read on few threads) has its line ends counted in
    // blocks of a few MB, between which Ctrl-C is honoured; the next chunk's rows take their line
    // numbers from that count. With fixed-width rows and a leading comment padded by every length
    // up to a line's, some line end falls across every block boundary, whatever the block size: a
    // CRLF cut there would be counted as two line ends and move the error of a row of the second
    // chunk to a later line. The error must name the line the row is on, with LF, CRLF and lone
    // CR line ends.
    void lineEndsCountedInBlocks_data() {
        QTest::addColumn<QByteArray>("lineEnd");
        QTest::newRow("lf") << QByteArray("\n");
        QTest::newRow("crlf") << QByteArray("\r\n");
        QTest::newRow("lone cr") << QByteArray("\r");
    }

    void lineEndsCountedInBlocks() {
        QFETCH(QByteArray, lineEnd);
        const std::string end = lineEnd.toStdString();
        const std::string row = "123.456789 -12.345678" + end; // 21 characters and the end
        const std::size_t firstChunk = std::size_t(9) << 19; // 4.5 MiB
        const std::size_t rows = firstChunk / row.size() + 100;
        std::string body;
        body.reserve(rows * row.size() + 16);
        for (std::size_t r = 0; r + 1 < rows; ++r)
            body += row;
        body += "123.456789 abc" + end; // the last row's Dec is not a number
        for (std::size_t pad = 0; pad < row.size(); ++pad) {
            // The rows after the first are the chunked text: the padded comment goes there.
            const std::string text = row + "#" + std::string(pad, 'x') + end + body;
            const Outcome got = parse(text, ReadOptions{}, ChunkPlan{firstChunk, 2});
            QVERIFY2(!got.catalog, "the last row is bad");
            QVERIFY2(got.errorLine == long(rows) + 2,
                     (std::to_string(pad) + "-byte pad: error on line " +
                      std::to_string(got.errorLine) + ", want " + std::to_string(rows + 2))
                         .c_str());
        }
    }

    // Chunks start just after a line end, never between a CR and its LF, and cover the text.
    void chunkStartsAfterLineEnds_data() {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<int>("chunkBytes");
        QTest::newRow("lf") << QByteArray("1 2\n3 4\n5 6\n") << 2;
        QTest::newRow("crlf") << QByteArray("1 2\r\n3 4\r\n5 6\r\n") << 1;
        QTest::newRow("cr") << QByteArray("1 2\r3 4\r5 6") << 3;
        QTest::newRow("cr cr lf") << QByteArray("1\r\r\n2\r\r\r\n\n3") << 1;
        QTest::newRow("no line end") << QByteArray("1 2 3 4 5 6") << 2;
        QTest::newRow("ends in cr") << QByteArray("1 2\r") << 1;
    }

    void chunkStartsAfterLineEnds() {
        QFETCH(QByteArray, text);
        QFETCH(int, chunkBytes);
        const std::string_view view(text.constData(), std::size_t(text.size()));
        const std::vector<std::size_t> starts =
            tpacf::detail::chunkStarts(view, std::size_t(chunkBytes));
        QCOMPARE(starts.front(), std::size_t(0));
        for (std::size_t k = 1; k < starts.size(); ++k) {
            QVERIFY(starts[k] > starts[k - 1]);
            QVERIFY(starts[k] < view.size());
            const char before = view[starts[k] - 1];
            QVERIFY(before == '\n' || before == '\r');
            QVERIFY(!(before == '\r' && view[starts[k]] == '\n'));
        }
        // Each cut is the first place after a line end at or past the previous start plus the
        // chunk size; none is left out before the end of the text.
        const auto isCut = [&](std::size_t i) {
            return i < view.size() &&
                   (view[i - 1] == '\n' || (view[i - 1] == '\r' && view[i] != '\n'));
        };
        for (std::size_t k = 0; k < starts.size(); ++k) {
            std::size_t want = starts[k] + std::size_t(chunkBytes) + 1;
            while (want < view.size() && !isCut(want))
                ++want;
            if (k + 1 < starts.size())
                QCOMPARE(starts[k + 1], want);
            else
                QVERIFY(want >= view.size());
        }
    }
};

TPACF_TEST_MAIN(TestAsciiChunks)
#include "test_ascii_chunks.moc"
