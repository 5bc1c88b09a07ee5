// SPDX-License-Identifier: GPL-3.0-or-later
// The tpacf command line never destroys an input, never leaves a half-written result, and finds
// an unwritable output before it reads or counts anything. Runs the built executable.
#include "tpacf/mock.h"
#include "tpacf_test_main.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <filesystem>

#include <sys/resource.h>

#ifndef TPACF_EXE
#error "TPACF_EXE must name the tpacf executable"
#endif

namespace {

struct Outcome {
    int exitCode = -1;
    QString err;
};

/// Runs tpacf in `folder`; `fileSizeLimit` > 0 caps the size of every file it writes (ulimit -f),
/// so that a write fails as on a full disk: SIGXFSZ keeps its default action (killing the
/// process), so tpacf itself must ignore it to see EFBIG instead.
Outcome runTpacf(const QString& folder, const QStringList& arguments, qint64 fileSizeLimit = 0) {
    QProcess process;
    process.setWorkingDirectory(folder);
    if (fileSizeLimit > 0)
        process.setChildProcessModifier([fileSizeLimit] {
            std::signal(SIGXFSZ, SIG_DFL);
            const rlimit limit{rlim_t(fileSizeLimit), rlim_t(fileSizeLimit)};
            setrlimit(RLIMIT_FSIZE, &limit);
        });
    process.start(QStringLiteral(TPACF_EXE), arguments);
    if (!process.waitForFinished(60000)) {
        process.kill();
        process.waitForFinished();
        return {};
    }
    Outcome outcome;
    outcome.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    outcome.err = QString::fromLocal8Bit(process.readAllStandardError());
    return outcome;
}

QByteArray contentOf(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("<missing>");
}

QStringList entriesOf(const QString& folder) {
    return QDir(folder).entryList(
        QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot, QDir::Name);
}

const QStringList kBins{
    QStringLiteral("--bins"), QStringLiteral("log"),       QStringLiteral("--min"),
    QStringLiteral("1"),      QStringLiteral("--max"),     QStringLiteral("600"),
    QStringLiteral("--unit"), QStringLiteral("arcmin"),    QStringLiteral("--nbins"),
    QStringLiteral("5"),      QStringLiteral("--backend"), QStringLiteral("cpu")};

/// Command-line words (the project builds with QT_NO_CAST_FROM_ASCII).
QStringList list(std::initializer_list<const char*> words) {
    QStringList result;
    for (const char* word : words)
        result << QString::fromLatin1(word);
    return result;
}

} // namespace

