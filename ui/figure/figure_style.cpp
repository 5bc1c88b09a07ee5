// SPDX-License-Identifier: GPL-3.0-or-later
#include "figure_style.h"

#include <QCoreApplication>
#include <QFile>
#include <QJsonDocument>
#include <QSaveFile>

#include <cmath>
#include <initializer_list>
#include <utility>

namespace tpacf::ui {

namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("tpacf::ui::FigureStyle", text);
}

// A style file carries a tag so that a session or any other JSON is refused by name.
const QString kFormat = QStringLiteral("tpacf-figure-style");
constexpr int kFormatVersion = 1;
// A PNG beyond this would take gigabytes of memory to draw.
constexpr double kMaxPixels = 100e6;

template <typename Enum> struct KeyTable {
    Enum value;
    const char* key;
};

constexpr KeyTable<FigureStyle::Preset> kPresets[] = {
    {FigureStyle::Preset::Screen, "screen"},
    {FigureStyle::Preset::SingleColumn, "single-column"},
    {FigureStyle::Preset::DoubleColumn, "double-column"},
    {FigureStyle::Preset::Custom, "custom"}};
constexpr KeyTable<FigureStyle::Legend> kLegends[] = {{FigureStyle::Legend::Auto, "auto"},
                                                      {FigureStyle::Legend::Outside, "outside"},
                                                      {FigureStyle::Legend::Off, "off"}};
constexpr KeyTable<FigureStyle::Scale> kScales[] = {{FigureStyle::Scale::Auto, "auto"},
                                                    {FigureStyle::Scale::Linear, "linear"},
                                                    {FigureStyle::Scale::Log, "log"}};
constexpr KeyTable<FigureStyle::Marker> kMarkers[] = {
    {FigureStyle::Marker::Disc, "disc"},       {FigureStyle::Marker::Circle, "circle"},
    {FigureStyle::Marker::Square, "square"},   {FigureStyle::Marker::Triangle, "triangle"},
    {FigureStyle::Marker::Diamond, "diamond"}, {FigureStyle::Marker::Cross, "cross"},
    {FigureStyle::Marker::Plus, "plus"}};

template <typename Enum, std::size_t N>
QString keyOf(const KeyTable<Enum> (&table)[N], Enum value) {
    for (const auto& entry : table)
        if (entry.value == value)
            return QString::fromLatin1(entry.key);
    return QString::fromLatin1(table[0].key);
}

template <typename Enum, std::size_t N> QString keyList(const KeyTable<Enum> (&table)[N]) {
    QStringList keys;
    for (const auto& entry : table)
        keys.append(QString::fromLatin1(entry.key));
    return keys.join(QStringLiteral(", "));
}

bool sameNumber(double a, double b) {
    return a == b || (std::isnan(a) && std::isnan(b));
}

QJsonValue numberOrNull(double value) {
    return std::isfinite(value) ? QJsonValue(value) : QJsonValue(QJsonValue::Null);
}

/// Reads one JSON object field by field; the first problem is kept, with the field's path.
class Reader {
public:
    Reader(const QJsonObject& object, QString path, QString* error)
        : m_object(object), m_path(std::move(path)), m_error(error) {}

    bool failed() const { return m_failed; }

    /// Unknown keys are errors: a misspelt "fontsize" must not be silently ignored.
    void allowOnly(std::initializer_list<const char*> keys) {
        for (auto it = m_object.begin(); it != m_object.end(); ++it) {
            bool known = false;
            for (const char* key : keys)
                known = known || it.key() == QLatin1String(key);
            if (!known) {
                QStringList names;
                for (const char* key : keys)
                    names.append(QString::fromLatin1(key));
                fail(it.key(), tr("is not a figure style field (fields: %1)")
                                   .arg(names.join(QStringLiteral(", "))));
                return;
            }
        }
    }

