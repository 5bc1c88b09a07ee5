// SPDX-License-Identifier: GPL-3.0-or-later
// The readers against hostile inputs, end to end through the tpacf executable: a seeded corpus
// (hostile_inputs.h) of broken, odd and malicious catalogs and paths. For each, `tpacf count`
// must either fail with exit 2 and one line on stderr naming the file (and the line and column
// at fault where the input has them), writing no output; or succeed with exactly the pair
// counts of the clean equivalent catalog. Never a crash, a hang, or other counts.
#include "hostile_inputs.h"
#include "tpacf/catalog_reader.h"
#include "tpacf_test_main.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <chrono>
#include <cstdint>
#include <vector>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#if TPACF_TEST_HAVE_ZLIB
#include <zlib.h>
#endif

#ifndef TPACF_EXE
#error "TPACF_EXE must name the tpacf executable"
#endif

namespace {

using hostile::Case;
using hostile::Expect;
using hostile::Special;

constexpr std::uint64_t kSeed = 20240611;
constexpr int kTimeoutMs = 20000;

struct Run {
    bool finished = false;
    bool crashed = false;
    int exitCode = -1;
    QByteArray out, err;
};

// Under AddressSanitizer (the asan preset, allocator_may_return_null=1), cfitsio's calloc of an
// uninitialised column count for a negative NAXIS2 can ask for more than ASan allocates: ASan
// then returns NULL, as glibc does, and prints its own "==PID==WARNING: AddressSanitizer failed
// to allocate 0x... bytes" line. That line is the sanitizer's, not tpacf's: it is taken out
// before tpacf's output is checked. Every other line stays.
QByteArray withoutSanitizerAllocationWarnings(const QByteArray& err) {
    static const QRegularExpression warning(
        QStringLiteral("^==\\d+==WARNING: AddressSanitizer failed to allocate 0x[0-9a-f]+ bytes$"));
    QByteArray kept;
    for (const QByteArray& line : err.split('\n'))
        if (!warning.match(QString::fromUtf8(line)).hasMatch())
            kept += line + '\n';
    kept.chop(1); // split() gave one more piece than there were line ends
    return kept;
}

Run runTpacf(const QStringList& args, int timeoutMs = kTimeoutMs) {
    QProcess process;
    process.start(QStringLiteral(TPACF_EXE), args);
    Run run;
    if (!process.waitForStarted()) {
        qWarning("tpacf did not start");
        return run;
    }
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished();
        return run;
    }
    run.finished = true;
    run.crashed = process.exitStatus() != QProcess::NormalExit;
    run.exitCode = process.exitCode();
    run.out = process.readAllStandardOutput();
    run.err = withoutSanitizerAllocationWarnings(process.readAllStandardError());
    return run;
}

QStringList countArgs(const QString& input, const QString& output, const QStringList& readArgs) {
    return QStringList{QStringLiteral("count"), QStringLiteral("--a"), input} + readArgs +
           QStringList{
               QStringLiteral("--bins"),  QStringLiteral("log"),       QStringLiteral("--min"),
               QStringLiteral("1"),       QStringLiteral("--max"),     QStringLiteral("600"),
               QStringLiteral("--unit"),  QStringLiteral("arcmin"),    QStringLiteral("--nbins"),
               QStringLiteral("5"),       QStringLiteral("--backend"), QStringLiteral("cpu"),
               QStringLiteral("--quiet"), QStringLiteral("--output"),  output};
}

/// The catalog size and the per-bin counts of a counts CSV written by tpacf count.
struct Counts {
    qint64 size = -1;
    QList<qint64> bins;
    bool operator==(const Counts&) const = default;
};

