// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Shared by the CLI suites: runs a program (the built tpacf, or a script's interpreter) and keeps
// its exit code and output, and builds command-line words (the project builds with
// QT_NO_CAST_FROM_ASCII).
#include <QProcess>
#include <QString>
#include <QStringList>

#include <initializer_list>

namespace tpacf::test {

struct ProcessOutcome {
    int exitCode = -1; // -1: crashed, or killed after the time limit
    QString out, err;
};

/// Runs `program` in `folder` ("" keeps the current one); kills it after `timeoutMs`.
inline ProcessOutcome runProcess(const QString& program, const QStringList& arguments,
                                 const QString& folder = QString(), int timeoutMs = 60000) {
    QProcess process;
    if (!folder.isEmpty())
        process.setWorkingDirectory(folder);
    process.start(program, arguments);
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished();
        return {};
    }
    ProcessOutcome outcome;
    outcome.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    outcome.out = QString::fromLocal8Bit(process.readAllStandardOutput());
    outcome.err = QString::fromLocal8Bit(process.readAllStandardError());
    return outcome;
}

/// Command-line words from literals.
inline QStringList words(std::initializer_list<const char*> list) {
    QStringList result;
    for (const char* word : list)
        result << QString::fromLatin1(word);
    return result;
}

/// Command-line words from one space-separated text.
inline QStringList splitWords(const QString& text) {
    return text.split(QLatin1Char(' '), Qt::SkipEmptyParts);
}

} // namespace tpacf::test
