// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Column names and preview fields as the column dialog reads them (internal to ui/): which
// column a header names RA or Dec, whether a name reads as a sky coordinate, a field as shown
// and as a number.
#include <tpacf/catalog_reader.h>

#include <QString>
#include <QStringList>

#include <optional>
#include <string>

namespace tpacf::ui::columns {

/// Longest field shown in a preview cell or column title; longer ones are elided.
inline constexpr int kMaxFieldChars = 28;

/// Header names taken for RA and for Dec without a click ("ra", "alpha", "raj2000", …).
const QStringList& raNames();
const QStringList& decNames();
/// The header name of a 1-based column, trimmed; "" where the preview has none.
QString columnName(const TablePreview& preview, int column);
/// The first column whose name is one of `names` (any case), else `fallback`.
int guessColumn(const TablePreview& preview, const QStringList& names, int fallback);
/// The column named `name` (any case), 0 where there is none.
int columnNamed(const TablePreview& preview, const QString& name);
/// The columns the dialog starts with: by name, else the first two.
int defaultRaColumn(const TablePreview& preview);
int defaultDecColumn(const TablePreview& preview);
/// Whether a name reads as a right ascension (RA, RAJ2000, TARGET_RA, ALPHA_J2000, GLON) or a
/// declination (DEC, DEJ2000, DELTA_J2000, DEC_DEG, GLAT): one of its words does.
bool namesRa(const QString& name);
bool namesDec(const QString& name);
/// A field as shown: at most kMaxFieldChars characters, so that a line of 8000 bytes cannot
/// push the dialog's OK off the screen.
QString shownField(const QString& text);
/// A preview field as a number, as the readers take it ("+1.5e3" included); nullopt otherwise.
std::optional<double> fieldValue(const std::string& field);

} // namespace tpacf::ui::columns