Counts readCounts(const QString& path) {
    QFile file(path);
    Counts counts;
    if (!file.open(QIODevice::ReadOnly))
        return counts;
    // The ECSV metadata line "#   catalog: 'name N=100; read as ...; fingerprint ...'".
    static const QRegularExpression catalogSize(QStringLiteral(" N=(\\d+)(?:'|;)"));
    bool header = false;
    for (const QByteArray& raw : file.readAll().split('\n')) {
        const QString line = QString::fromUtf8(raw).trimmed();
        if (line.startsWith(QLatin1String("#   catalog:"))) {
            const auto match = catalogSize.match(line);
            if (match.hasMatch())
                counts.size = match.captured(1).toLongLong();
        } else if (!line.isEmpty() && !line.startsWith(QLatin1Char('#'))) {
            if (!header) {
                header = true; // theta_lo,theta_hi,theta_mid,count
                continue;
            }
            counts.bins << line.section(QLatin1Char(','), -1).toLongLong();
        }
    }
    return counts;
}

QString describe(const Counts& counts) {
    QStringList bins;
    for (const qint64 b : counts.bins)
        bins << QString::number(b);
    return QStringLiteral("N=%1 [%2]").arg(counts.size).arg(bins.join(QLatin1Char(' ')));
}

QString shown(const QByteArray& bytes) {
    return QString::fromUtf8(bytes.left(300)).toHtmlEscaped();
}

#if TPACF_TEST_HAVE_ZLIB
/// A gzip stream (zlib, fast level) of `header`, then `zeros` zero bytes, then `tail`: a
/// .fits.gz that expands to far more than it takes on disk.
QByteArray gzipWithZeros(const QByteArray& header, qint64 zeros, const QByteArray& tail) {
    z_stream stream{};
    if (deflateInit2(&stream, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        qFatal("deflateInit2 failed");
    QByteArray out;
    QByteArray buffer(1 << 20, '\0');
    auto feed = [&](const char* data, qint64 size, int flush) {
        stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data));
        stream.avail_in = static_cast<uInt>(size);
        do {
            stream.next_out = reinterpret_cast<Bytef*>(buffer.data());
            stream.avail_out = static_cast<uInt>(buffer.size());
            deflate(&stream, flush);
            out.append(buffer.constData(), buffer.size() - stream.avail_out);
        } while (stream.avail_out == 0);
    };
    feed(header.constData(), header.size(), Z_NO_FLUSH);
    const QByteArray block(1 << 20, '\0');
    for (qint64 left = zeros; left > 0; left -= block.size())
        feed(block.constData(), std::min<qint64>(left, block.size()), Z_NO_FLUSH);
    feed(tail.constData(), tail.size(), Z_FINISH);
    deflateEnd(&stream);
    return out;
}
#endif

// The text after "name:" on its line of /proc/PID/status ("" when the process is gone).
QByteArray procStatusField(qint64 pid, const char* name) {
    QFile status(QStringLiteral("/proc/%1/status").arg(pid));
    const QByteArray key = QByteArray(name) + ':';
    if (status.open(QIODevice::ReadOnly))
        for (const QByteArray& line : status.readAll().split('\n'))
            if (line.startsWith(key))
                return line.mid(key.size()).trimmed();
    return {};
}

} // namespace

class TestHostileInputs : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void corpus_data();
    void corpus();
    void commandLineMessages_data();
    void commandLineMessages();
    void ctrlCStopsALongRead();
    void gzipExpandsOnDiskNotInMemory();

private:
    QString rowDir(int index) const;
    QString materialize(const Case& c, const QString& dir);
    Counts cleanCounts(const std::vector<hostile::Point>& points, const QStringList& args);
    static void checkError(const Run& run, const Case& c, const QString& input,
                           const QString& output);

    QTemporaryDir m_dir;
    std::vector<Case> m_cases;
    QHash<QByteArray, Counts> m_cleanCounts;
    hostile::Rows m_baseRows;
};

void TestHostileInputs::initTestCase() {
    QVERIFY(m_dir.isValid());
    QVERIFY2(QFile::exists(QStringLiteral(TPACF_EXE)), TPACF_EXE);
    m_cases = hostile::corpus(kSeed);
    std::mt19937_64 rng(kSeed + 1);
    m_baseRows = hostile::randomRows(rng, 40);
}

