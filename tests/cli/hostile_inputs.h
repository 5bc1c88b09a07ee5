// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A seeded corpus of hostile catalog files for the readers, each with what reading it must give:
// an error (exit 2, one line naming the file and, where the fault has one, its line and column)
// or exactly the catalog of a clean equivalent. Built in memory, independent of core's readers:
// the clean equivalent of every case is worked out here from the text or bytes it writes.
#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>
#include <QtEndian>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace hostile {

/// How the input reaches tpacf: a file written from `content`, or a special path.
enum class Special {
    None,
    Path,          // `path` as given (/dev/zero, /proc/self/status)
    Fifo,          // a FIFO nobody writes to
    Directory,     // a directory
    SymlinkLoop,   // a -> b -> a
    DanglingLink,  // a link to a file that does not exist
    Missing,       // a name nothing exists at
    EmptyPath,     // --a ""
    LinkToFile,    // a link to `content` written as a file
    TrailingSlash, // "file.txt/"
    Socket,        // a Unix socket
};

/// What the read must give. Either: an error, or the clean catalog when `clean` is set.
enum class Expect { Either, Error, Clean };

struct Point {
    double ra = 0, dec = 0;
};

struct Case {
    QByteArray name;                             // the data row's name: "kind: variant"
    QString fileName = QStringLiteral("in.txt"); // the extension picks the reader
    QByteArray content;                          // the file's bytes
    Special special = Special::None;
    QString path;          // for Special::Path
    QStringList readArgs;  // reading flags for the hostile input (--ra-col ...)
    QStringList cleanArgs; // reading flags for the clean file (units only)
    Expect expect = Expect::Either;
    std::optional<std::vector<Point>> clean; // the clean equivalent, where there is one
    long line = -1;                          // the error must name this line (-1: not checked)
    int column = -1;                         // ... and this column (-1: not checked)
    QByteArray mentions;                     // ... and say this (empty: not checked)
};

/// Command-line words (the suite builds with QT_NO_CAST_FROM_ASCII).
inline QStringList words(std::initializer_list<const char*> list) {
    QStringList result;
    for (const char* word : list)
        result << QString::fromUtf8(word);
    return result;
}

// ---- numbers as the readers must read them ----------------------------------------------

/// A field as a number the way the ASCII reader takes it: the whole field, an optional '+'
/// before a digit or '.', finite. nullopt: the reader must refuse it.
inline std::optional<double> strictNumber(const QByteArray& field) {
    const char* begin = field.constData();
    const char* end = begin + field.size();
    if (begin < end && *begin == '+' && begin + 1 < end && begin[1] != '+' && begin[1] != '-')
        ++begin;
    if (begin == end)
        return std::nullopt;
    double value = 0;
    const auto [stop, ec] = std::from_chars(begin, end, value);
    if (ec != std::errc() || stop != end || !std::isfinite(value))
        return std::nullopt;
    return value;
}

inline QByteArray g17(double value) {
    return QByteArray::number(value, 'g', 17);
}

/// Rows of fields, as a generator writes them before joining.
using Rows = std::vector<std::vector<QByteArray>>;

/// The clean catalog of `rows` read from columns `ra`, `dec` (0-based), Dec within ±`decLimit`;
/// nullopt when some row would be an error.
inline std::optional<std::vector<Point>> pointsOf(const Rows& rows, std::size_t ra = 0,
                                                  std::size_t dec = 1, double decLimit = 90) {
    std::vector<Point> points;
    for (const auto& row : rows) {
        if (row.size() <= std::max(ra, dec))
            return std::nullopt;
        const auto r = strictNumber(row[ra]);
        const auto d = strictNumber(row[dec]);
        if (!r || !d || !(*d >= -decLimit && *d <= decLimit))
            return std::nullopt;
        points.push_back({*r, *d});
    }
    if (points.empty())
        return std::nullopt;
    return points;
}

inline QByteArray join(const Rows& rows, const QByteArray& separator = " ",
                       const QByteArray& lineEnd = "\n") {
    QByteArray text;
    for (const auto& row : rows) {
        for (std::size_t i = 0; i < row.size(); ++i)
            text += (i ? separator : QByteArray()) + row[i];
        text += lineEnd;
    }
    return text;
}

/// A small patch of sky (RA 10-12 deg, Dec -1..1 deg), so that pairs fill 1'-600' bins; `extra`
/// more columns of small integers. Values written with 9 significant digits.
inline Rows randomRows(std::mt19937_64& rng, int n, int extra = 0) {
    std::uniform_real_distribution<double> ra(10.0, 12.0), dec(-1.0, 1.0);
    std::uniform_int_distribution<int> small(0, 99);
    Rows rows;
    for (int i = 0; i < n; ++i) {
        std::vector<QByteArray> row{QByteArray::number(ra(rng), 'g', 9),
                                    QByteArray::number(dec(rng), 'g', 9)};
        for (int e = 0; e < extra; ++e)
            row.push_back(QByteArray::number(small(rng)));
        rows.push_back(std::move(row));
    }
    return rows;
}

// ---- FITS, written from the standard ------------------------------------------------------

struct FitsCard {
    QByteArray key, value; // value empty: a card without "= "
};

inline QByteArray fitsInt(long long v) {
    return QByteArray::number(v).rightJustified(20);
}
inline QByteArray fitsString(const QByteArray& s) {
    return "'" + s.leftJustified(8) + "'";
}
inline QByteArray fitsLogical(bool v) {
    return QByteArray(v ? "T" : "F").rightJustified(20);
}

inline QByteArray serialize(const std::vector<FitsCard>& cards, bool end = true) {
    QByteArray header;
    for (const FitsCard& card : cards) {
        QByteArray text = card.key.leftJustified(8, ' ', true);
        if (!card.value.isEmpty())
            text += "= " + card.value;
        header += text.leftJustified(80, ' ', true);
    }
    if (end)
        header += QByteArray("END").leftJustified(80, ' ');
    while (header.size() % 2880)
        header += ' ';
    return header;
}

inline void padData(QByteArray& data, char fill = '\0') {
    while (data.size() % 2880)
        data += fill;
}

inline std::vector<FitsCard> primaryCards(const std::vector<long long>& axes = {}, int bitpix = 8) {
    std::vector<FitsCard> cards{{"SIMPLE", fitsLogical(true)},
                                {"BITPIX", fitsInt(bitpix)},
                                {"NAXIS", fitsInt(static_cast<long long>(axes.size()))}};
    for (std::size_t i = 0; i < axes.size(); ++i)
        cards.push_back({"NAXIS" + QByteArray::number(qulonglong(i + 1)), fitsInt(axes[i])});
    cards.push_back({"EXTEND", fitsLogical(true)});
    return cards;
}

/// An image HDU of zeros (BITPIX 8); the primary one, or an IMAGE extension.
inline QByteArray imageHdu(const std::vector<long long>& axes, bool primary) {
    std::vector<FitsCard> cards = primaryCards(axes);
    if (!primary) {
        cards[0] = {"XTENSION", fitsString("IMAGE")};
        cards.pop_back(); // EXTEND
        cards.push_back({"PCOUNT", fitsInt(0)});
        cards.push_back({"GCOUNT", fitsInt(1)});
    }
    long long bytes = axes.empty() ? 0 : 1;
    for (long long axis : axes)
        bytes *= axis;
    QByteArray data(static_cast<qsizetype>(bytes), '\0');
    padData(data);
    return serialize(cards) + data;
}

