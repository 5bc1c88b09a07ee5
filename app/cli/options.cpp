// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli/options.h"

#include "cli/interrupt.h"
#include "tpacf/errors.h"
#include "tpacf/pair_counter.h"
#include "tpacf/units.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <utility>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace tpacf::cli {

namespace {

AngleUnit angleUnitFlag(const ParsedArgs& args, std::string_view flag, AngleUnit fallback) {
    const auto text = args.value(flag);
    if (!text)
        return fallback;
    const auto unit = parseAngleUnit(*text);
    if (!unit)
        throw UsageError(args.spelling(flag) + ": " + quote(*text) +
                         " is not an angle unit (deg, arcmin, arcsec, rad)");
    return *unit;
}

ColumnRef columnFlag(const ParsedArgs& args, std::string_view flag) {
    const auto text = args.value(flag);
    if (!text)
        return {};
    try {
        return ColumnRef::parse(*text);
    } catch (const ConfigError& error) {
        throw UsageError(args.spelling(flag) + ": " + error.what());
    }
}

} // namespace

ReadOptions readOptionsFrom(const ParsedArgs& args) {
    // Every command that reads catalogs comes here before reading them, and here the flag
    // that named a catalog is still known: an empty name would otherwise read "input: ...".
    for (const std::string_view flag : {"--a", "--b", "--data", "--random", "--data2", "--random2"})
        if (args.declares(flag))
            for (const std::string& path : args.values(flag))
                if (path.empty())
                    throw UsageError(args.spelling(flag) +
                                     ": empty file name (give the catalog's path)");
    ReadOptions options;
    options.coordUnit = angleUnitFlag(args, flags::kCoordUnit, AngleUnit::Degree);
    options.raInHours = args.has(flags::kRaHours);
    options.raColumn = columnFlag(args, flags::kRaCol);
    options.decColumn = columnFlag(args, flags::kDecCol);
    if (const auto hdu = args.value(flags::kHdu)) {
        if (hdu->find_first_not_of(" \t") == std::string::npos)
            throw UsageError("--hdu: empty (give an extension number, 1 for the first, or an "
                             "EXTNAME)");
        options.hdu = *hdu;
    }
    return options;
}

ColumnRef weightColumnFor(const ParsedArgs& args, const Flag& roleFlag) {
    return args.has(roleFlag) ? columnFlag(args, roleFlag) : columnFlag(args, flags::kWeightCol);
}

namespace {

// An edges file holds at most kMaxBinCount + 1 numbers: anything far bigger is the wrong file.
constexpr std::uintmax_t kMaxEdgesFileBytes = 16u << 20;

// --edges: an existing file's path (one edge or "lo hi" per line), else a comma list of numbers.
// Validated here, so that every error names --edges and the place (file and line, or position).
BinSpec edgesSpecFrom(const std::string& text, AngleUnit unit) {
    namespace fs = std::filesystem;
    std::error_code error;
    const fs::path path(text);
    std::vector<double> edges;
    std::string where = "--edges";
    if (!text.empty() && fs::exists(path, error)) {
        if (!fs::is_regular_file(path, error))
            throw UsageError("--edges: " + quote(text) + " is not a regular file");
        const std::uintmax_t size = fs::file_size(path, error);
        if (!error && size > kMaxEdgesFileBytes)
            throw ConfigError("--edges: " + quote(text) + " is " + std::to_string(size) +
                              " bytes, too large for an edges file");
        std::ifstream in(path, std::ios::in | std::ios::binary);
        if (!in.is_open())
            throw ConfigError("--edges: cannot open " + quote(text) + " for reading");
        const std::string contents((std::istreambuf_iterator<char>(in)),
                                   std::istreambuf_iterator<char>());
        if (in.bad())
            throw ConfigError("--edges: cannot read " + quote(text));
        try {
            edges = parseBinEdgesText(contents, text, unit);
        } catch (const InputError& problem) {
            throw ConfigError("--edges: " + std::string(problem.what()));
        }
        where += " " + text;
    } else if (text.find(',') != std::string::npos) {
        edges = parseNumberList("--edges", text);
    } else {
        // One word: a file name that does not exist, or a lone number (one edge is not enough).
        double single = 0;
        try {
            single = parseNumber("--edges", text);
        } catch (const UsageError&) {
            throw UsageError("--edges: " + quote(text) +
                             " is neither an existing file nor a comma-separated list of edges");
        }
        edges = {single};
    }
    BinSpec spec = BinSpec::fromEdges(std::move(edges), unit);
    try {
        static_cast<void>(Binning(spec));
    } catch (const ConfigError& problem) {
        throw ConfigError(where + ": " + problem.what());
    }
    return spec;
}

} // namespace

