// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Kernel Lab: a ladder of small pair-counting kernels written to be read, from what students
// write first (one thread per pair, acos, a global atomic per pair) to the product's path, each
// measured and checked bin by bin against the double-precision reference. Teaching material,
// kept apart from the product: no variant here is ever used by a CorrelationJob.
//
// Variants come from this library (the CPU rungs, cpuLabVariants) and from the providers the
// programs register in a LabRegistry beside their backends (the CUDA rungs: kernels/lab/,
// tpacf/cuda/cuda_lab.h), so that neither core nor the pair-counting interface names the Lab.
#include "tpacf/bins.h"
#include "tpacf/catalog.h"
#include "tpacf/pair_counter.h"
#include "tpacf/provider_registry.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tpacf::lab {

/// What one run of a variant gave.
struct LabCounts {
    /// Per bin, as the variant counted them (a variant with 32-bit counters reports what its
    /// counters held, wrapped or not: that is the lesson).
    PairCounts counts;
    /// Wall time of the count alone (the best of the repeats): no reading, no upload of the
    /// catalogs where the variant can keep them apart; what `notes` says otherwise.
    double seconds = 0;
    /// Kernel time measured on the device (CUDA events); < 0 where there is none.
    double deviceSeconds = -1;
    /// Facts of this run a reader should see ("block of 256 threads, 3 blocks per SM", "bin 4's
    /// 32-bit counter wrapped").
    std::vector<std::string> notes;
};

/// One rung of the ladder.
class LabVariant {
public:
    virtual ~LabVariant() = default;
    /// Unique, stable, lower-case: "cpu-1-naive", "cuda-3-shared-histogram".
    virtual std::string key() const = 0;
    /// One line: "Naive: one thread per pair, acosf, a global atomic per pair".
    virtual std::string name() const = 0;
    /// Its place on the ladder, 1 (the course's starting point) to 6 (the product's path).
    virtual int rung() const = 0;
    /// "cpu" or a backend module's name ("cuda").
    virtual std::string backend() const = 0;
    /// True where its counts must equal the double reference bin for bin; false for the rungs
    /// whose error is the point (float acos, 32-bit counters): explanation() says which bins
    /// and why.
    virtual bool exact() const = 0;
    /// A short paragraph: the idea, what the hardware does (threads, shared memory, registers,
    /// atomics per pair), and what it teaches.
    virtual std::string explanation() const = 0;
    /// The source file the variant is built from, relative to the source tree
    /// ("kernels/lab/lab_naive.cu"); its key excerpt lies between the lines holding
    /// "[lab:excerpt <key>]" and "[lab:end]". Shipped as is (the GUI's resources list the same
    /// files), so the excerpt shown is the code that runs.
    virtual std::string sourceFile() const = 0;
    /// Counts the pairs of `first` (auto: i < j) or of `first` × `second` (cross) in `binning`.
    /// Throws BackendUnavailable where its device is missing, Cancelled when `cancel` is set.
    virtual LabCounts count(const Catalog& first, const Catalog* second, const Binning& binning,
                            int repeats, const std::atomic<bool>* cancel) = 0;
};

using LabVariantList = std::vector<std::unique_ptr<LabVariant>>;

/// The CPU rungs: scalar naive (float, acos, log binning), chord² thresholds, the vectorised
/// tile kernel on one thread, all threads, culled. `threads` <= 0: all hardware threads.
LabVariantList cpuLabVariants(int threads = 0);

/// A source of variants beside the CPU rungs (the CUDA rungs), registered by the programs.
/// Implementations never throw from the queries.
class LabProvider {
public:
    virtual ~LabProvider() = default;
    /// Lower-case, unique in a registry: the backend its variants run on (LabVariant::backend()).
    virtual std::string name() const = 0;
    /// For messages ("CUDA backend unavailable: ...").
    virtual std::string displayName() const = 0;
    /// Why its variants cannot run here ("" when they can): no device, built without it.
    virtual std::string unavailableReason() const = 0;
    /// Its rungs (listed even where they cannot run, so that a listing shows them).
    virtual LabVariantList variants() const = 0;
};

/// The providers a program offers, in the order their variants are listed after the CPU's.
using LabRegistry = ProviderRegistry<LabProvider>;

/// Every variant the program offers: the CPU's, then each provider's.
LabVariantList allLabVariants(const LabRegistry& registry, int cpuThreads = 0);

/// One row of the lab's table.
struct LabRow {
    std::string key, name, backend;
    int rung = 0;
    bool expectedExact = true;
    double seconds = 0;
    double deviceSeconds = -1;
    double pairsPerSecond = 0;
    /// Over the row before it of the same backend, and over that backend's first row; 0 for
    /// the first.
    double speedupOverPrevious = 0;
    double speedupOverFirst = 0;
    /// counts − reference, per bin.
    std::vector<std::int64_t> difference;
    /// Bins whose count differs from the reference, and the largest |difference| / reference
    /// over the bins whose reference count is not zero (a count where the reference has none
    /// is reported in `difference` and `wrongBins`).
    int wrongBins = 0;
    double maxRelativeError = 0;
    std::vector<std::string> notes;
    /// Set when the variant could not run (no device, out of memory); the other fields empty.
    std::string error;
};

struct LabReport {
    std::uint64_t pairs = 0; // pairs each variant counted
    std::vector<double> edges; // bin edges, in the binning's unit
    PairCounts reference;      // the double-precision reference (CpuPairCounter, double)
    std::vector<LabRow> rows;  // in the order the variants were given
};

/// Counts the reference once, then every variant (`repeats` each, best time), in order.
/// `progress(done, total)` after each. Cancelled when `cancel` is set.
LabReport runLab(const LabVariantList& variants, const Catalog& first, const Catalog* second,
                 const Binning& binning, int repeats = 3,
                 const std::function<void(int done, int total)>& progress = {},
                 const std::atomic<bool>* cancel = nullptr);

/// The lines of `sourceFile` between "[lab:excerpt key]" and "[lab:end]", read from `sourceRoot`
/// (the source tree, or the folder the sources are installed in); empty when not found.
std::string sourceExcerpt(const std::string& sourceRoot, const std::string& sourceFile,
                          const std::string& key);

} // namespace tpacf::lab