QString TestHostileInputs::rowDir(int index) const {
    const QString dir = m_dir.filePath(QStringLiteral("row%1").arg(index));
    QDir().mkpath(dir);
    return dir;
}

// Writes the case's file, or makes its special path, in `dir`; returns the path to give --a.
QString TestHostileInputs::materialize(const Case& c, const QString& dir) {
    auto write = [](const QString& path, const QByteArray& bytes) {
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size())
            qFatal("cannot write %s", qPrintable(path));
        return path;
    };
    const QString file = dir + QLatin1Char('/') + c.fileName;
    const QByteArray local = QFile::encodeName(file);
    switch (c.special) {
    case Special::None:
        return write(file, c.content);
    case Special::Path:
        return c.path;
    case Special::Fifo:
        if (::mkfifo(local.constData(), 0600) != 0)
            qFatal("mkfifo failed: %s", std::strerror(errno));
        return file;
    case Special::Directory:
        QDir().mkpath(file);
        return file;
    case Special::SymlinkLoop: {
        const QString other = dir + QStringLiteral("/other.txt");
        QFile::link(other, file);
        QFile::link(file, other);
        return file;
    }
    case Special::DanglingLink:
        QFile::link(dir + QStringLiteral("/nothing-here.txt"), file);
        return file;
    case Special::Missing:
        return dir + QStringLiteral("/nothing-here.txt");
    case Special::EmptyPath:
        return QString();
    case Special::LinkToFile:
        QFile::link(write(dir + QStringLiteral("/target.txt"), c.content), file);
        return file;
    case Special::TrailingSlash:
        return write(file, c.content) + QLatin1Char('/');
    case Special::Socket: {
        const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        if (fd < 0 || static_cast<std::size_t>(local.size()) >= sizeof address.sun_path)
            qFatal("cannot make a socket at %s", local.constData());
        std::memcpy(address.sun_path, local.constData(), static_cast<std::size_t>(local.size()));
        if (::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0)
            qFatal("bind failed: %s", std::strerror(errno));
        ::close(fd); // the socket file stays
        return file;
    }
    }
    return file;
}

// The counts of the clean equivalent: the points written plainly, read with `args`.
Counts TestHostileInputs::cleanCounts(const std::vector<hostile::Point>& points,
                                      const QStringList& args) {
    QByteArray text;
    for (const auto& p : points)
        text += hostile::g17(p.ra) + ' ' + hostile::g17(p.dec) + '\n';
    const QByteArray key = text + args.join(QLatin1Char(' ')).toUtf8();
    if (const auto found = m_cleanCounts.constFind(key); found != m_cleanCounts.constEnd())
        return *found;
    const int index = static_cast<int>(m_cleanCounts.size());
    const QString path = m_dir.filePath(QStringLiteral("clean%1.txt").arg(index));
    const QString output = m_dir.filePath(QStringLiteral("clean%1.csv").arg(index));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(text) != text.size())
        qFatal("cannot write %s", qPrintable(path));
    file.close();
    const Run run = runTpacf(countArgs(path, output, args));
    if (!run.finished || run.exitCode != 0)
        qFatal("the clean equivalent failed: %s", run.err.constData());
    const Counts counts = readCounts(output);
    if (counts.size != static_cast<qint64>(points.size()) || counts.bins.size() != 5)
        qFatal("unreadable counts in %s", qPrintable(output));
    m_cleanCounts.insert(key, counts);
    return counts;
}

