// SPDX-License-Identifier: GPL-3.0-or-later
#include "catalog_set.h"
#include "catalog_stats.h"

#include <tpacf/footprint.h>
#include <tpacf/output_file.h>

#include <QCoreApplication>
#include <QFile>

#include <limits>
#include <mutex>
#include <utility>

namespace tpacf::ui {

CatalogChange CatalogChange::reread(CatalogRole role, int index, const CatalogSource& source) {
    CatalogChange change;
    switch (role) {
    case CatalogRole::Data:
        change.data = source;
        break;
    case CatalogRole::Data2:
        change.data2 = source;
        break;
    case CatalogRole::Random:
        change.randoms = {source};
        change.replaceRandom = index;
        break;
    case CatalogRole::Random2:
        change.randoms2 = {source};
        change.replaceRandom2 = index;
        break;
    }
    return change;
}

QList<CatalogSource> CatalogChange::sources() const {
    QList<CatalogSource> all;
    if (data)
        all.append(*data);
    all += randoms;
    if (data2)
        all.append(*data2);
    all += randoms2;
    return all;
}

CatalogChange UnitFailure::retriedWith(const CatalogSource& replacement) const {
    CatalogChange retried = change;
    int at = fileIndex;
    if (retried.data && at-- == 0) {
        retried.data = replacement;
        return retried;
    }
    if (at < retried.randoms.size()) {
        retried.randoms[at] = replacement;
        return retried;
    }
    at -= int(retried.randoms.size());
    if (retried.data2 && at-- == 0) {
        retried.data2 = replacement;
        return retried;
    }
    if (at >= 0 && at < retried.randoms2.size())
        retried.randoms2[at] = replacement;
    return retried;
}

namespace {

// One sample's comparison: `data` against its randoms.
QString sampleFootprintWarning(const LoadedCatalog& data, const QList<LoadedCatalog>& randoms) {
    // Each catalog's cells as its stats hold them (computed where it was read): a merge here,
    // no pass over 10^7 points on the window's thread.
    std::vector<CatalogStats> randomStats;
    for (const LoadedCatalog& random : randoms)
        if (random.catalog)
            randomStats.push_back(catalogStats(random.catalog, random.source.units()));
    if (!data.catalog || randomStats.empty())
        return {};
    std::vector<const SkyOccupancy*> parts;
    for (const CatalogStats& stats : randomStats)
        parts.push_back(stats.occupancy.get());
    const CatalogStats dataStats = catalogStats(data.catalog, data.source.units());
    const FootprintComparison comparison =
        compareFootprints(*dataStats.occupancy, SkyOccupancy::merged(parts));
    const std::string warning = footprintWarning(comparison);
    if (warning.empty())
        return {};
    return QCoreApplication::translate("tpacf::ui::CatalogSet", "%1 and its randoms: %2.")
        .arg(data.source.displayName(), QString::fromStdString(warning));
}

} // namespace

QString footprintWarningFor(const std::optional<LoadedCatalog>& data,
                            const QList<LoadedCatalog>& randoms,
                            const std::optional<LoadedCatalog>& data2,
                            const QList<LoadedCatalog>& randoms2) {
    // The panel and the run both ask after every change: the last answer, keyed by the catalogs
    // (held weakly, so a freed catalog's address reused by a new one cannot match).
    struct Key {
        std::vector<std::weak_ptr<const Catalog>> catalogs;
        QStringList names;
    };
    static std::mutex mutex;
    static Key lastKey;
    static QString lastWarning;

    Key key;
    const auto add = [&key](const LoadedCatalog& loaded) {
        key.catalogs.push_back(loaded.catalog);
        key.names.append(loaded.source.displayName());
    };
    if (data)
        add(*data);
    key.names.append(QStringLiteral("|"));
    for (const LoadedCatalog& random : randoms)
        add(random);
    key.names.append(QStringLiteral("|"));
    if (data2)
        add(*data2);
    key.names.append(QStringLiteral("|"));
    for (const LoadedCatalog& random : randoms2)
        add(random);
    const auto same = [](const Key& a, const Key& b) {
        if (a.names != b.names || a.catalogs.size() != b.catalogs.size())
            return false;
        for (std::size_t i = 0; i < a.catalogs.size(); ++i) {
            const auto first = a.catalogs[i].lock();
            if (!first || first != b.catalogs[i].lock())
                return false;
        }
        return true;
    };
    {
        const std::lock_guard lock(mutex);
        if (same(key, lastKey))
            return lastWarning;
    }

    QStringList warnings;
    if (data)
        warnings.append(sampleFootprintWarning(*data, randoms));
    if (data2)
        warnings.append(sampleFootprintWarning(*data2, randoms2.isEmpty() ? randoms : randoms2));
    warnings.removeAll(QString());
    const QString warning = warnings.join(QLatin1Char('\n'));
    const std::lock_guard lock(mutex);
    lastKey = std::move(key);
    lastWarning = warning;
    return warning;
}

QString unitWarningFor(const LoadedCatalog& loaded) {
    if (!loaded.catalog || loaded.catalog->empty())
        return {};
    const CoordinateUnits used = loaded.source.units();
    const UnitGuess guess = guessCoordinateUnits(catalogStats(loaded.catalog, used).ranges);
    if (!guess.differsFrom(used))
        return {};
    return QCoreApplication::translate("tpacf::ui::CatalogSet", "%1: read as %2, but %3")
        .arg(loaded.source.displayName(), describeUnits(used), QString::fromStdString(guess.reason));
}

CatalogSet::CatalogSet(QObject* parent) : QObject(parent) {
    // Catalogs are read on a thread of their own, so a large file never freezes the window.
    m_loader = new CatalogLoader;
    m_loader->moveToThread(&m_loaderThread);
    connect(&m_loaderThread, &QThread::finished, m_loader, &QObject::deleteLater);
    connect(m_loader, &CatalogLoader::reading, this, &CatalogSet::onReading, Qt::QueuedConnection);
    connect(m_loader, &CatalogLoader::loaded, this, &CatalogSet::onLoaded, Qt::QueuedConnection);
    connect(m_loader, &CatalogLoader::failed, this, &CatalogSet::onFailed, Qt::QueuedConnection);
    connect(m_loader, &CatalogLoader::unitSuggested, this, &CatalogSet::onUnitSuggested,
            Qt::QueuedConnection);
    m_loaderThread.setObjectName(QStringLiteral("tpacf-catalogs"));
    m_loaderThread.start();
}

CatalogSet::~CatalogSet() {
    // A catalog being read is finished (the readers cannot be interrupted); the loads queued
    // behind it are not.
    m_loader->cancelUpTo(std::numeric_limits<quint64>::max());
    m_loaderThread.quit();
    m_loaderThread.wait();
}

std::shared_ptr<const Catalog> CatalogSet::dataCatalog() const {
    return m_data ? m_data->catalog : nullptr;
}

std::vector<std::shared_ptr<const Catalog>> CatalogSet::randomCatalogs() const {
    std::vector<std::shared_ptr<const Catalog>> randoms;
    for (const LoadedCatalog& random : m_randoms)
        randoms.push_back(random.catalog);
    return randoms;
}

std::shared_ptr<const Catalog> CatalogSet::data2Catalog() const {
    return m_data2 ? m_data2->catalog : nullptr;
}

std::vector<std::shared_ptr<const Catalog>> CatalogSet::random2Catalogs() const {
    std::vector<std::shared_ptr<const Catalog>> randoms;
    for (const LoadedCatalog& random : m_randoms2)
        randoms.push_back(random.catalog);
    return randoms;
}

const CatalogSource* CatalogSet::loadedSourceAt(const QString& path) const {
    QList<const CatalogSource*> loaded;
    if (m_data)
        loaded.append(&m_data->source);
    for (const LoadedCatalog& random : m_randoms)
        loaded.append(&random.source);
    if (m_data2)
        loaded.append(&m_data2->source);
    for (const LoadedCatalog& random : m_randoms2)
        loaded.append(&random.source);
    const std::string target = QFile::encodeName(path).toStdString();
    for (const CatalogSource* source : loaded)
        if (!source->isResource() &&
            sameFile(target, QFile::encodeName(source->path).toStdString()))
            return source;
    return nullptr;
}

const LoadedCatalog* CatalogSet::catalogAt(CatalogRole role, int index) const {
    switch (role) {
    case CatalogRole::Data:
        return m_data ? &*m_data : nullptr;
    case CatalogRole::Data2:
        return m_data2 ? &*m_data2 : nullptr;
    case CatalogRole::Random:
        return index >= 0 && index < m_randoms.size() ? &m_randoms[index] : nullptr;
    case CatalogRole::Random2:
        return index >= 0 && index < m_randoms2.size() ? &m_randoms2[index] : nullptr;
    }
    return nullptr;
}

QString CatalogSet::footprintWarning() const {
    return footprintWarningFor(m_data, m_randoms, m_data2, m_randoms2);
}

QStringList CatalogSet::dataColumnNames() const {
    if (!m_data || m_data->source.isResource())
        return {};
    const CatalogSource& source = m_data->source;
    // The HDU the catalog was read from: its columns, not the first table's.
    const QString path = source.hdu.isEmpty()
                             ? source.path
                             : source.path + QLatin1Char('[') + source.hdu + QLatin1Char(']');
    TablePreview preview;
    try {
        preview = previewCatalogFile(QFile::encodeName(path).toStdString(), 1);
    } catch (const std::exception&) {
        return {}; // moved or changed since it was read: nothing to offer, typing still works
    }
    const CatalogOrigin& origin = m_data->catalog ? m_data->catalog->origin() : CatalogOrigin{};
    QStringList names;
    for (const std::string& name : preview.columnNames) {
        if (name == origin.raColumn || name == origin.decColumn ||
            (!origin.weightColumn.empty() && name == origin.weightColumn))
            continue; // coordinates and weights are no region labels
        const QString text = QString::fromStdString(name).trimmed();
        if (!text.isEmpty() && !names.contains(text))
            names.append(text);
    }
    return names;
}

QStringList CatalogSet::unitWarnings() const {
    QList<const LoadedCatalog*> all;
    if (m_data)
        all.append(&*m_data);
    for (const LoadedCatalog& random : m_randoms)
        all.append(&random);
    if (m_data2)
        all.append(&*m_data2);
    for (const LoadedCatalog& random : m_randoms2)
        all.append(&random);
    QStringList warnings;
    for (const LoadedCatalog* loaded : std::as_const(all))
        if (const QString warning = unitWarningFor(*loaded); !warning.isEmpty())
            warnings.append(warning);
    return warnings;
}

quint64 CatalogSet::queueChange(CatalogChange change) {
    const QList<CatalogSource> sources = change.sources();
    PendingChange pending;
    for (const CatalogSource& source : std::as_const(sources))
        pending.names.append(source.displayName());
    pending.change = std::move(change);
    // Nothing changes until every file of the change is read: the set keeps what it has.
    pending.id = m_loader->load(sources);
    const quint64 id = pending.id;
    m_pending.append(std::move(pending));
    Q_EMIT loadingChanged();
    return id;
}

QList<quint64> CatalogSet::pendingChanges() const {
    QList<quint64> ids;
    for (const PendingChange& pending : m_pending)
        ids.append(pending.id);
    return ids;
}

QString CatalogSet::loadingDescription() const {
    if (m_pending.isEmpty())
        return {};
    const PendingChange& current = m_pending.front();
    int files = 0;
    for (const PendingChange& pending : m_pending)
        files += int(pending.names.size());
    if (current.names.isEmpty())
        return tr("Applying the session…");
    if (files == 1)
        return tr("Reading %1…").arg(current.names.front());
    return tr("Reading %1 (%2 of %3 files)…")
        .arg(current.names.value(current.reading))
        .arg(current.reading + 1)
        .arg(files);
}

bool CatalogSet::removeRandom(int index) {
    if (isLoading() || index < 0 || index >= m_randoms.size())
        return false;
    m_randoms.removeAt(index);
    Q_EMIT catalogsChanged();
    return true;
}

bool CatalogSet::removeRandom2(int index) {
    if (isLoading() || index < 0 || index >= m_randoms2.size())
        return false;
    m_randoms2.removeAt(index);
    Q_EMIT catalogsChanged();
    return true;
}

bool CatalogSet::clearSecondSample() {
    if (isLoading() || !hasSecondSample())
        return false;
    m_data2.reset();
    m_randoms2.clear();
    Q_EMIT catalogsChanged();
    return true;
}

quint64 CatalogSet::readRegionLabels(const QString& column) {
    QList<CatalogSource> sources;
    if (m_data)
        sources.append(m_data->source);
    for (const LoadedCatalog& random : std::as_const(m_randoms))
        sources.append(random.source);
    if (m_data2)
        sources.append(m_data2->source);
    for (const LoadedCatalog& random : std::as_const(m_randoms2))
        sources.append(random.source);
    return m_loader->load(std::move(sources), column);
}

void CatalogSet::cancelRead(quint64 id) {
    m_loader->cancelUpTo(id);
}

void CatalogSet::onReading(quint64 id, int index) {
    for (PendingChange& pending : m_pending)
        if (pending.id == id)
            pending.reading = index;
    Q_EMIT loadingChanged();
}

void CatalogSet::onLoaded(quint64 id, const CatalogList& catalogs) {
    if (m_pending.isEmpty() || m_pending.front().id != id) {
        // Not a queued change: a region-label read (the loader answers in order, so a change
        // is always at the front when its answer comes).
        Q_EMIT regionLabelsRead(id, catalogs);
        return;
    }
    const CatalogChange change = m_pending.takeFirst().change;
    int next = 0;
    std::optional<LoadedCatalog> data;
    if (change.data)
        data = LoadedCatalog{*change.data, catalogs.value(next++)};
    QList<LoadedCatalog> randoms;
    for (const CatalogSource& source : change.randoms)
        randoms.append(LoadedCatalog{source, catalogs.value(next++)});
    std::optional<LoadedCatalog> data2;
    if (change.data2)
        data2 = LoadedCatalog{*change.data2, catalogs.value(next++)};
    QList<LoadedCatalog> randoms2;
    for (const CatalogSource& source : change.randoms2)
        randoms2.append(LoadedCatalog{source, catalogs.value(next++)});
    if (change.replaceAll || data)
        m_data = std::move(data);
    if (change.replaceAll || data2)
        m_data2 = std::move(data2);
    // A reread random keeps its place (and its set number); one whose place is gone is added.
    const auto place = [](QList<LoadedCatalog>& list, QList<LoadedCatalog>& added, int at) {
        if (at >= 0 && at < list.size() && !added.isEmpty())
            list[at] = added.takeFirst();
    };
    if (change.replaceAll) {
        m_randoms = randoms;
        m_randoms2 = randoms2;
    } else {
        place(m_randoms, randoms, change.replaceRandom);
        place(m_randoms2, randoms2, change.replaceRandom2);
        m_randoms += randoms;
        m_randoms2 += randoms2;
    }
    m_pendingUnitFailure.reset();
    if (m_unitFailure) {
        m_unitFailure.reset();
        Q_EMIT unitFailureChanged();
    }
    Q_EMIT loadingChanged();
    Q_EMIT catalogsChanged();
    Q_EMIT changeApplied(id);
}

void CatalogSet::onFailed(quint64 id, const QString& message) {
    if (m_pending.isEmpty() || m_pending.front().id != id) {
        Q_EMIT regionLabelsFailed(id, message);
        return;
    }
    m_pending.removeFirst();
    const bool hadFailure = m_unitFailure.has_value();
    m_unitFailure = std::exchange(m_pendingUnitFailure, std::nullopt);
    if (m_unitFailure && m_unitFailure->change.sources().size() <= m_unitFailure->fileIndex)
        m_unitFailure.reset();
    Q_EMIT loadingChanged();
    Q_EMIT changeFailed(id, message);
    if (hadFailure || m_unitFailure)
        Q_EMIT unitFailureChanged();
}

void CatalogSet::onUnitSuggested(quint64 id, int index, int unit, bool raInHours,
                                 const QString& reason) {
    // Kept until the change's failed() arrives (next in the queue), which makes it current.
    m_pendingUnitFailure.reset();
    if (m_pending.isEmpty() || m_pending.front().id != id)
        return; // a region-label read: not a change the user can retry
    UnitFailure failure;
    failure.change = m_pending.front().change;
    failure.fileIndex = index;
    failure.source = failure.change.sources().value(index);
    failure.suggested = failure.source;
    failure.suggested.setUnits({AngleUnit(unit), raInHours});
    failure.reason = reason;
    m_pendingUnitFailure = std::move(failure);
}

} // namespace tpacf::ui
