// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The File > Open Recent list: files with the role they were opened in (a recent random catalog
// reopens as a random one, with its column mapping), most recent first, kept in QSettings.
#include "catalog_source.h"

#include <QList>
#include <QObject>
#include <QString>

#include <optional>

class QSettings;

namespace tpacf::ui {

enum class RecentRole { Data, Random, Session };

struct RecentFile {
    RecentRole role = RecentRole::Data;
    CatalogSource source; // for a session, only the path
    bool operator==(const RecentFile&) const = default;
};

class RecentFiles : public QObject {
    Q_OBJECT
public:
    static constexpr int kDefaultLimit = 8;

    explicit RecentFiles(int limit = kDefaultLimit, QObject* parent = nullptr);

    /// Most recent first.
    const QList<RecentFile>& entries() const { return m_entries; }
    int limit() const { return m_limit; }
    /// Puts `entry` (its path made absolute) first; an entry with the same path and role moves
    /// there instead of appearing twice. The oldest entries beyond the limit are dropped.
    void add(const RecentFile& entry);
    void clear();
    /// The menu's text for an entry: file name, then its HDU and row filter where it has them,
    /// then the role ("galaxies.fits [HDU 2, Z>0.4 && Z<0.6] (data)"). A menu shortcut '&' is
    /// the caller's to escape.
    static QString menuText(const RecentFile& entry);

    /// Replaces the list with the one stored in `settings` (also the plain list of paths written
    /// before roles were remembered).
    void restore(QSettings& settings);
    void save(QSettings& settings) const;

    /// The key a role is stored under ("data", "random", "session").
    static QString roleKey(RecentRole role);
    static std::optional<RecentRole> parseRoleKey(const QString& key);

Q_SIGNALS:
    void changed();

private:
    int m_limit;
    QList<RecentFile> m_entries;
};

} // namespace tpacf::ui