void TestHostileInputs::checkError(const Run& run, const Case& c, const QString& input,
                                   const QString& output) {
    QVERIFY2(run.err.endsWith('\n'), qPrintable(shown(run.err)));
    const QByteArray line = run.err.chopped(1);
    QVERIFY2(!line.contains('\n'),
             qPrintable(QStringLiteral("more than one line: ") + shown(run.err)));
    QVERIFY2(line.startsWith("tpacf: "), line.left(300).constData());
    // Messages quote at most a few dozen characters of a field, whatever its size.
    QVERIFY2(line.size() <= 700 + QFile::encodeName(input).size(),
             qPrintable(QStringLiteral("%1 bytes: %2").arg(line.size()).arg(shown(line))));
    const QString message = QString::fromUtf8(line);
    if (c.special == Special::EmptyPath)
        QVERIFY2(message.contains(QLatin1String("--a")), qPrintable(message));
    else
        QVERIFY2(message.contains(input), qPrintable(message));
    const QString place = QRegularExpression::escape(input);
    if (c.line > 0)
        QVERIFY2(
            message.contains(input + QLatin1Char(':') + QString::number(c.line) + QLatin1Char(':')),
            qPrintable(QStringLiteral("expected line %1: ").arg(c.line) + message));
    if (c.line == 0)
        QVERIFY2(!QRegularExpression(place + QStringLiteral(":\\d")).match(message).hasMatch(),
                 qPrintable(QStringLiteral("expected no line: ") + message));
    if (c.column > 0)
        QVERIFY2(message.contains(QStringLiteral(": column %1: ").arg(c.column)),
                 qPrintable(QStringLiteral("expected column %1: ").arg(c.column) + message));
    if (!c.mentions.isEmpty())
        QVERIFY2(line.contains(c.mentions),
                 qPrintable(QStringLiteral("expected '%1': ").arg(QString::fromUtf8(c.mentions)) +
                            message));
    QVERIFY2(!QFile::exists(output), "an output was written for a failed read");
}

void TestHostileInputs::corpus_data() {
    QTest::addColumn<int>("index");
    for (std::size_t i = 0; i < m_cases.size(); ++i)
        QTest::newRow(m_cases[i].name.constData()) << static_cast<int>(i);
}

void TestHostileInputs::corpus() {
    QFETCH(int, index);
    const Case& c = m_cases[static_cast<std::size_t>(index)];
    const QString dir = rowDir(index);
    if (c.special == Special::Socket &&
        QFile::encodeName(dir + QLatin1Char('/') + c.fileName).size() >=
            qsizetype(sizeof(sockaddr_un::sun_path)))
        QSKIP("the temporary folder's path is too long for a Unix socket");
    const QString input = materialize(c, dir);
    const QString output = dir + QStringLiteral("/out.csv");
    const Run run = runTpacf(countArgs(input, output, c.readArgs));
    QVERIFY2(run.finished, "tpacf did not finish in time (a hang)");
    // Without cfitsio, FITS names go to the ASCII reader, which must refuse them all.
    const bool fits = c.fileName.endsWith(QLatin1String(".fits")) ||
                      c.fileName.endsWith(QLatin1String(".fits.gz"));
    if (fits && !tpacf::fitsSupported()) {
        QCOMPARE(run.exitCode, 2);
        return;
    }
    QVERIFY2(!run.crashed, qPrintable(QStringLiteral("tpacf crashed: ") + shown(run.err)));
    QVERIFY2(run.exitCode == 0 || run.exitCode == 2,
             qPrintable(QStringLiteral("exit %1: ").arg(run.exitCode) + shown(run.err)));
    if (c.expect == Expect::Error || (c.expect == Expect::Either && run.exitCode == 2)) {
        QVERIFY2(run.exitCode == 2, "read without error, where an error was due");
        checkError(run, c, input, output);
        if (!QTest::currentTestFailed())
            QDir(dir).removeRecursively();
        return;
    }
    QVERIFY2(run.exitCode == 0,
             qPrintable(QStringLiteral("expected the clean catalog, got: ") + shown(run.err)));
    QVERIFY2(c.clean.has_value(), "read without error, but the input has no clean meaning");
    const Counts expected = cleanCounts(*c.clean, c.cleanArgs);
    const Counts got = readCounts(output);
    QVERIFY2(got == expected, qPrintable(QStringLiteral("counts %1, clean equivalent %2")
                                             .arg(describe(got), describe(expected))));
    QDir(dir).removeRecursively(); // some inputs are 10 MB; a failed row keeps its files
}