bool binsGiven(const ParsedArgs& args) {
    for (const Flag* flag : flags::kBinFlags)
        if (args.has(*flag))
            return true;
    return false;
}

BinSpec binSpecFrom(const ParsedArgs& args) {
    static const std::vector<std::string_view> explicitFlags = {
        "--bins", "--min", "--max", "--unit", "--per-decade", "--nbins", "--width"};
    std::vector<std::string_view> given;
    for (const auto flag : explicitFlags)
        if (args.has(flag))
            given.push_back(flag);

    if (const auto edges = args.value("--edges")) {
        for (const std::string_view flag : {"--bins", "--min", "--max", "--per-decade", "--nbins",
                                            "--width", "--preset"})
            if (args.has(flag))
                throw UsageError("--edges cannot be combined with " + std::string(flag) +
                                 " (the edges fix every bin; only --unit applies)");
        return edgesSpecFrom(*edges, angleUnitFlag(args, "--unit", AngleUnit::Arcminute));
    }

    if (const auto preset = args.value("--preset")) {
        if (!given.empty())
            throw UsageError("--preset cannot be combined with " + std::string(given.front()) +
                             " (a preset fixes every bin setting)");
        try {
            return BinSpec::preset(*preset);
        } catch (const ConfigError&) {
            std::string names;
            for (const auto& name : BinSpec::presetNames())
                names += (names.empty() ? "" : ", ") + name;
            throw UsageError("--preset: unknown preset " + quote(*preset) + " (known: " + names +
                             ")");
        }
    }
    // Nothing said about bins: the documented default.
    if (given.empty())
        return BinSpec::preset("log5");

    BinScale scale = BinScale::Logarithmic;
    if (const auto text = args.value("--bins")) {
        if (*text == "log")
            scale = BinScale::Logarithmic;
        else if (*text == "linear")
            scale = BinScale::Linear;
        else
            throw UsageError("--bins: " + quote(*text) +
                             " is not a bin scale (log or linear; custom bins take --edges)");
    }
    const auto minimum = args.number("--min");
    const auto maximum = args.number("--max");
    if (!minimum || !maximum)
        throw UsageError(std::string(!minimum ? "--min" : "--max") +
                         " is required when bins are given by hand (or use --preset)");
    const AngleUnit unit = angleUnitFlag(args, "--unit", AngleUnit::Arcminute);

    const auto perDecade = args.number("--per-decade");
    const auto count = args.integer("--nbins", 1, static_cast<std::int64_t>(kMaxBinCount));
    const auto width = args.number("--width");
    const int ways = (perDecade ? 1 : 0) + (count ? 1 : 0) + (width ? 1 : 0);
    // 0 means "not given" inside BinSpec, so a 0 typed here must not reach it unnoticed.
    if (perDecade && !(*perDecade > 0))
        throw UsageError("--per-decade must be > 0, got " + quote(*args.value("--per-decade")));
    if (width && !(*width > 0))
        throw UsageError("--width must be > 0, got " + quote(*args.value("--width")));
    if (ways > 1)
        throw UsageError("give only one of --per-decade, --nbins, --width");
    if (scale == BinScale::Logarithmic) {
        if (width)
            throw UsageError("--width is for --bins linear; log bins take --per-decade or --nbins");
        if (count)
            return BinSpec::logCount(*minimum, *maximum, unit, static_cast<int>(*count));
        return BinSpec::logPerDecade(*minimum, *maximum, unit, perDecade.value_or(5.0));
    }
    if (perDecade)
        throw UsageError("--per-decade is for --bins log; linear bins take --nbins or --width");
    if (count)
        return BinSpec::linearCount(*minimum, *maximum, unit, static_cast<int>(*count));
    if (width)
        return BinSpec::linearWidth(*minimum, *maximum, unit, *width);
    throw UsageError("--bins linear needs --nbins N or --width W");
}

std::string describeBins(const BinSpec& spec, std::size_t count) {
    std::string text = spec.describe();
    if (text.find(" bins") == std::string::npos)
        text += " (" + std::to_string(count) + " bins)";
    return text;
}

