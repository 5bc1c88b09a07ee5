// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// tpacf bench's report: what was measured per backend, precision and kernel, as the table a
// person reads or as JSON (cmd_bench.cpp measures).
#include "tpacf/bins.h"
#include "tpacf/culling.h"
#include "tpacf/footprint.h"
#include "tpacf/mock.h"

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace tpacf::cli {

/// One timed count (DD, DR or the batch) of one configuration.
struct Measurement {
    std::string kind;    // "DD", "DR", "batch"
    bool culled = false; // the counter's lastBatchCulled() after the timed runs
    std::size_t taskCount = 0;
    std::uint64_t pairs = 0;
    std::vector<double> wallSeconds;
    std::vector<double> deviceSeconds; // empty where the backend has no device timer
    double medianWall = 0;
    std::optional<double> medianDevice;
};

/// One backend x precision (x CPU kernel): its measurements, or why it was skipped.
struct Configuration {
    std::string backend;
    std::string precision;
    std::string kernel; // the CPU's inner-loop variant; "" for backends without variants
    bool skipped = false;
    std::string reason;
    std::string device;
    std::vector<Measurement> measurements;
    std::vector<std::string> notes; // how the counts were made (PairCounter::lastBatchNotes)
};

/// What the points are, how the counters are set and how the bench times them.
struct BenchSetup {
    std::size_t n = 0;
    Footprint footprint = Footprint::fullSky();
    bool clustered = false;
    MockParams mock; // count, seed, footprint and clustering of the data when clustered
    CullingMode culling = CullingMode::Auto;
    bool weighted = false; // every catalog carries weights (uniform in [0.5, 1.5])
    int sets = 0;          // random sets of the batch measurement (0: no batch)
    int repeats = 3;
    std::uint64_t seed = 1;
    bool warmUp = true;
    std::string cudaTuning; // CudaTuning::describe(), "" for the default

    /// "100000 clustered (Soneira-Peebles) data points and uniform randoms per catalog, box RA…".
    std::string describe() const;
};

/// The report as the table, with its header line and the notes (`mpiRanks` > 1: under MPI).
void printBenchText(std::ostream& out, const std::vector<Configuration>& configurations,
                    const BenchSetup& setup, const Binning& binning, int mpiRanks);
/// The report as JSON.
void printBenchJson(std::ostream& out, const std::vector<Configuration>& configurations,
                    const BenchSetup& setup, const Binning& binning, int mpiRanks);

} // namespace tpacf::cli
