// SPDX-License-Identifier: GPL-3.0-or-later
// tpacf as a command: --help of every command, --version, usage errors, reader errors (one line,
// exit 2).
#include "cli_suite.h"

using namespace clisuite;

class TestCliUsage : public CliSuite {
    Q_OBJECT

private slots:
    void initTestCase() { initFixture(); }

    void helpOfEveryCommand_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("expected");
        QTest::newRow("--help") << QStringList{QStringLiteral("--help")}
                                << QStringLiteral("Usage: tpacf <command>");
        QTest::newRow("-h") << QStringList{QStringLiteral("-h")}
                            << QStringLiteral("Usage: tpacf <command>");
        for (const char* command : {"run", "count", "devices", "mock", "bench"}) {
            const QString name = QString::fromLatin1(command);
            QTest::newRow(qPrintable(name + QStringLiteral(" --help")))
                << QStringList{name, QStringLiteral("--help")}
                << QStringLiteral("Usage: tpacf ") + name;
            QTest::newRow(qPrintable(name + QStringLiteral(" -h")))
                << QStringList{name, QStringLiteral("-h")}
                << QStringLiteral("Usage: tpacf ") + name;
        }
        // Help wins over an otherwise bad command line.
        QTest::newRow("run --bogus --help")
            << QStringList{QStringLiteral("run"), QStringLiteral("--bogus"),
                           QStringLiteral("--help")}
            << QStringLiteral("Usage: tpacf run");
    }

    void helpOfEveryCommand() {
        QFETCH(QStringList, args);
        QFETCH(QString, expected);
        const Outcome outcome = tpacf(args);
        QCOMPARE(outcome.exitCode, 0);
        QVERIFY2(outcome.out.startsWith(expected) || outcome.out.contains(expected),
                 qPrintable(outcome.out));
        QVERIFY(outcome.err.isEmpty());
    }

    // The first line is the version; then one line per optional part, "yes" or "no" as the
    // libraries this suite links say (FITS from the core, CUDA from the module, plotting from how
    // tpacf was built).
    void version() {
        const Outcome outcome = tpacf({QStringLiteral("--version")});
        QCOMPARE(outcome.exitCode, 0);
        QVERIFY(outcome.err.isEmpty());
        const QStringList lines = outcome.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QVERIFY2(lines.size() >= 7, qPrintable(outcome.out));
        QCOMPARE(lines[0], QStringLiteral("tpacf ") + q(std::string(tpacf::version())));
        QCOMPARE(lines[1], QStringLiteral("parts of this build:"));
        const auto part = [&](const QString& name) -> QString {
            for (const QString& line : lines)
                if (line.startsWith(QStringLiteral("  ") + name + QLatin1Char(' ')))
                    return line.mid(2 + name.size()).trimmed().section(QLatin1Char(' '), 0, 0);
            return {};
        };
        const auto yesNo = [](bool present) {
            return present ? QStringLiteral("yes") : QStringLiteral("no");
        };
        QCOMPARE(part(QStringLiteral("fits")), yesNo(tpacf::fitsSupported()));
        QCOMPARE(part(QStringLiteral("cuda")), yesNo(tpacf::cuda::makeProvider()->compiledIn()));
#if TPACF_CLI_HAVE_PLOT
        QCOMPARE(part(QStringLiteral("plotting")), QStringLiteral("yes"));
#else
        QCOMPARE(part(QStringLiteral("plotting")), QStringLiteral("no"));
#endif
        for (const char* name : {"mpi", "fcs"})
            QVERIFY2(!part(QString::fromLatin1(name)).isEmpty(), name);
    }

    // The bash completion script, run in bash as bash-completion runs it: every command after
    // tpacf, every flag each command's --help lists after the command, the values of flags with
    // a fixed set, and file names after a file flag.
    void bashCompletion() {
        const Outcome script = tpacf({QStringLiteral("--completion"), QStringLiteral("bash")});
        QCOMPARE(script.exitCode, 0);
        const QString scriptPath = path(QStringLiteral("tpacf-completion.bash"));
        {
            QFile file(scriptPath);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(script.out.toUtf8());
        }
        // The words bash offers for the command line `words`, the last one being completed.
        const auto complete = [&](const QStringList& words) {
            QString array;
            for (const QString& word : words)
                array += QStringLiteral(" '") + word + QLatin1Char('\'');
            QProcess bash;
            bash.start(QStringLiteral("bash"),
                       {QStringLiteral("-c"),
                        QStringLiteral(". '%1' && COMP_WORDS=(%2); COMP_CWORD=%3; _tpacf; "
                                       "printf '%s\\n' \"${COMPREPLY[@]}\"")
                            .arg(scriptPath, array)
                            .arg(words.size() - 1)});
            bash.waitForFinished(20000);
            return QString::fromUtf8(bash.readAllStandardOutput())
                .split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        };
        const Outcome help = tpacf({QStringLiteral("--help")});
        QStringList commands;
        bool inCommands = false;
        for (const QString& line : help.out.split(QLatin1Char('\n'))) {
            if (line == QStringLiteral("Commands:"))
                inCommands = true;
            else if (inCommands && line.startsWith(QStringLiteral("  ")))
                commands << line.trimmed().section(QLatin1Char(' '), 0, 0);
            else if (inCommands)
                break;
        }
        QVERIFY2(commands.size() >= 7, qPrintable(help.out));
        const QStringList first = complete({QStringLiteral("tpacf"), QString()});
        for (const QString& command : commands)
            QVERIFY2(first.contains(command), qPrintable(command + QStringLiteral(" not offered")));
        QCOMPARE(complete({QStringLiteral("tpacf"), QStringLiteral("cou")}),
                 QStringList{QStringLiteral("count")});
        const QRegularExpression flagLine(QStringLiteral(R"(^  (--[a-z0-9][a-z0-9-]*))"));
        for (const QString& command : commands) {
            const Outcome commandHelp = tpacf({command, QStringLiteral("--help")});
            const QStringList offered = complete({QStringLiteral("tpacf"), command, QStringLiteral("--")});
            int flags = 0;
            for (const QString& line : commandHelp.out.split(QLatin1Char('\n'))) {
                const QRegularExpressionMatch match = flagLine.match(line);
                if (!match.hasMatch())
                    continue;
                ++flags;
                QVERIFY2(offered.contains(match.captured(1)),
                         qPrintable(command + QLatin1Char(' ') + match.captured(1)));
            }
            QVERIFY2(flags > 0 || command == QStringLiteral("devices"), qPrintable(command));
        }
        QCOMPARE(complete({QStringLiteral("tpacf"), QStringLiteral("run"),
                           QStringLiteral("--culling"), QStringLiteral("o")}),
                 (QStringList{QStringLiteral("on"), QStringLiteral("off")}));
        QCOMPARE(complete({QStringLiteral("tpacf"), QStringLiteral("count"),
                           QStringLiteral("--format"), QStringLiteral("vo")}),
                 QStringList{QStringLiteral("votable")});
        const QString target = path(QStringLiteral("completion_target_catalog.txt"));
        QFile(target).open(QIODevice::WriteOnly);
        QCOMPARE(complete({QStringLiteral("tpacf"), QStringLiteral("run"), QStringLiteral("--data"),
                           path(QStringLiteral("completion_target_c"))}),
                 QStringList{target});
        // A value flag without a fixed set offers nothing (not the command's flags).
        QVERIFY(complete({QStringLiteral("tpacf"), QStringLiteral("run"), QStringLiteral("--nbins"),
                          QString()})
                    .isEmpty());
        const Outcome zsh = tpacf({QStringLiteral("--completion"), QStringLiteral("zsh")});
        QCOMPARE(zsh.exitCode, 2);
        QVERIFY(zsh.err.contains(QStringLiteral("bash")));
    }

    void noArgumentsIsUsageError() {
        const Outcome outcome = tpacf({});
        QCOMPARE(outcome.exitCode, 2);
        QVERIFY(outcome.err.contains(QStringLiteral("Usage: tpacf")));
    }

    void readerErrors_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QStringList>("flags");
        QTest::addColumn<int>("line");
        QTest::addColumn<int>("column"); // 0: the message names no column
        const QStringList none;
        QTest::newRow("non-numeric field")
            << QByteArray("10 20\n11 21\n12 abc\n") << none << 3 << 2;
        QTest::newRow("dec out of range") << QByteArray("10 20\n11 95.5\n") << none << 2 << 2;
        QTest::newRow("too few columns") << QByteArray("10 20\n11 21\n12\n") << none << 3 << 2;
        QTest::newRow("nan") << QByteArray("# ra dec\n10 20\nnan 21\n") << none << 3 << 1;
        QTest::newRow("inf") << QByteArray("10 20\ninf 21\n") << none << 2 << 1;
        QTest::newRow("count line mismatch") << QByteArray("3\n10 20\n11 21\n") << none << 1 << 1;
        QTest::newRow("empty field") << QByteArray("10,,20\n11,12,21\n") << none << 1 << 2;
        QTest::newRow("header lacks the named column")
            << QByteArray("ra dec\n10 20\n")
            << QStringList{QStringLiteral("--ra-col"), QStringLiteral("foo")} << 1 << 0;
    }

    void readerErrors() {
        QFETCH(QByteArray, content);
        QFETCH(QStringList, flags);
        QFETCH(int, line);
        QFETCH(int, column);
        const QString file = path(QStringLiteral("bad_%1.txt")
                                      .arg(QString::fromLatin1(QTest::currentDataTag()))
                                      .replace(QLatin1Char(' '), QLatin1Char('_')));
        writeText(file, content);
        const Outcome outcome =
            tpacf(QStringList{QStringLiteral("count"), QStringLiteral("--a"), file,
                              QStringLiteral("--output"), path(QStringLiteral("never.csv"))} +
                  flags);
        checkUsageError(outcome, QStringLiteral("%1:%2").arg(file).arg(line));
        if (column > 0)
            QVERIFY2(outcome.err.contains(QStringLiteral("column %1").arg(column)),
                     qPrintable(outcome.err));
        QVERIFY(!QFile::exists(path(QStringLiteral("never.csv"))));
    }

    void emptyCatalog() {
        const QString file = path(QStringLiteral("empty.txt"));
        writeText(file, QByteArray("# only a comment\n"));
        const Outcome outcome =
            tpacf({QStringLiteral("count"), QStringLiteral("--a"), file, QStringLiteral("--output"),
                   path(QStringLiteral("never.csv"))});
        checkUsageError(outcome, file);
        QVERIFY2(outcome.err.contains(QStringLiteral("no data rows")), qPrintable(outcome.err));
        QVERIFY(!QFile::exists(path(QStringLiteral("never.csv"))));
    }

    void missingFile() {
        const QString file = path(QStringLiteral("no_such_catalog.txt"));
        const Outcome outcome = tpacf({QStringLiteral("run"), QStringLiteral("--data"), file,
                                       QStringLiteral("--random"), m_random1,
                                       QStringLiteral("--output"), path(QStringLiteral("x.csv"))});
        checkUsageError(outcome, file);
        QVERIFY(outcome.err.contains(QStringLiteral("does not exist")));
    }

    void badCommandLines_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("mentions");
        const QString out = QStringLiteral("--output");
        const QString csv = QStringLiteral("/tmp/tpacf-test-never.csv");
        auto run = [&](QStringList extra) {
            QStringList args{QStringLiteral("run"),
                             QStringLiteral("--data"),
                             m_data,
                             QStringLiteral("--random"),
                             m_random1,
                             out,
                             csv};
            return args + extra;
        };
        QTest::newRow("unknown command") << QStringList{QStringLiteral("frobnicate")}
                                         << QStringLiteral("unknown command \"frobnicate\"");
        QTest::newRow("unknown flag")
            << run({QStringLiteral("--frobnicate")}) << QStringLiteral("unknown flag --frobnicate");
        QTest::newRow("missing value")
            << run({QStringLiteral("--estimator")}) << QStringLiteral("--estimator needs a value");
        QTest::newRow("value then flag")
            << run({QStringLiteral("--min"), QStringLiteral("--max"), QStringLiteral("5")})
            << QStringLiteral("--min needs a value");
        QTest::newRow("bad number") << run({QStringLiteral("--min"), QStringLiteral("1x"),
                                            QStringLiteral("--max"), QStringLiteral("100")})
                                    << QStringLiteral("--min: \"1x\" is not a number");
        QTest::newRow("bad integer") << run({QStringLiteral("--threads"), QStringLiteral("two")})
                                     << QStringLiteral("--threads: \"two\"");
        QTest::newRow("preset and min") << run({QStringLiteral("--preset"), QStringLiteral("log5"),
                                                QStringLiteral("--min"), QStringLiteral("1")})
                                        << QStringLiteral("--preset cannot be combined with --min");
        QTest::newRow("per-decade and nbins")
            << run({QStringLiteral("--min"), QStringLiteral("1"), QStringLiteral("--max"),
                    QStringLiteral("100"), QStringLiteral("--per-decade"), QStringLiteral("5"),
                    QStringLiteral("--nbins"), QStringLiteral("8")})
            << QStringLiteral("only one of --per-decade, --nbins, --width");
        QTest::newRow("width on log bins")
            << run({QStringLiteral("--min"), QStringLiteral("1"), QStringLiteral("--max"),
                    QStringLiteral("100"), QStringLiteral("--width"), QStringLiteral("5")})
            << QStringLiteral("--width is for --bins linear");
        QTest::newRow("zero width")
            << run({QStringLiteral("--bins"), QStringLiteral("linear"), QStringLiteral("--min"),
                    QStringLiteral("0"), QStringLiteral("--max"), QStringLiteral("10"),
                    QStringLiteral("--width"), QStringLiteral("0")})
            << QStringLiteral("--width must be > 0, got \"0\"");
        QTest::newRow("negative per-decade")
            << run({QStringLiteral("--min"), QStringLiteral("1"), QStringLiteral("--max"),
                    QStringLiteral("100"), QStringLiteral("--per-decade"), QStringLiteral("-2")})
            << QStringLiteral("--per-decade must be > 0");
        QTest::newRow("log bins from zero") << run({QStringLiteral("--min"), QStringLiteral("0"),
                                                    QStringLiteral("--max"), QStringLiteral("100")})
                                            << QStringLiteral("min");
        QTest::newRow("unknown preset") << run({QStringLiteral("--preset"), QStringLiteral("log7")})
                                        << QStringLiteral("unknown preset \"log7\"");
        QTest::newRow("bad unit") << run({QStringLiteral("--coord-unit"),
                                          QStringLiteral("furlong")})
                                  << QStringLiteral("--coord-unit: \"furlong\"");
        QTest::newRow("bad estimator")
            << run({QStringLiteral("--estimator"), QStringLiteral("xyz")})
            << QStringLiteral("--estimator: \"xyz\"");
        QTest::newRow("bad backend") << run({QStringLiteral("--backend"), QStringLiteral("tpu")})
                                     << QStringLiteral("--backend: \"tpu\"");
        QTest::newRow("gpu memory limit not a size")
            << run({QStringLiteral("--gpu-memory-limit"), QStringLiteral("12Q")})
            << QStringLiteral("--gpu-memory-limit: \"12Q\" is not a memory size");
        QTest::newRow("gpu memory limit below 1M")
            << run({QStringLiteral("--gpu-memory-limit"), QStringLiteral("512K")})
            << QStringLiteral("at least 1M");
        QTest::newRow("gpu memory limit negative")
            << run({QStringLiteral("--gpu-memory-limit"), QStringLiteral("-3G")})
            << QStringLiteral("is not a memory size");
        QTest::newRow("float on cpu")
            << run({QStringLiteral("--backend"), QStringLiteral("cpu"),
                    QStringLiteral("--precision"), QStringLiteral("float")})
            << QStringLiteral("double");
        QTest::newRow("jackknife 1") << run({QStringLiteral("--jackknife"), QStringLiteral("1")})
                                     << QStringLiteral("K must be at least 2");
        QTest::newRow("jackknife 0") << run({QStringLiteral("--jackknife"), QStringLiteral("0")})
                                     << QStringLiteral("K must be at least 2");
        QTest::newRow("jackknife negative")
            << run({QStringLiteral("--jackknife"), QStringLiteral("-4")})
            << QStringLiteral("K must be at least 2");
        QTest::newRow("jackknife not a number")
            << run({QStringLiteral("--jackknife"), QStringLiteral("many")})
            << QStringLiteral("--jackknife: \"many\" is not a whole number");
        QTest::newRow("jackknife too many")
            << run({QStringLiteral("--jackknife"), QStringLiteral("10001")})
            << QStringLiteral("limit of 10000");
        QTest::newRow("jackknife far too many")
            << run({QStringLiteral("--jackknife"), QStringLiteral("99999999999")})
            << QStringLiteral("limit of 10000");
        QTest::newRow("jackknife seed alone")
            << run({QStringLiteral("--jackknife-seed"), QStringLiteral("3")})
            << QStringLiteral("--jackknife-seed");
        QTest::newRow("jackknife seed with column")
            << run({QStringLiteral("--jackknife-column"), QStringLiteral("patch"),
                    QStringLiteral("--jackknife-seed"), QStringLiteral("3")})
            << QStringLiteral("take no seed");
        QTest::newRow("jackknife column index 0")
            << run({QStringLiteral("--jackknife-column"), QStringLiteral("0")})
            << QStringLiteral("--jackknife-column");
        QTest::newRow("covariance without jackknife")
            << run({QStringLiteral("--covariance"), QStringLiteral("/tmp/tpacf-test-never.csv")})
            << QStringLiteral("--covariance needs jackknife");
