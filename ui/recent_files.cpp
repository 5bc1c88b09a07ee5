// SPDX-License-Identifier: GPL-3.0-or-later
#include "recent_files.h"

#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSettings>
#include <QStringList>

namespace tpacf::ui {

namespace {

const QString kArrayKey = QStringLiteral("recent");
// The list before roles were remembered: plain paths, sessions told apart by their suffix.
const QString kLegacyKey = QStringLiteral("recentFiles");

RecentFile recentFromPath(const QString& path) {
    const bool session = path.endsWith(QStringLiteral(".json"), Qt::CaseInsensitive);
    return {session ? RecentRole::Session : RecentRole::Data, CatalogSource{path}};
}

} // namespace

RecentFiles::RecentFiles(int limit, QObject* parent) : QObject(parent), m_limit(qMax(1, limit)) {}

QString RecentFiles::roleKey(RecentRole role) {
    switch (role) {
    case RecentRole::Data:
        return QStringLiteral("data");
    case RecentRole::Random:
        return QStringLiteral("random");
    case RecentRole::Session:
        return QStringLiteral("session");
    }
    return QStringLiteral("data");
}

std::optional<RecentRole> RecentFiles::parseRoleKey(const QString& key) {
    for (auto role : {RecentRole::Data, RecentRole::Random, RecentRole::Session})
        if (key == roleKey(role))
            return role;
    return std::nullopt;
}

void RecentFiles::add(const RecentFile& entry) {
    RecentFile recent = entry;
    recent.source.path = QFileInfo(entry.source.path).absoluteFilePath();
    // One entry per file, role, HDU and row filter: a file opened as data and as random
    // appears twice, and so does a FITS table read in two redshift slices (each reopens with
    // its own filter); reopened with other columns or units, it takes the newest.
    m_entries.removeIf([&recent](const RecentFile& other) {
        return other.role == recent.role && other.source.path == recent.source.path &&
               other.source.hdu == recent.source.hdu &&
               other.source.rowFilter == recent.source.rowFilter;
    });
    m_entries.prepend(recent);
    while (m_entries.size() > m_limit)
        m_entries.removeLast();
    Q_EMIT changed();
}

QString RecentFiles::menuText(const RecentFile& entry) {
    QString text = QFileInfo(entry.source.path).fileName();
    QStringList reading;
    if (!entry.source.hdu.isEmpty())
        reading << tr("HDU %1").arg(entry.source.hdu);
    if (!entry.source.rowFilter.isEmpty())
        reading << entry.source.rowFilter;
    if (!reading.isEmpty())
        text += QStringLiteral(" [%1]").arg(reading.join(QStringLiteral(", ")));
    switch (entry.role) {
    case RecentRole::Data:
        return tr("%1 (data)").arg(text);
    case RecentRole::Random:
        return tr("%1 (random)").arg(text);
    case RecentRole::Session:
        break;
    }
    return text;
}

void RecentFiles::clear() {
    m_entries.clear();
    Q_EMIT changed();
}

void RecentFiles::restore(QSettings& settings) {
    m_entries.clear();
    const int count = settings.beginReadArray(kArrayKey);
    for (int i = 0; i < count; ++i) {
        settings.setArrayIndex(i);
        const auto role = parseRoleKey(settings.value(QStringLiteral("role")).toString());
        const QJsonObject source =
            QJsonDocument::fromJson(settings.value(QStringLiteral("source")).toByteArray())
                .object();
        if (role && !source.value(QStringLiteral("path")).toString().isEmpty())
            m_entries.append({*role, CatalogSource::fromJson(source)});
    }
    settings.endArray();
    if (count == 0)
        for (const QString& path : settings.value(kLegacyKey).toStringList())
            m_entries.append(recentFromPath(path));
    while (m_entries.size() > m_limit)
        m_entries.removeLast();
    Q_EMIT changed();
}

void RecentFiles::save(QSettings& settings) const {
    settings.remove(kLegacyKey);
    settings.remove(kArrayKey);
    settings.beginWriteArray(kArrayKey, int(m_entries.size()));
    for (int i = 0; i < m_entries.size(); ++i) {
        settings.setArrayIndex(i);
        settings.setValue(QStringLiteral("role"), roleKey(m_entries[i].role));
        settings.setValue(
            QStringLiteral("source"),
            QJsonDocument(m_entries[i].source.toJson()).toJson(QJsonDocument::Compact));
    }
    settings.endArray();
}

} // namespace tpacf::ui
