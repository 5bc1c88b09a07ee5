// SPDX-License-Identifier: GPL-3.0-or-later
#include "column_names.h"

#include <QRegularExpression>

#include <algorithm>
#include <charconv>
#include <string_view>

namespace tpacf::ui::columns {

namespace {

// Whether a column name reads as a sky coordinate: one of its words (split at anything but
// letters and digits) matches `word` (a longitude-like name for RA or a latitude-like one for
// Dec, with an optional epoch or unit).
bool namesCoordinate(const QString& name, const QRegularExpression& word) {
    const QStringList words =
        name.toLower().split(QRegularExpression(QStringLiteral("[^a-z0-9]+")), Qt::SkipEmptyParts);
    return std::any_of(words.cbegin(), words.cend(),
                       [&](const QString& candidate) { return word.match(candidate).hasMatch(); });
}

} // namespace

const QStringList& raNames() {
    static const QStringList names{QStringLiteral("ra"), QStringLiteral("alpha"),
                                   QStringLiteral("ra_deg"), QStringLiteral("raj2000")};
    return names;
}

const QStringList& decNames() {
    static const QStringList names{QStringLiteral("dec"), QStringLiteral("delta"),
                                   QStringLiteral("dec_deg"), QStringLiteral("dej2000"),
                                   QStringLiteral("decj2000")};
    return names;
}

QString columnName(const TablePreview& preview, int column) {
    return column >= 1 && std::size_t(column) <= preview.columnNames.size()
               ? QString::fromStdString(preview.columnNames[std::size_t(column - 1)]).trimmed()
               : QString();
}

// Guesses a column from common header names, so "ra"/"dec" headers need no clicks.
int guessColumn(const TablePreview& preview, const QStringList& names, int fallback) {
    for (std::size_t i = 0; i < preview.columnNames.size(); ++i)
        if (names.contains(columnName(preview, int(i) + 1).toLower()))
            return int(i) + 1;
    return fallback;
}

// The column of `preview` named `name` (any case), 0 where there is none.
int columnNamed(const TablePreview& preview, const QString& name) {
    if (name.isEmpty())
        return 0;
    for (std::size_t i = 0; i < preview.columnNames.size(); ++i)
        if (columnName(preview, int(i) + 1).compare(name, Qt::CaseInsensitive) == 0)
            return int(i) + 1;
    return 0;
}

// A field as a preview cell or a column title shows it: at most kMaxFieldChars characters, so
// that a line of 8000 bytes cannot push OK off the screen.
QString shownField(const QString& text) {
    const int limit = kMaxFieldChars;
    return text.size() <= limit ? text : text.left(limit - 1) + QChar(0x2026);
}

// A preview field as a number, as the readers take it ("+1.5e3" included); nullopt otherwise.
std::optional<double> fieldValue(const std::string& field) {
    std::string_view text(field);
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
        text.remove_prefix(1);
    if (text.starts_with('+'))
        text.remove_prefix(1);
    double value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end == text.data())
        return std::nullopt;
    return value;
}

bool namesRa(const QString& name) {
    static const QRegularExpression word(
        QStringLiteral("^(ra|alpha|lon|glon|elon|l|lambda)(j?2000|deg|d|rad|icrs|hms|h)?$"));
    return namesCoordinate(name, word);
}

bool namesDec(const QString& name) {
    static const QRegularExpression word(
        QStringLiteral("^(dec|de|delta|lat|glat|elat|b|beta)(j?2000|deg|d|rad|icrs|dms)?$"));
    return namesCoordinate(name, word);
}

int defaultRaColumn(const TablePreview& preview) {
    return guessColumn(preview, raNames(), 1);
}

int defaultDecColumn(const TablePreview& preview) {
    return guessColumn(preview, decNames(), qMin(2, int(preview.columnCount)));
}

} // namespace tpacf::ui::columns
