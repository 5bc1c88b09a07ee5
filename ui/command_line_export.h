// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Run > Copy as Command Line: the `tpacf run` command that computes what the window would compute
// with its current catalogs and settings (the Session the window saves is exactly that input).
// Pure mapping, no widgets, so that tests can feed the words to the CLI's own parser.
#include "session.h"

#include <QString>
#include <QStringList>

namespace tpacf::ui {

/// Where the command writes: --output always, --covariance only with jackknife error bars.
struct CommandLineOutputs {
    QString result = QStringLiteral("wtheta.csv");
    QString covariance = QStringLiteral("wtheta_covariance.csv");
};

struct RunCommandLine {
    /// The words after the program name: "run", "--data", path, ... (unquoted).
    QStringList arguments;
    /// Where the command does not do what the window does, or cannot run as it stands (the
    /// bundled sample is no file, a column the CLI takes once differs between catalogs, no data
    /// catalog loaded): one sentence each. Empty: the command is the window's run.
    QStringList notes;

    bool exact() const { return notes.isEmpty(); }
    /// "tpacf run --data '/my data/d.txt' ...", every word quoted as a POSIX shell takes it back.
    QString text() const;
    /// text(), then each note as a "# note: ..." line (harmless when pasted into a shell).
    QString clipboardText() const;
    /// The same run as a job file (tpacf run --config FILE): TOML, a [run] table of one key per
    /// flag, headed by comment lines saying what it is and each note.
    QString jobFileText() const;
};

/// The `tpacf run` command of `session`'s catalogs (data, randoms, second sample with its
/// randoms; each with its columns, unit, HDU and row filter) and settings (bins, estimator,
/// jackknife, backend, precision, threads, devices, culling).
RunCommandLine runCommandLine(const Session& session, const CommandLineOutputs& outputs = {});

/// `word` as one POSIX shell word: unchanged when it holds only characters no shell treats
/// specially, otherwise in single quotes (a ' inside written as '\'').
QString shellQuoted(const QString& word);

} // namespace tpacf::ui
