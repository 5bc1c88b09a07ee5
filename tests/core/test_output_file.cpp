// SPDX-License-Identifier: GPL-3.0-or-later
// Outputs that never destroy data (core/src/io/output_file.cpp): the temporary-and-rename write,
// the early writability check, file identity and the input/output clash check.
#include "tpacf/errors.h"
#include "tpacf/output_file.h"
#include "tpacf_test_main.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <array>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include <csignal>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;

std::string readAll(const std::string& path) {
    QFile file(QString::fromStdString(path));
    if (!file.open(QIODevice::ReadOnly))
        return "<unreadable>";
    return file.readAll().toStdString();
}

void writeRaw(const std::string& path, const std::string& content) {
    QFile file(QString::fromStdString(path));
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
        file.write(content.data(), qint64(content.size())) != qint64(content.size()))
        qFatal("cannot write %s", path.c_str());
}

/// Names in a folder, to prove that no temporary was left behind.
QStringList entriesOf(const QString& folder) {
    return QDir(folder).entryList(
        QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot, QDir::Name);
}

/// The message of the InputError `action` throws; empty when it throws none.
template <typename Action> QString inputErrorOf(Action action) {
    try {
        action();
    } catch (const tpacf::InputError& error) {
        return QString::fromStdString(error.what());
    }
    return {};
}

} // namespace

