// SPDX-License-Identifier: GPL-3.0-or-later
// Paths and selections a hostile (or merely unlucky) user can type, through the built tpacf:
// every character a file system allows, as an output file, an output folder and an input of
// every command, FITS and text, must write exactly the files named and touch nothing else
// (checksums of the whole folder before and after); cfitsio selections that would read another
// file are refused in seconds with one clear line. Count files whose numbers are impossible are
// refused, naming the file, the count and the bin.
#include "cli_process.h"
#include "tpacf/mock.h"
#include "tpacf_test_main.h"

#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <map>

#include <sys/stat.h>

#ifdef TPACF_TEST_HAVE_CFITSIO
#include "fits_test_catalog.h"
#endif

#ifndef TPACF_EXE
#error "TPACF_EXE must name the tpacf executable"
#endif

using tpacf::test::ProcessOutcome;
using tpacf::test::words;

namespace {

// Every file under `folder` (recursively, hidden ones too) with the hash of its content.
using Snapshot = std::map<QString, QByteArray>;

Snapshot snapshot(const QString& folder) {
    Snapshot files;
    QDirIterator it(folder, QDir::Files | QDir::Hidden | QDir::System,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString file = it.next();
        struct stat info {};
        if (::lstat(QFile::encodeName(file).constData(), &info) != 0 || !S_ISREG(info.st_mode)) {
            files[QDir(folder).relativeFilePath(file)] = "<not a regular file>"; // never opened
            continue;
        }
        QFile in(file);
        const QByteArray hash =
            in.open(QIODevice::ReadOnly)
                ? QCryptographicHash::hash(in.readAll(), QCryptographicHash::Sha256)
                : QByteArray("<unreadable>");
        files[QDir(folder).relativeFilePath(file)] = hash;
    }
    return files;
}

// What changed from `before` to `after`, other than the files in `expected` (new or rewritten):
// every other file must be as it was, and no other file may appear (a left temporary).
QStringList unexpectedChanges(const Snapshot& before, const Snapshot& after,
                              const QStringList& expected) {
    QStringList changes;
    for (const auto& [file, hash] : before)
        if (!expected.contains(file) && (!after.count(file) || after.at(file) != hash))
            changes << (after.count(file) ? QStringLiteral("changed: ")
                                          : QStringLiteral("gone: ")) +
                           file;
    for (const auto& [file, hash] : after)
        if (!before.count(file) && !expected.contains(file))
            changes << QStringLiteral("new: ") + file;
    return changes;
}

ProcessOutcome runTpacf(const QString& folder, const QStringList& arguments,
                        int timeoutMs = 60000) {
    return tpacf::test::runProcess(QStringLiteral(TPACF_EXE), arguments, folder, timeoutMs);
}

QByteArray contentOf(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

void writeFile(const QString& path, const QByteArray& bytes) {
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size())
        qFatal("cannot write %s", qPrintable(path));
}

// The data rows of a CSV result (the '#' metadata names the inputs' paths, which differ).
QByteArray dataRows(const QString& path) {
    QByteArray rows;
    for (const QByteArray& line : contentOf(path).split('\n'))
        if (!line.startsWith('#'))
            rows += line + '\n';
    return rows;
}

// Where the sanitized tree runs this suite too (scripts/test-all.sh), the tree whose tpacf plots
// runs only what the plots add: the run command, with its figure, under every hostile name.
#ifdef TPACF_HOSTILE_PATHS_PLOTS_ONLY
constexpr bool kPlotsOnly = true;
#else
constexpr bool kPlotsOnly = false;
#endif

const QStringList kBins = words({"--bins", "log", "--min", "1", "--max", "300", "--unit", "arcmin",
                                 "--nbins", "8", "--quiet", "--backend", "cpu"});

// File-name stems, one per character class a file system allows and a shell or cfitsio might
// read as syntax. Each is used as an output's name, an output folder's name and an input's name.
const std::vector<std::pair<const char*, QString>> kNames{
    {"parentheses", QStringLiteral("results(v2)")},
    {"brackets", QStringLiteral("vic2[1]")},
    {"braces", QStringLiteral("set{a,b}")},
    {"bang", QStringLiteral("wow!x")},
    {"at", QStringLiteral("me@host")},
    {"plus", QStringLiteral("a+b")},
    {"leading dash", QStringLiteral("-dash")},
    {"tilde", QStringLiteral("~tilde~")},
    {"dollar", QStringLiteral("$HOME")},
    {"hash", QStringLiteral("#hash")},
    {"spaces", QStringLiteral("two  words ")},
    {"single quote", QStringLiteral("it's")},
    {"double quote", QStringLiteral("say\"hi\"")},
    {"semicolon and pipe", QStringLiteral("a;b|c")},
    {"backslash", QStringLiteral("back\\slash")},
    {"glob", QStringLiteral("star*?")},
    {"percent and equals", QStringLiteral("100%=x")},
    {"unicode", QStringLiteral("θ-éß-☃")},
};

// Files that cfitsio's extended syntax would have reached through such a name: the part before
// its first special character, and the same hidden (".profile" from "profile(2).fits").
QStringList decoysFor(const QString& name) {
    QString prefix;
    for (const QChar c : name) {
        if (!c.isLetterOrNumber())
            break;
        prefix += c;
    }
    if (prefix.isEmpty())
        return {};
    return {prefix, QLatin1Char('.') + prefix, prefix + QStringLiteral(".fits")};
}

// The count file's text with number `index` of the array `field` ("raw", "touching", "weighted",
// "size") in the entry labelled `label` (a count, or a catalog's "name") set to `value`.
QByteArray tamper(QByteArray text, const QByteArray& label, const QByteArray& field, int index,
                  const QByteArray& value) {
    const qsizetype entry = text.indexOf("\"" + label + "\"");
    const qsizetype key = text.indexOf("\"" + field + "\": ", entry);
    if (entry < 0 || key < 0)
        qFatal("no %s in %s", field.constData(), label.constData());
    qsizetype at = key + field.size() + 4;
    if (text[at] == '[')
        ++at;
    for (int i = 0; i < index; ++i)
        at = text.indexOf(',', at) + 1;
    while (text[at] == ' ')
        ++at;
    qsizetype end = at;
    while (end < text.size() && text[end] != ',' && text[end] != ']' && text[end] != '}')
        ++end;
    return text.replace(at, end - at, value);
}

// The text with the count entry labelled `label` there twice, the copy's first raw number +1.
QByteArray duplicateCount(const QByteArray& text, const QByteArray& label) {
    const qsizetype start = text.indexOf("    {\"label\": \"" + label + "\"");
    const qsizetype end = text.indexOf("null}", start) + 5;
    const QByteArray entry = text.mid(start, end - start);
    const QByteArray changed = tamper(
        entry, label, "raw", 0,
        QByteArray::number(
            entry.mid(entry.indexOf("[") + 1).split(',').front().trimmed().toULongLong() + 1));
    QByteArray result = text;
    return result.insert(end, ",\n" + changed);
}


// One command of the matrix: its arguments and the files it must write (relative to the
// folder it runs in).
struct Command {
    QString label;
    QStringList arguments;
    QStringList outputs;
};

// Every command and output flag, writing to `out` (a stem, possibly inside a folder) from the
// catalogs `d`, `r` (text) and `df`, `rf` (FITS; empty without cfitsio) and the share count
// files `p1`, `p2`.
std::vector<Command> commands(const QString& d, const QString& r, const QString& df,
                              const QString& rf, const QString& p1, const QString& p2,
                              const QString& out) {
    const auto o = [&out](const char* suffix) { return out + QString::fromUtf8(suffix); };
    std::vector<Command> list;
    Command run{QStringLiteral("run"),
                QStringList{QStringLiteral("run"), QStringLiteral("--data"), d,
                            QStringLiteral("--random"), r, QStringLiteral("--jackknife"),
                            QStringLiteral("4"), QStringLiteral("--output"), o(".csv"),
                            QStringLiteral("--json"), o(".json"), QStringLiteral("--covariance"),
                            o("-cov.csv"), QStringLiteral("--save-counts"), o("-counts.json")} +
                    kBins,
                {o(".csv"), o(".json"), o("-cov.csv"), o("-counts.json")}};
#ifdef TPACF_CLI_HAVE_PLOT
    run.arguments << QStringLiteral("--plot") << o(".png");
    run.outputs << o(".png");
#endif
    list.push_back(run);
    if (kPlotsOnly)
        return list; // the other commands write no plot
    list.push_back(
        {QStringLiteral("count"),
         QStringList{QStringLiteral("count"), QStringLiteral("--a"), d, QStringLiteral("--b"), r,
                     QStringLiteral("--output"), o("-count.csv")} +
             kBins,
         {o("-count.csv")}});
    list.push_back({QStringLiteral("combine"),
                    {QStringLiteral("combine"), p1, p2, QStringLiteral("--output"), o("-all.json"),
                     QStringLiteral("--quiet")},
                    {o("-all.json")}});
    list.push_back(
        {QStringLiteral("mock"),
         words({"mock", "--n", "50", "--seed", "3", "--randoms", "60", "--output"}) +
             QStringList{o("-mock.txt"), QStringLiteral("--random-output"), o("-mock-r.txt")},
         {o("-mock.txt"), o("-mock-r.txt")}});
    if (!df.isEmpty()) {
        list.push_back({QStringLiteral("run, FITS"),
                        QStringList{QStringLiteral("run"), QStringLiteral("--data"), df,
                                    QStringLiteral("--random"), rf, QStringLiteral("--format"),
                                    QStringLiteral("fits"), QStringLiteral("--output"), o(".fits"),
                                    QStringLiteral("--save-counts"), o("-counts.fits")} +
                            kBins,
                        {o(".fits"), o("-counts.fits")}});
        list.push_back({QStringLiteral("count, FITS"),
                        QStringList{QStringLiteral("count"), QStringLiteral("--a"), df,
                                    QStringLiteral("--output"), o("-fcount.csv")} +
                            kBins,
                        {o("-fcount.csv")}});
    }
    return list;
}

} // namespace

