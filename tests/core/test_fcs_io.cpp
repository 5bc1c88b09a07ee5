// SPDX-License-Identifier: GPL-3.0-or-later
// Photon-count streams in and the multi-tau table out: raw uint8 frames and ASCII columns read
// back byte for byte in pieces of any size (ASCII across the reader's 1 MB blocks, with comments,
// a header, CRLF and lone-CR line ends), every bad input an InputError naming file, line and
// column; the ECSV table's rows, columns, values and mean rows against the counts.
#include "tpacf_test_main.h"
#include "tpacf/errors.h"
#include "tpacf/fcs_io.h"
#include "tpacf/multitau.h"

#include <QtTest/QtTest>

#include <cmath>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string writeFile(const QTemporaryDir& dir, const char* name, const std::string& content) {
    const std::string path = dir.filePath(QString::fromLatin1(name)).toStdString();
    std::ofstream(path, std::ios::binary) << content;
    return path;
}

std::vector<std::uint8_t> readAll(tpacf::fcs::FrameReader& reader, std::size_t piece) {
    std::vector<std::uint8_t> all, frames;
    while (const std::size_t n = reader.read(frames, piece)) {
        if (frames.size() != n * reader.channels())
            return {};
        all.insert(all.end(), frames.begin(), frames.end());
    }
    return all;
}

// The InputError of opening and reading `path` as ASCII counts to the end.
tpacf::InputError asciiError(const std::string& path) {
    try {
        auto reader = tpacf::fcs::openAsciiCounts(path);
        readAll(*reader, 1000);
    } catch (const tpacf::InputError& error) {
        return error;
    }
    return tpacf::InputError("no error");
}

std::vector<std::string> splitCsv(const std::string& line) {
    std::vector<std::string> fields;
    std::stringstream stream(line);
    for (std::string field; std::getline(stream, field, ',');)
        fields.push_back(field);
    if (!line.empty() && line.back() == ',')
        fields.emplace_back();
    return fields;
}

} // namespace

class TestFcsIo : public QObject {
    Q_OBJECT

private slots:
    void rawFramesInPieces_data() {
        QTest::addColumn<int>("piece");
        for (const int piece : {1, 7, 1000, 100000})
            QTest::newRow(qPrintable(QString::number(piece))) << piece;
    }
    void rawFramesInPieces() {
        QFETCH(int, piece);
        QTemporaryDir dir;
        std::string bytes(5 * 3001, '\0');
        std::mt19937 random(1);
        for (char& byte : bytes)
            byte = static_cast<char>(random());
        const std::string path = writeFile(dir, "frames.u8", bytes);
        auto reader = tpacf::fcs::openRawFrames(path, 5);
        QCOMPARE(reader->channels(), std::size_t{5});
        QCOMPARE(*reader->totalFrames(), std::uint64_t{3001});
        QCOMPARE(reader->fileBytes(), std::uint64_t{bytes.size()});
        const auto all = readAll(*reader, static_cast<std::size_t>(piece));
        QCOMPARE(std::string(all.begin(), all.end()), bytes);
        QCOMPARE(reader->bytesRead(), std::uint64_t{bytes.size()});
    }

    void rawFrameErrors() {
        QTemporaryDir dir;
        const std::string odd = writeFile(dir, "odd.u8", std::string(1001, 'x'));
        try {
            tpacf::fcs::openRawFrames(odd, 4);
            QFAIL("no error");
        } catch (const tpacf::InputError& error) {
            QCOMPARE(error.file(), odd);
            const QString text = QString::fromStdString(error.what());
            QVERIFY2(text.contains(QStringLiteral("1001 bytes")) &&
                         text.contains(QStringLiteral("not a multiple of 4")),
                     error.what());
        }
        const std::string empty = writeFile(dir, "empty.u8", "");
        QVERIFY_THROWS_EXCEPTION(tpacf::InputError, tpacf::fcs::openRawFrames(empty, 4));
        QVERIFY_THROWS_EXCEPTION(tpacf::InputError,
                                 tpacf::fcs::openRawFrames(dir.path().toStdString() + "/none", 4));
        QVERIFY_THROWS_EXCEPTION(tpacf::InputError,
                                 tpacf::fcs::openRawFrames(dir.path().toStdString(), 4));
        QVERIFY_THROWS_EXCEPTION(tpacf::ConfigError, tpacf::fcs::openRawFrames(odd, 0));
    }

