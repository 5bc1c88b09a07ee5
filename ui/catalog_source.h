// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Where a catalog comes from and how to read it: enough to read it again (sessions, recent files).
#include <tpacf/catalog.h>
#include <tpacf/catalog_reader.h>
#include <tpacf/unit_guess.h>
#include <tpacf/units.h>

#include <QJsonObject>
#include <QString>

#include <memory>

namespace tpacf::ui {

struct CatalogSource {
    /// A file path, or a Qt resource path (":/samples/...") for the bundled sample.
    QString path;
    int raColumn = 0;     // 1-based; 0: the reader's default (first numeric column)
    int decColumn = 0;    // 1-based; 0: the reader's default (second numeric column)
    int weightColumn = 0; // 1-based; 0: no weights (every point counts 1)
    AngleUnit unit = AngleUnit::Degree;
    bool raInHours = false;
    /// FITS: the table's HDU, by extension number ("2") or EXTNAME; empty: the first binary
    /// table. Goes to ReadOptions::hdu; the column numbers above count this HDU's columns.
    QString hdu{};
    /// FITS: a cfitsio row filter ("Z>0.4 && Z<0.8"); empty: every row. Goes into readPath().
    QString rowFilter{};

    bool isResource() const { return path.startsWith(QLatin1Char(':')); }
    /// The file name with the HDU and row filter where set ("d.fits[2][Z>0.4]"), for lists and
    /// titles: two catalogs from one file stay apart.
    QString displayName() const;
    /// What the reader opens: `path`, then "[hdu][filter]" where a row filter is set (with the
    /// HDU before it, cfitsio never takes the filter for an HDU name).
    QString readPath() const;
    ReadOptions readOptions() const;
    /// The unit and RA-in-hours choice together.
    CoordinateUnits units() const { return {unit, raInHours}; }
    void setUnits(CoordinateUnits units) {
        unit = units.unit;
        raInHours = units.raInHours;
    }

    QJsonObject toJson() const;
    /// Missing keys keep their defaults.
    static CatalogSource fromJson(const QJsonObject& object);

    bool operator==(const CatalogSource&) const = default;
};

/// Reads a source: files through tpacf::readCatalog, Qt resources (which the core cannot open)
/// through tpacf::parseAsciiCatalog on their bytes. Throws tpacf::InputError, also for a file the
/// ASCII reader would read that holds no text (tpacf::binaryFileProblem).
/// `regionColumn` (header name or 1-based index): also read jackknife region labels from it.
std::shared_ptr<const Catalog> loadCatalog(const CatalogSource& source,
                                           const QString& regionColumn = {});

/// A user-facing message for a reader failure, naming file, line and column where known.
QString describeReadError(const std::exception& error);

/// Why the file at `path` cannot be a text catalog (binary, compressed, FITS under a text name),
/// as the reader's error would say it ("x.bin: looks like a binary file, not text ..."); empty
/// for text, for FITS files the format table reads as FITS, for resources and unreadable paths.
QString binaryFileMessage(const QString& path);

/// What the coordinate unit choices say, for menus and notes: "deg", "RA in hours, Dec in deg".
QString describeUnits(CoordinateUnits units);

/// Short unit label for axes and tables: "deg", "arcmin", "arcsec", "rad".
QString unitLabel(AngleUnit unit);

} // namespace tpacf::ui