    void number(const char* key, double& out) {
        const QJsonValue value = m_object.value(QLatin1String(key));
        if (value.isUndefined())
            return;
        if (!value.isDouble())
            return fail(QLatin1String(key), tr("must be a number"));
        out = value.toDouble();
    }
    void numberOrNull(const char* key, double& out) {
        const QJsonValue value = m_object.value(QLatin1String(key));
        if (value.isUndefined())
            return;
        if (value.isNull()) {
            out = std::numeric_limits<double>::quiet_NaN();
            return;
        }
        if (!value.isDouble())
            return fail(QLatin1String(key), tr("must be a number or null (fitted to the data)"));
        out = value.toDouble();
    }
    void integer(const char* key, int& out) {
        double value = out;
        number(key, value);
        if (m_failed)
            return;
        if (value != std::floor(value) || std::abs(value) > 1e9)
            return fail(QLatin1String(key), tr("must be a whole number"));
        out = int(value);
    }
    void boolean(const char* key, bool& out) {
        const QJsonValue value = m_object.value(QLatin1String(key));
        if (value.isUndefined())
            return;
        if (!value.isBool())
            return fail(QLatin1String(key), tr("must be true or false"));
        out = value.toBool();
    }
    void string(const char* key, QString& out) {
        const QJsonValue value = m_object.value(QLatin1String(key));
        if (value.isUndefined())
            return;
        if (!value.isString())
            return fail(QLatin1String(key), tr("must be a string"));
        out = value.toString();
    }
    template <typename Enum, std::size_t N>
    void choice(const char* key, const KeyTable<Enum> (&table)[N], Enum& out) {
        const QJsonValue value = m_object.value(QLatin1String(key));
        if (value.isUndefined())
            return;
        for (const auto& entry : table)
            if (value.toString() == QLatin1String(entry.key)) {
                out = entry.value;
                return;
            }
        fail(QLatin1String(key), tr("must be one of %1").arg(keyList(table)));
    }
    /// A nested object, read by `read` with the field's path as prefix.
    template <typename Read> void object(const char* key, Read read) {
        const QJsonValue value = m_object.value(QLatin1String(key));
        if (value.isUndefined() || m_failed)
            return;
        if (!value.isObject())
            return fail(QLatin1String(key), tr("must be an object"));
        Reader inner(value.toObject(), fieldPath(QLatin1String(key)), m_error);
        read(inner);
        m_failed = inner.failed();
    }
    void fail(const QString& key, const QString& what) {
        if (m_failed)
            return;
        m_failed = true;
        if (m_error)
            *m_error = fieldPath(key) + QLatin1Char(' ') + what;
    }

private:
    QString fieldPath(const QString& key) const {
        return m_path.isEmpty() ? key : m_path + QLatin1Char('.') + key;
    }

    const QJsonObject m_object;
    const QString m_path;
    QString* m_error;
    bool m_failed = false;
};

QJsonObject axisJson(const FigureStyle::Axis& axis) {
    QJsonObject object;
    object[QStringLiteral("scale")] = keyOf(kScales, axis.scale);
    object[QStringLiteral("min")] = numberOrNull(axis.min);
    object[QStringLiteral("max")] = numberOrNull(axis.max);
    return object;
}

void readAxis(Reader& reader, FigureStyle::Axis& axis) {
    reader.allowOnly({"scale", "min", "max"});
    reader.choice("scale", kScales, axis.scale);
    reader.numberOrNull("min", axis.min);
    reader.numberOrNull("max", axis.max);
}

QString axisProblem(const char* name, const FigureStyle::Axis& axis) {
    const QString field = QString::fromLatin1(name);
    if (std::isfinite(axis.min) && std::isfinite(axis.max) && !(axis.min < axis.max))
        return tr("%1.min (%2) must be below %1.max (%3)").arg(field).arg(axis.min).arg(axis.max);
    if (axis.scale == FigureStyle::Scale::Log && std::isfinite(axis.min) && axis.min <= 0)
        return tr("%1.min (%2) must be above 0 on a log axis").arg(field).arg(axis.min);
    if (axis.scale == FigureStyle::Scale::Log && std::isfinite(axis.max) && axis.max <= 0)
        return tr("%1.max (%2) must be above 0 on a log axis").arg(field).arg(axis.max);
    return {};
}

/// Line and column (1-based) of a byte offset, for a JSON syntax error a user can find.
std::pair<int, int> lineAndColumn(const QByteArray& text, int offset) {
    int line = 1, column = 1;
    for (int i = 0; i < offset && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    return {line, column};
}

} // namespace

bool FigureStyle::Axis::hasRange() const {
    return std::isfinite(min) || std::isfinite(max);
}

bool FigureStyle::Axis::operator==(const Axis& other) const {
    return scale == other.scale && sameNumber(min, other.min) && sameNumber(max, other.max);
}

FigureStyle FigureStyle::fromPreset(Preset preset) {
    FigureStyle style;
    style.applyPreset(preset);
    return style;
}

void FigureStyle::applyPreset(Preset which) {
    preset = which;
    switch (which) {
    case Preset::Screen:
        // The app's long-standing export size: 1800 × 1200 px at 300 dpi.
        widthIn = 6.0;
        heightIn = 4.0;
        fontPt = 9.0;
        markerPt = 5.0;
        errorCapPt = 4.0;
        break;
    case Preset::SingleColumn:
        // One column of a two-column journal (A&A, ApJ, MNRAS: 3.3–3.5 in), 4:3.
        widthIn = 3.5;
        heightIn = 2.625;
        fontPt = 8.0;
        markerPt = 3.5;
        errorCapPt = 2.5;
        break;
    case Preset::DoubleColumn:
        // The full text width (about 7.1–7.3 in), 2:1 so that the figure leaves room for text.
        widthIn = 7.2;
        heightIn = 3.6;
        fontPt = 9.0;
        markerPt = 4.0;
        errorCapPt = 3.0;
        break;
    case Preset::Custom:
        break;
    }
}

