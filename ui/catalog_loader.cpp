#include "catalog_loader.h"

namespace tpacf::ui {

CatalogLoader::CatalogLoader(QObject* parent) : QObject(parent) {
    qRegisterMetaType<CatalogList>();
}

quint64 CatalogLoader::load(QList<CatalogSource> sources, QString regionColumn) {
    const quint64 id = m_nextId.fetch_add(1);
    QMetaObject::invokeMethod(
        this,
        [this, id, sources = std::move(sources), regionColumn = std::move(regionColumn)] {
            execute(id, sources, regionColumn);
        },
        Qt::QueuedConnection);
    return id;
}

void CatalogLoader::cancelUpTo(quint64 id) noexcept {
    quint64 current = m_cancelledUpTo.load();
    while (current < id && !m_cancelledUpTo.compare_exchange_weak(current, id)) {
    }
}

void CatalogLoader::execute(quint64 id, const QList<CatalogSource>& sources,
                            const QString& regionColumn) {
    CatalogList catalogs;
    for (int i = 0; i < sources.size(); ++i) {
        if (cancelled(id))
            return;
        Q_EMIT reading(id, i);
        try {
            catalogs.append(loadCatalog(sources[i], regionColumn));
        } catch (const std::exception& error) {
            if (!cancelled(id))
                Q_EMIT failed(id, describeReadError(error));
            return;
        } catch (...) {
            if (!cancelled(id))
                Q_EMIT failed(id, tr("%1: the reader stopped with an unknown error.")
                                      .arg(sources[i].displayName()));
            return;
        }
    }
    if (!cancelled(id))
        Q_EMIT loaded(id, catalogs);
}

} // namespace tpacf::ui
