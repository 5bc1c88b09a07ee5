// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Flag groups several subcommands share: how catalogs are read, how bins are chosen, which
// backend runs. Each group declares its flags and turns them into the core's option structs.
#include "cli/args.h"
#include "tpacf/backend.h"
#include "tpacf/bins.h"
#include "tpacf/catalog.h"
#include "tpacf/catalog_reader.h"
#include "tpacf/culling.h"
#include "tpacf/mock.h"

#include <memory>
#include <cstdint>
#include <string>
#include <string_view>
#include <initializer_list>
#include <utility>
#include <vector>

namespace tpacf::cli {

/// --coord-unit, --ra-hours, --ra-col, --dec-col.
void addReadOptions(OptionSet& options);
ReadOptions readOptionsFrom(const ParsedArgs& args);
/// Help lines for those flags.
std::string_view readOptionsHelp();

/// --weight-col C for every catalog of the command, and --ROLE-weight-col C for the catalogs of
/// one role (e.g. "data", "random"; "a", "b"), which overrides it.
void addWeightOptions(OptionSet& options, std::initializer_list<std::string_view> roles);
/// The weight column of the catalogs of `role` (unset: no weights). A bad column is a UsageError.
ColumnRef weightColumnFor(const ParsedArgs& args, std::string_view role);
/// Help lines for those flags; `roles` as given to addWeightOptions, each with what it names.
std::string weightOptionsHelp(std::initializer_list<std::pair<std::string_view, std::string_view>> roles);

/// --bins, --min, --max, --unit, --per-decade, --nbins, --width, --preset.
void addBinOptions(OptionSet& options);
/// The BinSpec the flags ask for (log5 when none is given); conflicting flags are a UsageError.
/// Not yet validated: construct a Binning for that.
BinSpec binSpecFrom(const ParsedArgs& args);
std::string_view binOptionsHelp();

/// The bins in one line for people, with their number where describe() does not give it.
std::string describeBins(const BinSpec& spec, std::size_t count);

/// --backend, --precision, --threads, --devices, --culling.
void addBackendOptions(OptionSet& options);
/// --backend names one of `backends` (stored by its registered name) or is a UsageError.
BackendOptions backendOptionsFrom(const ParsedArgs& args, const BackendRegistry& backends);
/// --devices alone: GPU indices, e.g. "0,1"; empty when not given.
std::vector<int> gpuDevicesFrom(const ParsedArgs& args);
/// Their help lines; --backend lists the names of `backends`.
std::string backendOptionsHelp(const BackendRegistry& backends);
/// --culling alone: auto (default), on or off.
CullingMode cullingModeFrom(const ParsedArgs& args);
/// A memory size flag (bytes, or with a K, M, G or T suffix, powers of 1024) in bytes; 0 when the
/// flag is absent. UsageError below 1M or for anything but a size.
std::uint64_t byteSizeFrom(const ParsedArgs& args, const char* flag);
/// Its help line.
std::string_view cullingOptionHelp();

/// Footprint flags of `tpacf mock`: --full-sky, --box RA_MIN,RA_MAX,DEC_MIN,DEC_MAX,
/// --cap RA,DEC,RADIUS (at most one; default full sky). Validated.
void addFootprintOptions(OptionSet& options);
Footprint footprintFrom(const ParsedArgs& args);
/// A footprint in one value, for commands with a single flag: "full-sky",
/// "box:RA_MIN,RA_MAX,DEC_MIN,DEC_MAX" or "cap:RA,DEC,RADIUS" (degrees). Validated; errors name
/// `flag`.
Footprint parseFootprint(std::string_view flag, std::string_view text);

/// Soneira-Peebles clustering flags: --levels, --eta, --lambda, --outer-radius.
void addClusteringOptions(OptionSet& options);
/// Sets the clustering fields of `params` from the flags given (the rest keep their values).
void applyClusteringOptions(const ParsedArgs& args, MockParams& params);
bool hasClusteringOptions(const ParsedArgs& args);
std::string_view clusteringOptionsHelp();

/// Fails early (before catalogs are read) where the options cannot work here: a module asked
/// for by name without a usable device, a device index that does not exist, float on the CPU.
/// The job itself checks again; this only spares the user a long read before the error.
void checkBackendUsable(const BackendOptions& options, const BackendRegistry& backends);

/// Reads one catalog with the shared options.
std::shared_ptr<const Catalog> loadCatalog(const std::string& path, const ReadOptions& options);

} // namespace tpacf::cli
