#include "catalog_set.h"

#include <tpacf/output_file.h>

#include <QFile>

#include <limits>

namespace tpacf::ui {

CatalogSet::CatalogSet(QObject* parent) : QObject(parent) {
    // Catalogs are read on a thread of their own, so a large file never freezes the window.
    m_loader = new CatalogLoader;
    m_loader->moveToThread(&m_loaderThread);
    connect(&m_loaderThread, &QThread::finished, m_loader, &QObject::deleteLater);
    connect(m_loader, &CatalogLoader::reading, this, &CatalogSet::onReading, Qt::QueuedConnection);
    connect(m_loader, &CatalogLoader::loaded, this, &CatalogSet::onLoaded, Qt::QueuedConnection);
    connect(m_loader, &CatalogLoader::failed, this, &CatalogSet::onFailed, Qt::QueuedConnection);
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

quint64 CatalogSet::queueChange(CatalogChange change) {
    QList<CatalogSource> sources;
    if (change.data)
        sources.append(*change.data);
    sources += change.randoms;
    if (change.data2)
        sources.append(*change.data2);
    sources += change.randoms2;
    PendingChange pending;
    for (const CatalogSource& source : std::as_const(sources))
        pending.names.append(source.displayName());
    pending.change = std::move(change);
    // Nothing changes until every file of the change is read: the set keeps what it has.
    pending.id = m_loader->load(std::move(sources));
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
    if (change.replaceAll) {
        m_randoms = randoms;
        m_randoms2 = randoms2;
    } else {
        m_randoms += randoms;
        m_randoms2 += randoms2;
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
    Q_EMIT loadingChanged();
    Q_EMIT changeFailed(id, message);
}

} // namespace tpacf::ui
