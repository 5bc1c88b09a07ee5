// SPDX-License-Identifier: GPL-3.0-or-later
#include "command_line_export.h"

#include "job_file.h"
#include "run_flags.h"

#include <tpacf/units.h>

#include <QCoreApplication>
#include <QFileInfo>

#include <charconv>
#include <functional>
#include <optional>

namespace tpacf::ui {

namespace {

namespace flags = cli::flags;

QString tr(const char* text) {
    return QCoreApplication::translate("tpacf::ui::CommandLineExport", text);
}

QString latin1(std::string_view text) {
    return QString::fromLatin1(text.data(), qsizetype(text.size()));
}

// A flag's name, from the CLI's table of `tpacf run` (so that a renamed flag renames here too).
QString flagName(const cli::Flag& row) {
    return latin1(row.name);
}

// The shortest text that reads back as the same double: the CLI parses with from_chars, so
// the command's bins are the window's bit for bit ("0.01", not "0.01000000000000000021").
QString exactNumber(double value) {
    char text[64];
    const auto [end, error] = std::to_chars(text, text + sizeof text, value);
    if (error != std::errc())
        return QString::number(value, 'g', 17);
    return QString::fromLatin1(text, qsizetype(end - text));
}

// One catalog of the command, with the flag that names it and how notes call it.
struct Entry {
    const CatalogSource* source = nullptr;
    QString flag;  // --data, --random, --data2, --random2
    bool dataRole; // --data-weight-col applies (data, data2), else --random-weight-col
    QString label; // "the data catalog", "random catalog 2", ...
};

QString columnText(int column) {
    return column > 0 ? tr("column %1").arg(column) : tr("the reader's choice");
}

// The catalogs' values of one setting the CLI takes once for all of them: the common value, or
// (where they differ) the first catalog's, with a note naming each catalog's value.
template <typename T>
T commonValue(const QList<Entry>& entries, const std::function<T(const CatalogSource&)>& get,
              const std::function<QString(const T&)>& describe, const QString& what,
              const QString& flag, QStringList& notes) {
    const T first = get(*entries.front().source);
    bool same = true;
    for (const Entry& entry : entries)
        same = same && get(*entry.source) == first;
    if (!same) {
        QStringList values;
        for (const Entry& entry : entries)
            values.append(tr("%1: %2").arg(entry.label, describe(get(*entry.source))));
        notes.append(
            tr("The catalogs differ in %1 (%2), but tpacf takes one %3 for every "
               "catalog: the command uses %4's. Run the CLI on files that share it.")
                .arg(what, values.join(QStringLiteral("; ")), flag, entries.front().label));
    }
    return first;
}

} // namespace

QString shellQuoted(const QString& word) {
    // Characters no POSIX shell gives a meaning to (the CLI's provenance line uses the same set).
    static const QString plain =
        QStringLiteral("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                       "0123456789-_=+.,/:@%");
    bool quote = word.isEmpty();
    for (const QChar c : word)
        quote = quote || !plain.contains(c);
    if (!quote)
        return word;
    QString quoted = word;
    quoted.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
    return QLatin1Char('\'') + quoted + QLatin1Char('\'');
}

QString RunCommandLine::text() const {
    QStringList words{QStringLiteral("tpacf")};
    for (const QString& argument : arguments)
        words.append(shellQuoted(argument));
    return words.join(QLatin1Char(' '));
}

QString RunCommandLine::clipboardText() const {
    QString result = text() + QLatin1Char('\n');
    for (const QString& note : notes)
        result += QStringLiteral("# note: ") + note + QLatin1Char('\n');
    return result;
}

QString RunCommandLine::jobFileText() const {
    std::vector<std::string> words;
    for (const QString& argument : arguments.mid(1)) // after "run"
        words.push_back(argument.toStdString());
    std::vector<std::string> comment{
        "TPACF Studio's run as a job file: tpacf run --config THIS_FILE (flags on the command "
        "line override its keys)"};
    for (const QString& note : notes)
        comment.push_back("note: " + note.toStdString());
    return QString::fromStdString(cli::jobFileText(cli::flags::kRunFlags, words, comment));
}

RunCommandLine runCommandLine(const Session& session, const CommandLineOutputs& outputs) {
    RunCommandLine command;
    QStringList& args = command.arguments;
    QStringList& notes = command.notes;
    // A value that starts with "--" would read as the next flag: "--flag=value" keeps it a value.
    const auto add = [&args](const QString& flag, const QString& value) {
        if (value.startsWith(QStringLiteral("--")))
            args.append(flag + QLatin1Char('=') + value);
        else
            args << flag << value;
    };
    args.append(QStringLiteral("run"));

    QList<Entry> entries;
    if (session.data)
        entries.append({&*session.data, flagName(flags::run::kData), true, tr("the data catalog")});
    for (qsizetype i = 0; i < session.randoms.size(); ++i)
        entries.append({&session.randoms[i], flagName(flags::run::kRandom), false,
                        session.randoms.size() == 1 ? tr("the random catalog")
                                                    : tr("random catalog %1").arg(i + 1)});
    if (session.data2)
        entries.append(
            {&*session.data2, flagName(flags::run::kData2), true, tr("the second data catalog")});
    for (qsizetype i = 0; i < session.randoms2.size(); ++i)
        entries.append({&session.randoms2[i], flagName(flags::run::kRandom2), false,
                        tr("random catalog %1 of the second sample").arg(i + 1)});

    // HDUs: one --hdu where every catalog names the same, else each in its path (cfitsio's
    // "d.fits[2]", which the reader takes before --hdu).
    bool oneHdu = true;
    for (const Entry& entry : entries)
        oneHdu = oneHdu && entry.source->hdu == entries.front().source->hdu;

    // Catalogs in the order the window reads them.
    bool bundled = false;
    for (const Entry& entry : entries) {
        const CatalogSource& source = *entry.source;
        QString path = source.readPath();
        if (!oneHdu && !source.hdu.isEmpty() && source.rowFilter.isEmpty())
            path += QLatin1Char('[') + source.hdu + QLatin1Char(']');
        if (source.isResource()) {
            // Built into the program: the CLI needs the file. Its name is the source tree's.
            path = QFileInfo(source.path).fileName();
            bundled = true;
        }
        add(entry.flag, path);
    }
    if (bundled)
        notes.append(tr("The bundled sample is built into TPACF Studio, not a file: the command "
                        "names its files as they are in the source tree (resources/samples/)."));
    if (!session.data) {
        add(flagName(flags::run::kData), QStringLiteral("DATA"));
        notes.append(tr("No data catalog is loaded: replace DATA with its path."));
    }
    if (session.randoms.isEmpty()) {
        add(flagName(flags::run::kRandom), QStringLiteral("RANDOM"));
        notes.append(tr("No random catalog is loaded: replace RANDOM with its path."));
    }

    // How the catalogs are read: flags the CLI applies to every catalog.
    if (!entries.isEmpty()) {
        const auto columnOf = [](int column) { return columnText(column); };
        const int ra = commonValue<int>(
            entries, [](const CatalogSource& s) { return s.raColumn; }, columnOf,
            tr("the RA column"), flagName(flags::kRaCol), notes);
        if (ra > 0)
            add(flagName(flags::kRaCol), QString::number(ra));
        const int dec = commonValue<int>(
            entries, [](const CatalogSource& s) { return s.decColumn; }, columnOf,
            tr("the Dec column"), flagName(flags::kDecCol), notes);
        if (dec > 0)
            add(flagName(flags::kDecCol), QString::number(dec));
        const AngleUnit unit = commonValue<AngleUnit>(
            entries, [](const CatalogSource& s) { return s.unit; },
            [](const AngleUnit& u) { return unitLabel(u); }, tr("the coordinate unit"),
            flagName(flags::kCoordUnit), notes);
        if (unit != AngleUnit::Degree)
            add(flagName(flags::kCoordUnit), unitLabel(unit));
        const bool hours = commonValue<bool>(
            entries, [](const CatalogSource& s) { return s.raInHours; },
            [](const bool& h) { return h ? tr("RA in hours") : tr("RA in the coordinate unit"); },
            tr("the RA unit"), flagName(flags::kRaHours), notes);
        if (hours)
            args.append(flagName(flags::kRaHours));
        if (oneHdu && !entries.front().source->hdu.isEmpty())
            add(flagName(flags::kHdu), entries.front().source->hdu);

        // Weights: one --weight-col where all agree, else one per role (data and data2 share
        // --data-weight-col, every random set --random-weight-col).
        QList<Entry> dataRole, randomRole;
        for (const Entry& entry : entries)
            (entry.dataRole ? dataRole : randomRole).append(entry);
        const auto weightOf = [](const CatalogSource& s) { return s.weightColumn; };
        const auto weightText = [](const int& column) {
            return column > 0 ? tr("column %1").arg(column) : tr("none");
        };
        bool allSame = true;
        for (const Entry& entry : entries)
            allSame = allSame && entry.source->weightColumn == entries.front().source->weightColumn;
        if (allSame) {
            if (const int weight = entries.front().source->weightColumn; weight > 0)
                add(flagName(flags::kWeightCol), QString::number(weight));
        } else {
            for (const auto& [role, flag] :
                 {std::pair{&dataRole, flagName(flags::run::kDataWeightCol)},
                  std::pair{&randomRole, flagName(flags::run::kRandomWeightCol)}}) {
                if (role->isEmpty())
                    continue;
                const int weight = commonValue<int>(*role, weightOf, weightText,
                                                    tr("the weight column"), flag, notes);
                if (weight > 0)
                    add(flag, QString::number(weight));
            }
        }
    }

    // Bins, as the panel holds them (the CLI validates them as the window does).
    const BinSpec& bins = session.settings.bins;
    const QString unit = unitLabel(bins.unit);
    if (bins.scale == BinScale::Custom) {
        QStringList edges;
        for (const double edge : bins.edges)
            edges.append(exactNumber(edge));
        add(flagName(flags::kEdges), edges.join(QLatin1Char(',')));
        add(flagName(flags::kUnit), unit);
    } else {
        const bool log = bins.scale == BinScale::Logarithmic;
        add(flagName(flags::kBins), log ? QStringLiteral("log") : QStringLiteral("linear"));
        add(flagName(flags::kMin), exactNumber(bins.min));
        add(flagName(flags::kMax), exactNumber(bins.max));
        add(flagName(flags::kUnit), unit);
        // The one size the spec holds, in the order Binning reads them.
        if (log && bins.perDecade > 0)
            add(flagName(flags::kPerDecade), exactNumber(bins.perDecade));
        else if (!log && bins.count <= 0 && bins.width > 0)
            add(flagName(flags::kWidth), exactNumber(bins.width));
        else
            add(flagName(flags::kNbins), QString::number(bins.count));
    }

    add(flagName(flags::run::kEstimator), latin1(estimatorKey(session.settings.estimator)));
    if (session.settings.meanSeparation)
        args.append(flagName(flags::run::kMeanTheta));

    const ErrorSettings& errors = session.settings.errors;
    if (errors.method == ErrorSettings::Method::Regions) {
        add(flagName(flags::run::kJackknife), QString::number(errors.regions));
        if (errors.seed != JackknifeSettings{}.seed)
            add(flagName(flags::run::kJackknifeSeed), QString::number(errors.seed));
    } else if (errors.method == ErrorSettings::Method::Healpix) {
        add(flagName(flags::run::kJackknife), QString::number(errors.regions));
        add(flagName(flags::run::kJackknifeHealpix), QString::number(errors.healpixNside));
    } else if (errors.method == ErrorSettings::Method::Column) {
        add(flagName(flags::run::kJackknifeColumn), errors.regionColumn);
    } else if (errors.method == ErrorSettings::Method::File) {
        add(flagName(flags::run::kRegions), errors.regionsFile);
    }

    if (errors.method != ErrorSettings::Method::None && errors.bootstrapSamples > 0)
        add(flagName(flags::run::kBootstrap), QString::number(errors.bootstrapSamples));
    if (errors.method != ErrorSettings::Method::None && errors.crossRegionWeight)
        add(flagName(flags::run::kCrossRegionWeight),
            QString::fromUtf8(crossRegionWeightInfo(*errors.crossRegionWeight).key));
    if (!session.mask.isEmpty()) {
        add(flagName(flags::kMask), session.mask);
        if (session.maskThreshold > 0)
            add(flagName(flags::kMaskThreshold), QString::number(session.maskThreshold, 'g', 17));
    }

    const BackendOptions& backend = session.settings.backend;
    add(flagName(flags::kBackend), QString::fromStdString(backend.name));
    add(flagName(flags::kPrecision),
        backend.precision ? latin1(precisionName(*backend.precision)) : QStringLiteral("auto"));
    if (backend.cpuThreads > 0)
        add(flagName(flags::kThreads), QString::number(backend.cpuThreads));
    if (!backend.gpuDevices.empty()) {
        QStringList devices;
        for (const int device : backend.gpuDevices)
            devices.append(QString::number(device));
        add(flagName(flags::kDevices), devices.join(QLatin1Char(',')));
    }
    if (backend.culling != CullingMode::Auto)
        add(flagName(flags::kCulling), latin1(cullingModeName(backend.culling)));

    add(flagName(flags::run::kOutput), outputs.result);
    if (errors.method != ErrorSettings::Method::None && !outputs.covariance.isEmpty())
        add(flagName(flags::run::kCovariance), outputs.covariance);
    return command;
}

} // namespace tpacf::ui
