// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Count stores: every pair count of a run together with what it was counted from (the bins, a
// content fingerprint of each catalog, the jackknife regions), so that a later run takes the
// counts whose inputs have not changed, and shares of one batch add up to the whole batch.
// Count files (count_file.cpp) write and read a CountStore.
#include "tpacf/bins.h"
#include "tpacf/catalog.h"
#include "tpacf/culling.h"
#include "tpacf/estimator.h"
#include "tpacf/pair_counter.h"

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tpacf {

/// A 128-bit content hash, written as 32 hex digits.
struct Fingerprint {
    std::uint64_t high = 0, low = 0;

    bool empty() const noexcept { return high == 0 && low == 0; }
    bool operator==(const Fingerprint&) const = default;
    std::string hex() const;
    /// 32 hex digits; nullopt for anything else.
    static std::optional<Fingerprint> parseHex(std::string_view text) noexcept;
};

/// The content of a catalog as read: N, whether it carries weights, and every RA, Dec (and
/// weight) bit for bit, in point order; not its name or file. Hashes 64-bit words (about 1 ms
/// per 10^5 points): a changed coordinate, weight or point order changes it.
Fingerprint contentFingerprint(const Catalog& catalog);
/// A catalog's jackknife regions: K and the region of each point, in point order.
Fingerprint regionFingerprint(std::span<const std::int32_t> regions, std::size_t regionCount);

/// One catalog a store's counts were counted from.
struct CountCatalog {
    std::string name; ///< where it was read from, for messages only
    Fingerprint content;
    Fingerprint regions; ///< empty without jackknife
    std::uint64_t size = 0;
    bool weighted = false; ///< the catalog carries weights
    WeightSums weights;    ///< Σw, Σw² (N, N without weights)

    /// `regions`: the region of each point (in point order) in a jackknife job, else empty.
    static CountCatalog of(const Catalog& catalog, std::span<const std::int32_t> regions = {},
                           std::size_t regionCount = 0);
};

/// One count: the auto-correlation of catalogs[first], or catalogs[first] × catalogs[second].
struct StoredCount {
    std::string label; ///< "DD", "DR_1", "RD_1", "RR_2" as the run that counted it named it
    std::size_t first = 0;
    std::optional<std::size_t> second;
    TaskCounts counts; ///< raw and, for a weighted task, the weighted sums
    /// Jackknife runs: the tallies by region (their totals are `counts`).
    std::optional<RegionPairCounts> regions;

    bool isAuto() const noexcept { return !second; }
};

/// The counts of one run (or of several shares of one batch, combined).
struct CountStore {
    static constexpr int kFormatVersion = 1;

    // The bins, as they were counted: compared bit for bit on the c² thresholds.
    std::string binsDescription; ///< BinSpec::describe()
    AngleUnit unit = AngleUnit::Arcminute;
    std::vector<double> edges;       ///< in `unit`
    std::vector<double> chord2Edges; ///< Binning::chord2Edges()
    std::size_t regionCount = 0;     ///< jackknife K; 0 without
    // How the counts were made: shares of one batch add up only on the same backend's work list.
    std::string backend;
    Precision precision = Precision::Double;
    CullingMode culling = CullingMode::Auto;
    bool culled = false; ///< the counts visited only the cell pairs within reach of the bins
    /// The work shares held: parts sharesHeld (0-based, ascending) of shareParts.
    std::uint32_t shareParts = 1;
    std::vector<std::uint32_t> sharesHeld{0};
    std::vector<CountCatalog> catalogs;
    std::vector<StoredCount> counts;
    /// The file it was read from ("" when built in memory); not written.
    std::string source;

    /// Every share of the batch is in it: the counts are whole counts.
    bool whole() const noexcept { return sharesHeld.size() == shareParts; }
    /// The shares not held, 0-based.
    std::vector<std::uint32_t> missingShares() const;
    /// "part 1 of 2", "parts 1, 3 of 4" (1-based, as --share K/N), "the whole batch".
    std::string describeShares() const;
    /// Where it came from, for messages: its source, or "the reused counts".
    std::string sourceName() const;

    /// Index of a catalog with this content fingerprint; nullopt when none.
    std::optional<std::size_t> findCatalog(const Fingerprint& content) const noexcept;
    /// Adds a catalog (or returns the index of one with the same content and regions).
    std::size_t addCatalog(CountCatalog catalog);

    /// The count of `first` (auto, second == nullptr) or first × second, found by content
    /// fingerprint; a cross count matches in either order (swapped: stored as second × first).
    struct Match {
        const StoredCount* count = nullptr;
        bool swapped = false;
    };
    std::optional<Match> find(const Fingerprint& first, const Fingerprint* second) const;

    /// Throws ConfigError naming both bin descriptions unless `binning`'s c² thresholds are
    /// those of the store, bit for bit.
    void requireBins(const Binning& binning) const;
    /// Sets the bin fields from `binning`.
    void setBins(const Binning& binning);
};

/// Adds stores of distinct shares of one batch: the same bins, regions, backend, catalogs and
/// counts (in the same order), distinct shares of the same N. Raw counts and region tallies add
/// exactly, weighted sums in double. Throws ConfigError naming the first store (by its source)
/// that does not fit and why, or a share held twice. The result holds the union of the shares:
/// whole() when all N are there.
CountStore combineCountStores(std::span<const CountStore> stores);

/// Throws InputError naming the store's source and the count (and bin) where a number is
/// impossible: more pairs in a bin, or over all bins, than its catalogs have; a weighted sum
/// beyond what their N and Σw² allow; region tallies beyond their bin; two different counts of
/// the same catalogs. readCountFile calls it. A count file carries no signature: an edited
/// number within these bounds is not caught.
void checkCountStorePlausible(const CountStore& store);

// Count files (core/src/io/count_file.cpp).

/// Whether this build writes and reads FITS count files (built with cfitsio).
bool fitsCountFilesSupported() noexcept;
/// Whether writeCountFile writes FITS to `path`: a name ending ".fits", ".fit" or ".fts"
/// (any case); every other name is JSON.
bool isFitsCountFileName(const std::string& path);
/// Throws ConfigError unless `path` names a count file format this build writes and reads:
/// JSON, or FITS where fitsCountFilesSupported(); compressed FITS (".fits.gz", ".fz") never.
void requireCountFileFormat(const std::string& path);
/// The store as JSON: a "format"/"version" header, bins, catalogs, counts (integers; weighted
/// sums with 17 significant digits, so they read back bit for bit).
void writeCountStoreJson(std::ostream& out, const CountStore& store);
/// Writes `path` atomically (temporary file, rename), as FITS where isFitsCountFileName(path)
/// (the layout is described in core/src/io/count_file_fits_format.h), else as JSON. Throws
/// InputError naming the path, ConfigError for a format requireCountFileFormat refuses.
void writeCountFile(const std::string& path, const CountStore& store);
/// Reads a count file, JSON or FITS by its content (FITS begins with SIMPLE); `source` is set to
/// `path`. Throws InputError naming the file (and line) for a missing, malformed, truncated or
/// foreign file, or a version this build does not read.
CountStore readCountFile(const std::string& path);
/// The same from text; `name` is used in messages and as the source.
CountStore parseCountStoreJson(std::string_view text, const std::string& name);

} // namespace tpacf
