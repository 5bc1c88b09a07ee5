// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The catalogs a run uses: one data catalog and any number of random ones, and optionally a second
// sample (a second data catalog and its own randoms) for a cross-correlation, with where each came
// from. Files are read on a thread the set owns (a CatalogLoader), one change after another in
// the order they were queued; a change applies only once all its files are read, so the set
// always holds a complete, consistent state, and a file that cannot be read leaves it as it was.
// The set also says what would make a run's w(θ) wrong without any error: data outside their
// randoms (or randoms over a very different area), and catalogs read in a unit their values do
// not fit (tpacf::compareFootprints, tpacf::guessCoordinateUnits).
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

/// Where a catalog sits in the set.
enum class CatalogRole { Data, Random, Data2, Random2 };

/// A change of the set that waits for its files to be read.
struct CatalogChange {
    /// Every catalog is replaced (a session, the sample): the data, all randoms and the second
    /// sample (none where data2 is unset).
    bool replaceAll = false;
    std::optional<CatalogSource> data;
    QList<CatalogSource> randoms;       // added (replacing all randoms with replaceAll)
    std::optional<CatalogSource> data2; // the second sample's data catalog, replaced
    QList<CatalogSource> randoms2;      // its randoms, added (replacing all with replaceAll)
    /// ≥ 0: randoms[0] takes the place of the random catalog at this index (the same file read
    /// again with other columns or unit) instead of being added; ignored with replaceAll.
    int replaceRandom = -1;
    int replaceRandom2 = -1; // the same for randoms2[0]

    /// The change that reads the catalog at `role` / `index` again from `source` (its columns,
    /// unit or HDU changed), keeping its place in the set.
    static CatalogChange reread(CatalogRole role, int index, const CatalogSource& source);
    /// The sources in the order they are read: data, randoms, data2, randoms2.
    QList<CatalogSource> sources() const;
};

/// A change that failed on a file whose values fit another unit than the one it was read in
/// ("Dec 960.6 deg is outside [-90, 90]" for a file in arcminutes).
struct UnitFailure {
    CatalogChange change;    ///< the change that failed
    int fileIndex = 0;       ///< its file at fault, in change.sources() order
    CatalogSource source;    ///< that file's source, as it was read
    CatalogSource suggested; ///< the same in the units its values suggest
    QString reason;          ///< "|Dec| up to 960.6 is beyond 90 but within 5400: arcmin?"

    /// The failed change with its file read from `replacement` instead.
    CatalogChange retriedWith(const CatalogSource& replacement) const;
};

/// Why these catalogs would give a wrong w(θ): per sample, the data compared with the randoms
/// (the second sample's own, or the first's where it has none) on a coarse equal-area grid,
/// from at most 200,000 points of each side; one line per sample at fault, empty when they
/// agree (or a side is missing). The last answer is kept, so asking again for the same
/// catalogs costs nothing (GUI thread only).
QString footprintWarningFor(const std::optional<LoadedCatalog>& data,
                            const QList<LoadedCatalog>& randoms,
                            const std::optional<LoadedCatalog>& data2 = std::nullopt,
                            const QList<LoadedCatalog>& randoms2 = {});
/// "a.txt: read as deg, but all |Dec| ≤ π/2 and RA within [0, 2π]: radians?" where the
/// catalog's values (converted back to its file's unit) suggest another unit; empty otherwise.
QString unitWarningFor(const LoadedCatalog& loaded);

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
    /// The catalog at `role` / `index`; nullptr where there is none.
    const LoadedCatalog* catalogAt(CatalogRole role, int index) const;

    /// What to tell the user before a run: footprintWarningFor the loaded catalogs (data
    /// outside their randoms, or randoms over a very different area), one line per sample;
    /// empty when they agree. Cheap after the first call for the same catalogs.
    QString footprintWarning() const;
    /// The columns of the data catalog's file (header names, or a FITS table's columns) other
    /// than those read as RA, Dec and weight: the candidates for a jackknife region column.
    /// Empty without data, for the bundled sample, a file without a header or one that can no
    /// longer be read. Reads the file's first lines: call it when the catalogs change.
    QStringList dataColumnNames() const;
    /// unitWarningFor each loaded catalog that has one, in list order.
    QStringList unitWarnings() const;
    /// The last change that failed on a file whose values fit another unit, until a change
    /// applies (or another fails); nullopt otherwise.
    const std::optional<UnitFailure>& unitFailure() const { return m_unitFailure; }

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
    /// unitFailure() changed (set by a failed change, cleared by one that applied).
    void unitFailureChanged();

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
    void onUnitSuggested(quint64 id, int index, int unit, bool raInHours, const QString& reason);

    QThread m_loaderThread;
    CatalogLoader* m_loader = nullptr;
    QList<PendingChange> m_pending; // in the order the loader answers them
    std::optional<LoadedCatalog> m_data;
    QList<LoadedCatalog> m_randoms;
    std::optional<LoadedCatalog> m_data2;
    QList<LoadedCatalog> m_randoms2;
    std::optional<UnitFailure> m_unitFailure;
    std::optional<UnitFailure> m_pendingUnitFailure; // told by the loader, before its failed()
};

} // namespace tpacf::ui

Q_DECLARE_METATYPE(tpacf::ui::CatalogChange)
