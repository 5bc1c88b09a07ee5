// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Readers of the flag groups several subcommands share (flags/common_flags.h): how catalogs
// are read, how bins are chosen, which backend runs. Each turns its flags into the core's
// option structs.
#include "cli/args.h"
#include "common_flags.h"
#include "tpacf/backend.h"
#include "tpacf/bins.h"
#include "tpacf/catalog.h"
#include "tpacf/catalog_reader.h"
#include "tpacf/culling.h"
#include "tpacf/mock.h"
#include "tpacf/result_io.h"

#include <memory>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tpacf::cli {

/// The read group: --coord-unit, --ra-hours, --ra-col, --dec-col, --hdu.
ReadOptions readOptionsFrom(const ParsedArgs& args);

/// The weight column of the catalogs of one role: `roleFlag` (e.g. --data-weight-col) where
/// given, else --weight-col (unset: no weights). A bad column is a UsageError.
ColumnRef weightColumnFor(const ParsedArgs& args, const Flag& roleFlag);

/// The bin group: the BinSpec the flags ask for (log5 when none is given); conflicting flags
/// are a UsageError. Not yet validated: construct a Binning for that.
BinSpec binSpecFrom(const ParsedArgs& args);
/// Whether any flag of the bin group is given.
bool binsGiven(const ParsedArgs& args);

/// The bins in one line for people, with their number where describe() does not give it.
std::string describeBins(const BinSpec& spec, std::size_t count);

/// The backend group. --backend names one of `backends` (stored by its registered name) or is
/// a UsageError.
BackendOptions backendOptionsFrom(const ParsedArgs& args, const BackendRegistry& backends);
/// --devices alone: GPU indices, e.g. "0,1"; empty when not given.
std::vector<int> gpuDevicesFrom(const ParsedArgs& args);
/// --culling alone: auto (default), on or off.
CullingMode cullingModeFrom(const ParsedArgs& args);
/// The form of the table written at `path`: --format where given (UsageError naming it unless
/// ecsv, csv, fits, votable, vot or json), else the path's extension (tableFormatOfPath); FITS in
/// a build without cfitsio is a UsageError naming `flag`.
TableFormat tableFormatFrom(const ParsedArgs& args, const std::string& path, std::string_view flag);
/// The form of a table beside the result (--covariance, --jackknife-samples) by its name: ECSV,
/// FITS or VOTable; a .json name is a UsageError (the JSON result holds `what`). ECSV for "".
TableFormat tableFormatWithoutJson(const ParsedArgs& args, const std::string& path,
                                   const std::string& flag, const std::string& what);
/// UsageError naming `flag` where `format` is FITS and this build writes no FITS tables.
void requireFitsSupport(const ParsedArgs& args, TableFormat format, std::string_view flag);
/// --progress-interval in seconds (default `fallback`); UsageError unless a finite number >= 0.
double progressIntervalFrom(const ParsedArgs& args, double fallback);
/// A memory size flag (bytes, or with a K, M, G or T suffix, powers of 1024) in bytes; 0 when the
/// flag is absent. UsageError below 1M or for anything but a size.
std::uint64_t byteSizeFrom(const ParsedArgs& args, std::string_view flag);

/// --footprint (or its aliases --full-sky, --box, --cap): "full-sky" (the default),
/// "box:RA_MIN,RA_MAX,DEC_MIN,DEC_MAX" or "cap:RA,DEC,RADIUS" (degrees). Validated; errors name
/// the spelling typed.
Footprint footprintFrom(const ParsedArgs& args);

/// Soneira-Peebles clustering flags (--levels, --eta, --lambda, --outer-radius): sets the
/// clustering fields of `params` from the flags given (the rest keep their values).
void applyClusteringOptions(const ParsedArgs& args, MockParams& params);
bool hasClusteringOptions(const ParsedArgs& args);

/// Fails early (before catalogs are read) where the options cannot work here: a module asked
/// for by name without a usable device, a device index that does not exist, float on the CPU.
/// The job itself checks again; this only spares the user a long read before the error.
void checkBackendUsable(const BackendOptions& options, const BackendRegistry& backends);

/// Reads one catalog with the shared options.
std::shared_ptr<const Catalog> loadCatalog(const std::string& path, const ReadOptions& options);

} // namespace tpacf::cli