class TestOutputSafety : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QByteArray m_data, m_random; // the catalogs' bytes, to prove they survive

    QString path(const QString& name) const { return m_dir.filePath(name); }

    /// A fresh copy of the inputs (and only them) in the folder before each row.
    void resetFolder() {
        for (const QString& name : entriesOf(m_dir.path()))
            std::filesystem::remove_all(path(name).toStdString());
        for (const auto& [name, bytes] : {std::pair{QStringLiteral("data.txt"), m_data},
                                          std::pair{QStringLiteral("random.txt"), m_random}}) {
            QFile file(path(name));
            if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size())
                qFatal("cannot write %s", qPrintable(name));
        }
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        // Small, seeded catalogs written by core's writer: each run below takes milliseconds.
        const auto write = [this](const tpacf::Catalog& catalog, const QString& name,
                                  QByteArray& bytes) {
            tpacf::writeCatalogAscii(path(name).toStdString(), catalog);
            bytes = contentOf(path(name));
        };
        write(tpacf::generateUniformRandoms(300, tpacf::Footprint{}, 11, "data"),
              QStringLiteral("data.txt"), m_data);
        write(tpacf::generateUniformRandoms(500, tpacf::Footprint{}, 12, "random"),
              QStringLiteral("random.txt"), m_random);
    }

    void init() { resetFolder(); }

    void outputOverInput_data() {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("clash"); // what the one line on stderr must say
        const QStringList run{QStringLiteral("run"), QStringLiteral("--data"),
                              QStringLiteral("data.txt"), QStringLiteral("--random"),
                              QStringLiteral("random.txt")};
        QTest::newRow("count --output == --a")
            << (list({"count", "--a", "data.txt", "--output", "data.txt"}) + kBins)
            << QStringLiteral("--output is the same file as the input --a");
        QTest::newRow("count --output == --b")
            << (list({"count", "--a", "data.txt", "--b", "random.txt", "--output", "random.txt"}) +
                kBins)
            << QStringLiteral("--output is the same file as the input --b");
        QTest::newRow("run --output == --data")
            << (run + list({"--output", "data.txt"}) + kBins)
            << QStringLiteral("--output is the same file as the input --data");
        QTest::newRow("run --json == --random")
            << (run + list({"--output", "w.csv", "--json", "random.txt"}) + kBins)
            << QStringLiteral("--json is the same file as the input --random");
        QTest::newRow("run --covariance == --data")
            << (run +
                list({"--output", "w.csv", "--jackknife", "2", "--covariance", "./data.txt"}) +
                kBins)
            << QStringLiteral("--covariance is the same file as the input --data");
        QTest::newRow("run --output is a link to --data")
            << (run + list({"--output", "link-to-data"}) + kBins)
            << QStringLiteral("--output is the same file as the input --data");
        QTest::newRow("run --output is a hard link to --random")
            << (run + list({"--output", "hard-random"}) + kBins)
            << QStringLiteral("--output is the same file as the input --random");
        QTest::newRow("run --output in a linked folder == --data")
            << (run + list({"--output", "here/data.txt"}) + kBins)
            << QStringLiteral("--output is the same file as the input --data");
        QTest::newRow("run --output == --json")
            << (run + list({"--output", "w.csv", "--json", "w.csv"}) + kBins)
            << QStringLiteral("--output and --json \"w.csv\" name the same file");
        QTest::newRow("mock --output == --random-output")
            << list({"mock", "--n", "50", "--output", "m.txt", "--randoms", "50", "--random-output",
                     "m.txt"})
            << QStringLiteral("--output and --random-output \"m.txt\" name the same file");
#if TPACF_CLI_HAVE_PLOT
        QTest::newRow("run --plot == --data (renamed .png)")
            << (run + list({"--output", "w.csv", "--plot", "data.png"}) + kBins)
            << QStringLiteral("--plot is the same file as the input --data");
#endif
    }

    void outputOverInput() {
        QFETCH(QStringList, arguments);
        QFETCH(QString, clash);
        std::filesystem::create_symlink("data.txt",
                                        path(QStringLiteral("link-to-data")).toStdString());
        std::filesystem::create_hard_link(path(QStringLiteral("random.txt")).toStdString(),
                                          path(QStringLiteral("hard-random")).toStdString());
        std::filesystem::create_directory_symlink(".", path(QStringLiteral("here")).toStdString());
        if (arguments.contains(QStringLiteral("data.png")))
            std::filesystem::create_symlink("data.txt",
                                            path(QStringLiteral("data.png")).toStdString());
        const QStringList before = entriesOf(m_dir.path());

        const Outcome outcome = runTpacf(m_dir.path(), arguments);
        QCOMPARE(outcome.exitCode, 2);
        QCOMPARE(outcome.err.count(QLatin1Char('\n')), 1);
        QVERIFY2(outcome.err.contains(clash), qPrintable(outcome.err));
        QCOMPARE(contentOf(path(QStringLiteral("data.txt"))), m_data);
        QCOMPARE(contentOf(path(QStringLiteral("random.txt"))), m_random);
        QCOMPARE(entriesOf(m_dir.path()), before); // no output of any kind was written
    }

    void unwritableOutputFoundFirst_data() {
        QTest::addColumn<QStringList>("outputs");
        QTest::addColumn<QString>("problem");
        QTest::newRow("--output in /proc")
            << list({"--output", "/proc/tpacf-w.csv"})
            << QStringLiteral("creating a file in the folder \"/proc\"");
        QTest::newRow("--output in a missing folder")
            << list({"--output", "missing/w.csv"})
            << QStringLiteral("the folder \"missing\" does not exist");
        QTest::newRow("--json is a folder") << list({"--output", "w.csv", "--json", "."})
                                            << QStringLiteral("it is a folder (--json)");
        QTest::newRow("--covariance in /proc") << list({"--output", "w.csv", "--jackknife", "2",
                                                        "--covariance", "/proc/tpacf-cov.csv"})
                                               << QStringLiteral("(--covariance)");
        QTest::newRow("--output empty")
            << list({"--output", ""}) << QStringLiteral("--output: the file name is empty");
    }

    void unwritableOutputFoundFirst() {
        // The data file does not exist: an output error on stderr proves the outputs were
        // checked before any catalog was read, let alone counted.
        QFETCH(QStringList, outputs);
        QFETCH(QString, problem);
        const Outcome outcome = runTpacf(
            m_dir.path(), list({"run", "--data", "not-yet-there.txt", "--random", "random.txt"}) +
                              outputs + kBins);
        QCOMPARE(outcome.exitCode, 2);
        QCOMPARE(outcome.err.count(QLatin1Char('\n')), 1);
        QVERIFY2(outcome.err.contains(problem), qPrintable(outcome.err));
        QVERIFY2(!outcome.err.contains(QStringLiteral("not-yet-there")), qPrintable(outcome.err));
    }

    void fullDiskKeepsEarlierResult_data() {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("target");
        QTest::addColumn<qint64>("limit");
        QTest::addColumn<QStringList>("others"); // outputs besides the target, new files
        QTest::newRow("run --output")
            << (list({"run", "--data", "data.txt", "--random", "random.txt", "--output", "w.csv"}) +
                kBins)
            << QStringLiteral("w.csv") << qint64(256) << QStringList();
        QTest::newRow("run --json") << (list({"run", "--data", "data.txt", "--random", "random.txt",
                                              "--output", "/dev/null", "--json", "w.json"}) +
                                        kBins)
                                    << QStringLiteral("w.json") << qint64(256) << QStringList();
        QTest::newRow("run --jackknife 20 --output --json, 2 KiB")
            << (list({"run", "--data", "data.txt", "--random", "random.txt", "--jackknife", "20",
                      "--output", "w.csv", "--json", "w.json"}) +
                kBins)
            << QStringLiteral("w.csv") << qint64(2048) << QStringList{QStringLiteral("w.json")};
#ifdef TPACF_CLI_HAVE_FITS
        QTest::newRow("run --output w.fits")
            << (list({"run", "--data", "data.txt", "--random", "random.txt", "--format", "fits",
                      "--output", "w.fits"}) +
                kBins)
            << QStringLiteral("w.fits") << qint64(2048) << QStringList();
        QTest::newRow("run --save-counts c.fits")
            << (list({"run", "--data", "data.txt", "--random", "random.txt", "--output",
                      "/dev/null", "--save-counts", "c.fits"}) +
                kBins)
            << QStringLiteral("c.fits") << qint64(2048) << QStringList();
#endif
        QTest::newRow("count --output")
            << (list({"count", "--a", "data.txt", "--output", "c.csv"}) + kBins)
            << QStringLiteral("c.csv") << qint64(256) << QStringList();
        QTest::newRow("mock --random-output")
            << list({"mock", "--randoms", "20000", "--random-output", "r.txt"})
            << QStringLiteral("r.txt") << qint64(64 * 1024) << QStringList();
    }

    void fullDiskKeepsEarlierResult() {
        QFETCH(QStringList, arguments);
        QFETCH(QString, target);
        QFETCH(qint64, limit);
        QFETCH(QStringList, others);
        const QByteArray earlier("an earlier good result\n");
        {
            QFile file(path(target));
            QVERIFY(file.open(QIODevice::WriteOnly) && file.write(earlier) == earlier.size());
        }
        const QStringList before = entriesOf(m_dir.path());
        const Outcome outcome = runTpacf(m_dir.path(), arguments, limit);
        QCOMPARE(outcome.exitCode, 2);
        QVERIFY2(outcome.err.contains(QStringLiteral("could not write the file completely")),
                 qPrintable(outcome.err));
        QVERIFY2(outcome.err.contains(target), qPrintable(outcome.err));
        QCOMPARE(contentOf(path(target)), earlier);
        QCOMPARE(entriesOf(m_dir.path()), before); // the temporary was removed

        // Without the limit the same command replaces the file with a complete one.
        const Outcome unlimited = runTpacf(m_dir.path(), arguments);
        QCOMPARE(unlimited.exitCode, 0);
        QVERIFY(contentOf(path(target)) != earlier);
        QStringList after = entriesOf(m_dir.path());
        for (const QString& other : others)
            QVERIFY(after.removeAll(other) == 1);
        QCOMPARE(after, before);
    }
};

TPACF_TEST_MAIN(TestOutputSafety)
#include "test_output_safety.moc"
