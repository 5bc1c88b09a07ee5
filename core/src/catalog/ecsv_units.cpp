// SPDX-License-Identifier: GPL-3.0-or-later
#include "catalog/ecsv_units.h"

#include "base/text_trim.h"

#include "tpacf/errors.h"
#include "tpacf/units.h"

#include <optional>
#include <vector>

namespace tpacf::detail {

namespace {

std::string_view trimmed(std::string_view text) {
    return trimmedBlanks(text);
}

// A YAML scalar as astropy writes one: plain, 'single' or "double" quoted.
std::string scalar(std::string_view text) {
    text = trimmed(text);
    if (text.size() >= 2 && (text.front() == '\'' || text.front() == '"') &&
        text.back() == text.front())
        return std::string(text.substr(1, text.size() - 2));
    return std::string(text);
}

// "key: value" → (key, value); nullopt without a colon.
std::optional<std::pair<std::string, std::string>> keyValue(std::string_view text) {
    const std::size_t colon = text.find(':');
    if (colon == std::string_view::npos)
        return std::nullopt;
    return std::pair{scalar(text.substr(0, colon)), scalar(text.substr(colon + 1))};
}

} // namespace

std::map<std::string, std::string> ecsvColumnUnits(std::string_view text) {
    std::map<std::string, std::string> units;
    if (!text.starts_with("# %ECSV"))
        return units;
    bool inDatatype = false;
    std::string name, unit;
    const auto flush = [&] {
        if (!name.empty() && !unit.empty())
            units[name] = unit;
        name.clear();
        unit.clear();
    };
    std::size_t at = 0;
    while (at < text.size()) {
        const std::size_t end = std::min(text.find('\n', at), text.size());
        std::string_view line = text.substr(at, end - at);
        at = end + 1;
        if (!line.starts_with("#"))
            break; // the header ends where the table starts
        line.remove_prefix(line.starts_with("# ") ? 2 : 1);
        const std::string_view content = trimmed(line);
        const bool indented = line.starts_with(" ") || line.starts_with("-");
        if (!indented) {
            flush();
            inDatatype = content == "datatype:";
            continue;
        }
        if (!inDatatype)
            continue;
        std::string_view item = content;
        if (item.starts_with("- ")) {
            flush();
            item.remove_prefix(2);
        }
        item = trimmed(item);
        if (item.starts_with("{") && item.ends_with("}")) {
            // Flow style: {name: ra, unit: deg, datatype: float64}.
            std::string_view inner = item.substr(1, item.size() - 2);
            std::size_t start = 0;
            while (start <= inner.size()) {
                const std::size_t comma = std::min(inner.find(',', start), inner.size());
                if (const auto pair = keyValue(inner.substr(start, comma - start))) {
                    if (pair->first == "name")
                        name = pair->second;
                    else if (pair->first == "unit")
                        unit = pair->second;
                }
                start = comma + 1;
            }
            flush();
        } else if (const auto pair = keyValue(item)) {
            // Block style: "- name: ra" then "  unit: deg".
            if (pair->first == "name")
                name = pair->second;
            else if (pair->first == "unit")
                unit = pair->second;
        }
    }
    flush();
    return units;
}

ReadOptions withEcsvUnits(const ReadOptions& options, std::string_view text,
                          const std::vector<std::string>& columnNames, std::size_t ra,
                          std::size_t dec, const std::string& source) {
    const std::map<std::string, std::string> units = ecsvColumnUnits(text);
    if (units.empty())
        return options;
    const auto name = [&](std::size_t column) {
        return column < columnNames.size() && !columnNames[column].empty()
                   ? columnNames[column]
                   : "column " + std::to_string(column + 1);
    };
    const auto unitOf = [&](std::size_t column) {
        const auto found = units.find(name(column));
        return found == units.end() ? std::string() : found->second;
    };
    return withStatedUnits(options, unitOf(ra), unitOf(dec), name(ra), name(dec), source);
}

ReadOptions withStatedUnits(const ReadOptions& options, const std::string& raUnit,
                            const std::string& decUnit, const std::string& raName,
                            const std::string& decName, const std::string& source) {
    if (raUnit.empty() && decUnit.empty())
        return options;
    const auto angle = [&](const std::string& unit, const std::string& column,
                           bool hoursAllowed) -> std::optional<AngleUnit> {
        if (unit.empty())
            return std::nullopt;
        if (hoursAllowed && (unit == "hourangle" || unit == "h" || unit == "hour"))
            return std::nullopt; // hours: handled by the caller
        if (const auto parsed = parseAngleUnit(unit))
            return parsed;
        throw InputError(source, 0, 0,
                         "the ECSV header gives column '" + column + "' the unit '" + unit +
                             "', which is no angle (deg, arcmin, arcsec, rad" +
                             (hoursAllowed ? ", hourangle" : "") + ")");
    };
    const bool raHours = raUnit == "hourangle" || raUnit == "h" || raUnit == "hour";
    const std::optional<AngleUnit> ra = angle(raUnit, raName, true);
    const std::optional<AngleUnit> dec = angle(decUnit, decName, false);
    if (ra && dec && *ra != *dec)
        throw InputError(source, 0, 0,
                         "the ECSV header gives RA ('" + raName + "') in " + raUnit +
                             " and Dec ('" + decName + "') in " + decUnit +
                             ": one angle unit for both is read (or RA in hourangle)");
    if (raHours && !dec)
        throw InputError(source, 0, 0,
                         "the ECSV header gives RA ('" + raName +
                             "') in hourangle and no unit for Dec ('" + decName + "')");
    const AngleUnit stated = dec ? *dec : *ra;
    ReadOptions read = options;
    // A --coord-unit other than the default that says otherwise: which is right is not ours
    // to guess.
    if (options.coordUnit != AngleUnit::Degree && options.coordUnit != stated)
        throw InputError(source, 0, 0,
                         "--coord-unit " + std::string(angleUnitName(options.coordUnit)) +
                             ", but the ECSV header gives '" + decName + "' in " +
                             std::string(angleUnitName(stated)) +
                             ": leave --coord-unit out (the file's units are used)");
    if (options.raInHours && !raHours && ra)
        throw InputError(source, 0, 0,
                         "--ra-hours, but the ECSV header gives RA ('" + raName + "') in " +
                             raUnit + ": leave --ra-hours out");
    read.coordUnit = stated;
    read.raInHours = options.raInHours || raHours;
    return read;
}

} // namespace tpacf::detail