// Messages about command-line values: out of range is said so, long values are cut.
void TestHostileInputs::commandLineMessages_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("mentions");
    QTest::addColumn<QString>("avoids");
    const QString huge(100000, QLatin1Char('9'));
    const QString text(100000, QLatin1Char('z'));
    QTest::newRow("--max 1e400") << QStringList{QStringLiteral("--max"), QStringLiteral("1e400")}
                                 << "--max: \"1e400\" is out of range"
                                 << "not a number";
    QTest::newRow("--max -1e400") << QStringList{QStringLiteral("--max"), QStringLiteral("-1e400")}
                                  << "is out of range"
                                  << "not a number";
    QTest::newRow("--min 1e-400") << QStringList{QStringLiteral("--min"), QStringLiteral("1e-400")}
                                  << "is out of range"
                                  << "not a number";
    QTest::newRow("--max of 100000 digits")
        << QStringList{QStringLiteral("--max"), huge} << "999...\" (100000 bytes) is out of range"
        << huge.left(200);
    QTest::newRow("--min of 100000 letters") << QStringList{QStringLiteral("--min"), text}
                                             << "(100000 bytes) is not a number" << text.left(200);
    QTest::newRow("--coord-unit of 100000 letters")
        << QStringList{QStringLiteral("--coord-unit"), text} << "(100000 bytes)" << text.left(200);
    QTest::newRow("--ra-col of 100000 letters")
        << QStringList{QStringLiteral("--ra-col"), text} << "(100000 bytes)" << text.left(200);
    QTest::newRow("--max with a control character")
        << QStringList{QStringLiteral("--max"), QStringLiteral("6\x1b[2J00")} << "\\x1B"
        << "\x1b";
    QTest::newRow("an unknown flag of 100000 letters")
        << QStringList{QStringLiteral("--") + text} << "(100002 bytes)" << text.left(200);
}

void TestHostileInputs::commandLineMessages() {
    QFETCH(QStringList, args);
    QFETCH(QString, mentions);
    QFETCH(QString, avoids);
    QByteArray text;
    for (const auto& row : m_baseRows)
        text += row[0] + ' ' + row[1] + '\n';
    const QString input = m_dir.filePath(QStringLiteral("messages.txt"));
    QFile file(input);
    QVERIFY(file.open(QIODevice::WriteOnly) && file.write(text) == text.size());
    file.close();
    // The flags given later win over countArgs' own --min/--max: parseArgs refuses a repeat,
    // so build the line by hand.
    QStringList line{QStringLiteral("count"), QStringLiteral("--a"), input,
                     QStringLiteral("--output"), m_dir.filePath(QStringLiteral("messages.csv"))};
    if (!args.contains(QStringLiteral("--max")))
        line << QStringLiteral("--max") << QStringLiteral("600");
    if (!args.contains(QStringLiteral("--min")))
        line << QStringLiteral("--min") << QStringLiteral("1");
    line << args;
    const Run run = runTpacf(line);
    QVERIFY(run.finished && !run.crashed);
    QCOMPARE(run.exitCode, 2);
    const QString message = QString::fromUtf8(run.err);
    QVERIFY2(message.endsWith(QLatin1Char('\n')) && message.count(QLatin1Char('\n')) == 1,
             qPrintable(message.left(300)));
    QVERIFY2(message.size() < 400, qPrintable(message.left(300)));
    QVERIFY2(message.contains(mentions), qPrintable(message));
    QVERIFY2(!message.contains(avoids), qPrintable(message.left(300)));
}