struct FitsColumn {
    QByteArray name; // empty: no TTYPE card
    QByteArray form; // D E J K I B L C 2D 8A 16X
    std::vector<double> values;
};

inline int fitsFieldBytes(const QByteArray& form) {
    if (form == "D" || form == "K" || form == "C" || form == "8A")
        return 8;
    if (form == "E" || form == "J")
        return 4;
    if (form == "I" || form == "16X")
        return 2;
    if (form == "B" || form == "L")
        return 1;
    if (form == "2D")
        return 16;
    return 0;
}

inline QByteArray fitsField(const QByteArray& form, double v) {
    char b[16] = {};
    if (form == "D") {
        qToBigEndian(std::bit_cast<quint64>(v), b);
        return QByteArray(b, 8);
    }
    if (form == "E") {
        qToBigEndian(std::bit_cast<quint32>(static_cast<float>(v)), b);
        return QByteArray(b, 4);
    }
    if (form == "J") {
        qToBigEndian(static_cast<qint32>(v), b);
        return QByteArray(b, 4);
    }
    if (form == "K") {
        qToBigEndian(static_cast<qint64>(v), b);
        return QByteArray(b, 8);
    }
    if (form == "I") {
        qToBigEndian(static_cast<qint16>(v), b);
        return QByteArray(b, 2);
    }
    if (form == "B")
        return QByteArray(1, static_cast<char>(static_cast<unsigned char>(v)));
    if (form == "L")
        return QByteArray(1, v != 0 ? 'T' : 'F');
    if (form == "C") {
        qToBigEndian(std::bit_cast<quint32>(static_cast<float>(v)), b);
        return QByteArray(b, 8);
    }
    if (form == "2D") {
        qToBigEndian(std::bit_cast<quint64>(v), b);
        qToBigEndian(std::bit_cast<quint64>(v), b + 8);
        return QByteArray(b, 16);
    }
    if (form == "16X")
        return QByteArray(2, '\xFF');
    return QByteArray::number(v).leftJustified(8, ' ', true); // 8A
}

/// A BINTABLE extension: header cards (for a test to alter) and the data, padded.
struct FitsTable {
    std::vector<FitsCard> cards;
    QByteArray data;

    QByteArray bytes() const { return serialize(cards) + data; }
    /// Sets an existing card's value, or removes it with an empty `value`.
    FitsTable& set(const QByteArray& key, const QByteArray& value) {
        for (auto it = cards.begin(); it != cards.end(); ++it)
            if (it->key == key) {
                if (value.isEmpty())
                    cards.erase(it);
                else
                    it->value = value;
                return *this;
            }
        cards.push_back({key, value});
        return *this;
    }
};

inline FitsTable binTable(const std::vector<FitsColumn>& columns) {
    const std::size_t rows = columns.empty() ? 0 : columns.front().values.size();
    int rowBytes = 0;
    for (const FitsColumn& c : columns)
        rowBytes += fitsFieldBytes(c.form);
    FitsTable table;
    table.cards = {{"XTENSION", fitsString("BINTABLE")},
                   {"BITPIX", fitsInt(8)},
                   {"NAXIS", fitsInt(2)},
                   {"NAXIS1", fitsInt(rowBytes)},
                   {"NAXIS2", fitsInt(static_cast<long long>(rows))},
                   {"PCOUNT", fitsInt(0)},
                   {"GCOUNT", fitsInt(1)},
                   {"TFIELDS", fitsInt(static_cast<long long>(columns.size()))}};
    for (std::size_t i = 0; i < columns.size(); ++i) {
        const QByteArray n = QByteArray::number(qulonglong(i + 1));
        if (!columns[i].name.isEmpty())
            table.cards.push_back({"TTYPE" + n, fitsString(columns[i].name)});
        table.cards.push_back({"TFORM" + n, fitsString(columns[i].form)});
    }
    for (std::size_t r = 0; r < rows; ++r)
        for (const FitsColumn& c : columns)
            table.data += fitsField(c.form, c.values[r]);
    padData(table.data);
    return table;
}

inline QByteArray emptyPrimary() {
    return serialize(primaryCards());
}

// ---- gzip, with zlib's format but no zlib: stored (uncompressed) deflate blocks ------------