    void asciiForms_data() {
        QTest::addColumn<QString>("text");
        QTest::newRow("blanks") << QStringLiteral("1 2 3\n4 5 6\n");
        QTest::newRow("commas") << QStringLiteral("1,2,3\n4, 5 ,6\n");
        QTest::newRow("comments and blank lines")
            << QStringLiteral("# SPAD run 7\n\n1 2 3 # first\n  \n4\t5\t6\n# end\n");
        QTest::newRow("header") << QStringLiteral("ch0 ch1 ch2\n1 2 3\n4 5 6");
        QTest::newRow("comma header") << QStringLiteral("a,b,c\r\n1,2,3\r\n4,5,6\r\n");
        QTest::newRow("lone CR") << QStringLiteral("1 2 3\r4 5 6\r");
        QTest::newRow("byte order mark") << QStringLiteral("\uFEFF1 2 3\n4 5 6\n");
    }
    void asciiForms() {
        QFETCH(QString, text);
        QTemporaryDir dir;
        const std::string path = writeFile(dir, "counts.txt", text.toStdString());
        for (const std::size_t piece : {std::size_t{1}, std::size_t{10}}) {
            auto reader = tpacf::fcs::openAsciiCounts(path);
            QCOMPARE(reader->channels(), std::size_t{3});
            QVERIFY(!reader->totalFrames());
            const auto all = readAll(*reader, piece);
            QCOMPARE(all, (std::vector<std::uint8_t>{1, 2, 3, 4, 5, 6}));
        }
    }

    // ~1.9 MB of lines with CRLF ends: the 1 MB blocks cut lines (and a CRLF) anywhere.
    void asciiAcrossBlocks() {
        QTemporaryDir dir;
        std::mt19937 random(4);
        std::string text = "# big\r\n";
        std::vector<std::uint8_t> expected;
        for (int line = 0; line < 120000; ++line) {
            for (int c = 0; c < 4; ++c) {
                const auto value = static_cast<std::uint8_t>(random());
                expected.push_back(value);
                text += std::to_string(value) + (c < 3 ? " " : "\r\n");
            }
            if (line % 1000 == 0)
                text += "# comment\r\n\r\n";
        }
        const std::string path = writeFile(dir, "big.txt", text);
        auto reader = tpacf::fcs::openAsciiCounts(path);
        QCOMPARE(readAll(*reader, 4099), expected);
        QCOMPARE(reader->bytesRead(), std::uint64_t{text.size()});
        // A bad field far into the file is found at its line, past several blocks.
        std::string broken = text;
        const std::size_t at = broken.find("\r\n", broken.size() * 3 / 4) + 2;
        broken.insert(at, "1 2 x3 4\r\n");
        const long line = static_cast<long>(std::count(broken.begin(), broken.begin() + at, '\n')) + 1;
        const tpacf::InputError error = asciiError(writeFile(dir, "broken.txt", broken));
        QCOMPARE(error.line(), line);
        QCOMPARE(error.column(), 3);
    }