int FigureStyle::widthPx() const {
    return int(std::lround(widthIn * dpi));
}

int FigureStyle::heightPx() const {
    return int(std::lround(heightIn * dpi));
}

QString FigureStyle::problem() const {
    const auto outside = [](double value, double low, double high) {
        return !(value >= low && value <= high);
    };
    if (outside(widthIn, kMinInches, kMaxInches))
        return tr("widthIn (%1) must be from %2 to %3 inches")
            .arg(widthIn)
            .arg(kMinInches)
            .arg(kMaxInches);
    if (outside(heightIn, kMinInches, kMaxInches))
        return tr("heightIn (%1) must be from %2 to %3 inches")
            .arg(heightIn)
            .arg(kMinInches)
            .arg(kMaxInches);
    if (outside(fontPt, kMinFontPt, kMaxFontPt))
        return tr("fontSize (%1) must be from %2 to %3 pt")
            .arg(fontPt)
            .arg(kMinFontPt)
            .arg(kMaxFontPt);
    if (dpi < kMinDpi || dpi > kMaxDpi)
        return tr("dpi (%1) must be from %2 to %3").arg(dpi).arg(kMinDpi).arg(kMaxDpi);
    if (double(widthPx()) * heightPx() > kMaxPixels)
        return tr("widthIn × heightIn at %1 dpi is %2 × %3 pixels: more than %4 million")
            .arg(dpi)
            .arg(widthPx())
            .arg(heightPx())
            .arg(kMaxPixels / 1e6);
    if (outside(markerPt, 0.5, kMaxMarkerPt))
        return tr("marker.size (%1) must be from 0.5 to %2 pt").arg(markerPt).arg(kMaxMarkerPt);
    if (outside(errorBarPt, 0, kMaxLinePt))
        return tr("errorBars.width (%1) must be from 0 to %2 pt").arg(errorBarPt).arg(kMaxLinePt);
    if (outside(errorCapPt, 0, kMaxMarkerPt))
        return tr("errorBars.cap (%1) must be from 0 to %2 pt").arg(errorCapPt).arg(kMaxMarkerPt);
    if (const QString xProblem = axisProblem("x", x); !xProblem.isEmpty())
        return xProblem;
    return axisProblem("y", y);
}

QJsonObject FigureStyle::toJson() const {
    QJsonObject object;
    object[QStringLiteral("preset")] = keyOf(kPresets, preset);
    object[QStringLiteral("widthIn")] = widthIn;
    object[QStringLiteral("heightIn")] = heightIn;
    object[QStringLiteral("fontFamily")] = fontFamily;
    object[QStringLiteral("fontSize")] = fontPt;
    object[QStringLiteral("dpi")] = dpi;
    object[QStringLiteral("legend")] = keyOf(kLegends, legend);
    object[QStringLiteral("title")] = title;
    object[QStringLiteral("x")] = axisJson(x);
    object[QStringLiteral("y")] = axisJson(y);
    QJsonObject markerObject;
    markerObject[QStringLiteral("shape")] = keyOf(kMarkers, marker);
    markerObject[QStringLiteral("size")] = markerPt;
    object[QStringLiteral("marker")] = markerObject;
    QJsonObject barsObject;
    barsObject[QStringLiteral("width")] = errorBarPt;
    barsObject[QStringLiteral("cap")] = errorCapPt;
    object[QStringLiteral("errorBars")] = barsObject;
    object[QStringLiteral("thetaUnit")] =
        thetaUnit ? QString::fromLatin1(angleUnitName(*thetaUnit).data()) : QStringLiteral("auto");
    object[QStringLiteral("pointsAtMeanTheta")] = pointsAtMeanTheta;
    return object;
}

