// SPDX-License-Identifier: GPL-3.0-or-later
#include "session.h"

#include <tpacf/bootstrap.h>
#include <tpacf/sky_mask.h>

#include <QCoreApplication>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>

#include <cmath>
#include <limits>
#include <vector>

namespace tpacf::ui {

namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("tpacf::ui::Session", text);
}

// Sessions carry a format tag so an unrelated JSON file is refused with a clear message.
const QString kFormat = QStringLiteral("tpacf-studio-session");
constexpr int kFormatVersion = 1;

QString scaleKey(BinScale scale) {
    return QString::fromLatin1(binScaleKey(scale));
}

QString precisionKey(const std::optional<Precision>& precision) {
    if (!precision)
        return QStringLiteral("auto");
    return QString::fromLatin1(precisionName(*precision));
}

QString methodKey(ErrorSettings::Method method) {
    switch (method) {
    case ErrorSettings::Method::Regions:
        return QStringLiteral("jackknife-regions");
    case ErrorSettings::Method::Column:
        return QStringLiteral("jackknife-column");
    case ErrorSettings::Method::Healpix:
        return QStringLiteral("jackknife-healpix");
    case ErrorSettings::Method::File:
        return QStringLiteral("jackknife-file");
    case ErrorSettings::Method::None:
        break;
    }
    return QStringLiteral("none");
}

} // namespace

JackknifeSettings ErrorSettings::jackknife() const {
    JackknifeSettings settings;
    settings.seed = seed;
    if (method == Method::Regions || method == Method::Healpix)
        settings.regions = regions;
    else if (method == Method::Column)
        settings.regionColumn = regionColumn.toStdString();
    if (method == Method::Healpix)
        settings.healpixNside = healpixNside;
    if (method != Method::None) {
        settings.bootstrapSamples = bootstrapSamples;
        settings.crossRegionWeight = crossRegionWeight;
    }
    return settings;
}

QJsonObject ErrorSettings::toJson() const {
    QJsonObject object;
    object[QStringLiteral("method")] = methodKey(method);
    object[QStringLiteral("regions")] = regions;
    object[QStringLiteral("regionColumn")] = regionColumn;
    object[QStringLiteral("healpixNside")] = healpixNside;
    object[QStringLiteral("bootstrapSamples")] = bootstrapSamples;
    if (crossRegionWeight)
        object[QStringLiteral("crossRegionWeight")] =
            QString::fromUtf8(crossRegionWeightInfo(*crossRegionWeight).key);
    object[QStringLiteral("regionsFile")] = regionsFile;
    // JSON numbers are doubles: a seed beyond 2^53 would not survive as one.
    object[QStringLiteral("seed")] = QString::number(seed);
    return object;
}

ErrorSettings ErrorSettings::fromJson(const QJsonObject& object) {
    ErrorSettings settings;
    const QString method = object.value(QStringLiteral("method")).toString();
    for (Method candidate :
         {Method::None, Method::Regions, Method::Column, Method::Healpix, Method::File})
        if (method == methodKey(candidate))
            settings.method = candidate;
    settings.regions = object.value(QStringLiteral("regions")).toInt(settings.regions);
    settings.regionColumn = object.value(QStringLiteral("regionColumn")).toString();
    settings.regionsFile = object.value(QStringLiteral("regionsFile")).toString();
    // A power of 2 within the core's limit, else the default.
    const int nside = object.value(QStringLiteral("healpixNside")).toInt(settings.healpixNside);
    if (nside >= 1 && nside <= kMaxMaskNside && (nside & (nside - 1)) == 0)
        settings.healpixNside = nside;
    const int bootstrap = object.value(QStringLiteral("bootstrapSamples")).toInt(0);
    if (bootstrap == 0 || (bootstrap >= kMinBootstrapSamples && bootstrap <= kMaxBootstrapSamples))
        settings.bootstrapSamples = bootstrap;
    // An unknown name (a hand-edited session) leaves the method's default.
    settings.crossRegionWeight = parseCrossRegionWeight(
        object.value(QStringLiteral("crossRegionWeight")).toString().toStdString());
    const QJsonValue seed = object.value(QStringLiteral("seed"));
    bool ok = false;
    if (const quint64 parsed = seed.toString().toULongLong(&ok); seed.isString() && ok)
        settings.seed = parsed;
    else if (seed.isDouble() && seed.toDouble() >= 0)
        settings.seed = quint64(seed.toDouble());
    return settings;
}