inline quint32 crc32(const QByteArray& data) {
    quint32 crc = 0xFFFFFFFFu;
    for (const char byte : data) {
        crc ^= static_cast<unsigned char>(byte);
        for (int bit = 0; bit < 8; ++bit)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

/// One gzip member holding `data` in stored deflate blocks.
inline QByteArray gzipStored(const QByteArray& data) {
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
    char trailer[8];
    qToLittleEndian(crc32(data), trailer);
    qToLittleEndian(static_cast<quint32>(data.size()), trailer + 4);
    out.append(trailer, 8);
    return out;
}

// ---- the corpus ---------------------------------------------------------------------------

/// Fields from-chars refuses or that are out of range: every one must be an error in RA/Dec.
inline const QList<QByteArray>& badTokens() {
    static const QList<QByteArray> tokens{"0x1p3",
                                          "-0x1p3",
                                          "0X1P-2",
                                          "+",
                                          "-",
                                          "+-5",
                                          "--5",
                                          "++5",
                                          "nan",
                                          "NaN",
                                          "-nan",
                                          "inf",
                                          "-inf",
                                          "infinity",
                                          "1e400",
                                          "-1e400",
                                          "1e-400",
                                          "1.2.3",
                                          "5e",
                                          "1e+",
                                          ".",
                                          "1_000",
                                          "\xE2\x88\x92"
                                          "5",
                                          "\xEF\xBC\x95",
                                          "12:30:00",
                                          "5;6",
                                          "10abc",
                                          "abc",
                                          "O.5",
                                          "5\xC2\xB0",
                                          "1e99999999999",
                                          "0x",
                                          "e5",
                                          "1..2",
                                          "--",
                                          "+.",
                                          "\xEF\xBB\xBF"
                                          "10",
                                          "1e-99999"};
    return tokens;
}

// The corpus, built section by section: one member function per section, called in the order
// of the sections, so that the seeded generator's draws and the order of the cases are those of
// one pass. (One function of ~750 lines took minutes to compile under the sanitizers.)
class CorpusBuilder {
public:
    explicit CorpusBuilder(std::uint64_t seed)
        : rng(seed), base(randomRows(rng, 40)), basePoints(pointsOf(base)), baseText(join(base)),
          n(static_cast<int>(base.size())), anyLine(2, n) {}

    std::vector<Case> build() {
        lineEnds();
        separators();
        numbers();
        raggedRows();
        countLines();
        headers();
        comments();
        enormous();
        binary();
        readingFlags();
        textColumns();
        seededMutations();
        specialFiles();
        fits();
        return std::move(cases);
    }

private:
    void add(Case c) { cases.push_back(std::move(c)); }
    static Case clean(const QByteArray& name, const QByteArray& content,
                      std::optional<std::vector<Point>> points) {
        Case c;
        c.name = name;
        c.content = content;
        c.expect = Expect::Clean;
        c.clean = std::move(points);
        return c;
    }
    static Case error(const QByteArray& name, const QByteArray& content, long line = -1,
                      int column = -1, const QByteArray& mentions = {}) {
        Case c;
        c.name = name;
        c.content = content;
        c.expect = Expect::Error;
        c.line = line;
        c.column = column;
        c.mentions = mentions;
        return c;
    }
    // `rows` with row `index` (0-based) replaced.
    static Rows withRow(Rows rows, int index, std::vector<QByteArray> row) {
        rows[static_cast<std::size_t>(index)] = std::move(row);
        return rows;
    }

    // -- line ends and encodings
    void lineEnds();
    // -- decimal commas and other separators that are not ours
    void separators();
    // -- numbers from_chars refuses, or that are out of range, in RA, in Dec, on the first line
    void numbers();
    // -- ragged rows
    void raggedRows();
    // -- count lines
    void countLines();
    // -- headers and column names
    void headers();
    // -- comments, empty files
    void comments();
    // -- enormous lines and fields: errors must quote at most a few dozen characters
    void enormous();
    // -- binary data where text was expected
    void binary();
    // -- reading flags
    void readingFlags();
    // -- text columns: skipped only while they stay text
    void textColumns();
    // -- seeded mutations: a bad token in a random place; the file must fail or read clean
    void seededMutations();
    // -- special files
    void specialFiles();
    // -- FITS
    void fits();

    std::mt19937_64 rng;
    std::vector<Case> cases;
    const Rows base;
    const std::optional<std::vector<Point>> basePoints;
    const QByteArray baseText;
    const int n;
    std::uniform_int_distribution<int> anyLine; // not the first: header rules apply there
};

inline void CorpusBuilder::lineEnds() {
    add(clean("line ends: LF", baseText, basePoints));
    add(clean("line ends: no final newline", baseText.chopped(1), basePoints));
    add(clean("line ends: CRLF", join(base, " ", "\r\n"), basePoints));
    add(clean("line ends: lone CR", join(base, " ", "\r"), basePoints));
    add(clean("line ends: lone CR, no final", join(base, " ", "\r").chopped(1), basePoints));
    add(clean("line ends: CR CR LF", join(base, " ", "\r\r\n"), basePoints));
    add(clean("line ends: LF CR", join(base, " ", "\n\r"), basePoints));
    {
        QByteArray text;
        const QByteArray ends[] = {"\n", "\r\n", "\r"};
        for (std::size_t i = 0; i < base.size(); ++i)
            text += base[i][0] + " " + base[i][1] + ends[i % 3];
        add(clean("line ends: LF, CRLF and CR mixed", text, basePoints));
    }
    add(clean("BOM: UTF-8", "\xEF\xBB\xBF" + baseText, basePoints));
    add(clean("BOM: UTF-8 and header", "\xEF\xBB\xBFra dec\n" + baseText, basePoints));
    add(clean("BOM: UTF-8 and CRLF", "\xEF\xBB\xBF" + join(base, " ", "\r\n"), basePoints));
    add(error("BOM: UTF-8 twice", "\xEF\xBB\xBF\xEF\xBB\xBF" + baseText, 1, 1));
    {
        const int k = anyLine(rng);
        Rows rows = base;
        rows[std::size_t(k - 1)][0] = "\xEF\xBB\xBF" + rows[std::size_t(k - 1)][0];
        add(error("BOM: in the middle of the file", join(rows), k, 1));
    }
    auto utf16 = [](const QByteArray& text, bool bigEndian) {
        QByteArray out;
        for (const char c : text)
            out += bigEndian ? QByteArray(1, '\0') + c : QByteArray(1, c) + '\0';
        return out;
    };
    add(error("UTF-16: little endian with BOM", "\xFF\xFE" + utf16(baseText, false), 1));
    add(error("UTF-16: big endian with BOM", "\xFE\xFF" + utf16(baseText, true), 1));
    add(error("UTF-16: little endian without BOM", utf16(baseText, false), 1));
    add(error("UTF-16: big endian without BOM", utf16(baseText, true), 1));
    add(error("UTF-32: little endian with BOM",
              QByteArray("\xFF\xFE\0\0", 4) + utf16(utf16(baseText, false), false), 1));
    {
        const int k = anyLine(rng);
        Rows rows = base;
        rows[std::size_t(k - 1)][1] += QByteArray(1, '\0');
        add(error("NUL byte: in a field", join(rows), k, -1, "NUL"));
        add(error("NUL byte: at the end", baseText + QByteArray(1, '\0'), -1, -1, "NUL"));
        add(error("NUL byte: a file of NULs", QByteArray(4096, '\0'), 1));
        add(error("NUL byte: in a comment", QByteArray("# a\0b\n", 6) + baseText, 1));
    }
    add(clean("Latin-1: in a comment", "# caf\xE9 au lait\n" + baseText, basePoints));
    {
        const int k = anyLine(rng);
        add(error("Latin-1: in a field",
                  join(withRow(base, k - 1, {base[k - 1][0] + "\xB0", base[k - 1][1]})), k, 1));
    }
    add(error("NBSP: as the separator", join(base, "\xC2\xA0"), 1));
    add(clean("blanks: tabs", join(base, "\t"), basePoints));
    add(clean("blanks: runs and leading blanks", join(base, "   \t ", "  \n").prepend("  "),
              basePoints));
    add(clean("blanks: vertical tab and form feed", join(base, "\v\f"), basePoints));
    add(clean("commas: plain", join(base, ","), basePoints));
    add(clean("commas: with blanks", join(base, " , "), basePoints));
    add(clean("commas: trailing", join(base, ",", ",\n"), basePoints));
}

inline void CorpusBuilder::separators() {
    auto decimalComma = [](const Rows& rows, const QByteArray& separator) {
        QByteArray text;
        for (const auto& row : rows) {
            QByteArray ra = row[0], dec = row[1];
            text += ra.replace('.', ',') + separator + dec.replace('.', ',') + "\n";
        }
        return text;
    };
    add(error("decimal comma: blank separated", decimalComma(base, " "), 1, 2, "decimal comma"));
    add(error("decimal comma: tab separated", decimalComma(base, "\t"), 1, 2));
    add(error("decimal comma: after a header", "ra dec\n" + decimalComma(base, " "), 2, 2));
    add(error("decimal comma: '12,5 30,1'", "12,5 30,1\n13,5 31,1\n", 1, 2));
    add(error("decimal comma: Dec only", "10.5 30,1\n11.5 31,1\n", 1, 1));
    add(error("separator: semicolon", join(base, ";"), 1));
    add(error("sexagesimal: h:m:s d:m:s", "12:30:00 +12:00:00\n12:31:00 +12:01:00\n", 1, 1));
    add(error("sexagesimal: 12h30m 12d00m", "12h30m00s +12d00m00s\n12h31m00s +12d01m00s\n", 1));
}

inline void CorpusBuilder::numbers() {
    {
        int i = 0;
        for (const QByteArray& token : badTokens()) {
            const int k = anyLine(rng);
            const int column = (i++ % 2) + 1;
            Rows rows = base;
            rows[std::size_t(k - 1)][std::size_t(column - 1)] = token;
            add(error("bad number: '" + token + "' in " + (column == 1 ? "RA" : "Dec"), join(rows),
                      k, column));
        }
    }
    for (const QByteArray& first :
         {QByteArray("0x1p3 0x1p4"), QByteArray("+ -"), QByteArray("- -"),
          QByteArray("0x1.8p3 -0x1p-2"), QByteArray("1.2.3 4.5.6"), QByteArray("1e400 1e400")})
        add(error("first line: '" + first + "'", first + "\n" + baseText, 1, 1));
    add(error("first line: '10abc 20' with a text-looking RA", "10abc 20\n" + baseText, 1));
    add(clean("number: subnormal RA 1e-310", join(withRow(base, 3, {"1e-310", base[3][1]})),
              pointsOf(withRow(base, 3, {"1e-310", base[3][1]}))));
    add(clean("number: subnormal Dec 4.9e-324", join(withRow(base, 3, {base[3][0], "4.9e-324"})),
              pointsOf(withRow(base, 3, {base[3][0], "4.9e-324"}))));
    add(clean("number: -4.9e-324", join(withRow(base, 5, {"-4.9e-324", "-4.9e-324"})),
              pointsOf(withRow(base, 5, {"-4.9e-324", "-4.9e-324"}))));
    add(clean("number: smallest normal", join(withRow(base, 2, {"2.2250738585072014e-308", "0"})),
              pointsOf(withRow(base, 2, {"2.2250738585072014e-308", "0"}))));
    add(clean("number: negative zero", join(withRow(base, 1, {"-0", "-0.0"})),
              pointsOf(withRow(base, 1, {"-0", "-0.0"}))));
    add(clean("number: largest double RA", join(withRow(base, 4, {"1.7976931348623157e308", "0"})),
              pointsOf(withRow(base, 4, {"1.7976931348623157e308", "0"}))));
    add(clean("number: RA 720 and -360",
              join(withRow(withRow(base, 1, {"720", "0.5"}), 2, {"-360", "0.25"})),
              pointsOf(withRow(withRow(base, 1, {"720", "0.5"}), 2, {"-360", "0.25"}))));
    add(clean("number: Dec exactly 90 and -90",
              join(withRow(withRow(base, 1, {"11", "90"}), 2, {"11", "-90"})),
              pointsOf(withRow(withRow(base, 1, {"11", "90"}), 2, {"11", "-90"}))));
    {
        const int k = anyLine(rng);
        add(error("number: Dec 90.0000001", join(withRow(base, k - 1, {"11", "90.0000001"})), k, 2,
                  "outside"));
        const int j = anyLine(rng);
        add(error("number: Dec -1e300", join(withRow(base, j - 1, {"11", "-1e300"})), j, 2));
    }
    {
        const QByteArray digits(800, '3');
        const QByteArray longRa = "10." + digits;
        add(clean("number: 800-digit mantissa", join(withRow(base, 6, {longRa, "0." + digits})),
                  pointsOf(withRow(base, 6, {longRa, "0." + digits}))));
    }
    {
        Rows rows = base;
        for (auto& row : rows) {
            row[0] = "000" + row[0];
            row[1] = QByteArray::number(strictNumber(row[1]).value(), 'E', 8);
            if (!row[1].startsWith('-'))
                row[1].prepend('+');
        }
        add(clean("number: leading zeros, exponents, plus signs", join(rows), pointsOf(rows)));
    }
    add(clean("number: '.5' and '5.'",
              join(withRow(withRow(base, 1, {"10.", ".5"}), 2, {"11.", "-.5"})),
              pointsOf(withRow(withRow(base, 1, {"10.", ".5"}), 2, {"11.", "-.5"}))));
    {
        const int k = anyLine(rng);
        add(error("number: trailing garbage in Dec",
                  join(withRow(base, k - 1, {base[k - 1][0], base[k - 1][1] + "abc"})), k, 2));
    }
}

inline void CorpusBuilder::raggedRows() {
    {
        Rows rows = randomRows(rng, 30, 3);
        add(clean("ragged: extra columns", join(rows), pointsOf(rows)));
        Rows mixed = rows;
        for (std::size_t i = 0; i < mixed.size(); i += 2)
            mixed[i].resize(2);
        add(clean("ragged: rows of 2 and 5 fields", join(mixed), pointsOf(mixed)));
        const int k = anyLine(rng);
        add(error("ragged: a short row", join(withRow(base, k - 1, {base[k - 1][0]})), k, 2));
        add(error("ragged: a short first row", join(withRow(base, 0, {base[0][0]})), 1));
        const int j = anyLine(rng);
        add(error("ragged: an empty field",
                  join(withRow(base, j - 1, {base[j - 1][0], "", base[j - 1][1]}), ","), j, 2));
        const int m = anyLine(rng);
        add(error("ragged: a leading comma",
                  join(withRow(base, m - 1, {"", base[m - 1][0], base[m - 1][1]}), ","), m, 1));
        add(error("ragged: an empty field in the first row",
                  join(withRow(base, 0, {base[0][0], "", base[0][1]}), ","), 1, 2));
    }
}

inline void CorpusBuilder::countLines() {
    const QByteArray count = QByteArray::number(n);
    add(clean("count line: right", count + "\n" + baseText, basePoints));
    add(clean("count line: right, with a comment", "# n\n" + count + " # rows\n" + baseText,
              basePoints));
    add(clean("count line: and header", count + "\nra dec\n" + baseText, basePoints));
    add(error("count line: too large", QByteArray::number(n + 1) + "\n" + baseText, 1, 1,
              "count line"));
    add(error("count line: too small", QByteArray::number(n - 1) + "\n" + baseText, 1, 1));
    add(error("count line: zero", "0\n" + baseText, 1, 1));
    add(error("count line: 10^18", "1000000000000000000\n" + baseText, 1, 1));
    add(error("count line: 30 digits", QByteArray(30, '9') + "\n" + baseText, 1));
    add(error("count line: negative", "-40\n" + baseText, 1));
    add(error("count line: twice", count + "\n" + count + "\n" + baseText, 2));
    add(error("count line: after the header", "ra dec\n" + count + "\n" + baseText, 2));
}

inline void CorpusBuilder::headers() {
    add(clean("header: ra dec", "ra dec\n" + baseText, basePoints));
    add(clean("header: RA DEC", "RA DEC\n" + baseText, basePoints));
    {
        Rows swapped;
        for (const auto& row : base)
            swapped.push_back({row[1], row[0]});
        add(clean("header: dec ra (swapped columns)", "dec ra\n" + join(swapped), basePoints));
        Rows desi;
        int id = 39627000;
        for (const auto& row : base)
            desi.push_back({QByteArray::number(id++), "0.5", row[0], row[1]});
        add(clean("header: DESI-like targetid z ra_j2000 dec_j2000",
                  "targetid z ra_j2000 dec_j2000\n" + join(desi), basePoints));
        add(clean("header: 'RA (deg), Dec (deg)' csv",
                  "id, z, RA (deg), Dec (deg)\n" + join(desi, ", "), pointsOf(desi, 2, 3)));
        add(clean("header: ALPHA_J2000 DELTA_J2000",
                  "NUMBER Z ALPHA_J2000 DELTA_J2000\n" + join(desi), basePoints));
        add(error("header: x y (no RA named)", "x y\n" + baseText, 1, -1, "RA"));
        add(error("header: targetid z pos1 pos2", "targetid z pos1 pos2\n" + join(desi), 1));
        add(error("header: two RA-like columns",
                  "ra_j2000 ra_b1950 dec\n" + join(withRow(desi, 0, desi[0])), 1));
    }
    add(error("header: only", "ra dec\n", -1, -1, "no data rows"));
    add(error("header: twice", "ra dec\nra dec\n" + baseText, 2, 1));
    {
        const int k = anyLine(rng);
        Rows rows = base;
        rows.insert(rows.begin() + k, std::vector<QByteArray>{"ra", "dec"});
        add(error("header: again after data", join(rows), k + 1, 1));
    }
}

inline void CorpusBuilder::comments() {
    {
        QByteArray text = "# catalog\n#\n";
        for (const auto& row : base)
            text += "  " + row[0] + " " + row[1] + " # c\n# between\n\n";
        add(clean("comments: everywhere", text, basePoints));
    }
    add(error("empty: no bytes", QByteArray(), -1, -1, "no data rows"));
    add(error("empty: only comments", "# a\n# b\n", -1, -1, "no data rows"));
    add(error("empty: blank lines", "\n\n\r\n  \n\t\n", -1, -1, "no data rows"));
    add(error("empty: a lone CR", "\r", -1, -1, "no data rows"));
}

inline void CorpusBuilder::enormous() {
    {
        const QByteArray tenMB(10 << 20, '7');
        const int k = anyLine(rng);
        add(error("10 MB line: a number as Dec",
                  join(withRow(base, k - 1, {base[k - 1][0], tenMB})), k, 2, "out of the range"));
        const int j = anyLine(rng);
        add(error("10 MB line: text as RA",
                  join(withRow(base, j - 1, {QByteArray(10 << 20, 'x'), base[j - 1][1]})), j, 1,
                  "bytes)"));
        add(clean("10 MB line: a comment", "# " + QByteArray(10 << 20, 'c') + "\n" + baseText,
                  basePoints));
        Rows wide = base;
        QByteArray many;
        for (int i = 0; i < (10 << 20) / 4; ++i)
            many += " 1.5";
        wide[3].push_back(many.mid(1));
        add(clean("10 MB line: extra columns", join(wide), basePoints));
        add(clean("10 MB line: trailing blanks",
                  join(withRow(base, 5, {base[5][0], base[5][1] + QByteArray(10 << 20, ' ')})),
                  basePoints));
        add(error("10 MB line: a header name", QByteArray(10 << 20, 'h') + "\n" + baseText, 1));
        add(error("10 MB line: digits only, first", QByteArray(10 << 20, '1') + "\n" + baseText,
                  1));
        const int m = anyLine(rng);
        add(error("1 MB field: text as Dec",
                  join(withRow(base, m - 1, {base[m - 1][0], QByteArray(1 << 20, 'y')})), m, 2));
    }
}

inline void CorpusBuilder::binary() {
    add(error("binary: gzip-compressed text", gzipStored(baseText), -1, -1, "gzip"));
    add(error("binary: FITS bytes named .txt",
              emptyPrimary() + binTable({{"RA", "D", {1, 2}}, {"DEC", "D", {3, 4}}}).bytes(), -1,
              -1, "FITS"));
    {
        QByteArray noise(4096, '\0');
        std::uniform_int_distribution<int> byte(0, 255);
        for (char& c : noise)
            c = static_cast<char>(byte(rng));
        add(error("binary: random bytes", noise));
        add(error("binary: PNG signature",
                  QByteArray("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16) + noise));
    }
}

inline void CorpusBuilder::readingFlags() {
    {
        Rows four = randomRows(rng, 30, 2);
        Rows moved;
        for (const auto& row : four)
            moved.push_back({row[2], row[3], row[0], row[1]});
        Case c = clean("flags: --ra-col 3 --dec-col 4", join(moved), pointsOf(four));
        c.readArgs = words({"--ra-col", "3", "--dec-col", "4"});
        add(c);
        c = clean("flags: --ra-col/--dec-col by name", "a b ra dec\n" + join(moved),
                  pointsOf(four));
        c.readArgs = words({"--ra-col", "RA", "--dec-col", "dec"});
        add(c);
        c = error("flags: --ra-col beyond the columns", join(moved), 1, 5);
        c.readArgs = words({"--ra-col", "5"});
        add(c);
        c = error("flags: --ra-col by name without a header", join(moved), 1);
        c.readArgs = words({"--ra-col", "ra"});
        add(c);
        c = error("flags: --dec-col names a missing column", "a b ra dec\n" + join(moved), 1, -1,
                  "'decl'");
        c.readArgs = words({"--dec-col", "decl"});
        add(c);
        const int k = std::uniform_int_distribution<int>(2, static_cast<int>(moved.size()))(rng);
        c = error("flags: --dec-col 4 with text there",
                  join(withRow(moved, k - 1, {"1", "2", moved[k - 1][2], "n/a"})), k, 4);
        c.readArgs = words({"--ra-col", "3", "--dec-col", "4"});
        add(c);
        Rows swapped;
        for (const auto& row : base)
            swapped.push_back({row[1], row[0]});
        c = clean("flags: --ra-col 2 --dec-col 1", join(swapped), basePoints);
        c.readArgs = words({"--ra-col", "2", "--dec-col", "1"});
        add(c);
        Rows arcmin;
        for (const auto& row : base)
            arcmin.push_back(
                {g17(strictNumber(row[0]).value() * 60), g17(strictNumber(row[1]).value() * 60)});
        c = clean("flags: --coord-unit arcmin", join(arcmin), pointsOf(arcmin, 0, 1, 5400));
        c.readArgs = c.cleanArgs = words({"--coord-unit", "arcmin"});
        add(c);
        c = error("flags: --coord-unit rad on degrees", join(withRow(base, 0, {"10", "20"})), 1, 2,
                  "outside");
        c.readArgs = words({"--coord-unit", "rad"});
        add(c);
        Rows hours;
        for (const auto& row : base)
            hours.push_back({g17(strictNumber(row[0]).value() / 15), row[1]});
        c = clean("flags: --ra-hours", join(hours), pointsOf(hours));
        c.readArgs = c.cleanArgs = words({"--ra-hours"});
        add(c);
    }
}

inline void CorpusBuilder::textColumns() {
    {
        Rows named;
        int id = 0;
        for (const auto& row : base)
            named.push_back({"gal" + QByteArray::number(id++), row[0], row[1]});
        add(clean("text column: an id before RA", join(named), basePoints));
        Rows three = randomRows(rng, 30, 1);
        Rows garbled = withRow(three, 0, {"abc", three[0][1], three[0][2]});
        add(error("text column: a garbled first RA, three columns", join(garbled), 2));
        garbled = withRow(three, 0, {three[0][0], "abc", three[0][2]});
        add(error("text column: a garbled first Dec, three columns", join(garbled), 2));
    }
}

inline void CorpusBuilder::seededMutations() {
    {
        Rows three = randomRows(rng, 30, 1);
        const auto threePoints = pointsOf(three);
        std::uniform_int_distribution<int> lineOf(1, 30), columnOf(0, 2);
        std::uniform_int_distribution<int> tokenOf(0, static_cast<int>(badTokens().size()) - 1);
        for (int i = 0; i < 24; ++i) {
            Rows rows = three;
            int k = lineOf(rng);
            const int column = columnOf(rng);
            const QByteArray token = badTokens()[tokenOf(rng)];
            // A byte order mark that starts the file is stripped, rightly: not a bad token there.
            if (k == 1 && column == 0 && token.startsWith("\xEF\xBB\xBF"))
                k = 2;
            rows[std::size_t(k - 1)][std::size_t(column)] = token;
            Case c;
            c.name = "seeded token " + QByteArray::number(i) + ": '" + token + "' at line " +
                     QByteArray::number(k) + ", field " + QByteArray::number(column + 1);
            c.content = join(rows);
            // The third column is not read: the file may read clean.
            c.expect = column == 2 ? Expect::Either : Expect::Error;
            c.clean = threePoints;
            add(c);
        }
    }
    // Truncated at a random byte: what is left must read as exactly what it says, or fail.
    {
        std::uniform_int_distribution<qsizetype> cut(1, baseText.size() - 1);
        for (int i = 0; i < 20; ++i) {
            const qsizetype at = cut(rng);
            const QByteArray text = baseText.left(at);
            Rows rows;
            for (const QByteArray& line : text.split('\n'))
                if (!line.trimmed().isEmpty()) {
                    const QList<QByteArray> fields = line.trimmed().split(' ');
                    rows.emplace_back(fields.begin(), fields.end());
                }
            Case c;
            c.name = "seeded truncation " + QByteArray::number(i) + ": at byte " +
                     QByteArray::number(at);
            c.content = text;
            c.clean = pointsOf(rows);
            c.expect = c.clean ? Expect::Clean : Expect::Error;
            if (!c.clean)
                c.line = static_cast<long>(rows.size());
            add(c);
        }
    }
    // Line ends, blank lines and comments at random: the same catalog.
    {
        std::uniform_int_distribution<int> pick(0, 5);
        const QByteArray ends[] = {"\n", "\r\n", "\r", "\n\n", "\r\r", " # x\n"};
        for (int i = 0; i < 12; ++i) {
            QByteArray text;
            for (const auto& row : base)
                text += row[0] + (pick(rng) % 2 ? "\t" : " ") + row[1] + ends[pick(rng)];
            add(clean("seeded line ends " + QByteArray::number(i), text, basePoints));
        }
    }
}

inline void CorpusBuilder::specialFiles() {
    auto special = [&](const QByteArray& name, Special kind, const QString& path = {},
                       const QByteArray& mentions = {}) {
        Case c;
        c.name = name;
        c.special = kind;
        c.path = path;
        c.expect = Expect::Error;
        c.line = 0;
        c.mentions = mentions;
        add(c);
    };
    special("special: /dev/zero", Special::Path, QStringLiteral("/dev/zero"), "device");
    special("special: /dev/urandom", Special::Path, QStringLiteral("/dev/urandom"), "device");
    special("special: /dev/null", Special::Path, QStringLiteral("/dev/null"), "device");
    special("special: /dev/stdin (a pipe here)", Special::Path, QStringLiteral("/dev/stdin"));
    special("special: /proc/self/status", Special::Path, QStringLiteral("/proc/self/status"));
    special("special: a FIFO without writer", Special::Fifo, {}, "FIFO");
    special("special: a directory", Special::Directory, {}, "directory");
    special("special: a symbolic link loop", Special::SymlinkLoop, {}, "symbolic link loop");
    special("special: a dangling symbolic link", Special::DanglingLink, {}, "does not exist");
    special("special: a missing file", Special::Missing, {}, "does not exist");
    special("special: an empty path", Special::EmptyPath, {}, "empty file name");
    special("special: a trailing slash", Special::TrailingSlash);
    special("special: a Unix socket", Special::Socket, {}, "socket");
    {
        Case c = clean("special: a link to a good file", baseText, basePoints);
        c.special = Special::LinkToFile;
        add(c);
    }
}

inline void CorpusBuilder::fits() {
    std::vector<double> ra, dec;
    for (const Point& p : *basePoints) {
        ra.push_back(p.ra);
        dec.push_back(p.dec);
    }
    auto fits = [&](const QByteArray& name, const QByteArray& bytes, Expect expect,
                    std::optional<std::vector<Point>> points = std::nullopt, long line = -1,
                    int column = -1, const QByteArray& mentions = {}) {
        Case c;
        c.name = "FITS: " + name;
        c.fileName = QStringLiteral("in.fits");
        c.content = bytes;
        c.expect = expect;
        c.clean = std::move(points);
        c.line = line;
        c.column = column;
        c.mentions = mentions;
        add(c);
    };
    auto pointsFrom = [](const std::vector<double>& r, const std::vector<double>& d) {
        std::vector<Point> points;
        for (std::size_t i = 0; i < r.size(); ++i)
            points.push_back({r[i], d[i]});
        return points;
    };
    const FitsTable table = binTable({{"RA", "D", ra}, {"DEC", "D", dec}});
    const QByteArray good = emptyPrimary() + table.bytes();
    fits("RA, DEC doubles", good, Expect::Clean, basePoints);
    {
        std::vector<double> rf, df;
        for (std::size_t i = 0; i < ra.size(); ++i) {
            rf.push_back(static_cast<float>(ra[i]));
            df.push_back(static_cast<float>(dec[i]));
        }
        fits("float columns",
             emptyPrimary() + binTable({{"ra", "E", ra}, {"dec", "E", dec}}).bytes(), Expect::Clean,
             pointsFrom(rf, df));
        std::vector<double> ri, di;
        for (std::size_t i = 0; i < ra.size(); ++i) {
            ri.push_back(std::floor(ra[i] * 1000));
            di.push_back(std::floor(dec[i] * 50));
        }
        fits("int32 columns",
             emptyPrimary() + binTable({{"RA", "J", ri}, {"DEC", "J", di}}).bytes(), Expect::Clean,
             pointsFrom(ri, di), -1, -1);
        std::vector<double> r16, d16;
        for (std::size_t i = 0; i < ra.size(); ++i) {
            r16.push_back(std::floor(ra[i] * 10));
            d16.push_back(std::floor(dec[i] * 10));
        }
        fits("int16 and int64 columns",
             emptyPrimary() + binTable({{"RA", "I", r16}, {"DEC", "K", d16}}).bytes(),
             Expect::Clean, pointsFrom(r16, d16));
        FitsTable scaled = binTable({{"RA", "J", ri}, {"DEC", "J", di}});
        scaled.set("TSCAL1", "0.001").set("TZERO1", "0.5").set("TSCAL2", "0.02");
        std::vector<double> rs, ds;
        for (std::size_t i = 0; i < ri.size(); ++i) {
            rs.push_back(ri[i] * 0.001 + 0.5);
            ds.push_back(di[i] * 0.02);
        }
        fits("scaled int32 (TSCAL, TZERO)", emptyPrimary() + scaled.bytes(), Expect::Clean,
             pointsFrom(rs, ds));
    }
    std::vector<double> ids, zs;
    for (std::size_t i = 0; i < ra.size(); ++i) {
        ids.push_back(static_cast<double>(39627000 + i));
        zs.push_back(0.25 + 0.01 * static_cast<double>(i));
    }
    const QByteArray desi = emptyPrimary() + binTable({{"TARGETID", "K", ids},
                                                       {"Z", "D", zs},
                                                       {"RA_J2000", "D", ra},
                                                       {"DEC_J2000", "D", dec}})
                                                 .bytes();
    fits("DESI-like TARGETID, Z, RA_J2000, DEC_J2000", desi, Expect::Clean, basePoints);
    {
        Case c;
        c.name = "FITS: DESI-like with --ra-col 3 --dec-col DEC_J2000";
        c.fileName = QStringLiteral("in.fits");
        c.content = desi;
        c.readArgs = words({"--ra-col", "3", "--dec-col", "DEC_J2000"});
        c.expect = Expect::Clean;
        c.clean = basePoints;
        add(c);
        c.name = "FITS: --ra-col 9 beyond the columns";
        c.readArgs = words({"--ra-col", "9"});
        c.expect = Expect::Error;
        c.column = 9;
        add(c);
    }
    fits("no RA or DEC named (X, Y)",
         emptyPrimary() + binTable({{"X", "D", ra}, {"Y", "D", dec}}).bytes(), Expect::Error,
         std::nullopt, -1, -1, "RA");
    fits("unnamed columns", emptyPrimary() + binTable({{"", "D", ra}, {"", "D", dec}}).bytes(),
         Expect::Clean, basePoints);
    fits("image only", imageHdu({16, 16}, true), Expect::Error, std::nullopt, -1, -1,
         "no binary table");
    fits("image, then the table", imageHdu({16, 16}, true) + table.bytes(), Expect::Clean,
         basePoints);
    fits("table, then an image", good + imageHdu({8, 8}, false), Expect::Clean, basePoints);
    fits("two tables, the first read",
         good + binTable({{"RA", "D", {1, 2}}, {"DEC", "D", {3, 4}}}).bytes(), Expect::Clean,
         basePoints);
    fits("trailing zero blocks", good + QByteArray(2880, '\0'), Expect::Clean, basePoints);
    fits("trailing garbage", good + QByteArray(2880, 'g'), Expect::Error);
    auto lie = [&](const QByteArray& key, const QByteArray& value) {
        FitsTable lying = table;
        lying.set(key, value);
        return emptyPrimary() + lying.bytes();
    };
    // More rows than written, but within the zero padding of the last block: indistinguishable
    // from a table whose last rows are zeros, so it must read as exactly that (RA 0, Dec 0).
    auto moreRows = [&](int rows) {
        std::vector<Point> points = *basePoints;
        points.resize(static_cast<std::size_t>(rows), Point{0, 0});
        return points;
    };
    auto withinPadding = [&](int rows) { return rows * 16 <= (n * 16 + 2879) / 2880 * 2880; };
    fits("NAXIS2 one too many, within the padding", lie("NAXIS2", fitsInt(n + 1)), Expect::Clean,
         moreRows(n + 1));
    fits("NAXIS2 beyond the padding", lie("NAXIS2", fitsInt(2880 / 16 + 1)), Expect::Error,
         std::nullopt, -1, -1, "NAXIS2");
    fits("NAXIS2 one too few", lie("NAXIS2", fitsInt(n - 1)), Expect::Error, std::nullopt, -1, -1,
         "NAXIS2");
    fits("NAXIS2 half", lie("NAXIS2", fitsInt(n / 2)), Expect::Error);
    fits("NAXIS2 10^15", lie("NAXIS2", fitsInt(1000000000000000LL)), Expect::Error, std::nullopt,
         -1, -1, "NAXIS2");
    fits("NAXIS2 2^62", lie("NAXIS2", fitsInt(1LL << 62)), Expect::Error);
    fits("NAXIS2 zero", lie("NAXIS2", fitsInt(0)), Expect::Error);
    fits("NAXIS2 negative", lie("NAXIS2", fitsInt(-3)), Expect::Error);
    fits("NAXIS1 too large", lie("NAXIS1", fitsInt(32)), Expect::Error);
    fits("NAXIS1 too small", lie("NAXIS1", fitsInt(8)), Expect::Error);
    fits("NAXIS1 zero", lie("NAXIS1", fitsInt(0)), Expect::Error);
    fits("PCOUNT 10^15", lie("PCOUNT", fitsInt(1000000000000000LL)), Expect::Error);
    fits("TFIELDS too many", lie("TFIELDS", fitsInt(5)), Expect::Error);
    fits("TFORM unknown", lie("TFORM2", fitsString("Z")), Expect::Error);
    fits("BITPIX 16 in a table", lie("BITPIX", fitsInt(16)), Expect::Error);
    {
        FitsTable noEnd = table;
        fits("no END card", emptyPrimary() + serialize(noEnd.cards, false) + noEnd.data,
             Expect::Error);
        fits("image NAXIS1 larger than its data",
             serialize(primaryCards({1 << 20})) + QByteArray(2880, '\0') + table.bytes(),
             Expect::Error);
    }
    fits("truncated in the header", good.left(2880 + 1000), Expect::Error);
    fits("truncated in the data", good.left(2 * 2880 + 100), Expect::Error, std::nullopt, -1, -1,
         "NAXIS2");
    fits("empty file", QByteArray(), Expect::Error);
    fits("text named .fits", baseText, Expect::Error, std::nullopt, -1, -1, "FITS");
    fits("RA a text column",
         emptyPrimary() + binTable({{"RA", "8A", ra}, {"DEC", "D", dec}}).bytes(), Expect::Error,
         std::nullopt, -1, 1, "one number per row");
    fits("RA a logical column",
         emptyPrimary() + binTable({{"RA", "L", ra}, {"DEC", "D", dec}}).bytes(), Expect::Error,
         std::nullopt, -1, 1);
    fits("RA a complex column",
         emptyPrimary() + binTable({{"RA", "C", ra}, {"DEC", "D", dec}}).bytes(), Expect::Error,
         std::nullopt, -1, 1);
    fits("RA a vector column",
         emptyPrimary() + binTable({{"RA", "2D", ra}, {"DEC", "D", dec}}).bytes(), Expect::Error,
         std::nullopt, -1, 1);
    fits("RA a bit column",
         emptyPrimary() + binTable({{"RA", "16X", ra}, {"DEC", "D", dec}}).bytes(), Expect::Error,
         std::nullopt, -1, 1);
    {
        std::vector<double> holed = ra;
        const int k = anyLine(rng);
        holed[std::size_t(k - 1)] = std::nan("");
        fits("NaN in RA",
             emptyPrimary() + binTable({{"RA", "D", holed}, {"DEC", "D", dec}}).bytes(),
             Expect::Error, std::nullopt, k, 1);
        std::vector<double> far = dec;
        const int j = anyLine(rng);
        far[std::size_t(j - 1)] = 90.5;
        fits("Dec 90.5", emptyPrimary() + binTable({{"RA", "D", ra}, {"DEC", "D", far}}).bytes(),
             Expect::Error, std::nullopt, j, 2, "outside");
        std::vector<double> ri, di;
        for (std::size_t i = 0; i < ra.size(); ++i) {
            ri.push_back(std::floor(ra[i] * 1000));
            di.push_back(std::floor(dec[i] * 50));
        }
        const int m = anyLine(rng);
        di[std::size_t(m - 1)] = -999;
        FitsTable nulls = binTable({{"RA", "J", ri}, {"DEC", "J", di}});
        nulls.set("TNULL2", fitsInt(-999));
        fits("TNULL in Dec", emptyPrimary() + nulls.bytes(), Expect::Error, std::nullopt, m, 2,
             "null");
    }
    {
        FitsTable ascii;
        ascii.cards = {{"XTENSION", fitsString("TABLE")},
                       {"BITPIX", fitsInt(8)},
                       {"NAXIS", fitsInt(2)},
                       {"NAXIS1", fitsInt(20)},
                       {"NAXIS2", fitsInt(2)},
                       {"PCOUNT", fitsInt(0)},
                       {"GCOUNT", fitsInt(1)},
                       {"TFIELDS", fitsInt(2)},
                       {"TTYPE1", fitsString("RA")},
                       {"TBCOL1", fitsInt(1)},
                       {"TFORM1", fitsString("F10.4")},
                       {"TTYPE2", fitsString("DEC")},
                       {"TBCOL2", fitsInt(11)},
                       {"TFORM2", fitsString("F10.4")}};
        ascii.data = "   10.0000    1.0000   11.0000    0.5000";
        padData(ascii.data, ' ');
        fits("an ASCII TABLE, no BINTABLE", emptyPrimary() + ascii.bytes(), Expect::Error,
             std::nullopt, -1, -1, "no binary table");
        fits("no table with zero columns",
             emptyPrimary() + binTable({}).set("NAXIS2", fitsInt(5)).bytes(), Expect::Error);
    }
    // Compressed FITS: gzip read (by way of a temporary file), everything else refused.
    auto gz = [&](const QByteArray& name, const QByteArray& bytes, Expect expect,
                  std::optional<std::vector<Point>> points = std::nullopt,
                  const QByteArray& mentions = {}) {
        Case c;
        c.name = "FITS gzip: " + name;
        c.fileName = QStringLiteral("in.fits.gz");
        c.content = bytes;
        c.expect = expect;
        c.clean = std::move(points);
        c.mentions = mentions;
        add(c);
    };
    const QByteArray goodGz = gzipStored(good);
    gz("clean", goodGz, Expect::Clean, basePoints);
    gz("two members", gzipStored(good.left(3000)) + gzipStored(good.mid(3000)), Expect::Clean,
       basePoints);
    gz("truncated", goodGz.left(goodGz.size() - 20), Expect::Error, std::nullopt, "gzip");
    gz("truncated in the middle", goodGz.left(goodGz.size() / 2), Expect::Error);
    {
        QByteArray damaged = goodGz;
        damaged[damaged.size() - 5] =
            static_cast<char>(damaged[damaged.size() - 5] ^ 0x55); // length
        gz("wrong length in the trailer", damaged, Expect::Error);
        damaged = goodGz;
        damaged[damaged.size() - 8] = static_cast<char>(damaged[damaged.size() - 8] ^ 0x55); // CRC
        gz("wrong CRC", damaged, Expect::Error);
    }
    gz("magic then garbage", QByteArray("\x1f\x8bgarbage garbage garbage"), Expect::Error,
       std::nullopt, "gzip");
    gz("of a text file", gzipStored(baseText), Expect::Error, std::nullopt, "FITS");
    gz("of an empty file", gzipStored(QByteArray()), Expect::Error);
    gz("expanding to 16 MiB of image before the table",
       gzipStored(imageHdu({4096, 4096}, true) + table.bytes()), Expect::Clean, basePoints);
    fits("gzip data named .fits", goodGz, Expect::Clean, basePoints);
    fits("zip data", QByteArray("PK\x03\x04", 4) + good, Expect::Error, std::nullopt, -1, -1,
         "zip");
    fits("bzip2 data", "BZh9" + good, Expect::Error, std::nullopt, -1, -1, "bzip2");
    fits("Unix compress data", QByteArray("\x1f\x9d\x90", 3) + good, Expect::Error, std::nullopt,
         -1, -1, "compress");
    // Seeded lies: NAXIS2 off by a random amount; truncation at a random byte; one header byte
    // changed to a random printable character. Each must fail, or read exactly the table.
    {
        std::uniform_int_distribution<int> delta(-n + 1, 3 * n);
        for (int i = 0; i < 8; ++i) {
            int d = delta(rng);
            if (d == 0)
                d = 1;
            const int rows = n + d;
            if (d > 0 && withinPadding(rows))
                fits("seeded NAXIS2 " + QByteArray::number(rows) + ", within the padding",
                     lie("NAXIS2", fitsInt(rows)), Expect::Clean, moreRows(rows));
            else
                fits("seeded NAXIS2 " + QByteArray::number(rows), lie("NAXIS2", fitsInt(rows)),
                     Expect::Error);
        }
        std::uniform_int_distribution<qsizetype> cut(1, good.size() - 1);
        for (int i = 0; i < 10; ++i) {
            const qsizetype at = cut(rng);
            // Cut inside the final padding only: the rows are all there.
            const bool rowsWhole = at >= 2 * 2880 + n * 16;
            fits("seeded truncation at byte " + QByteArray::number(at), good.left(at),
                 rowsWhole ? Expect::Either : Expect::Error, basePoints);
        }
        std::uniform_int_distribution<qsizetype> where(0, 2 * 2880 - 1);
        std::uniform_int_distribution<int> printable(0x20, 0x7E);
        for (int i = 0; i < 14; ++i) {
            QByteArray bytes = good;
            const qsizetype at = where(rng);
            const char was = bytes[at];
            char now = static_cast<char>(printable(rng));
            if (now == was)
                now = was == 'X' ? 'Y' : 'X';
            bytes[at] = now;
            fits("seeded header byte " + QByteArray::number(at) + " '" + QByteArray(1, was) +
                     "' to '" + QByteArray(1, now) + "'",
                 bytes, Expect::Either, basePoints);
        }
    }
}

inline std::vector<Case> corpus(std::uint64_t seed) { return CorpusBuilder(seed).build(); }

} // namespace hostile
