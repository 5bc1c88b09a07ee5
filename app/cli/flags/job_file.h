// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Job files: a command's flags kept in a file (tpacf run --config job.toml), as TreeCorr users
// keep corr2 runs. The file is TOML: `key = value` lines whose keys are the command's flags
// without "--" (data, random, jackknife-column; '_' may stand for '-'), strings in quotes,
// numbers bare, switches as true/false, repeated flags as arrays, and optionally a [run] (or
// [count]) table heading them. Read against the command's flag table, so a bad key is an error
// naming the file and line, and written by Studio's "Save Run as Job File…" from the words of
// "Copy as Command Line".
//
// The reader takes the part of TOML a flag list needs and refuses the rest with its line (dotted
// keys, inline tables, multi-line strings, dates): a hand-written reader, because the parsers
// among the project's libraries either drop text after a '#' inside a quoted path or give no
// line for a bad key.
#include "flag_table.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tpacf::cli {

/// One key of a job file: the flag it sets, the command-line words it stands for ("--random",
/// "r1.txt", "--random", "r2.txt"; a switch set to false stands for none) and its line.
struct JobEntry {
    const Flag* flag = nullptr;
    std::vector<std::string> words;
    long line = 0;
};

struct JobFile {
    std::string path;
    std::string text;
    std::vector<JobEntry> entries;
};

/// Parses `text` (the content of `path`) against `flags`. Throws tpacf::InputError naming the
/// path, line and column: a syntax error, a key that is not a flag of the command (or names a
/// job file itself), a key given twice, a value of the wrong kind (true/false for a flag that
/// takes a value, an array for one that takes a single value, a number for a switch).
JobFile parseJobFile(const CommandFlags& flags, const std::string& path, std::string_view text);

/// Reads and parses the file at `path` (at most 1 MiB). Throws tpacf::InputError naming it when
/// it cannot be read.
JobFile readJobFile(const CommandFlags& flags, const std::string& path);

/// The words of a command line with a job file's underneath: every entry of `job` whose flag
/// `commandLine` does not set (a repeated flag typed on the command line replaces the job's
/// whole list), then `commandLine` itself.
std::vector<std::string> withJobFile(const CommandFlags& flags, const JobFile& job,
                                     std::span<const std::string> commandLine);

/// `commandLine` with the job file its --config names underneath (withJobFile), `job` set to
/// that file; `commandLine` itself, `job` empty, without --config.
std::vector<std::string> wordsWithJobFile(const CommandFlags& flags,
                                          std::span<const std::string> commandLine,
                                          std::optional<JobFile>& job);

/// The value of `--config FILE` (or --config=FILE) in `words`, "" when absent.
std::string jobFilePath(std::span<const std::string> words);

/// A job file of `words` (the arguments after the subcommand, as Copy as Command Line gives
/// them): `comment` lines first ('#'), then a [command] table of one key per flag. Words that
/// are no flag of `flags` are left out (none are, for words the command takes).
std::string jobFileText(const CommandFlags& flags, std::span<const std::string> words,
                        std::span<const std::string> comment = {});

} // namespace tpacf::cli
