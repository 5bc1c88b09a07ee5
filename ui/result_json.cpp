// SPDX-License-Identifier: GPL-3.0-or-later
#include "result_json.h"

#include "session.h"

#include <QJsonArray>

#include <cmath>

namespace tpacf::ui {

namespace {

// JSON has no NaN or infinity (Qt writes null, which reads back as 0): those go as text.
QJsonValue number(double value) {
    if (std::isfinite(value))
        return value;
    return std::isnan(value) ? QStringLiteral("nan") : value > 0 ? QStringLiteral("inf")
                                                                   : QStringLiteral("-inf");
}

double numberOf(const QJsonValue& value) {
    if (value.isString()) {
        const QString text = value.toString();
        if (text == QLatin1String("inf"))
            return std::numeric_limits<double>::infinity();
        if (text == QLatin1String("-inf"))
            return -std::numeric_limits<double>::infinity();
        return std::nan("");
    }
    return value.toDouble(std::nan(""));
}

// Counts beyond 2^53 are not doubles: as decimal text.
QJsonValue count(std::uint64_t value) {
    if (value <= (std::uint64_t(1) << 53))
        return qint64(value);
    return QString::number(value);
}

std::uint64_t countOf(const QJsonValue& value) {
    if (value.isString())
        return value.toString().toULongLong();
    return std::uint64_t(value.toInteger());
}

template <typename T> QJsonArray array(const std::vector<T>& values) {
    QJsonArray out;
    for (const T& value : values) {
        if constexpr (std::is_same_v<T, std::uint64_t>)
            out.append(count(value));
        else
            out.append(number(value));
    }
    return out;
}

template <typename T> QJsonArray arrays(const std::vector<std::vector<T>>& lists) {
    QJsonArray out;
    for (const auto& list : lists)
        out.append(array(list));
    return out;
}

std::vector<double> doublesOf(const QJsonValue& value) {
    std::vector<double> values;
    for (const QJsonValue& item : value.toArray())
        values.push_back(numberOf(item));
    return values;
}

std::vector<std::uint64_t> countsOf(const QJsonValue& value) {
    std::vector<std::uint64_t> values;
    for (const QJsonValue& item : value.toArray())
        values.push_back(countOf(item));
    return values;
}

template <typename T, typename Read>
std::vector<std::vector<T>> listsOf(const QJsonValue& value, Read read) {
    std::vector<std::vector<T>> lists;
    for (const QJsonValue& item : value.toArray())
        lists.push_back(read(item));
    return lists;
}

QJsonArray strings(const std::vector<std::string>& values) {
    QJsonArray out;
    for (const std::string& value : values)
        out.append(QString::fromStdString(value));
    return out;
}

std::vector<std::string> stringsOf(const QJsonValue& value) {
    std::vector<std::string> out;
    for (const QJsonValue& item : value.toArray())
        out.push_back(item.toString().toStdString());
    return out;
}

QJsonObject input(const InputSummary& summary) {
    QJsonObject object;
    object[QStringLiteral("name")] = QString::fromStdString(summary.name);
    object[QStringLiteral("size")] = count(summary.size);
    object[QStringLiteral("weighted")] = summary.weighted;
    object[QStringLiteral("weightSum")] = number(summary.weightSum);
    object[QStringLiteral("weightSquareSum")] = number(summary.weightSquareSum);
    object[QStringLiteral("negativeWeights")] = count(summary.negativeWeights);
    object[QStringLiteral("fingerprint")] = QString::fromStdString(summary.fingerprint);
    return object;
}

InputSummary inputOf(const QJsonValue& value) {
    const QJsonObject object = value.toObject();
    InputSummary summary;
    summary.name = object.value(QStringLiteral("name")).toString().toStdString();
    summary.size = countOf(object.value(QStringLiteral("size")));
    summary.weighted = object.value(QStringLiteral("weighted")).toBool();
    summary.weightSum = numberOf(object.value(QStringLiteral("weightSum")));
    summary.weightSquareSum = numberOf(object.value(QStringLiteral("weightSquareSum")));
    summary.negativeWeights = countOf(object.value(QStringLiteral("negativeWeights")));
    summary.fingerprint = object.value(QStringLiteral("fingerprint")).toString().toStdString();
    return summary;
}

QJsonObject weights(const WeightSums& sums) {
    return {{QStringLiteral("sum"), number(sums.sum)},
            {QStringLiteral("sumSquares"), number(sums.sumSquares)}};
}

WeightSums weightsOf(const QJsonValue& value) {
    return {numberOf(value[QStringLiteral("sum")]), numberOf(value[QStringLiteral("sumSquares")])};
}

} // namespace

QJsonObject resultToJson(const CorrelationResult& result) {
    QJsonObject object;
    RunSettings settings;
    settings.bins = result.bins;
    object[QStringLiteral("bins")] = settings.toJson().value(QStringLiteral("bins"));
    object[QStringLiteral("edges")] = array(result.edges);
    object[QStringLiteral("centres")] = array(result.centres);
    const RawCounts& raw = result.raw;
    QJsonObject counts;
    counts[QStringLiteral("dd")] = array(raw.dd);
    counts[QStringLiteral("dr")] = arrays(raw.dr);
    counts[QStringLiteral("rr")] = arrays(raw.rr);
    counts[QStringLiteral("rd")] = arrays(raw.rd);
    counts[QStringLiteral("dataSize")] = count(raw.dataSize);
    counts[QStringLiteral("randomSizes")] = array(raw.randomSizes);
    counts[QStringLiteral("cross")] = raw.cross;
    counts[QStringLiteral("data2Size")] = count(raw.data2Size);
    counts[QStringLiteral("random2Sizes")] = array(raw.random2Sizes);
    counts[QStringLiteral("weighted")] = raw.weighted;
    if (raw.weighted) {
        counts[QStringLiteral("ddWeighted")] = array(raw.ddWeighted);
        counts[QStringLiteral("drWeighted")] = arrays(raw.drWeighted);
        counts[QStringLiteral("rdWeighted")] = arrays(raw.rdWeighted);
        counts[QStringLiteral("rrWeighted")] = arrays(raw.rrWeighted);
        counts[QStringLiteral("dataWeights")] = weights(raw.dataWeights);
        counts[QStringLiteral("data2Weights")] = weights(raw.data2Weights);
        QJsonArray randomWeights, random2Weights;
        for (const WeightSums& sums : raw.randomWeights)
            randomWeights.append(weights(sums));
        for (const WeightSums& sums : raw.random2Weights)
            random2Weights.append(weights(sums));
        counts[QStringLiteral("randomWeights")] = randomWeights;
        counts[QStringLiteral("random2Weights")] = random2Weights;
    }
    object[QStringLiteral("counts")] = counts;
    QJsonObject normalised;
    normalised[QStringLiteral("dd")] = array(result.normalised.dd);
    normalised[QStringLiteral("dr")] = array(result.normalised.dr);
    normalised[QStringLiteral("rr")] = array(result.normalised.rr);
    normalised[QStringLiteral("rd")] = array(result.normalised.rd);
    object[QStringLiteral("normalised")] = normalised;
    object[QStringLiteral("w")] = array(result.w);
    object[QStringLiteral("estimator")] = QString::fromLatin1(estimatorKey(result.estimator));
    object[QStringLiteral("backend")] = QString::fromStdString(result.backendName);
    object[QStringLiteral("device")] = QString::fromStdString(result.deviceDescription);
    object[QStringLiteral("precision")] = QString::fromLatin1(precisionName(result.precision));
    object[QStringLiteral("precisionChoice")] = QString::fromStdString(result.precisionChoice);
    object[QStringLiteral("backendNotice")] = QString::fromStdString(result.backendNotice);
    object[QStringLiteral("cullingRequested")] =
        QString::fromLatin1(cullingModeName(result.cullingRequested));
    object[QStringLiteral("culled")] = result.culled;
    object[QStringLiteral("elapsedSeconds")] = number(result.elapsedSeconds);
    object[QStringLiteral("invocation")] = QString::fromStdString(result.invocation);
    object[QStringLiteral("data")] = input(result.data);
    QJsonArray randoms, randoms2;
    for (const InputSummary& summary : result.randoms)
        randoms.append(input(summary));
    for (const InputSummary& summary : result.randoms2)
        randoms2.append(input(summary));
    object[QStringLiteral("randoms")] = randoms;
    if (result.isCross()) {
        object[QStringLiteral("data2")] = input(result.data2);
        object[QStringLiteral("randoms2")] = randoms2;
    }
    object[QStringLiteral("notes")] = strings(result.notes);
    object[QStringLiteral("reusedCounts")] = strings(result.reusedCounts);
    if (result.hasJackknife()) {
        QJsonObject jackknife;
        jackknife[QStringLiteral("wError")] = array(result.wError);
        jackknife[QStringLiteral("covariance")] = array(result.covariance);
        jackknife[QStringLiteral("regions")] = result.jackknifeRegions.count;
        jackknife[QStringLiteral("method")] =
            QString::fromStdString(result.jackknifeRegions.method);
        jackknife[QStringLiteral("dataPerRegion")] = array(result.jackknifeRegions.dataPerRegion);
        jackknife[QStringLiteral("randomPerRegion")] =
            array(result.jackknifeRegions.randomPerRegion);
        jackknife[QStringLiteral("warnings")] = strings(result.jackknifeRegions.warnings);
        // How the regions were assigned, to draw their map again (as text: a 64-bit seed).
        const JackknifeSettings& assigned = result.jackknifeRegions.settings;
        jackknife[QStringLiteral("assignedRegions")] = assigned.regions;
        jackknife[QStringLiteral("seed")] = QString::number(assigned.seed);
        if (!assigned.regionColumn.empty())
            jackknife[QStringLiteral("regionColumn")] =
                QString::fromStdString(assigned.regionColumn);
        if (assigned.healpixNside > 0)
            jackknife[QStringLiteral("healpixNside")] = qint64(assigned.healpixNside);
        if (assigned.crossRegionWeight)
            jackknife[QStringLiteral("crossRegionWeight")] =
                QString::fromUtf8(crossRegionWeightInfo(*assigned.crossRegionWeight).key);
        // A bootstrap's σ: the regions each sample drew, so that a reopened run says so.
        if (result.hasBootstrap()) {
            QJsonArray selections;
            for (const auto& selection : result.bootstrapSelections) {
                QJsonArray regions;
                for (const std::uint32_t region : selection)
                    regions.append(qint64(region));
                selections.append(regions);
            }
            jackknife[QStringLiteral("bootstrapSelections")] = selections;
            jackknife[QStringLiteral("bootstrapSeed")] = QString::number(assigned.bootstrapSeed);
        }
        object[QStringLiteral("jackknife")] = jackknife;
    }
    if (!result.meanSeparations.empty()) {
        QJsonArray means;
        for (const MeanSeparation& mean : result.meanSeparations) {
            QJsonObject entry;
            entry[QStringLiteral("label")] = QString::fromStdString(mean.label);
            entry[QStringLiteral("theta")] = array(mean.theta);
            entry[QStringLiteral("logTheta")] = array(mean.logTheta);
            entry[QStringLiteral("pairs")] = array(mean.pairs);
            means.append(entry);
        }
        object[QStringLiteral("meanTheta")] = means;
    }
    return object;
}

ResultPtr resultFromJson(const QJsonObject& object, QString* problem) {
    auto result = std::make_shared<CorrelationResult>();
    result->bins = RunSettings::fromJson(
                       QJsonObject{{QStringLiteral("bins"), object.value(QStringLiteral("bins"))}})
                       .bins;
    result->edges = doublesOf(object.value(QStringLiteral("edges")));
    result->centres = doublesOf(object.value(QStringLiteral("centres")));
    const QJsonObject counts = object.value(QStringLiteral("counts")).toObject();
    RawCounts& raw = result->raw;
    raw.dd = countsOf(counts.value(QStringLiteral("dd")));
    raw.dr = listsOf<std::uint64_t>(counts.value(QStringLiteral("dr")), countsOf);
    raw.rr = listsOf<std::uint64_t>(counts.value(QStringLiteral("rr")), countsOf);
    raw.rd = listsOf<std::uint64_t>(counts.value(QStringLiteral("rd")), countsOf);
    raw.dataSize = countOf(counts.value(QStringLiteral("dataSize")));
    raw.randomSizes = countsOf(counts.value(QStringLiteral("randomSizes")));
    raw.cross = counts.value(QStringLiteral("cross")).toBool();
    raw.data2Size = countOf(counts.value(QStringLiteral("data2Size")));
    raw.random2Sizes = countsOf(counts.value(QStringLiteral("random2Sizes")));
    raw.weighted = counts.value(QStringLiteral("weighted")).toBool();
    if (raw.weighted) {
        raw.ddWeighted = doublesOf(counts.value(QStringLiteral("ddWeighted")));
        raw.drWeighted = listsOf<double>(counts.value(QStringLiteral("drWeighted")), doublesOf);
        raw.rdWeighted = listsOf<double>(counts.value(QStringLiteral("rdWeighted")), doublesOf);
        raw.rrWeighted = listsOf<double>(counts.value(QStringLiteral("rrWeighted")), doublesOf);
        raw.dataWeights = weightsOf(counts.value(QStringLiteral("dataWeights")));
        raw.data2Weights = weightsOf(counts.value(QStringLiteral("data2Weights")));
        for (const QJsonValue& sums : counts.value(QStringLiteral("randomWeights")).toArray())
            raw.randomWeights.push_back(weightsOf(sums));
        for (const QJsonValue& sums : counts.value(QStringLiteral("random2Weights")).toArray())
            raw.random2Weights.push_back(weightsOf(sums));
    }
    const QJsonObject normalised = object.value(QStringLiteral("normalised")).toObject();
    result->normalised.dd = doublesOf(normalised.value(QStringLiteral("dd")));
    result->normalised.dr = doublesOf(normalised.value(QStringLiteral("dr")));
    result->normalised.rr = doublesOf(normalised.value(QStringLiteral("rr")));
    result->normalised.rd = doublesOf(normalised.value(QStringLiteral("rd")));
    result->normalised.cross = raw.cross;
    result->w = doublesOf(object.value(QStringLiteral("w")));
    if (const auto estimator =
            parseEstimator(object.value(QStringLiteral("estimator")).toString().toStdString()))
        result->estimator = *estimator;
    result->backendName = object.value(QStringLiteral("backend")).toString().toStdString();
    result->deviceDescription = object.value(QStringLiteral("device")).toString().toStdString();
    if (const auto precision =
            parsePrecision(object.value(QStringLiteral("precision")).toString().toStdString()))
        result->precision = *precision;
    result->precisionChoice =
        object.value(QStringLiteral("precisionChoice")).toString().toStdString();
    result->backendNotice = object.value(QStringLiteral("backendNotice")).toString().toStdString();
    if (const auto culling = parseCullingMode(
            object.value(QStringLiteral("cullingRequested")).toString().toStdString()))
        result->cullingRequested = *culling;
    result->culled = object.value(QStringLiteral("culled")).toBool();
    result->elapsedSeconds = numberOf(object.value(QStringLiteral("elapsedSeconds")));
    result->invocation = object.value(QStringLiteral("invocation")).toString().toStdString();
    result->data = inputOf(object.value(QStringLiteral("data")));
    for (const QJsonValue& summary : object.value(QStringLiteral("randoms")).toArray())
        result->randoms.push_back(inputOf(summary));
    if (raw.cross) {
        result->data2 = inputOf(object.value(QStringLiteral("data2")));
        for (const QJsonValue& summary : object.value(QStringLiteral("randoms2")).toArray())
            result->randoms2.push_back(inputOf(summary));
    }
    result->notes = stringsOf(object.value(QStringLiteral("notes")));
    result->reusedCounts = stringsOf(object.value(QStringLiteral("reusedCounts")));
    if (object.contains(QStringLiteral("jackknife"))) {
        const QJsonObject jackknife = object.value(QStringLiteral("jackknife")).toObject();
        result->wError = doublesOf(jackknife.value(QStringLiteral("wError")));
        result->covariance = doublesOf(jackknife.value(QStringLiteral("covariance")));
        result->jackknifeRegions.count = jackknife.value(QStringLiteral("regions")).toInt();
        result->jackknifeRegions.method =
            jackknife.value(QStringLiteral("method")).toString().toStdString();
        result->jackknifeRegions.dataPerRegion =
            countsOf(jackknife.value(QStringLiteral("dataPerRegion")));
        result->jackknifeRegions.randomPerRegion =
            countsOf(jackknife.value(QStringLiteral("randomPerRegion")));
        result->jackknifeRegions.warnings =
            stringsOf(jackknife.value(QStringLiteral("warnings")));
        // Results saved before these keys: no settings (their map is not drawn again).
        JackknifeSettings& assigned = result->jackknifeRegions.settings;
        assigned.regions = jackknife.value(QStringLiteral("assignedRegions")).toInt();
        assigned.seed = jackknife.value(QStringLiteral("seed")).toString().toULongLong();
        assigned.regionColumn =
            jackknife.value(QStringLiteral("regionColumn")).toString().toStdString();
        assigned.healpixNside = jackknife.value(QStringLiteral("healpixNside")).toInteger();
        assigned.crossRegionWeight = parseCrossRegionWeight(
            jackknife.value(QStringLiteral("crossRegionWeight")).toString().toStdString());
        for (const QJsonValue& selection :
             jackknife.value(QStringLiteral("bootstrapSelections")).toArray()) {
            std::vector<std::uint32_t> regions;
            for (const QJsonValue& region : selection.toArray())
                if (const qint64 r = region.toInteger(-1); r >= 0 && r < result->jackknifeRegions.count)
                    regions.push_back(std::uint32_t(r));
            result->bootstrapSelections.push_back(std::move(regions));
        }
        if (!result->bootstrapSelections.empty()) {
            assigned.bootstrapSamples = int(result->bootstrapSelections.size());
            assigned.bootstrapSeed =
                jackknife.value(QStringLiteral("bootstrapSeed")).toString().toULongLong();
        }
    }
    for (const QJsonValue& value : object.value(QStringLiteral("meanTheta")).toArray()) {
        const QJsonObject entry = value.toObject();
        result->meanSeparations.push_back(
            {entry.value(QStringLiteral("label")).toString().toStdString(),
             doublesOf(entry.value(QStringLiteral("theta"))),
             doublesOf(entry.value(QStringLiteral("logTheta"))),
             countsOf(entry.value(QStringLiteral("pairs")))});
    }
    // Every per-bin list must match the bins, or the plots and the table would index past them.
    const std::size_t bins = result->centres.size();
    const auto sized = [&](std::size_t size) { return size == bins; };
    bool ok = bins > 0 && result->edges.size() == bins + 1 && sized(raw.dd.size()) &&
              sized(result->w.size()) && sized(result->normalised.dd.size()) &&
              sized(result->normalised.dr.size()) && sized(result->normalised.rr.size()) &&
              (result->wError.empty() || sized(result->wError.size())) &&
              (result->covariance.empty() || result->covariance.size() == bins * bins);
    for (const auto* perSet : {&raw.dr, &raw.rr, &raw.rd})
        for (const PairCounts& counts : *perSet)
            ok = ok && sized(counts.size());
    for (const MeanSeparation& mean : result->meanSeparations)
        ok = ok && sized(mean.theta.size()) && sized(mean.logTheta.size()) &&
             sized(mean.pairs.size()) && !mean.label.empty();
    if (!ok) {
        *problem = QObject::tr("the saved result is incomplete (its lists do not match its %1 "
                               "bins)")
                       .arg(bins);
        return nullptr;
    }
    return result;
}

} // namespace tpacf::ui
