// SPDX-License-Identifier: GPL-3.0-or-later
#include "catalog_loader.h"
#include "catalog_stats.h"

#include <tpacf/errors.h>
#include <tpacf/unit_guess.h>

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
            // The passes over every point the window shows, here rather than on its thread.
            catalogStats(catalogs.back(), sources[i].units());
        } catch (const std::exception& error) {
            if (!cancelled(id))
                Q_EMIT failed(id, explainUnitFailure(id, i, sources[i], error));
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

QString CatalogLoader::explainUnitFailure(quint64 id, int index, const CatalogSource& source,
                                          const std::exception& error) {
    QString message = describeReadError(error);
    const auto* input = dynamic_cast<const InputError*>(&error);
    const std::string_view problem = input ? std::string_view(input->problem()) : "";
    // Only the Dec check: other failures say nothing about the unit.
    if (!problem.starts_with("Dec ") || problem.find(" is outside [") == std::string_view::npos ||
        source.unit == AngleUnit::Arcsecond)
        return message;
    CatalogSource widest = source;
    widest.setUnits({AngleUnit::Arcsecond, false});
    try {
        const std::shared_ptr<const Catalog> catalog = loadCatalog(widest);
        const UnitGuess guess =
            guessCoordinateUnits(CoordinateRanges::of(*catalog, widest.units()));
        if (!guess.differsFrom(source.units()))
            return message;
        const QString reason = QString::fromStdString(guess.reason);
        Q_EMIT unitSuggested(id, index, int(guess.units.unit), guess.units.raInHours, reason);
        return tr("%1. Its values fit %2 (%3); choose the unit in the column dialog "
                  "(Columns… under the catalog list).")
            .arg(message, describeUnits(guess.units), reason);
    } catch (const std::exception&) {
        return message; // beyond arcseconds too: no unit to suggest
    }
}

} // namespace tpacf::ui
