// SPDX-License-Identifier: GPL-3.0-or-later
// Regions files (regions_file.h). The centres' coordinates are written as their shortest exact
// text, so that a file read back gives the very regions it was written from.
#include "tpacf/regions_file.h"

#include "io/json_document.h"
#include "tpacf/errors.h"
#include "tpacf/json_text.h"
#include "tpacf/output_file.h"
#include "tpacf/sky_mask.h"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>

namespace tpacf {

namespace {

constexpr std::string_view kFormat = "tpacf-regions";

[[noreturn]] void refuse(const std::string& path, long line, const std::string& what) {
    throw InputError(path, line, 0, "not a valid regions file: " + what);
}

double numberOf(const std::string& path, const io::JsonValue& value, const std::string& field) {
    if (value.kind != io::JsonValue::Kind::Number)
        refuse(path, value.line, field + " is not a number");
    double number = 0;
    const auto [end, error] =
        std::from_chars(value.text.data(), value.text.data() + value.text.size(), number);
    if (error != std::errc() || end != value.text.data() + value.text.size() ||
        !std::isfinite(number))
        refuse(path, value.line, field + " '" + value.text + "' is not a finite number");
    return number;
}

std::uint64_t unsignedOf(const std::string& path, const io::JsonValue& value,
                         const std::string& field) {
    std::uint64_t number = 0;
    const auto [end, error] =
        std::from_chars(value.text.data(), value.text.data() + value.text.size(), number);
    if (value.kind != io::JsonValue::Kind::Number || error != std::errc() ||
        end != value.text.data() + value.text.size())
        refuse(path, value.line, field + " is not a whole number");
    return number;
}

const io::JsonValue& memberOf(const std::string& path, const io::JsonValue& object,
                              const char* key, io::JsonValue::Kind kind) {
    const io::JsonValue* value = object.member(key);
    if (!value)
        refuse(path, object.line, std::string("no \"") + key + "\"");
    if (value->kind != kind)
        refuse(path, value->line, std::string("\"") + key + "\" is of the wrong type");
    return *value;
}

// A list's entries whether the parser kept them as values or, for plain numbers, as literals.
std::vector<io::JsonValue> entriesOf(const io::JsonValue& list) {
    if (list.numbers.empty())
        return list.items;
    std::vector<io::JsonValue> entries;
    entries.reserve(list.numbers.size());
    for (const auto literal : list.numbers) {
        io::JsonValue value;
        value.kind = io::JsonValue::Kind::Number;
        value.line = list.line;
        value.text = std::string(literal);
        entries.push_back(std::move(value));
    }
    return entries;
}

} // namespace

void writeRegionsFile(const std::string& path, const RegionsDefinition& regions) {
    const bool kmeans = regions.kind == RegionsDefinition::Kind::KMeans;
    writeFileAtomically(path, [&](std::ostream& out) {
        out << "{\n  \"format\": " << jsonQuoted(kFormat) << ",\n  \"version\": 1,\n"
            << "  \"kind\": " << jsonQuoted(kmeans ? "k-means" : "healpix") << ",\n"
            << "  \"method\": " << jsonQuoted(regions.method) << ",\n"
            << "  \"count\": " << regions.count() << ",\n";
        if (kmeans) {
            out << "  \"centres\": [";
            for (std::size_t r = 0; r < regions.centres.size(); ++r) {
                const RegionCentre& c = regions.centres[r];
                out << (r ? ",\n    [" : "\n    [") << jsonShortestNumber(c.x) << ", "
                    << jsonShortestNumber(c.y) << ", " << jsonShortestNumber(c.z) << "]";
            }
            out << "\n  ],\n  \"radii\": [";
            for (std::size_t r = 0; r < regions.radii.size(); ++r)
                out << (r ? ", " : "") << jsonShortestNumber(regions.radii[r]);
            out << "]\n}\n";
        } else {
            out << "  \"nside\": " << regions.nside << ",\n  \"ordering\": \"NESTED\",\n"
                << "  \"first_pixels\": [";
            for (std::size_t r = 0; r < regions.firstPixels.size(); ++r)
                out << (r ? ", " : "") << regions.firstPixels[r];
            out << "]\n}\n";
        }
    });
}

RegionsDefinition readRegionsFile(const std::string& path) {
    std::error_code error;
    if (!std::filesystem::is_regular_file(path, error))
        throw InputError(path, 0, 0,
                         std::filesystem::exists(path, error) ? "not a regular file"
                                                              : "no such regions file");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw InputError(path, 0, 0, "cannot open the regions file");
    std::ostringstream buffer;
    buffer << in.rdbuf();
    const std::string text = buffer.str();
    const io::JsonValue document = io::parseJsonDocument(text, path, "not a valid regions file");
    if (document.kind != io::JsonValue::Kind::Object)
        refuse(path, document.line, "not a JSON object");
    const auto& format = memberOf(path, document, "format", io::JsonValue::Kind::String);
    if (format.text != kFormat)
        refuse(path, format.line, "\"format\" is '" + format.text + "', not '" +
                                      std::string(kFormat) + "'");
    const auto& kind = memberOf(path, document, "kind", io::JsonValue::Kind::String);
    RegionsDefinition regions;
    if (const io::JsonValue* method = document.member("method");
        method && method->kind == io::JsonValue::Kind::String)
        regions.method = method->text;
    if (kind.text == "k-means") {
        const auto& centres = memberOf(path, document, "centres", io::JsonValue::Kind::Array);
        for (const auto& centre : centres.items) {
            const std::vector<io::JsonValue> xyz = entriesOf(centre);
            if (centre.kind != io::JsonValue::Kind::Array || xyz.size() != 3)
                refuse(path, centre.line, "a centre is not [x, y, z]");
            const RegionCentre c{numberOf(path, xyz[0], "a centre's x"),
                                 numberOf(path, xyz[1], "a centre's y"),
                                 numberOf(path, xyz[2], "a centre's z")};
            if (std::abs(c.x * c.x + c.y * c.y + c.z * c.z - 1.0) > 1e-9)
                refuse(path, centre.line, "a centre is not a unit vector");
            regions.centres.push_back(c);
        }
        const auto& radii = memberOf(path, document, "radii", io::JsonValue::Kind::Array);
        for (const auto& radius : entriesOf(radii)) {
            const double r = numberOf(path, radius, "a radius");
            if (r < 0 || r > 2)
                refuse(path, radius.line, "a radius (a chord) is not in [0, 2]");
            regions.radii.push_back(r);
        }
        if (regions.radii.size() != regions.centres.size())
            refuse(path, radii.line, "\"radii\" holds " + std::to_string(regions.radii.size()) +
                                         " values for " + std::to_string(regions.centres.size()) +
                                         " centres");
    } else if (kind.text == "healpix") {
        regions.kind = RegionsDefinition::Kind::Healpix;
        const auto& nside = memberOf(path, document, "nside", io::JsonValue::Kind::Number);
        const std::uint64_t n = unsignedOf(path, nside, "\"nside\"");
        if (n < 1 || n > static_cast<std::uint64_t>(kMaxMaskNside) || (n & (n - 1)) != 0)
            refuse(path, nside.line, "\"nside\" " + nside.text + " is not a power of 2 from 1 to " +
                                         std::to_string(kMaxMaskNside));
        regions.nside = static_cast<std::int64_t>(n);
        const auto& first = memberOf(path, document, "first_pixels", io::JsonValue::Kind::Array);
        const std::uint64_t pixels = 12 * n * n;
        for (const auto& value : entriesOf(first)) {
            const std::uint64_t pixel = unsignedOf(path, value, "a first pixel");
            if (pixel >= pixels ||
                (!regions.firstPixels.empty() && pixel <= regions.firstPixels.back()) ||
                (regions.firstPixels.empty() && pixel != 0))
                refuse(path, value.line,
                       "\"first_pixels\" must rise from 0 and stay below NSIDE " + nside.text +
                           "'s " + std::to_string(pixels) + " pixels");
            regions.firstPixels.push_back(pixel);
        }
    } else {
        refuse(path, kind.line, "\"kind\" is '" + kind.text + "', neither k-means nor healpix");
    }
    if (regions.count() < kMinJackknifeRegions)
        refuse(path, document.line, "it holds " + std::to_string(regions.count()) +
                                        " region(s); a jackknife needs at least " +
                                        std::to_string(kMinJackknifeRegions));
    if (regions.count() > kMaxJackknifeRegions)
        refuse(path, document.line, "it holds " + std::to_string(regions.count()) +
                                        " regions, more than the limit of " +
                                        std::to_string(kMaxJackknifeRegions));
    if (regions.method.empty())
        regions.method = regions.kind == RegionsDefinition::Kind::KMeans ? "k-means" : "HEALPix";
    return regions;
}

} // namespace tpacf