QJsonObject RunSettings::toJson() const {
    QJsonObject binsObject;
    binsObject[QStringLiteral("scale")] = scaleKey(bins.scale);
    binsObject[QStringLiteral("unit")] = unitLabel(bins.unit);
    binsObject[QStringLiteral("min")] = bins.min;
    binsObject[QStringLiteral("max")] = bins.max;
    binsObject[QStringLiteral("perDecade")] = bins.perDecade;
    binsObject[QStringLiteral("count")] = bins.count;
    binsObject[QStringLiteral("width")] = bins.width;
    if (bins.scale == BinScale::Custom) {
        // Qt writes doubles in their shortest exact form: the edges come back bit for bit.
        QJsonArray edges;
        for (double edge : bins.edges)
            edges.append(edge);
        binsObject[QStringLiteral("edges")] = edges;
    }

    QJsonObject backendObject;
    // "kind" is the key sessions have always used for the backend's name.
    backendObject[QStringLiteral("kind")] = QString::fromStdString(backend.name);
    backendObject[QStringLiteral("precision")] = precisionKey(backend.precision);
    backendObject[QStringLiteral("cpuThreads")] = backend.cpuThreads;
    backendObject[QStringLiteral("culling")] =
        QString::fromLatin1(cullingModeName(backend.culling));
    QJsonArray devices;
    for (int device : backend.gpuDevices)
        devices.append(device);
    backendObject[QStringLiteral("gpuDevices")] = devices;

    QJsonObject object;
    object[QStringLiteral("bins")] = binsObject;
    object[QStringLiteral("estimator")] = QString::fromLatin1(estimatorKey(estimator));
    object[QStringLiteral("backend")] = backendObject;
    object[QStringLiteral("errors")] = errors.toJson();
    object[QStringLiteral("meanTheta")] = meanSeparation;
    object[QStringLiteral("figure")] = figure.toJson();
    return object;
}

RunSettings RunSettings::fromJson(const QJsonObject& object) {
    RunSettings settings;
    const QJsonObject binsObject = object.value(QStringLiteral("bins")).toObject();
    if (!binsObject.isEmpty()) {
        BinSpec& bins = settings.bins;
        bins.scale =
            parseBinScaleKey(binsObject.value(QStringLiteral("scale")).toString().toStdString())
                .value_or(BinScale::Logarithmic);
        if (const auto unit =
                parseAngleUnit(binsObject.value(QStringLiteral("unit")).toString().toStdString()))
            bins.unit = *unit;
        bins.min = binsObject.value(QStringLiteral("min")).toDouble(bins.min);
        bins.max = binsObject.value(QStringLiteral("max")).toDouble(bins.max);
        bins.perDecade = binsObject.value(QStringLiteral("perDecade")).toDouble(0);
        bins.count = binsObject.value(QStringLiteral("count")).toInt(0);
        bins.width = binsObject.value(QStringLiteral("width")).toDouble(0);
        if (bins.scale == BinScale::Custom) {
            // A non-number entry becomes NaN, so that the binning panel flags it, not a 0.
            std::vector<double> edges;
            for (const QJsonValue& edge : binsObject.value(QStringLiteral("edges")).toArray())
                edges.push_back(edge.isDouble() ? edge.toDouble()
                                                : std::numeric_limits<double>::quiet_NaN());
            bins = BinSpec::fromEdges(std::move(edges), bins.unit);
        }
    }
    if (const auto estimator =
            parseEstimator(object.value(QStringLiteral("estimator")).toString().toStdString()))
        settings.estimator = *estimator;
    settings.meanSeparation = object.value(QStringLiteral("meanTheta")).toBool(false);

    const QJsonObject backendObject = object.value(QStringLiteral("backend")).toObject();
    // Kept as written: the window's backend panel matches it against the backends it has.
    if (const QString name = backendObject.value(QStringLiteral("kind")).toString().toLower();
        !name.isEmpty())
        settings.backend.name = name.toStdString();
    settings.backend.precision =
        parsePrecision(backendObject.value(QStringLiteral("precision")).toString().toStdString());
    settings.backend.cpuThreads = backendObject.value(QStringLiteral("cpuThreads")).toInt(0);
    if (const auto culling = parseCullingMode(
            backendObject.value(QStringLiteral("culling")).toString().toStdString()))
        settings.backend.culling = *culling;
    for (const QJsonValue& device : backendObject.value(QStringLiteral("gpuDevices")).toArray())
        settings.backend.gpuDevices.push_back(device.toInt());
    settings.errors = ErrorSettings::fromJson(object.value(QStringLiteral("errors")).toObject());
    QString figureProblem;
    if (const auto figure =
            FigureStyle::fromJson(object.value(QStringLiteral("figure")).toObject(), &figureProblem))
        settings.figure = *figure;
    return settings;
}