    void asciiErrors_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("line");
        QTest::addColumn<int>("column");
        QTest::addColumn<QString>("problem");
        QTest::newRow("word") << QStringLiteral("1 2\n3 abc\n") << 2 << 2
                              << QStringLiteral("'abc' is not a photon count");
        QTest::newRow("decimal") << QStringLiteral("1 2\n3 4\n5.5 6\n") << 3 << 1
                                 << QStringLiteral("'5.5' is not a photon count");
        QTest::newRow("too large") << QStringLiteral("# c\n256 1\n") << 2 << 1
                                   << QStringLiteral("'256' is out of range");
        QTest::newRow("huge") << QStringLiteral("1 99999999999999999999999\n") << 1 << 2
                              << QStringLiteral("is out of range");
        QTest::newRow("negative") << QStringLiteral("1 2\n-1 2\n") << 2 << 1
                                  << QStringLiteral("'-1' is negative");
        QTest::newRow("empty field") << QStringLiteral("1,2\n3,,\n") << 2 << 0
                                     << QStringLiteral("has 3 columns where the first frame");
        QTest::newRow("empty comma field") << QStringLiteral("1,2\n,2\n") << 2 << 1
                                           << QStringLiteral("the field is empty");
        QTest::newRow("short line") << QStringLiteral("1 2 3\n4 5 6\n7 8\n") << 3 << 0
                                    << QStringLiteral("has 2 columns where the first frame (line 1) has 3");
        QTest::newRow("no frames") << QStringLiteral("# only a comment\n\n") << 0 << 0
                                   << QStringLiteral("no frames");
        QTest::newRow("header only") << QStringLiteral("a b\n# none\n") << 0 << 0
                                     << QStringLiteral("a header line but no line");
        QTest::newRow("header and frames differ") << QStringLiteral("a b\n1 2 3\n") << 2 << 0
                                                  << QStringLiteral("the header (line 1) names 2");
        QTest::newRow("binary") << QStringLiteral("1 2\n\u0001\u0000\n") << 0 << 0
                                << QStringLiteral("looks like binary data");
    }
    void asciiErrors() {
        QFETCH(QString, text);
        QFETCH(int, line);
        QFETCH(int, column);
        QFETCH(QString, problem);
        QTemporaryDir dir;
        const std::string path = writeFile(dir, "bad.txt", text.toStdString());
        const tpacf::InputError error = asciiError(path);
        QCOMPARE(error.file(), path);
        QCOMPARE(error.line(), static_cast<long>(line));
        QCOMPARE(error.column(), column);
        QVERIFY2(QString::fromStdString(error.problem()).contains(problem), error.what());
    }

    void ecsvTable() {
        const tpacf::fcs::MultiTauSettings settings{4, 3};
        const std::size_t channels = 3;
        auto correlator = tpacf::fcs::makeCpuCorrelator(settings, channels);
        std::vector<std::uint8_t> data(3 * 50);
        std::mt19937 random(2);
        for (std::size_t i = 0; i < data.size(); ++i)
            data[i] = i % 3 == 1 ? 0 : static_cast<std::uint8_t>(random() % 6); // channel 1 dark
        correlator->feed(data);
        const tpacf::fcs::MultiTauCounts counts = correlator->counts();
        tpacf::fcs::AutocorrelationInfo info;
        info.frameSeconds = 2e-6;
        info.input = "test frames";
        info.backend = "cpu";
        info.device = "CPU, 1 thread";
        info.extra.emplace_back("note", "extra line");
        std::ostringstream out;
        tpacf::fcs::writeAutocorrelationEcsv(out, counts, info);
        const std::string text = out.str();
        QVERIFY(text.starts_with("# %ECSV 1.0\n"));
        for (const char* meta : {"#   channels: '3'", "#   frames: '50'", "#   frame time: '2e-06 s'",
                                 "#   lags per level: '4'", "#   levels: '3'", "#   backend: 'cpu'",
                                 "#   input: 'test frames'", "#   note: 'extra line'",
                                 "{name: 'tau_s', unit: 's', datatype: float64}",
                                 "{name: 'channel', datatype: string}"})
            QVERIFY2(text.find(meta) != std::string::npos, meta);

        std::istringstream lines(text);
        std::string line;
        while (std::getline(lines, line) && line.starts_with('#')) {
        }
        QCOMPARE(QString::fromStdString(line), QStringLiteral("channel,level,j,tau_frames,tau_s,A,G"));
        const auto lags = tpacf::fcs::lagsOf(settings);
        std::size_t rows = 0;
        while (std::getline(lines, line)) {
            const auto fields = splitCsv(line);
            QCOMPARE(fields.size(), std::size_t{7});
            const tpacf::fcs::Lag& lag = lags[rows % lags.size()];
            QCOMPARE(std::stoi(fields[1]), lag.level);
            QCOMPARE(std::stoi(fields[2]), lag.j);
            QCOMPARE(std::stoull(fields[3]), lag.tauFrames);
            QCOMPARE(std::stod(fields[4]), static_cast<double>(lag.tauFrames) * 2e-6);
            const bool mean = rows >= channels * lags.size();
            const double g = mean ? counts.meanG(lag.level, lag.j)
                                  : counts.g(rows / lags.size(), lag.level, lag.j);
            if (mean) {
                QCOMPARE(fields[0], std::string("mean"));
                QVERIFY(fields[5].empty());
            } else {
                QCOMPARE(fields[0], std::to_string(rows / lags.size()));
                QCOMPARE(std::stoull(fields[5]), counts.product(rows / lags.size(), lag.level, lag.j));
            }
            if (std::isnan(g))
                QCOMPARE(fields[6], std::string("nan"));
            else
                QCOMPARE(std::stod(fields[6]), g); // shortest round-trip text: exact
            ++rows;
        }
        QCOMPARE(rows, (channels + 1) * lags.size());
    }
};

TPACF_TEST_MAIN(TestFcsIo)
#include "test_fcs_io.moc"