std::uint64_t byteSizeFrom(const ParsedArgs& args, std::string_view flag) {
    const auto text = args.value(flag);
    if (!text)
        return 0;
    // A number of bytes with an optional binary suffix, as free(1) and nvidia-smi speak of GPU
    // memory: 512M, 8G, 1.5T.
    static constexpr std::pair<char, double> kSuffixes[] = {
        {'K', 1024.0}, {'M', 1048576.0}, {'G', 1073741824.0}, {'T', 1099511627776.0}};
    std::string_view digits = *text;
    double scale = 1.0;
    if (!digits.empty())
        for (const auto& [letter, factor] : kSuffixes)
            if (std::toupper(static_cast<unsigned char>(digits.back())) == letter) {
                scale = factor;
                digits.remove_suffix(1);
            }
    double value = 0;
    try {
        value = parseNumber(flag, digits);
    } catch (const Error&) {
        value = -1;
    }
    const double bytes = value * scale;
    if (!(bytes >= 1048576.0) || !(bytes < 1e18))
        throw UsageError(std::string(flag) + ": " + quote(*text) +
                         " is not a memory size of at least 1M (bytes, or with K, M, G or T: "
                         "8G is 8 x 1024^3 bytes)");
    return static_cast<std::uint64_t>(bytes);
}

BackendOptions backendOptionsFrom(const ParsedArgs& args, const BackendRegistry& backends) {
    BackendOptions options;
    if (const auto text = args.value("--backend")) {
        const auto name = backends.resolve(*text);
        if (!name)
            throw UsageError("--backend: " + quote(*text) + " is not a backend (" +
                             backends.namesText() + ")");
        options.name = *name;
    }
    // "auto" is the default said out loud (scripts pass it to mean "what the backend prefers").
    if (const auto text = args.value("--precision"); text && *text != "auto") {
        const auto precision = parsePrecision(*text);
        if (!precision)
            throw UsageError("--precision: " + quote(*text) +
                             " is not a precision (float, double, auto)");
        options.precision = *precision;
    }
    options.cpuThreads = static_cast<int>(args.integer("--threads", 0, 0, 4096));
    options.gpuDevices = gpuDevicesFrom(args);
    options.culling = cullingModeFrom(args);
    options.deviceMemoryLimit = byteSizeFrom(args, flags::kGpuMemoryLimit);
    return options;
}

CullingMode cullingModeFrom(const ParsedArgs& args) {
    const auto text = args.value("--culling");
    if (!text)
        return CullingMode::Auto;
    const auto mode = parseCullingMode(*text);
    if (!mode)
        throw UsageError("--culling: " + quote(*text) + " is not a culling mode (auto, on, off)");
    return *mode;
}

TableFormat tableFormatWithoutJson(const ParsedArgs& args, const std::string& path,
                                   const std::string& flag, const std::string& what) {
    if (path.empty())
        return TableFormat::Ecsv;
    const TableFormat format = tableFormatOfPath(path);
    if (format == TableFormat::Json)
        args.fail(flag + " " + quote(path) + ": " + what +
                  " are written as ECSV, FITS or VOTable (name the file .ecsv, .fits or .vot); "
                  "the JSON result (--json-output) holds them too");
    requireFitsSupport(args, format, flag);
    return format;
}

void requireFitsSupport(const ParsedArgs& args, TableFormat format, std::string_view flag) {
    if (format == TableFormat::Fits && !fitsOutputSupported())
        args.fail(std::string(flag) + ": this build writes no FITS tables (built without cfitsio)");
}

TableFormat tableFormatFrom(const ParsedArgs& args, const std::string& path, std::string_view flag) {
    TableFormat format = tableFormatOfPath(path);
    if (const auto text = args.value("--format")) {
        const auto parsed = parseTableFormat(*text);
        if (!parsed)
            args.fail("--format: " + quote(*text) +
                      " is not a table format (ecsv, csv, fits, votable or json)");
        format = *parsed;
        flag = "--format fits";
    }
    requireFitsSupport(args, format, flag);
    return format;
}

double progressIntervalFrom(const ParsedArgs& args, double fallback) {
    const auto text = args.value("--progress-interval");
    if (!text)
        return fallback;
    const double seconds = args.number("--progress-interval", fallback);
    if (!std::isfinite(seconds) || seconds < 0)
        throw UsageError("--progress-interval: " + quote(*text) +
                         " is not a number of seconds (0 or more; 0 prints no progress lines)");
    return seconds;
}

