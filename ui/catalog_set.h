#pragma once
// The catalogs a run uses: one data catalog and any number of random ones, and optionally a second
// sample (a second data catalog and its own randoms) for a cross-correlation, with where each came
// from. Files are read on a thread the set owns (a CatalogLoader), one change after another in
// the order they were queued; a change applies only once all its files are read, so the set
// always holds a complete, consistent state, and a file that cannot be read leaves it as it was.
#include "catalog_loader.h"
#include "catalog_source.h"

#include <QList>
#include <QObject>
#include <QThread>

#include <memory>
#include <optional>
#include <vector>

namespace tpacf::ui {

struct LoadedCatalog {
    CatalogSource source;
    std::shared_ptr<const Catalog> catalog;
};

/// A change of the set that waits for its files to be read.
struct CatalogChange {
    /// Every catalog is replaced (a session, the sample): the data, all randoms and the second
    /// sample (none where data2 is unset).
    bool replaceAll = false;
    std::optional<CatalogSource> data;
    QList<CatalogSource> randoms;       // added (replacing all randoms with replaceAll)
    std::optional<CatalogSource> data2; // the second sample's data catalog, replaced
    QList<CatalogSource> randoms2;      // its randoms, added (replacing all with replaceAll)
};

class CatalogSet : public QObject {
    Q_OBJECT
public:
    explicit CatalogSet(QObject* parent = nullptr);
    ~CatalogSet() override;

    const std::optional<LoadedCatalog>& data() const { return m_data; }
    const QList<LoadedCatalog>& randoms() const { return m_randoms; }
    std::shared_ptr<const Catalog> dataCatalog() const;
    std::vector<std::shared_ptr<const Catalog>> randomCatalogs() const;
    /// The second sample (cross-correlation): its data catalog and its own randoms. No data2:
    /// one sample (an auto-correlation).
    const std::optional<LoadedCatalog>& data2() const { return m_data2; }
    const QList<LoadedCatalog>& randoms2() const { return m_randoms2; }
    std::shared_ptr<const Catalog> data2Catalog() const;
    std::vector<std::shared_ptr<const Catalog>> random2Catalogs() const;
    bool hasSecondSample() const { return m_data2.has_value() || !m_randoms2.isEmpty(); }
    /// Whether a path names one of the loaded catalogs' files (not the bundled sample).
    const CatalogSource* loadedSourceAt(const QString& path) const;

    /// Queues reading `change`'s files; returns its id. changeApplied(id) or changeFailed(id)
    /// answers it, in the order the changes were queued.
    quint64 queueChange(CatalogChange change);
    /// Whether changes wait for their files.
    bool isLoading() const { return !m_pending.isEmpty(); }
    /// Ids of the changes waiting, oldest first.
    QList<quint64> pendingChanges() const;
    /// What is being read, for a status line ("Reading a.txt (2 of 3 files)…"); empty when idle.
    QString loadingDescription() const;

    /// Immediate; false (nothing removed) while a change is loading or `index` is out of range.
    bool removeRandom(int index);
    /// The same for a random catalog of the second sample.
    bool removeRandom2(int index);
    /// Drops the second sample (data2 and its randoms); immediate, false while loading or when
    /// there is none.
    bool clearSecondSample();

    /// Reads the loaded catalogs' files again with jackknife region labels from `column`, off the
    /// GUI thread; answered by regionLabelsRead(id, data + randoms + data2 + randoms2, in that
    /// order, the last two where loaded) or regionLabelsFailed(id).
    /// Does not change the set.
    quint64 readRegionLabels(const QString& column);
    /// Drops a region-label read (and anything queued before it); it answers nothing more.
    void cancelRead(quint64 id);

Q_SIGNALS:
    /// The loaded catalogs changed (a change applied, a random removed, the second sample dropped).
    void catalogsChanged();
    /// Change `id` applied: its catalogs are now the set's (catalogsChanged() came first).
    void changeApplied(quint64 id);
    /// Change `id` failed: the set is as it was. `message` names the file (and line) at fault.
    void changeFailed(quint64 id, const QString& message);
    /// The queue or the file being read changed: isLoading() and loadingDescription().
    void loadingChanged();
    void regionLabelsRead(quint64 id, const tpacf::ui::CatalogList& catalogs);
    void regionLabelsFailed(quint64 id, const QString& message);

private:
    struct PendingChange {
        quint64 id = 0;
        CatalogChange change;
        QStringList names; // display names of the files, in reading order
        int reading = 0;   // index of the file being read
    };

    void onReading(quint64 id, int index);
    void onLoaded(quint64 id, const CatalogList& catalogs);
    void onFailed(quint64 id, const QString& message);

    QThread m_loaderThread;
    CatalogLoader* m_loader = nullptr;
    QList<PendingChange> m_pending; // in the order the loader answers them
    std::optional<LoadedCatalog> m_data;
    QList<LoadedCatalog> m_randoms;
    std::optional<LoadedCatalog> m_data2;
    QList<LoadedCatalog> m_randoms2;
};

} // namespace tpacf::ui