// Ctrl-C during the read of a 200 MB catalog: exit 130 at once. The file's last line is bad, so
// a reader that did not poll the flag would finish the read and fail with exit 2 instead.
void TestHostileInputs::ctrlCStopsALongRead() {
    const QString big = m_dir.filePath(QStringLiteral("big.txt"));
    {
        QByteArray block;
        std::mt19937_64 rng(kSeed + 2);
        while (block.size() < (1 << 20)) {
            for (const auto& row : hostile::randomRows(rng, 1000))
                block += row[0] + ' ' + row[1] + '\n';
        }
        QFile file(big);
        QVERIFY(file.open(QIODevice::WriteOnly));
        for (int i = 0; i < 200; ++i)
            QVERIFY(file.write(block) == block.size());
        QVERIFY(file.write("bad line\n") > 0);
    }
    const QString output = m_dir.filePath(QStringLiteral("big.csv"));
    QProcess process;
    process.start(QStringLiteral(TPACF_EXE), countArgs(big, output, {}));
    QVERIFY(process.waitForStarted());
    const auto pid = static_cast<pid_t>(process.processId());
    // Not before tpacf catches SIGINT (its caught signals in /proc, SigCgt): on a loaded machine
    // a process can take longer than any fixed delay to get there, and the signal's default
    // action would end it.
    const auto catchesSigint = [&] {
        return (procStatusField(pid, "SigCgt").toULongLong(nullptr, 16) >> (SIGINT - 1) & 1) != 0;
    };
    const auto launched = std::chrono::steady_clock::now();
    while (!catchesSigint() && process.state() == QProcess::Running &&
           std::chrono::steady_clock::now() - launched < std::chrono::milliseconds(kTimeoutMs))
        QThread::usleep(1000);
    QVERIFY2(catchesSigint(), "tpacf never caught SIGINT");
    // Then the signal goes when tpacf has the catalog open (it is reading), or 0.3 s later at
    // the latest (the read of 200 MB takes longer than that, its parse longer still).
    const auto start = std::chrono::steady_clock::now();
    const QString fdDir = QStringLiteral("/proc/%1/fd").arg(pid);
    const QString target = QFileInfo(big).canonicalFilePath();
    bool seenOpen = false;
    while (!seenOpen && std::chrono::steady_clock::now() - start < std::chrono::milliseconds(300)) {
        for (const QFileInfo& fd : QDir(fdDir).entryInfoList(QDir::Files | QDir::System))
            if (fd.symLinkTarget() == target)
                seenOpen = true;
        if (!seenOpen)
            QThread::usleep(1000);
    }
    QCOMPARE(process.state(), QProcess::Running);
    ::kill(pid, SIGINT);
    const auto signalled = std::chrono::steady_clock::now();
    QVERIFY2(process.waitForFinished(2000), "still running 2 s after Ctrl-C");
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - signalled).count();
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    const QString err = QString::fromUtf8(process.readAllStandardError());
    QVERIFY2(process.exitCode() == 130,
             qPrintable(QStringLiteral("exit %1 (%2)").arg(process.exitCode()).arg(err)));
    QVERIFY2(err.contains(QLatin1String("cancelled")), qPrintable(err));
    QVERIFY(!QFile::exists(output));
    qInfo("cancelled %.3f s after SIGINT (sent %s)", seconds,
          seenOpen ? "while the file was open" : "after 0.3 s");
    QFile::remove(big);
}