class TestHostilePaths : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_plain; // a folder with the catalogs and count files under plain names
    bool m_fits = false;

    QString plain(const QString& name) const { return m_plain + QLatin1Char('/') + name; }

    // A fresh folder for a row: the inputs under plain names, and the decoys for `name`.
    QString rowFolder(const QString& name) {
        static int row = 0;
        const QString folder = m_dir.filePath(QStringLiteral("row%1").arg(++row));
        QDir().mkpath(folder);
        for (const QString& file :
             {QStringLiteral("d.txt"), QStringLiteral("r.txt"), QStringLiteral("d.fits"),
              QStringLiteral("r.fits"), QStringLiteral("p1.json"), QStringLiteral("p2.json")})
            if (QFile::exists(plain(file)))
                QFile::copy(plain(file), folder + QLatin1Char('/') + file);
        for (const QString& decoy : decoysFor(name))
            writeFile(folder + QLatin1Char('/') + decoy, "precious\n");
        return folder;
    }

    // Runs each command in `folder`; every one must succeed and write exactly its outputs.
    void runMatrix(const QString& folder, const std::vector<Command>& list) {
        for (const Command& command : list) {
            const Snapshot before = snapshot(folder);
            const ProcessOutcome outcome = runTpacf(folder, command.arguments);
            QVERIFY2(outcome.exitCode == 0,
                     qPrintable(command.label +
                                QStringLiteral(": exit %1: ").arg(outcome.exitCode) + outcome.err));
            const Snapshot after = snapshot(folder);
            for (const QString& output : command.outputs)
                QVERIFY2(after.count(QDir::cleanPath(output)) &&
                             QFileInfo(folder + QLatin1Char('/') + output).size() > 0,
                         qPrintable(command.label + QStringLiteral(": no ") + output));
            QStringList expected;
            for (const QString& output : command.outputs)
                expected << QDir::cleanPath(output);
            const QStringList changes = unexpectedChanges(before, after, expected);
            QVERIFY2(changes.isEmpty(), qPrintable(command.label + QStringLiteral(": ") +
                                                   changes.join(QStringLiteral(", "))));
            for (const QString& output : command.outputs)
                if (output.endsWith(QStringLiteral(".fits")))
                    QVERIFY2(contentOf(folder + QLatin1Char('/') + output).startsWith("SIMPLE  ="),
                             qPrintable(output + QStringLiteral(" is not FITS")));
        }
    }

    void addNameRows() {
        QTest::addColumn<QString>("name");
        for (const auto& [label, name] : kNames)
            QTest::newRow(label) << name;
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_plain = m_dir.filePath(QStringLiteral("plain"));
        QVERIFY(QDir().mkpath(m_plain));
        const tpacf::Footprint box = tpacf::Footprint::box(10, 14, 0, 4);
        const tpacf::Catalog data = tpacf::generateUniformRandoms(300, box, 1, "d");
        const tpacf::Catalog random = tpacf::generateUniformRandoms(400, box, 2, "r");
        tpacf::writeCatalogAscii(plain(QStringLiteral("d.txt")).toStdString(), data);
        tpacf::writeCatalogAscii(plain(QStringLiteral("r.txt")).toStdString(), random);
#ifdef TPACF_TEST_HAVE_CFITSIO
        QVERIFY(tpacf::test::writeFitsRaDec(plain(QStringLiteral("d.fits")), data));
        QVERIFY(tpacf::test::writeFitsRaDec(plain(QStringLiteral("r.fits")), random));
        m_fits = true;
#endif
        for (const char* part : {"1", "2"}) {
            const ProcessOutcome outcome = runTpacf(
                m_plain,
                words({"run", "--data", "d.txt", "--random", "r.txt", "--share"}) +
                    QStringList{QString::fromLatin1(part) + QStringLiteral("/2"),
                                QStringLiteral("--save-counts"),
                                QStringLiteral("p%1.json").arg(QString::fromLatin1(part))} +
                    kBins);
            QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));
        }
        // Honest count files to edit: plain, jackknife, weighted randoms (third column).
        QByteArray weighted;
        for (const QByteArray& line : contentOf(plain(QStringLiteral("r.txt"))).split('\n'))
            if (!line.isEmpty() && !line.startsWith('#'))
                weighted +=
                    line + " " + QByteArray::number(0.5 + (weighted.size() % 7) / 4.0) + "\n";
        writeFile(plain(QStringLiteral("rw.txt")), weighted);
        for (const QStringList& extra :
             {words({"--random", "r.txt", "--save-counts", "c.json"}),
              words({"--random", "r.txt", "--jackknife", "4", "--save-counts", "cj.json"}),
              words({"--random", "rw.txt", "--random-weight-col", "3", "--save-counts",
                     "cw.json"})}) {
            const ProcessOutcome outcome =
                runTpacf(m_plain, words({"run", "--data", "d.txt", "--output", "/dev/null"}) +
                                      extra + kBins);
            QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));
        }
    }

    // The name as the stem of every output of every command.
    void nameAsOutputFile_data() {
        addNameRows();
    }
    void nameAsOutputFile() {
        QFETCH(QString, name);
        const QString folder = rowFolder(name);
        runMatrix(folder,
                  commands(QStringLiteral("d.txt"), QStringLiteral("r.txt"),
                           m_fits ? QStringLiteral("d.fits") : QString(), QStringLiteral("r.fits"),
                           QStringLiteral("p1.json"), QStringLiteral("p2.json"), name));
    }

    // The name as the folder every output goes into (the folder exists, a decoy beside it).
    void nameAsOutputFolder_data() {
        addNameRows();
    }
    void nameAsOutputFolder() {
        QFETCH(QString, name);
        const QString folder = rowFolder(name);
        QVERIFY(QDir(folder).mkdir(name));
        runMatrix(folder, commands(QStringLiteral("d.txt"), QStringLiteral("r.txt"),
                                   m_fits ? QStringLiteral("d.fits") : QString(),
                                   QStringLiteral("r.fits"), QStringLiteral("p1.json"),
                                   QStringLiteral("p2.json"), name + QStringLiteral("/w")));
    }

    // The name as every input (catalogs, count files): the counts are those of the same files
    // under plain names.
    void nameAsInput_data() {
        addNameRows();
    }
    void nameAsInput() {
        if (kPlotsOnly)
            QSKIP("no plot among its outputs: this case runs in the sanitized tree");
        QFETCH(QString, name);
        const QString folder = rowFolder(name);
        const auto copy = [&](const QString& from, const QString& suffix) {
            const QString to = name + suffix;
            if (!QFile::copy(plain(from), folder + QLatin1Char('/') + to))
                qFatal("cannot copy %s", qPrintable(from));
            return to;
        };
        const QString d = copy(QStringLiteral("d.txt"), QStringLiteral("-d.txt"));
        const QString r = copy(QStringLiteral("r.txt"), QStringLiteral("-r.txt"));
        const QString p1 = copy(QStringLiteral("p1.json"), QStringLiteral("-p1.json"));
        const QString p2 = copy(QStringLiteral("p2.json"), QStringLiteral("-p2.json"));
        QString df, rf;
        if (m_fits) {
            df = copy(QStringLiteral("d.fits"), QStringLiteral("-d.fits"));
            rf = copy(QStringLiteral("r.fits"), QStringLiteral("-r.fits"));
        }
        runMatrix(folder, commands(d, r, df, rf, p1, p2, QStringLiteral("out")));
        const QString reference = folder + QStringLiteral("/reference.csv");
        QCOMPARE(runTpacf(folder, words({"count", "--a", "d.txt", "--b", "r.txt", "--output",
                                         "reference.csv"}) +
                                      kBins)
                     .exitCode,
                 0);
        QCOMPARE(dataRows(folder + QStringLiteral("/out-count.csv")), dataRows(reference));
        if (m_fits) {
            QCOMPARE(
                runTpacf(folder, words({"count", "--a", "d.fits", "--output", "auto.csv"}) + kBins)
                    .exitCode,
                0);
            QCOMPARE(dataRows(folder + QStringLiteral("/out-fcount.csv")),
                     dataRows(folder + QStringLiteral("/auto.csv")));
        }
    }

    // cfitsio selections that read another file: refused within seconds, one line, no word of
    // the other file in it; the selections that read nothing else still work.
    void fileReadingSelections_data() {
        QTest::addColumn<QString>("selection");
        QTest::addColumn<bool>("refused");
        QTest::newRow("@fifo") << QStringLiteral("[1][@ff]") << true;
        QTest::newRow("@/dev/zero") << QStringLiteral("[1][@/dev/zero]") << true;
        QTest::newRow("@/etc/passwd") << QStringLiteral("[1][@/etc/passwd]") << true;
        QTest::newRow("@regular file") << QStringLiteral("[1][@filter.txt]") << true;
        QTest::newRow("@ after a filter") << QStringLiteral("[1][RA > 0][@ff]") << true;
        QTest::newRow("col @file") << QStringLiteral("[1][col @columns.txt]") << true;
        QTest::newRow("regfilter") << QStringLiteral("[1][regfilter(\"ff\")]") << true;
        QTest::newRow("REGFILTER upper case")
            << QStringLiteral("[1][REGFILTER(\"/etc/passwd\", RA, DEC)]") << true;
        QTest::newRow("gtifilter") << QStringLiteral("[1][gtifilter(\"ff\")]") << true;
        QTest::newRow("gtifilter()") << QStringLiteral("[1][gtifilter()]") << true;
        QTest::newRow("gtioverlap")
            << QStringLiteral("[1][gtioverlap(\"ff\", RA, DEC) > 0]") << true;
        QTest::newRow("gtifind") << QStringLiteral("[1][gtifind(\"ff\") > 0]") << true;
        QTest::newRow("in a column list")
            << QStringLiteral("[1][col RA; DEC; W = regfilter(\"ff\")]") << true;
        QTest::newRow("plain row filter") << QStringLiteral("[1][RA > 11 && DEC < 3]") << false;
        QTest::newRow("column list") << QStringLiteral("[1][col RA;DEC]") << false;
        QTest::newRow("a column named like a prefix")
            << QStringLiteral("[1][col RA;DEC;GTIX = RA]") << false;
    }
    void fileReadingSelections() {
        if (kPlotsOnly)
            QSKIP("no plot among its outputs: this case runs in the sanitized tree");
        if (!m_fits)
            QSKIP("built without cfitsio: no FITS selections");
        QFETCH(QString, selection);
        QFETCH(bool, refused);
        const QString folder = rowFolder(QString());
        QCOMPARE(::mkfifo(QFile::encodeName(folder + QStringLiteral("/ff")).constData(), 0600), 0);
        writeFile(folder + QStringLiteral("/filter.txt"), "RA > 0\n");
        writeFile(folder + QStringLiteral("/columns.txt"), "RA;DEC\n");
        const QString catalog = QStringLiteral("d.fits") + selection;
        const std::vector<QStringList> uses{
            QStringList{QStringLiteral("count"), QStringLiteral("--a"), catalog,
                        QStringLiteral("--output"), QStringLiteral("c.csv")} +
                kBins,
            QStringList{QStringLiteral("run"), QStringLiteral("--data"), QStringLiteral("d.txt"),
                        QStringLiteral("--random"), catalog, QStringLiteral("--output"),
                        QStringLiteral("w.csv")} +
                kBins};
        for (const QStringList& arguments : uses) {
            const Snapshot before = snapshot(folder);
            const ProcessOutcome outcome = runTpacf(folder, arguments, 15000);
            QVERIFY2(outcome.exitCode != -1, "tpacf hung (killed after 15 s) or crashed");
            if (!refused) {
                QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));
                continue;
            }
            QCOMPARE(outcome.exitCode, 2);
            QCOMPARE(outcome.err.count(QLatin1Char('\n')), 1);
            QVERIFY2(outcome.err.contains(QStringLiteral("reads another file")),
                     qPrintable(outcome.err));
            QVERIFY2(outcome.err.contains(QStringLiteral("d.fits")), qPrintable(outcome.err));
            QVERIFY2(!outcome.err.contains(QStringLiteral("root")), qPrintable(outcome.err));
            QCOMPARE(unexpectedChanges(before, snapshot(folder), {}), QStringList());
        }
    }

    // Count files with impossible numbers are refused by --reuse-counts (exit 2, one line
    // naming the file, the count and the bin), and no result is written.
    void implausibleCountFiles_data() {
        QTest::addColumn<QString>("source");    // the honest count file
        QTest::addColumn<QByteArray>("edited"); // what was done to it
        QTest::addColumn<QStringList>("says");
        const QByteArray plainText = contentOf(plain(QStringLiteral("c.json")));
        const QByteArray jackknifeText = contentOf(plain(QStringLiteral("cj.json")));
        const QByteArray weightedText = contentOf(plain(QStringLiteral("cw.json")));
        const auto row = [](const char* name, const char* source, const QByteArray& edited,
                            const QStringList& says) {
            QTest::newRow(name) << QString::fromLatin1(source) << edited << says;
        };
        // 400 randoms have 79,800 pairs; 300 data 44,850.
        row("RR bin beyond N(N-1)/2", "c.json", tamper(plainText, "RR_1", "raw", 3, "5000000"),
            {QStringLiteral("RR_1"), QStringLiteral("bin 4"), QStringLiteral("79800")});
        row("RR bin 10^19", "c.json", tamper(plainText, "RR_1", "raw", 0, "10000000000000000000"),
            {QStringLiteral("RR_1"), QStringLiteral("bin 1")});
        row("DD over all bins beyond N(N-1)/2", "c.json",
            tamper(tamper(plainText, "DD", "raw", 6, "40000"), "DD", "raw", 7, "40000"),
            {QStringLiteral("DD"), QStringLiteral("over all bins"), QStringLiteral("44850")});
        row("DR bin beyond N*M", "c.json", tamper(plainText, "DR_1", "raw", 2, "120001"),
            {QStringLiteral("DR_1"), QStringLiteral("bin 3"), QStringLiteral("120000")});
        row("two different RR_1", "c.json", duplicateCount(plainText, "RR_1"),
            {QStringLiteral("two different counts"), QStringLiteral("RR_1")});
        row("region tally beyond its bin", "cj.json",
            tamper(jackknifeText, "DD", "touching", 5, "44000"),
            {QStringLiteral("DD"), QStringLiteral("region"), QStringLiteral("bin 6")});
        row("weighted sum beyond the weights", "cw.json",
            tamper(weightedText, "RR_1", "weighted", 4, "1e30"),
            {QStringLiteral("RR_1"), QStringLiteral("weighted sum"), QStringLiteral("bin 5")});
        row("NaN weighted sum", "cw.json", tamper(weightedText, "RR_1", "weighted", 0, "NaN"),
            {QStringLiteral("not a valid count file")});
        row("catalog N edited", "c.json", tamper(plainText, "r.txt", "size", 0, "4000"),
            {QStringLiteral("N = 4000"), QStringLiteral("N = 400")});
    }
    void implausibleCountFiles() {
        if (kPlotsOnly)
            QSKIP("no plot among its outputs: this case runs in the sanitized tree");
        QFETCH(QString, source);
        QFETCH(QByteArray, edited);
        QFETCH(QStringList, says);
        const QString folder = rowFolder(QString());
        QVERIFY(QFile::copy(plain(QStringLiteral("rw.txt")), folder + QStringLiteral("/rw.txt")));
        writeFile(folder + QStringLiteral("/edited.json"), edited);
        QStringList arguments = words({"run", "--data", "d.txt", "--output", "w.csv",
                                       "--reuse-counts", "edited.json"}) +
                                kBins;
        if (source == QLatin1String("cw.json"))
            arguments << words({"--random", "rw.txt", "--random-weight-col", "3"});
        else
            arguments << words({"--random", "r.txt"});
        if (source == QLatin1String("cj.json"))
            arguments << words({"--jackknife", "4"});
        // The honest file is reused: the edit alone makes the difference.
        writeFile(folder + QStringLiteral("/honest.json"), contentOf(plain(source)));
        QStringList honest = arguments;
        honest[honest.indexOf(QStringLiteral("edited.json"))] = QStringLiteral("honest.json");
        honest[honest.indexOf(QStringLiteral("w.csv"))] = QStringLiteral("honest.csv");
        const ProcessOutcome reused = runTpacf(folder, honest);
        QVERIFY2(reused.exitCode == 0, qPrintable(reused.err));

        const Snapshot before = snapshot(folder);
        const ProcessOutcome outcome = runTpacf(folder, arguments);
        QCOMPARE(outcome.exitCode, 2);
        QCOMPARE(outcome.err.count(QLatin1Char('\n')), 1);
        QVERIFY2(outcome.err.contains(QStringLiteral("edited.json")), qPrintable(outcome.err));
        for (const QString& text : says)
            QVERIFY2(outcome.err.contains(text),
                     qPrintable(outcome.err + QStringLiteral(" lacks ") + text));
        QCOMPARE(unexpectedChanges(before, snapshot(folder), {}), QStringList());
    }
};

TPACF_TEST_MAIN(TestHostilePaths)
#include "test_hostile_paths.moc"