#if TPACF_CLI_HAVE_PLOT
        // Checked before the count: no CSV either.
        QTest::newRow("plot bad suffix")
            << run({QStringLiteral("--plot"), QStringLiteral("/tmp/tpacf-test-never.jpg")})
            << QStringLiteral("\"/tmp/tpacf-test-never.jpg\" must end in .png, .pdf");
        QTest::newRow("plot no suffix")
            << run({QStringLiteral("--plot"), QStringLiteral("/tmp/tpacf-test-never")})
            << QStringLiteral("must end in .png, .pdf");
        QTest::newRow("plot folder missing")
            << run({QStringLiteral("--plot"), QStringLiteral("/nonexistent-folder/w.png")})
            << QStringLiteral("folder \"/nonexistent-folder\" does not exist (--plot)");
        // A folder nobody may create files in, root included.
        QTest::newRow("plot folder unwritable")
            << run({QStringLiteral("--plot"), QStringLiteral("/proc/tpacf-test-never.png")})
            << QStringLiteral("/proc/tpacf-test-never.png: cannot write here");
#else
        QTest::newRow("plot without Qt")
            << run({QStringLiteral("--plot"), QStringLiteral("/tmp/tpacf-test-never.png")})
            << QStringLiteral("this build of tpacf has no plotting (it links no Qt");
