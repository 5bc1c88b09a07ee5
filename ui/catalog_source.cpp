// SPDX-License-Identifier: GPL-3.0-or-later
#include "catalog_source.h"

#include <tpacf/catalog_formats.h>
#include <tpacf/errors.h>
#include <tpacf/text_check.h>

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QJsonValue>

namespace tpacf::ui {

namespace {
QString tr(const char* text) {
    return QCoreApplication::translate("tpacf::ui::CatalogSource", text);
}
} // namespace

QString CatalogSource::displayName() const {
    QString name = QFileInfo(path).fileName();
    if (!hdu.isEmpty())
        name += QLatin1Char('[') + hdu + QLatin1Char(']');
    if (!rowFilter.isEmpty())
        name += QLatin1Char('[') + rowFilter + QLatin1Char(']');
    return name;
}

QString CatalogSource::readPath() const {
    if (rowFilter.isEmpty())
        return path;
    // cfitsio reads "d.fits[FLAG]" as the HDU named FLAG: after a chosen HDU the filter is
    // second and unambiguous. Without one it stands alone, as it would on the command line.
    const QString filter = QLatin1Char('[') + rowFilter + QLatin1Char(']');
    return hdu.isEmpty() ? path + filter
                         : path + QLatin1Char('[') + hdu + QLatin1Char(']') + filter;
}

ReadOptions CatalogSource::readOptions() const {
    ReadOptions options;
    if (raColumn > 0)
        options.raColumn.index = raColumn;
    if (decColumn > 0)
        options.decColumn.index = decColumn;
    if (weightColumn > 0)
        options.weightColumn.index = weightColumn;
    options.coordUnit = unit;
    options.raInHours = raInHours;
    options.hdu = hdu.toStdString();
    return options;
}

QJsonObject CatalogSource::toJson() const {
    QJsonObject object;
    object[QStringLiteral("path")] = path;
    object[QStringLiteral("raColumn")] = raColumn;
    object[QStringLiteral("decColumn")] = decColumn;
    // Written only when set, so a session without weights reads as it always did.
    if (weightColumn > 0)
        object[QStringLiteral("weightColumn")] = weightColumn;
    object[QStringLiteral("unit")] = unitLabel(unit);
    object[QStringLiteral("raInHours")] = raInHours;
    if (!hdu.isEmpty())
        object[QStringLiteral("hdu")] = hdu;
    if (!rowFilter.isEmpty())
        object[QStringLiteral("rowFilter")] = rowFilter;
    return object;
}

CatalogSource CatalogSource::fromJson(const QJsonObject& object) {
    CatalogSource source;
    source.path = object.value(QStringLiteral("path")).toString();
    source.raColumn = object.value(QStringLiteral("raColumn")).toInt(0);
    source.decColumn = object.value(QStringLiteral("decColumn")).toInt(0);
    source.weightColumn = qMax(0, object.value(QStringLiteral("weightColumn")).toInt(0));
    if (const auto unit =
            parseAngleUnit(object.value(QStringLiteral("unit")).toString().toStdString()))
        source.unit = *unit;
    source.raInHours = object.value(QStringLiteral("raInHours")).toBool(false);
    source.hdu = object.value(QStringLiteral("hdu")).toString().trimmed();
    source.rowFilter = object.value(QStringLiteral("rowFilter")).toString().trimmed();
    return source;
}

std::shared_ptr<const Catalog> loadCatalog(const CatalogSource& source,
                                           const QString& regionColumn) {
    ReadOptions options = source.readOptions();
    if (!regionColumn.isEmpty())
        options.regionColumn = ColumnRef::parse(regionColumn.toStdString());
    if (source.isResource()) {
        QFile file(source.path);
        if (!file.open(QIODevice::ReadOnly))
            throw InputError(source.path.toStdString(), 0, 0, "cannot open the bundled file");
        const QByteArray bytes = file.readAll();
        return std::make_shared<const Catalog>(
            parseAsciiCatalog(std::string_view(bytes.constData(), std::size_t(bytes.size())),
                              source.displayName().toStdString(), options));
    }
    // Binary bytes would otherwise reach the ASCII reader, which names some "line" of them.
    const std::string readPath = QFile::encodeName(source.readPath()).toStdString();
    if (formatFor(readPath).key == "ascii")
        if (const auto problem = binaryFileProblem(readPath))
            throw InputError(source.path.toStdString(), 0, 0, *problem);
    return std::make_shared<const Catalog>(readCatalog(readPath, options));
}

QString binaryFileMessage(const QString& path) {
    if (path.isEmpty() || path.startsWith(QLatin1Char(':')))
        return {};
    const std::string file = QFile::encodeName(path).toStdString();
    if (formatFor(file).key != "ascii")
        return {};
    const auto problem = binaryFileProblem(file);
    return problem ? tr("%1: %2").arg(path, QString::fromStdString(*problem)) : QString();
}

QString describeUnits(CoordinateUnits units) {
    return QString::fromStdString(units.describe());
}

QString describeReadError(const std::exception& error) {
    const auto* input = dynamic_cast<const InputError*>(&error);
    if (!input || input->file().empty() || input->problem().empty())
        return QString::fromStdString(error.what());
    const QString file = QString::fromStdString(input->file());
    QString problem = QString::fromStdString(input->problem());
    // The window's own message already says it could not read the catalog.
    const QString lead = QStringLiteral("cannot read the catalog: ");
    if (problem.startsWith(lead))
        problem = problem.mid(lead.size());
    if (input->line() > 0 && input->column() > 0)
        return tr("%1, line %2, column %3: %4")
            .arg(file)
            .arg(input->line())
            .arg(input->column())
            .arg(problem);
    if (input->line() > 0)
        return tr("%1, line %2: %3").arg(file).arg(input->line()).arg(problem);
    return tr("%1: %2").arg(file, problem);
}

QString unitLabel(AngleUnit unit) {
    return QString::fromLatin1(angleUnitName(unit));
}

} // namespace tpacf::ui