class TestOutputFile : public QObject {
    Q_OBJECT

private slots:
    void writesCompleteFileWithUsualPermissions() {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("w.csv")).toStdString();
        const mode_t previous = umask(022);
        tpacf::writeFileAtomically(path, std::string_view("a,b\n1,2\n"));
        umask(previous);
        QCOMPARE(readAll(path), std::string("a,b\n1,2\n"));
        struct stat info {};
        QCOMPARE(stat(path.c_str(), &info), 0);
        QCOMPARE(info.st_mode & 0777, mode_t(0644)); // as open(2) with umask 022 would make it
        QCOMPARE(entriesOf(dir.path()), QStringList{QStringLiteral("w.csv")});
    }

    void keepsPermissionsOfReplacedFile() {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("w.csv")).toStdString();
        writeRaw(path, "old\n");
        QCOMPARE(chmod(path.c_str(), 0640), 0);
        tpacf::writeFileAtomically(path, std::string_view("new\n"));
        QCOMPARE(readAll(path), std::string("new\n"));
        struct stat info {};
        QCOMPARE(stat(path.c_str(), &info), 0);
        QCOMPARE(info.st_mode & 0777, mode_t(0640));
    }

    void failedWriteLeavesEarlierFileAndNoTemporary() {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("w.csv")).toStdString();
        writeRaw(path, "the good result\n");
        bool threw = false;
        try {
            tpacf::writeFileAtomically(path, [](std::ostream& out) {
                out << "half a row,";
                throw std::runtime_error("the writer failed half way");
            });
        } catch (const std::runtime_error&) {
            threw = true;
        }
        QVERIFY(threw);
        QCOMPARE(readAll(path), std::string("the good result\n"));
        QCOMPARE(entriesOf(dir.path()), QStringList{QStringLiteral("w.csv")});
    }

    void fullDiskLeavesEarlierFileAndNoTemporary() {
        // A file-size limit makes write(2) fail with EFBIG as a full disk fails with ENOSPC:
        // in a child process, so the limit does not reach this one.
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("w.csv")).toStdString();
        writeRaw(path, "the good result\n");
        const pid_t child = fork();
        QVERIFY(child >= 0);
        if (child == 0) {
            std::signal(SIGXFSZ, SIG_IGN);
            const rlimit limit{4096, 4096};
            setrlimit(RLIMIT_FSIZE, &limit);
            try {
                tpacf::writeFileAtomically(path, std::string(1 << 20, 'x'));
            } catch (const tpacf::InputError& error) {
                const std::string message = error.what();
                _exit(message.find("could not write the file completely") != std::string::npos &&
                              message.find(path) == 0
                          ? 2
                          : 3);
            } catch (...) {
                _exit(4);
            }
            _exit(0);
        }
        int status = 0;
        QCOMPARE(waitpid(child, &status, 0), child);
        QVERIFY(WIFEXITED(status));
        QCOMPARE(WEXITSTATUS(status), 2); // an InputError naming the file and the failed write
        QCOMPARE(readAll(path), std::string("the good result\n"));
        QCOMPARE(entriesOf(dir.path()), QStringList{QStringLiteral("w.csv")});
    }

    void writesThroughSymbolicLink() {
        QTemporaryDir dir;
        const std::string target = dir.filePath(QStringLiteral("real.csv")).toStdString();
        const std::string link = dir.filePath(QStringLiteral("link.csv")).toStdString();
        writeRaw(target, "old\n");
        fs::create_symlink("real.csv", link);
        tpacf::writeFileAtomically(link, std::string_view("new\n"));
        QVERIFY(fs::is_symlink(link)); // the link is kept, its file replaced
        QCOMPARE(readAll(target), std::string("new\n"));
    }

    void writesDevicesInPlace() {
        tpacf::writeFileAtomically("/dev/null", std::string_view("discarded\n"));
        struct stat info {};
        QCOMPARE(stat("/dev/null", &info), 0);
        QVERIFY(S_ISCHR(info.st_mode)); // still the device, not a regular file renamed over it
    }

    void uncommittedStagedFileIsRemoved() {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("plot.png")).toStdString();
        {
            tpacf::StagedOutputFile staged(path);
            QVERIFY(staged.temporaryPath() != path);
            QCOMPARE(fs::path(staged.temporaryPath()).parent_path(), fs::path(path).parent_path());
            writeRaw(staged.temporaryPath(), "partial");
        }
        QVERIFY(entriesOf(dir.path()).isEmpty());
    }

    void unwritableOutputs_data() {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("expected"); // a piece of the message
        QTest::newRow("empty name") << QString() << "--output: the file name is empty";
        QTest::newRow("missing folder") << "@/no/such/folder/w.csv"
                                        << "does not exist";
        QTest::newRow("a folder") << "@"
                                  << "it is a folder";
        QTest::newRow("a file as folder") << "@/file.txt/w.csv"
                                          << "is not a folder";
        QTest::newRow("/proc") << "/proc/tpacf-w.csv"
                               << "creating a file in the folder \"/proc\"";
        QTest::newRow("FIFO without reader") << "@/fifo"
                                             << "a FIFO with no reader";
        QTest::newRow("link loop") << "@/loop"
                                   << "a loop of symbolic links";
        QTest::newRow("read-only folder") << "@/read-only/w.csv"
                                          << "Permission denied";
    }

    void unwritableOutputs() {
        QFETCH(QString, path);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const QString root = dir.path();
        writeRaw((root + QStringLiteral("/file.txt")).toStdString(), "x");
        QCOMPARE(mkfifo((root + QStringLiteral("/fifo")).toLocal8Bit().constData(), 0600), 0);
        fs::create_symlink("loop", (root + QStringLiteral("/loop")).toStdString());
        const QString readOnly = root + QStringLiteral("/read-only");
        QVERIFY(QDir().mkdir(readOnly));
        QCOMPARE(chmod(readOnly.toLocal8Bit().constData(), 0555), 0);
        if (QByteArray(QTest::currentDataTag()) == "read-only folder" && geteuid() == 0)
            QSKIP("root writes into read-only folders; the /proc row covers refusal");
        path.replace(QLatin1Char('@'), root);
        const QStringList before = entriesOf(root);
        const QString message =
            inputErrorOf([&] { tpacf::checkOutputWritable(path.toStdString(), "--output"); });
        chmod(readOnly.toLocal8Bit().constData(), 0755);
        QVERIFY2(message.contains(expected), qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("--output")), qPrintable(message));
        QCOMPARE(entriesOf(root), before); // the probe left nothing behind
    }

    void writableOutputs_data() {
        QTest::addColumn<QString>("path");
        QTest::newRow("new file") << "@/new.csv";
        QTest::newRow("existing file") << "@/file.txt";
        QTest::newRow("dangling link") << "@/dangling";
        QTest::newRow("/dev/null") << "/dev/null";
    }

    void writableOutputs() {
        QFETCH(QString, path);
        QTemporaryDir dir;
        const QString root = dir.path();
        writeRaw((root + QStringLiteral("/file.txt")).toStdString(), "x");
        fs::create_symlink("elsewhere.csv", (root + QStringLiteral("/dangling")).toStdString());
        path.replace(QLatin1Char('@'), root);
        const QStringList before = entriesOf(root);
        const QString message =
            inputErrorOf([&] { tpacf::checkOutputWritable(path.toStdString(), "--output"); });
        QVERIFY2(message.isEmpty(), qPrintable(message));
        QCOMPARE(entriesOf(root), before);
        QCOMPARE(readAll((root + QStringLiteral("/file.txt")).toStdString()), std::string("x"));
    }

    void sameFile_data() {
        QTest::addColumn<QString>("first");
        QTest::addColumn<QString>("second");
        QTest::addColumn<bool>("same");
        QTest::newRow("one path") << "@/a.txt"
                                  << "@/a.txt" << true;
        QTest::newRow("dot segment") << "@/a.txt"
                                     << "@/./a.txt" << true;
        QTest::newRow("parent segment") << "@/a.txt"
                                        << "@/sub/../a.txt" << true;
        QTest::newRow("symbolic link") << "@/a.txt"
                                       << "@/link-to-a" << true;
        QTest::newRow("hard link") << "@/a.txt"
                                   << "@/hard-a" << true;
        QTest::newRow("linked folder, new file") << "@/sub/new.txt"
                                                 << "@/sub-link/new.txt" << true;
        QTest::newRow("dangling link, new file") << "@/dangling"
                                                 << "@/new.txt" << true;
        QTest::newRow("two files") << "@/a.txt"
                                   << "@/b.txt" << false;
        QTest::newRow("existing and new") << "@/a.txt"
                                          << "@/new.txt" << false;
        QTest::newRow("two new files") << "@/new.txt"
                                       << "@/other.txt" << false;
    }

    void sameFile() {
        QFETCH(QString, first);
        QFETCH(QString, second);
        QFETCH(bool, same);
        QTemporaryDir dir;
        const QString root = dir.path();
        writeRaw((root + QStringLiteral("/a.txt")).toStdString(), "a");
        writeRaw((root + QStringLiteral("/b.txt")).toStdString(), "b");
        QVERIFY(QDir().mkdir(root + QStringLiteral("/sub")));
        fs::create_symlink("a.txt", (root + QStringLiteral("/link-to-a")).toStdString());
        fs::create_hard_link((root + QStringLiteral("/a.txt")).toStdString(),
                             (root + QStringLiteral("/hard-a")).toStdString());
        fs::create_directory_symlink("sub", (root + QStringLiteral("/sub-link")).toStdString());
        fs::create_symlink("new.txt", (root + QStringLiteral("/dangling")).toStdString());
        first.replace(QLatin1Char('@'), root);
        second.replace(QLatin1Char('@'), root);
        QCOMPARE(tpacf::sameFile(first.toStdString(), second.toStdString()), same);
        QCOMPARE(tpacf::sameFile(second.toStdString(), first.toStdString()), same);
    }

    void clashes() {
        QTemporaryDir dir;
        const std::string data = dir.filePath(QStringLiteral("data.txt")).toStdString();
        const std::string random = dir.filePath(QStringLiteral("random.txt")).toStdString();
        const std::string result = dir.filePath(QStringLiteral("w.csv")).toStdString();
        writeRaw(data, "1 2\n");
        writeRaw(random, "3 4\n");
        const std::vector<tpacf::NamedPath> inputs{{"--data", data}, {"--random", random}};

        const std::vector<tpacf::NamedPath> overInput{{"--output", result}, {"--json", random}};
        QString message = inputErrorOf([&] { tpacf::checkOutputsDistinct(inputs, overInput); });
        QVERIFY2(message.contains(QStringLiteral("--json is the same file as the input --random")),
                 qPrintable(message));
        QVERIFY(message.startsWith(QString::fromStdString(random)));

        const std::vector<tpacf::NamedPath> twice{{"--output", result}, {"--json", result}};
        message = inputErrorOf([&] { tpacf::checkOutputsDistinct(inputs, twice); });
        QVERIFY2(message.contains(QStringLiteral("--output and --json")), qPrintable(message));

        const std::vector<tpacf::NamedPath> devices{{"--output", "/dev/null"},
                                                    {"--json", "/dev/null"}};
        message = inputErrorOf([&] { tpacf::checkOutputsDistinct(inputs, devices); });
        QVERIFY2(message.isEmpty(), qPrintable(message));

        const std::vector<tpacf::NamedPath> distinct{{"--output", result}};
        message = inputErrorOf([&] { tpacf::checkOutputsDistinct(inputs, distinct); });
        QVERIFY2(message.isEmpty(), qPrintable(message));
        QCOMPARE(readAll(data), std::string("1 2\n"));
        QCOMPARE(readAll(random), std::string("3 4\n"));
    }
};

TPACF_TEST_MAIN(TestOutputFile)
#include "test_output_file.moc"
