// SPDX-License-Identifier: GPL-3.0-or-later
// The flag tables (app/cli/flags): every flag of every command in that command's --help under
// its one name, and no alias there; names and aliases unique per command; the old spellings
// (a list written here, not read from the tables) parse to what the new ones give; two
// spellings of one flag refused together; --quiet taken by every command that prints a summary.
#include "cli/args.h"
#include "cli/cli_main.h"
#include "command_flags.h"
#include "tpacf_test_main.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <initializer_list>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace tpacf::cli;

namespace {

struct CliOutcome {
    int exitCode = -1;
    std::string out, err;
};

// The CLI in this process, on string streams.
CliOutcome runCliWith(std::vector<std::string> words) {
    words.insert(words.begin(), "tpacf");
    std::vector<char*> argv;
    for (std::string& word : words)
        argv.push_back(word.data());
    std::ostringstream out, err;
    CliOutcome outcome;
    outcome.exitCode = runCli(static_cast<int>(argv.size()), argv.data(), out, err);
    outcome.out = out.str();
    outcome.err = err.str();
    return outcome;
}

const CommandFlags& tableOf(const QString& command) {
    for (const CommandFlags* table : flags::kAllCommands)
        if (QString::fromLatin1(table->command.data(), qsizetype(table->command.size())) == command)
            return *table;
    qFatal("no flag table for %s", qPrintable(command));
}

QStringList list(std::initializer_list<const char*> words) {
    QStringList result;
    for (const char* word : words)
        result.append(QString::fromLatin1(word));
    return result;
}

std::vector<std::string> stdWords(const QStringList& words) {
    std::vector<std::string> result;
    for (const QString& word : words)
        result.push_back(word.toStdString());
    return result;
}

} // namespace

