// SPDX-License-Identifier: GPL-3.0-or-later
// The driver's teardown left to a child (app/cli/driver_teardown.cpp), with a FIFO standing in
// for the driver's device file: a process that holds it open hands it to a child, which keeps
// that descriptor alone (not the process's stdout, so a pipeline sees the command end with it),
// lives while the process does, and ends once the process has ended (the FIFO's last writer
// gone). Without a descriptor under the given path, nothing is forked. TPACF_GPU_TEARDOWN's values
// (child, wait) and a wrong one, named in the message.
#include "cli/driver_teardown.h"
#include "tpacf_test_main.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

#include <cerrno>
#include <csignal>
#include <string>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace tpacf::cli;

namespace {

// The targets of a process's open descriptors.
std::vector<std::string> descriptorTargets(int pid) {
    std::vector<std::string> targets;
    const std::string directory = "/proc/" + std::to_string(pid) + "/fd";
    DIR* listing = opendir(directory.c_str());
    if (listing == nullptr)
        return targets;
    while (const dirent* entry = readdir(listing)) {
        if (entry->d_name[0] == '.')
            continue;
        char target[4096];
        const std::string link = directory + "/" + entry->d_name;
        const ssize_t length = readlink(link.c_str(), target, sizeof target - 1);
        if (length > 0)
            targets.emplace_back(target, static_cast<std::size_t>(length));
    }
    closedir(listing);
    return targets;
}

// Reads until `fd` ends (0 bytes) within `timeoutMs`; false on a timeout or an error.
bool readsToEnd(int fd, int timeoutMs, std::string* text = nullptr) {
    for (;;) {
        pollfd watched{fd, POLLIN, 0};
        const int ready = poll(&watched, 1, timeoutMs);
        if (ready <= 0)
            return false;
        char buffer[256];
        const ssize_t got = read(fd, buffer, sizeof buffer);
        if (got == 0)
            return true;
        if (got < 0 && errno != EAGAIN && errno != EINTR)
            return false;
        if (got > 0 && text != nullptr)
            text->append(buffer, static_cast<std::size_t>(got));
    }
}

} // namespace

class TestDriverTeardown : public QObject {
    Q_OBJECT

private slots:
    void choiceFromTheEnvironment_data() {
        QTest::addColumn<QString>("value"); // "(unset)": the variable is not set
        QTest::addColumn<bool>("waits");
        QTest::addColumn<bool>("problem");
        QTest::newRow("unset") << QStringLiteral("(unset)") << false << false;
        QTest::newRow("empty") << QString() << false << false;
        QTest::newRow("child") << QStringLiteral("child") << false << false;
        QTest::newRow("wait") << QStringLiteral("wait") << true << false;
        QTest::newRow("Wait") << QStringLiteral("Wait") << false << true;
        QTest::newRow("yes") << QStringLiteral("yes") << false << true;
    }

    void choiceFromTheEnvironment() {
        QFETCH(QString, value);
        QFETCH(bool, waits);
        QFETCH(bool, problem);
        const std::string text = value.toStdString();
        std::string said = "left over";
        const TeardownChoice choice =
            teardownChoice(value == QStringLiteral("(unset)") ? nullptr : text.c_str(), said);
        QCOMPARE(choice == TeardownChoice::Wait, waits);
        QCOMPARE(!said.empty(), problem);
        if (problem) {
            QVERIFY2(said.find(std::string(kGpuTeardownVariable) + "='" + text + "'") !=
                         std::string::npos,
                     said.c_str());
            QVERIFY2(said.find("'child' nor 'wait'") != std::string::npos, said.c_str());
        }
    }

    void nothingForkedWithoutDriverFiles() {
        QCOMPARE(leaveDriverTeardownToChild("/no/such/driver/"), 0);
    }

    void childHoldsTheDriverFilesAloneUntilTheProcessEnds() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string driverFiles =
            QDir(dir.path()).filePath(QStringLiteral("driver-")).toStdString();
        const std::string device = driverFiles + "0";
        QCOMPARE(mkfifo(device.c_str(), 0600), 0);
        // Opened first, so that the process's open for writing does not block.
        const int deviceEnd = open(device.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        QVERIFY(deviceEnd >= 0);
        int report[2], release[2];
        QCOMPARE(pipe(report), 0);
        QCOMPARE(pipe(release), 0);

        const pid_t process = fork();
        QVERIFY(process >= 0);
        if (process == 0) {
            // The command's process: stdout is the report pipe, the "driver" file held open.
            dup2(report[1], STDOUT_FILENO);
            close(report[0]);
            close(report[1]);
            close(release[1]);
            close(deviceEnd);
            if (open(device.c_str(), O_WRONLY) < 0)
                _exit(3);
            const int child = leaveDriverTeardownToChild(driverFiles);
            const std::string line = std::to_string(child) + "\n";
            if (write(STDOUT_FILENO, line.data(), line.size()) != static_cast<ssize_t>(line.size()))
                _exit(4);
            char byte = 0;
            while (read(release[0], &byte, 1) < 0 && errno == EINTR) {
            }
            _exit(0); // the test lets it end
        }
        close(report[1]);
        close(release[0]);

        std::string line;
        for (int i = 0; i < 100 && line.find('\n') == std::string::npos; ++i) {
            pollfd watched{report[0], POLLIN, 0};
            QVERIFY(poll(&watched, 1, 5000) == 1);
            char buffer[64];
            const ssize_t got = read(report[0], buffer, sizeof buffer);
            QVERIFY(got > 0);
            line.append(buffer, static_cast<std::size_t>(got));
        }
        const int child = std::stoi(line);
        QVERIFY2(child > 0, ("no child: " + line).c_str());

        // While the process lives, the child does, holding the driver's file and nothing else
        // once it has closed the rest (it may not have run yet when the pid arrives).
        // (Besides the driver's files it may hold the pidfd it waits on for the process.)
        const auto othersHeld = [&] {
            std::vector<std::string> others;
            for (const std::string& target : descriptorTargets(child))
                if (target.rfind(driverFiles, 0) != 0 && target != "anon_inode:[pidfd]")
                    others.push_back(target);
            return others;
        };
        for (int wait = 0; wait < 500 && !othersHeld().empty(); ++wait)
            usleep(10000);
        QCOMPARE(kill(child, 0), 0);
        const std::vector<std::string> others = othersHeld();
        const std::string firstOther = others.empty() ? std::string() : others.front();
        QVERIFY2(others.empty(), ("the child holds " + firstOther).c_str());
        std::vector<std::string> driverHeld;
        for (const std::string& target : descriptorTargets(child))
            if (target.rfind(driverFiles, 0) == 0)
                driverHeld.push_back(target);
        QCOMPARE(driverHeld, std::vector<std::string>{device});

        close(release[1]);
        int status = 0;
        QCOMPARE(waitpid(process, &status, 0), process);
        QVERIFY(WIFEXITED(status));
        QCOMPARE(WEXITSTATUS(status), 0);
        // The command's stdout ends with it, not with the child.
        QVERIFY(readsToEnd(report[0], 2000));
        // The driver's file closes once the child is gone too: it ends with its parent.
        QVERIFY(readsToEnd(deviceEnd, 5000));
        close(report[0]);
        close(deviceEnd);
    }
};

TPACF_TEST_MAIN(TestDriverTeardown)
#include "test_driver_teardown.moc"
