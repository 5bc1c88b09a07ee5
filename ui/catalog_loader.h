// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Reads catalogs off the GUI thread. The owner moves a CatalogLoader to a QThread; each load()
// is read there, in order, and answered by one queued signal, so a file of millions of rows
// never freezes the window.
#include "catalog_source.h"

#include <QList>
#include <QMetaType>
#include <QObject>
#include <QString>

#include <atomic>
#include <memory>

namespace tpacf::ui {

using CatalogList = QList<std::shared_ptr<const Catalog>>;

class CatalogLoader : public QObject {
    Q_OBJECT
public:
    explicit CatalogLoader(QObject* parent = nullptr);

    /// Thread-safe. Queues reading `sources` in order (with jackknife region labels from
    /// `regionColumn` where it is not empty) and returns the request's id (never 0). The answer
    /// is loaded() with one catalog per source, or failed() at the first file that cannot be read.
    quint64 load(QList<CatalogSource> sources, QString regionColumn = {});
    /// Thread-safe. Requests up to `id` stop before their next file and answer nothing more (the
    /// file being read is finished: the readers cannot be interrupted).
    void cancelUpTo(quint64 id) noexcept;

Q_SIGNALS:
    /// Source `index` of request `id` is being read now.
    void reading(quint64 id, int index);
    void loaded(quint64 id, const tpacf::ui::CatalogList& catalogs);
    /// `message` names file, line and column where the reader knows them.
    void failed(quint64 id, const QString& message);
    /// Before failed(id): source `index` failed the Dec range check, and read in the widest unit
    /// its values suggest `unit` (a tpacf::AngleUnit) and `raInHours`, because of `reason`.
    void unitSuggested(quint64 id, int index, int unit, bool raInHours, const QString& reason);

private:
    void execute(quint64 id, const QList<CatalogSource>& sources, const QString& regionColumn);
    /// After `error` on `source` (index `index` of request `id`): where the error is the Dec
    /// range check, reads the file again in arcseconds (which hold any Dec up to 324000) to see
    /// every value, and says the unit they suggest (unitSuggested); the message to fail with.
    QString explainUnitFailure(quint64 id, int index, const CatalogSource& source,
                               const std::exception& error);
    bool cancelled(quint64 id) const noexcept { return id <= m_cancelledUpTo.load(); }

    std::atomic<quint64> m_nextId{1};
    std::atomic<quint64> m_cancelledUpTo{0};
};

} // namespace tpacf::ui

Q_DECLARE_METATYPE(tpacf::ui::CatalogList)