class TestCliFlags : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void everyFlagInItsCommandsHelp_data() {
        QTest::addColumn<QString>("command");
        for (const CommandFlags* table : flags::kAllCommands) {
            const QString name =
                QString::fromLatin1(table->command.data(), qsizetype(table->command.size()));
            QTest::newRow(qPrintable(name)) << name;
        }
    }

    void everyFlagInItsCommandsHelp() {
        QFETCH(QString, command);
        const CommandFlags& table = tableOf(command);
        const CliOutcome help = runCliWith({command.toStdString(), "--help"});
        QCOMPARE(help.exitCode, 0);
        QVERIFY(help.out.starts_with("Usage: tpacf " + command.toStdString()));
        // Every placeholder of the tables was filled.
        QVERIFY2(help.out.find('{') == std::string::npos, help.out.c_str());
        int rows = 0;
        for (const FlagGroup* group : table.groups)
            for (const Flag* flag : group->flags) {
                ++rows;
                // "  --name VALUE" at the start of a line: the layout the man pages read.
                std::string tag = "\n  ";
                tag += flag->name;
                if (!flag->metavar.empty()) {
                    tag += ' ';
                    tag += flag->metavar;
                }
                const std::size_t at = help.out.find(tag);
                QVERIFY2(at != std::string::npos, tag.c_str());
                const char after = help.out[at + tag.size()];
                QVERIFY2(after == ' ' || after == '\n', tag.c_str());
                QVERIFY2(!flag->help.empty(), flag->name.data());
                // One name: an alias is never a flag of the help.
                for (const FlagAlias& alias : flag->aliases) {
                    if (alias.name.empty())
                        continue;
                    for (const char end : {' ', '\n'}) {
                        std::string aliasTag = "\n  ";
                        aliasTag += alias.name;
                        aliasTag += end;
                        QVERIFY2(help.out.find(aliasTag) == std::string::npos, aliasTag.c_str());
                    }
                }
            }
        QVERIFY(rows > 0);
    }

    void namesAreUniquePerCommand() {
        for (const CommandFlags* table : flags::kAllCommands) {
            std::set<std::string_view> spellings;
            for (const FlagGroup* group : table->groups)
                for (const Flag* flag : group->flags) {
                    QVERIFY2(flag->name.starts_with("--"), flag->name.data());
                    QVERIFY2(spellings.insert(flag->name).second, flag->name.data());
                    // A switch has no value name; a flag with a value has one.
                    QCOMPARE(flag->metavar.empty(), flag->kind == FlagKind::Switch);
                    QCOMPARE(flag->configKey(), flag->name.substr(2));
                    for (const FlagAlias& alias : flag->aliases)
                        if (!alias.name.empty()) {
                            QVERIFY2(alias.name.starts_with("--"), alias.name.data());
                            QVERIFY2(spellings.insert(alias.name).second, alias.name.data());
                            QCOMPARE(table->find(alias.name), flag);
                        }
                    QCOMPARE(table->find(flag->name), flag);
                }
        }
    }

    // The spellings of old command lines, written out here: each must parse to what its new
    // spelling gives, under the flag's name, and remember how it was typed (for messages).
    void oldSpellingsStillParse_data() {
        QTest::addColumn<QString>("command");
        QTest::addColumn<QStringList>("oldWords");
        QTest::addColumn<QStringList>("newWords");
        QTest::addColumn<QString>("flag");
        QTest::addColumn<QString>("value");
        const auto row = [](const char* name, const char* command,
                            std::initializer_list<const char*> oldWords,
                            std::initializer_list<const char*> newWords, const char* flag,
                            const char* value) {
            QTest::newRow(name) << QString::fromLatin1(command) << list(oldWords) << list(newWords)
                                << QString::fromLatin1(flag) << QString::fromLatin1(value);
        };
        row("run --json", "run", {"--json", "w.json"}, {"--json-output", "w.json"}, "--json-output",
            "w.json");
        row("run --json=", "run", {"--json=w.json"}, {"--json-output=w.json"}, "--json-output",
            "w.json");
        row("bench --bins", "bench", {"--bins", "20"}, {"--nbins", "20"}, "--nbins", "20");
        row("bench --theta-min", "bench", {"--theta-min", "0.5"}, {"--min", "0.5"}, "--min", "0.5");
        row("bench --theta-max", "bench", {"--theta-max", "10"}, {"--max", "10"}, "--max", "10");
        row("lab --data", "lab", {"--data", "d.txt"}, {"--a", "d.txt"}, "--a", "d.txt");
        row("lab --random", "lab", {"--random", "r.txt"}, {"--b", "r.txt"}, "--b", "r.txt");
        row("mock --box", "mock", {"--box", "150,190,0,40"}, {"--footprint", "box:150,190,0,40"},
            "--footprint", "box:150,190,0,40");
        row("mock --box=", "mock", {"--box=350,10,-20,-5"}, {"--footprint=box:350,10,-20,-5"},
            "--footprint", "box:350,10,-20,-5");
        row("mock --cap", "mock", {"--cap", "180,30,10"}, {"--footprint", "cap:180,30,10"},
            "--footprint", "cap:180,30,10");
        row("mock --full-sky", "mock", {"--full-sky"}, {"--footprint", "full-sky"}, "--footprint",
            "full-sky");
        row("bench --box", "bench", {"--box", "1,2,3,4"}, {"--footprint", "box:1,2,3,4"},
            "--footprint", "box:1,2,3,4");
    }

    void oldSpellingsStillParse() {
        QFETCH(QString, command);
        QFETCH(QStringList, oldWords);
        QFETCH(QStringList, newWords);
        QFETCH(QString, flag);
        QFETCH(QString, value);
        const CommandFlags& table = tableOf(command);
        const std::string name = flag.toStdString();
        const ParsedArgs before = parseArgs(table, stdWords(oldWords));
        const ParsedArgs after = parseArgs(table, stdWords(newWords));
        QVERIFY(before.has(name));
        QCOMPARE(before.values(name), after.values(name));
        QCOMPARE(QString::fromStdString(before.value(name).value_or("")), value);
        // Messages name what was typed.
        const std::string typed = oldWords.front().section(QLatin1Char('='), 0, 0).toStdString();
        QCOMPARE(before.spelling(name), typed);
        QCOMPARE(after.spelling(name), name);
    }

    void twoSpellingsOfOneFlagRefused_data() {
        QTest::addColumn<QString>("command");
        QTest::addColumn<QStringList>("words");
        QTest::addColumn<QString>("message");
        QTest::newRow("box and cap")
            << QStringLiteral("mock") << list({"--box", "1,2,3,4", "--cap", "1,2,3"})
            << QStringLiteral("give only one of --box and --cap");
        QTest::newRow("min twice")
            << QStringLiteral("bench") << list({"--theta-min", "1", "--min", "2"})
            << QStringLiteral("give only one of --theta-min and --min");
        QTest::newRow("json twice")
            << QStringLiteral("run") << list({"--json", "a.json", "--json", "b.json"})
            << QStringLiteral("--json given more than once");
        QTest::newRow("full-sky takes no value")
            << QStringLiteral("mock") << list({"--full-sky=yes"})
            << QStringLiteral("--full-sky takes no value");
        QTest::newRow("box needs a value")
            << QStringLiteral("mock") << list({"--box"}) << QStringLiteral("--box needs a value");
    }

    void twoSpellingsOfOneFlagRefused() {
        QFETCH(QString, command);
        QFETCH(QStringList, words);
        QFETCH(QString, message);
        try {
            static_cast<void>(parseArgs(tableOf(command), stdWords(words)));
            QFAIL("parsed");
        } catch (const UsageError& error) {
            QVERIFY2(QString::fromUtf8(error.what()).contains(message), error.what());
        }
    }

    // A reader that asks for a flag its command does not declare is a bug, found at once.
    void undeclaredFlagIsALogicError() {
        const ParsedArgs args = parseArgs(flags::kMockFlags, std::vector<std::string>{});
        QVERIFY_THROWS_EXCEPTION(std::logic_error, static_cast<void>(args.has("--nonsense")));
        // An alias is a spelling, not a flag: readers use the name.
        QVERIFY_THROWS_EXCEPTION(std::logic_error, static_cast<void>(args.has("--box")));
        QVERIFY(!args.has("--footprint"));
    }

    // Messages about values name the flag as typed.
    void errorsNameTheSpellingTyped() {
        const CliOutcome box =
            runCliWith({"mock", "--n", "10", "--output", "m.txt", "--box", "1,2"});
        QCOMPARE(box.exitCode, 2);
        QVERIFY2(box.err.find("--box takes 4 numbers") != std::string::npos, box.err.c_str());
        const CliOutcome thetaMin = runCliWith({"bench", "--theta-min", "abc"});
        QCOMPARE(thetaMin.exitCode, 2);
        QVERIFY2(thetaMin.err.find("--theta-min: \"abc\" is not a number") != std::string::npos,
                 thetaMin.err.c_str());
    }

    // The CUDA kernel switches of bench take on or off (the projection auto too; the shared
    // uploads auto, all or off), and refuse any other word by name before anything is counted
    // (no GPU needed to be told).
    void cudaSwitchesTakeOnOrOff_data() {
        QTest::addColumn<QString>("flag");
        QTest::addColumn<QString>("words");
        for (const char* flag : {"--cuda-subtiles", "--cuda-whole-subtiles",
                                 "--cuda-narrow-subtiles", "--cuda-banded-lookup"})
            QTest::newRow(flag) << QString::fromLatin1(flag) << QStringLiteral("on or off");
        QTest::newRow("--cuda-projection")
            << QStringLiteral("--cuda-projection") << QStringLiteral("auto, on or off");
        QTest::newRow("--cuda-shared-uploads")
            << QStringLiteral("--cuda-shared-uploads") << QStringLiteral("auto, all or off");
        QTest::newRow("--cuda-tile-order")
            << QStringLiteral("--cuda-tile-order") << QStringLiteral("auto, curve or kd");
        QTest::newRow("--cuda-hist")
            << QStringLiteral("--cuda-hist")
            << QStringLiteral("a histogram path (thread-atomic, warp, global)");
    }

    void cudaSwitchesTakeOnOrOff() {
        QFETCH(QString, flag);
        QFETCH(QString, words);
        const CliOutcome bad =
            runCliWith({"bench", "--n", "100", flag.toStdString(), "maybe", "--quiet"});
        QCOMPARE(bad.exitCode, 2);
        const std::string want = flag.toStdString() + ": \"maybe\" is not " + words.toStdString();
        QVERIFY2(bad.err.find(want) != std::string::npos, bad.err.c_str());
    }

    // A CUDA tuning word that is taken is named in bench's header, read back through the same
    // table the flag was parsed with (the defaults name nothing).
    void cudaTuningNamedInHeader_data() {
        QTest::addColumn<QString>("flag");
        QTest::addColumn<QString>("word");
        QTest::addColumn<QString>("named");
        for (const char* word : {"thread-atomic", "warp", "global"})
            QTest::newRow(word) << QStringLiteral("--cuda-hist") << QString::fromLatin1(word)
                                << QStringLiteral("hist=") + QString::fromLatin1(word);
        QTest::newRow("projection on")
            << QStringLiteral("--cuda-projection") << QStringLiteral("on")
            << QStringLiteral("projection at every theta_max");
        QTest::newRow("projection off")
            << QStringLiteral("--cuda-projection") << QStringLiteral("off")
            << QStringLiteral("projection off");
        QTest::newRow("projection auto")
            << QStringLiteral("--cuda-projection") << QStringLiteral("auto") << QString();
        QTest::newRow("curve tiles") << QStringLiteral("--cuda-tile-order")
                                     << QStringLiteral("curve") << QStringLiteral("curve tiles");
        QTest::newRow("k-d tiles") << QStringLiteral("--cuda-tile-order") << QStringLiteral("kd")
                                   << QStringLiteral("k-d tiles");
        QTest::newRow("tile order auto")
            << QStringLiteral("--cuda-tile-order") << QStringLiteral("auto") << QString();
        QTest::newRow("shared uploads all")
            << QStringLiteral("--cuda-shared-uploads") << QStringLiteral("all")
            << QStringLiteral("every catalog shared");
        QTest::newRow("shared uploads off")
            << QStringLiteral("--cuda-shared-uploads") << QStringLiteral("off")
            << QStringLiteral("shared uploads off");
        QTest::newRow("shared uploads auto")
            << QStringLiteral("--cuda-shared-uploads") << QStringLiteral("auto") << QString();
    }

    void cudaTuningNamedInHeader() {
        QFETCH(QString, flag);
        QFETCH(QString, word);
        QFETCH(QString, named);
        const CliOutcome run = runCliWith({"bench", "--n", "100", "--backend", "cpu", "--repeat",
                                           "1", flag.toStdString(), word.toStdString()});
        QCOMPARE(run.exitCode, 0);
        const std::size_t tuning = run.out.find("CUDA tuning: ");
        if (named.isEmpty()) {
            QVERIFY2(tuning == std::string::npos, run.out.c_str());
        } else {
            QVERIFY2(tuning != std::string::npos, run.out.c_str());
            QVERIFY2(run.out.find(named.toStdString(), tuning) != std::string::npos,
                     run.out.c_str());
        }
    }

    // --quiet, added to mock, bench and lab as one row each: the work is done, the summary not
    // printed (mock), the report still written (bench, lab).
    void quietInEveryCommandThatReports() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string mockPath =
            QDir(dir.path()).filePath(QStringLiteral("m.txt")).toStdString();
        const CliOutcome loud = runCliWith({"mock", "--n", "50", "--output", mockPath});
        QCOMPARE(loud.exitCode, 0);
        QVERIFY(loud.out.find("wrote 50 clustered points") != std::string::npos);
        QVERIFY(QFile::remove(QString::fromStdString(mockPath)));
        const CliOutcome quiet = runCliWith({"mock", "--n", "50", "--output", mockPath, "--quiet"});
        QCOMPARE(quiet.exitCode, 0);
        QCOMPARE(quiet.out, std::string());
        QVERIFY(QFile::exists(QString::fromStdString(mockPath)));

        const CliOutcome bench =
            runCliWith({"bench", "--backend", "cpu", "--precision", "double", "--n", "200",
                        "--repeat", "1", "--only", "dd", "--nbins", "5", "--quiet", "--json"});
        QCOMPARE(bench.exitCode, 0);
        QVERIFY2(bench.out.find("\"tool\": \"tpacf bench\"") != std::string::npos,
                 bench.err.c_str());

        const CliOutcome lab = runCliWith({"lab", "--n", "200", "--backend", "cpu", "--variants",
                                           "cpu-2-chord2", "--quiet", "--json"});
        QCOMPARE(lab.exitCode, 0);
        QVERIFY2(lab.out.find("cpu-2-chord2") != std::string::npos, lab.err.c_str());
    }
};

TPACF_TEST_MAIN(TestCliFlags)
#include "test_cli_flags.moc"