// A .fits.gz expanding to 128 MiB (an image of zeros before a table) is decompressed to a
// temporary file, not into memory: the peak memory of tpacf stays far below the expansion,
// the counts are those of the table, and the temporary folder is gone afterwards.
void TestHostileInputs::gzipExpandsOnDiskNotInMemory() {
#if !TPACF_TEST_HAVE_ZLIB
    QSKIP("built without zlib to write the test file");
#else
    if (!tpacf::fitsSupported())
        QSKIP("built without cfitsio");
    constexpr qint64 kImage = qint64(128) << 20;
    // Enough points that counting them takes a while after the read, so that the peak memory
    // of the read is still there to be sampled.
    std::mt19937_64 rng(kSeed + 3);
    std::vector<double> ra, dec;
    std::vector<hostile::Point> points;
    for (const auto& row : hostile::randomRows(rng, 5000)) {
        points.push_back(
            {hostile::strictNumber(row[0]).value(), hostile::strictNumber(row[1]).value()});
        ra.push_back(points.back().ra);
        dec.push_back(points.back().dec);
    }
    const QByteArray table = hostile::binTable({{"RA", "D", ra}, {"DEC", "D", dec}}).bytes();
    const QString tmp = m_dir.filePath(QStringLiteral("tmp-gz"));
    QVERIFY(QDir().mkpath(tmp));
    // The child's own high-water mark (VmHWM), sampled while it runs: wait4's ru_maxrss would
    // count this big test process too, which the child was forked from. What the process needs
    // besides the image (its libraries, threads and, under AddressSanitizer, shadow memory and
    // per-thread caches) depends on the machine, so the peak is compared with that of the same
    // catalog behind a 1 MiB image: holding the 128 MiB image in memory would add 128 MiB.
    auto peakKiBReading = [&](qint64 imageBytes) -> qint64 {
        const QByteArray header = hostile::serialize(hostile::primaryCards({imageBytes}));
        const QByteArray gz = gzipWithZeros(header, (imageBytes + 2879) / 2880 * 2880, table);
        if (gz.size() >= table.size() + imageBytes / 100)
            qFatal("the image did not compress");
        const QString name = QStringLiteral("expands-%1").arg(imageBytes);
        const QString input = m_dir.filePath(name + QStringLiteral(".fits.gz"));
        QFile file(input);
        if (!file.open(QIODevice::WriteOnly) || file.write(gz) != gz.size())
            qFatal("cannot write %s", qPrintable(input));
        file.close();
        const QString output = m_dir.filePath(name + QStringLiteral(".csv"));
        QProcess process;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("TMPDIR"), tmp);
        process.setProcessEnvironment(environment);
        process.start(QStringLiteral(TPACF_EXE), countArgs(input, output, {}));
        if (!process.waitForStarted())
            return -1;
        qint64 peakKiB = 0;
        const auto start = std::chrono::steady_clock::now();
        while (!process.waitForFinished(1)) {
            const QByteArray hwm = procStatusField(process.processId(), "VmHWM"); // "1234 kB"
            peakKiB = std::max(peakKiB, hwm.split(' ').front().toLongLong());
            if (std::chrono::steady_clock::now() - start > std::chrono::milliseconds(kTimeoutMs)) {
                process.kill();
                process.waitForFinished();
                qWarning("tpacf did not finish in time");
                return -1;
            }
        }
        const bool counted = process.exitStatus() == QProcess::NormalExit &&
                             process.exitCode() == 0 &&
                             readCounts(output) == cleanCounts(points, {});
        if (!counted)
            qWarning("tpacf did not count: %s", process.readAllStandardError().constData());
        return counted ? peakKiB : -1;
    };
    const qint64 baselineKiB = peakKiBReading(qint64(1) << 20);
    const qint64 peakKiB = peakKiBReading(kImage);
    qInfo("peak memory reading a .fits.gz that expands to %lld MiB: %lld MiB (%lld MiB behind a "
          "1 MiB image)",
          kImage >> 20, peakKiB >> 10, baselineKiB >> 10);
    QVERIFY2(baselineKiB > 0 && peakKiB > 0, "a run failed or no memory sample was taken");
    QVERIFY2(peakKiB - baselineKiB < (kImage >> 10) / 4,
             qPrintable(QStringLiteral("peak %1 KiB, %2 KiB behind a 1 MiB image")
                            .arg(peakKiB)
                            .arg(baselineKiB)));
    QVERIFY2(
        QDir(tmp).isEmpty(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot),
        "the temporary copy was left behind");
#endif
}

TPACF_TEST_MAIN(TestHostileInputs)
#include "test_hostile_inputs.moc"