std::optional<FigureStyle> FigureStyle::fromJson(const QJsonObject& object, QString* error) {
    Reader reader(object, QString(), error);
    reader.allowOnly({"format", "version", "preset", "widthIn", "heightIn", "aspect", "fontFamily",
                      "fontSize", "dpi", "legend", "title", "x", "y", "marker", "errorBars",
                      "thetaUnit", "pointsAtMeanTheta"});
    FigureStyle style;
    // The preset first: it gives the defaults the other fields then override.
    reader.choice("preset", kPresets, style.preset);
    style.applyPreset(style.preset);
    reader.number("widthIn", style.widthIn);
    reader.number("heightIn", style.heightIn);
    if (object.contains(QStringLiteral("aspect"))) {
        double aspect = 0;
        reader.number("aspect", aspect);
        if (!reader.failed() && object.contains(QStringLiteral("heightIn")))
            reader.fail(QStringLiteral("aspect"),
                        tr("and heightIn both give the height: keep one"));
        else if (!reader.failed() && !(aspect >= 0.2 && aspect <= 5))
            reader.fail(QStringLiteral("aspect"),
                        tr("(width / height, %1) must be from 0.2 to 5").arg(aspect));
        else if (!reader.failed())
            style.heightIn = style.widthIn / aspect;
    }
    reader.string("fontFamily", style.fontFamily);
    reader.number("fontSize", style.fontPt);
    reader.integer("dpi", style.dpi);
    reader.choice("legend", kLegends, style.legend);
    reader.boolean("title", style.title);
    reader.boolean("pointsAtMeanTheta", style.pointsAtMeanTheta);
    reader.object("x", [&](Reader& axis) { readAxis(axis, style.x); });
    reader.object("y", [&](Reader& axis) { readAxis(axis, style.y); });
    reader.object("marker", [&](Reader& marker) {
        marker.allowOnly({"shape", "size"});
        marker.choice("shape", kMarkers, style.marker);
        marker.number("size", style.markerPt);
    });
    reader.object("errorBars", [&](Reader& bars) {
        bars.allowOnly({"width", "cap"});
        bars.number("width", style.errorBarPt);
        bars.number("cap", style.errorCapPt);
    });
    QString unit = QStringLiteral("auto");
    reader.string("thetaUnit", unit);
    if (!reader.failed() && unit != QLatin1String("auto")) {
        style.thetaUnit = parseAngleUnit(unit.toStdString());
        if (!style.thetaUnit)
            reader.fail(QStringLiteral("thetaUnit"),
                        tr("must be auto (the bins' unit), deg, arcmin, arcsec or rad"));
    }
    const QJsonValue format = object.value(QStringLiteral("format"));
    if (!format.isUndefined() && format.toString() != kFormat)
        reader.fail(QStringLiteral("format"), tr("must be \"%1\"").arg(kFormat));
    if (reader.failed())
        return std::nullopt;
    if (const QString problem = style.problem(); !problem.isEmpty()) {
        if (error)
            *error = problem;
        return std::nullopt;
    }
    return style;
}

bool FigureStyle::operator==(const FigureStyle& other) const {
    return preset == other.preset && widthIn == other.widthIn && heightIn == other.heightIn &&
           fontFamily == other.fontFamily && fontPt == other.fontPt && dpi == other.dpi &&
           legend == other.legend && title == other.title && x == other.x && y == other.y &&
           marker == other.marker && markerPt == other.markerPt && errorBarPt == other.errorBarPt &&
           errorCapPt == other.errorCapPt && thetaUnit == other.thetaUnit &&
           pointsAtMeanTheta == other.pointsAtMeanTheta;
}

QString presetKey(FigureStyle::Preset preset) {
    return keyOf(kPresets, preset);
}

QString presetName(FigureStyle::Preset preset) {
    switch (preset) {
    case FigureStyle::Preset::Screen:
        return tr("Screen (6 × 4 in)");
    case FigureStyle::Preset::SingleColumn:
        return tr("Single column (3.5 in)");
    case FigureStyle::Preset::DoubleColumn:
        return tr("Double column (7.2 in)");
    case FigureStyle::Preset::Custom:
        break;
    }
    return tr("Custom");
}

std::optional<FigureStyle> loadFigureStyleFile(const QString& path, QString* error) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = tr("Cannot open the figure style %1: %2").arg(path, file.errorString());
        return std::nullopt;
    }
    const QByteArray text = file.readAll();
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(text, &parseError);
    if (document.isNull()) {
        const auto [line, column] = lineAndColumn(text, parseError.offset);
        *error = tr("%1:%2:%3: not valid JSON: %4")
                     .arg(path)
                     .arg(line)
                     .arg(column)
                     .arg(parseError.errorString());
        return std::nullopt;
    }
    if (!document.isObject()) {
        *error = tr("%1: a figure style is a JSON object ({ ... })").arg(path);
        return std::nullopt;
    }
    QString problem;
    std::optional<FigureStyle> style = FigureStyle::fromJson(document.object(), &problem);
    if (!style)
        *error = tr("%1: %2").arg(path, problem);
    return style;
}

bool saveFigureStyleFile(const QString& path, const FigureStyle& style, QString* error) {
    QJsonObject object = style.toJson();
    object[QStringLiteral("format")] = kFormat;
    object[QStringLiteral("version")] = kFormatVersion;
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        *error = tr("Cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    file.write(QJsonDocument(object).toJson(QJsonDocument::Indented));
    if (!file.commit()) {
        *error = tr("Cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

} // namespace tpacf::ui