#endif
        QTest::newRow("no random")
            << QStringList{QStringLiteral("run"), QStringLiteral("--data"), m_data, out, csv}
            << QStringLiteral("--random is required");
        QTest::newRow("no output") << QStringList{QStringLiteral("run"), QStringLiteral("--data"),
                                                  m_data, QStringLiteral("--random"), m_random1}
                                   << QStringLiteral("--output is required");
        QTest::newRow("output folder missing")
            << QStringList{QStringLiteral("run"),
                           QStringLiteral("--data"),
                           m_data,
                           QStringLiteral("--random"),
                           m_random1,
                           out,
                           QStringLiteral("/nonexistent-folder/w.csv")}
            << QStringLiteral("does not exist");
        QTest::newRow("stray argument")
            << QStringList{QStringLiteral("count"), QStringLiteral("data.txt")}
            << QStringLiteral("unexpected argument \"data.txt\"");
        QTest::newRow("mock box needs four") << QStringList{QStringLiteral("mock"),
                                                            QStringLiteral("--n"),
                                                            QStringLiteral("10"),
                                                            QStringLiteral("--output"),
                                                            csv,
                                                            QStringLiteral("--box"),
                                                            QStringLiteral("1,2,3")}
                                             << QStringLiteral("--box takes 4 numbers");
        QTest::newRow("mock negative n")
            << QStringList{QStringLiteral("mock"), QStringLiteral("--n"), QStringLiteral("-5"),
                           QStringLiteral("--output"), csv}
            << QStringLiteral("--n: \"-5\" is out of range");
        QTest::newRow("run bad culling")
            << run({QStringLiteral("--culling"), QStringLiteral("maybe")})
            << QStringLiteral("--culling: \"maybe\" is not a culling mode (auto, on, off)");
        QTest::newRow("count bad culling")
            << QStringList{QStringLiteral("count"),     QStringLiteral("--a"), m_data, out, csv,
                           QStringLiteral("--culling"), QStringLiteral("yes")}
            << QStringLiteral("--culling: \"yes\" is not a culling mode (auto, on, off)");
        QTest::newRow("bench bad culling")
            << QStringList{QStringLiteral("bench"), QStringLiteral("--culling"),
                           QStringLiteral("ON!")}
            << QStringLiteral("--culling: \"ON!\" is not a culling mode (auto, on, off)");
        QTest::newRow("culling without value")
            << run({QStringLiteral("--culling")}) << QStringLiteral("--culling needs a value");
        QTest::newRow("bench bad footprint")
            << QStringList{QStringLiteral("bench"), QStringLiteral("--footprint"),
                           QStringLiteral("square:1,2")}
            << QStringLiteral("--footprint: \"square:1,2\" is not a footprint");
        QTest::newRow("bench box needs four")
            << QStringList{QStringLiteral("bench"), QStringLiteral("--footprint"),
                           QStringLiteral("box:150,190,0")}
            << QStringLiteral("--footprint box takes 4 numbers");
        QTest::newRow("bench box not numbers")
            << QStringList{QStringLiteral("bench"), QStringLiteral("--footprint"),
                           QStringLiteral("box:150,190,zero,40")}
            << QStringLiteral("\"zero\"");
        QTest::newRow("bench box outside the sky")
            << QStringList{QStringLiteral("bench"), QStringLiteral("--footprint"),
                           QStringLiteral("box:150,190,0,95")}
            << QStringLiteral("Dec limits");
        QTest::newRow("bench clustering without --clustered")
            << QStringList{QStringLiteral("bench"), QStringLiteral("--levels"), QStringLiteral("4")}
            << QStringLiteral("add --clustered");
        QTest::newRow("bench bad precision")
            << QStringList{QStringLiteral("bench"), QStringLiteral("--precision"),
                           QStringLiteral("half")}
            << QStringLiteral("--precision: \"half\"");
        QTest::newRow("bench bad cpu kernel")
            << QStringList{QStringLiteral("bench"), QStringLiteral("--cpu-kernel"),
                           QStringLiteral("sse")}
            << QStringLiteral("--cpu-kernel: \"sse\"");
    }

    void badCommandLines() {
        QFETCH(QStringList, args);
        QFETCH(QString, mentions);
        const Outcome outcome = tpacf(args);
        checkUsageError(outcome, mentions);
        QVERIFY(!QFile::exists(QStringLiteral("/tmp/tpacf-test-never.csv")));
    }
};

TPACF_TEST_MAIN(TestCliUsage)
#include "test_cli_usage.moc"