QJsonObject Session::toJson() const {
    QJsonObject object = settings.toJson();
    object[QStringLiteral("format")] = kFormat;
    object[QStringLiteral("formatVersion")] = kFormatVersion;
    if (data)
        object[QStringLiteral("data")] = data->toJson();
    QJsonArray randomArray;
    for (const CatalogSource& random : randoms)
        randomArray.append(random.toJson());
    object[QStringLiteral("randoms")] = randomArray;
    // The second sample only where there is one: a one-sample session reads as it always did.
    if (data2)
        object[QStringLiteral("data2")] = data2->toJson();
    if (!randoms2.isEmpty()) {
        QJsonArray random2Array;
        for (const CatalogSource& random : randoms2)
            random2Array.append(random.toJson());
        object[QStringLiteral("randoms2")] = random2Array;
    }
    // The results, so that the session reopens showing them without counting again.
    if (!history.isEmpty())
        object[QStringLiteral("history")] = historyToJson(history);
    if (fit) {
        QJsonObject fitObject;
        fitObject[QStringLiteral("thetaMin")] = fit->thetaMin;
        fitObject[QStringLiteral("thetaMax")] = fit->thetaMax;
        fitObject[QStringLiteral("integralConstraint")] = fit->integralConstraint;
        object[QStringLiteral("fit")] = fitObject;
    }
    if (!mask.isEmpty()) {
        QJsonObject maskObject;
        maskObject[QStringLiteral("path")] = mask;
        maskObject[QStringLiteral("threshold")] = maskThreshold;
        object[QStringLiteral("mask")] = maskObject;
    }
    return object;
}

Session Session::fromJson(const QJsonObject& object) {
    Session session;
    session.settings = RunSettings::fromJson(object);
    if (object.contains(QStringLiteral("data")))
        session.data = CatalogSource::fromJson(object.value(QStringLiteral("data")).toObject());
    for (const QJsonValue& random : object.value(QStringLiteral("randoms")).toArray())
        session.randoms.append(CatalogSource::fromJson(random.toObject()));
    if (object.contains(QStringLiteral("data2")))
        session.data2 = CatalogSource::fromJson(object.value(QStringLiteral("data2")).toObject());
    for (const QJsonValue& random : object.value(QStringLiteral("randoms2")).toArray())
        session.randoms2.append(CatalogSource::fromJson(random.toObject()));
    session.history =
        historyFromJson(object.value(QStringLiteral("history")).toArray(), &session.droppedRuns);
    // A fit whose range is not two positive numbers in order is left out (the bar's default).
    if (const QJsonObject fit = object.value(QStringLiteral("fit")).toObject(); !fit.isEmpty()) {
        PowerLawFitOptions options;
        options.thetaMin = fit.value(QStringLiteral("thetaMin")).toDouble(-1);
        options.thetaMax = fit.value(QStringLiteral("thetaMax")).toDouble(-1);
        options.integralConstraint = fit.value(QStringLiteral("integralConstraint")).toBool();
        if (options.thetaMin > 0 && options.thetaMax > options.thetaMin &&
            std::isfinite(options.thetaMax))
            session.fit = options;
    }
    if (const QJsonObject mask = object.value(QStringLiteral("mask")).toObject(); !mask.isEmpty()) {
        session.mask = mask.value(QStringLiteral("path")).toString();
        const double threshold = mask.value(QStringLiteral("threshold")).toDouble(0.0);
        session.maskThreshold = threshold >= 0.0 && threshold <= 1.0 ? threshold : 0.0;
    }
    return session;
}

bool saveSessionFile(const QString& path, const Session& session, QString* error) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        *error = tr("Cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    file.write(QJsonDocument(session.toJson()).toJson(QJsonDocument::Indented));
    if (!file.commit()) {
        *error = tr("Cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

std::optional<Session> loadSessionFile(const QString& path, QString* error) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = tr("Cannot open %1: %2").arg(path, file.errorString());
        return std::nullopt;
    }
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(file.readAll(), &parseError);
    if (document.isNull()) {
        *error = tr("%1 is not valid JSON (offset %2): %3")
                     .arg(path)
                     .arg(parseError.offset)
                     .arg(parseError.errorString());
        return std::nullopt;
    }
    const QJsonObject object = document.object();
    if (object.value(QStringLiteral("format")).toString() != kFormat) {
        *error = tr("%1 is not a TPACF Studio session file").arg(path);
        return std::nullopt;
    }
    return Session::fromJson(object);
}

} // namespace tpacf::ui