std::vector<int> gpuDevicesFrom(const ParsedArgs& args) {
    std::vector<int> devices;
    const auto text = args.value("--devices");
    if (!text)
        return devices;
    std::string_view rest = *text;
    while (true) {
        const auto comma = rest.find(',');
        devices.push_back(
            static_cast<int>(parseInteger("--devices", rest.substr(0, comma), 0, 1023)));
        if (comma == std::string_view::npos)
            break;
        rest.remove_prefix(comma + 1);
    }
    std::vector<int> sorted = devices;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
        throw UsageError("--devices: " + quote(*text) + " names a device twice");
    return devices;
}

void checkBackendUsable(const BackendOptions& options, const BackendRegistry& backends) {
    const auto name = backends.resolve(options.name);
    if (name == kCpuBackend && options.precision == Precision::Float)
        throw UsageError("--precision float needs a GPU backend; the CPU backend counts in double");
    const BackendModule* module = name ? backends.find(*name) : nullptr;
    if (!module)
        return; // auto, the CPU, or a name selectBackend reports
    const auto devices = module->devices();
    if (devices.empty())
        throw BackendUnavailable(module->displayName() +
                                 " backend unavailable: " + module->unavailableReason());
    for (const int wanted : options.gpuDevices) {
        const bool exists = std::any_of(devices.begin(), devices.end(),
                                        [&](const GpuDeviceInfo& d) { return d.index == wanted; });
        if (!exists)
            throw ConfigError("--devices: there is no GPU " + std::to_string(wanted) +
                              " here (see 'tpacf devices')");
    }
}

namespace {

// The one place that turns a shape and its numbers into a Footprint. `what` names the flag.
Footprint footprintOfShape(const std::string& what, std::string_view shape,
                           const std::vector<double>& numbers) {
    Footprint footprint = Footprint::fullSky();
    if (shape == "box") {
        if (numbers.size() != 4)
            throw UsageError(what + " takes 4 numbers: RA_MIN,RA_MAX,DEC_MIN,DEC_MAX (degrees)");
        footprint = Footprint::box(numbers[0], numbers[1], numbers[2], numbers[3]);
    } else if (shape == "cap") {
        if (numbers.size() != 3)
            throw UsageError(what + " takes 3 numbers: RA,DEC,RADIUS (degrees)");
        footprint = Footprint::cap(numbers[0], numbers[1], numbers[2]);
    }
    footprint.validate();
    return footprint;
}

} // namespace

Footprint footprintFrom(const ParsedArgs& args) {
    const auto text = args.value(flags::kFootprint);
    if (!text || *text == "full-sky" || *text == "full")
        return Footprint::fullSky();
    // Typed as --box V or --cap V (aliases that add the shape): errors name that flag alone.
    const std::string flag = args.spelling(flags::kFootprint);
    const bool shapeInFlag = flag != flags::kFootprint.name;
    const std::string_view value = *text;
    const auto colon = value.find(':');
    const std::string_view shape = value.substr(0, colon);
    if (colon == std::string_view::npos || (shape != "box" && shape != "cap"))
        throw UsageError(flag + ": " + quote(value) +
                         " is not a footprint (full-sky, box:RA_MIN,RA_MAX,DEC_MIN,DEC_MAX or "
                         "cap:RA,DEC,RADIUS, in degrees)");
    return footprintOfShape(shapeInFlag ? flag : flag + " " + std::string(shape), shape,
                            parseNumberList(flag, value.substr(colon + 1)));
}

void applyClusteringOptions(const ParsedArgs& args, MockParams& params) {
    // Ranges of the clustering parameters are core's to judge (ConfigError, exit 2).
    params.levels = static_cast<int>(args.integer(flags::kLevels, params.levels, 1, 30));
    params.eta = static_cast<int>(args.integer(flags::kEta, params.eta, 1, 1000));
    params.lambda = args.number(flags::kLambda, params.lambda);
    params.outerRadiusDeg = args.number(flags::kOuterRadius, params.outerRadiusDeg);
}

bool hasClusteringOptions(const ParsedArgs& args) {
    for (const Flag* flag : flags::kClusteringFlags)
        if (args.has(*flag))
            return true;
    return false;
}

std::shared_ptr<const Catalog> loadCatalog(const std::string& path, const ReadOptions& options) {
    // Ctrl-C stops a long read too (Cancelled, exit 130), not only the count after it.
    ReadOptions cancellable = options;
    if (!cancellable.cancelRequested)
        cancellable.cancelRequested = &interruptFlag();
    return std::make_shared<const Catalog>(readCatalog(path, cancellable));
}

} // namespace tpacf::cli
