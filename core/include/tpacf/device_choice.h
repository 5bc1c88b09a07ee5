// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// How many GPUs a job counts on. Each GPU a process starts costs ~0.3 s (the driver's share and
// a context; one after another), and a job's counting splits over the GPUs it uses: a job uses
// as many as shorten its wall, from its estimated work and the devices' expected pair rates.
// Pure functions over plain values (tests/core/test_device_choice.cpp), and the rule the
// backend selection and the CLI's start apply (chooseJobDevices, startJobDevices).
#include "tpacf/backend.h"
#include "tpacf/bins.h"
#include "tpacf/culling.h"
#include "tpacf/pair_counter.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace tpacf {

/// One count of a batch by its catalogs' sizes (the CLI knows them before reading).
struct CountShape {
    std::uint64_t first = 0;
    std::uint64_t second = 0; ///< ignored for an auto count
    bool isAuto = true;
};

/// What a batch asks of the devices, estimated before anything is counted.
struct CountWorkEstimate {
    std::uint64_t pairs = 0;  ///< unique pairs of the batch (of the share)
    double pairsComputed = 0; ///< pairs the kernels are expected to compute (culling: in reach)
    bool culled = false;      ///< whether the Auto culling rule (or the mode asked) culls
    bool sampled = false;     ///< the fraction in reach was measured on the catalogs' points
};

/// From the catalogs' sizes: pairs in reach as on a uniform full sky (the catalogs' tiles
/// widen the reach by their own size). `shareFraction`: the part of the batch this process
/// counts (MPI: 1/ranks).
CountWorkEstimate estimateCountWork(std::span<const CountShape> counts, const Binning& binning,
                                    CullingMode culling, double shareFraction = 1.0);
/// From the catalogs: as above, but the fraction in reach is the larger of the full-sky one and
/// the one measured on an even subsample of each catalog (a small footprint or strong
/// clustering puts more pairs in reach). A few milliseconds.
CountWorkEstimate estimateCountWork(std::span<const CountTask> tasks, const Binning& binning,
                                    CullingMode culling, double shareFraction = 1.0);

/// The model's costs (measured on a 4 x H200 host, BENCHMARKS.md): starting one more GPU (its
/// share of the driver's start and its context; the driver starts them one after another), and
/// what each GPU beyond the first adds however small the job (its copy of the catalogs, its
/// launches' tail, the sum of the counts).
inline constexpr double kDeviceStartSeconds = 0.3;
inline constexpr double kDeviceSplitSeconds = 0.03;

struct DeviceChoice {
    std::vector<int> devices; ///< device indices, in the order given
    std::string reason;       ///< one line for the result and the summary
};

/// The automatic device count: the first k of `candidates` (taken in their order, those already
/// started first) whose estimated wall — the starts of the devices not yet started, the split's
/// cost, and the work over their summed pair rates — is least (within 1 %, fewer preferred).
/// Devices that are not reachable are left out; where a candidate's rate is unknown (0) every
/// candidate is used. Empty candidates: empty choice; one: that one, with no reason to give.
DeviceChoice chooseDeviceCount(const CountWorkEstimate& work,
                               const std::vector<GpuDeviceInfo>& candidates, Precision precision);

/// The share of `pool` that rank `rank` of `ranks` processes on one host counts on: contiguous
/// blocks where the pool has at least as many devices as ranks, else one device each, in turn.
std::vector<int> devicesOfRank(const std::vector<int>& pool, int rank, int ranks);

/// The devices a job of `module` counts on, and why: options.gpuDevices where given (under MPI
/// the rank's share of them), else with `work` the automatic count over this process's devices
/// (its rank's share of the reachable ones), else all of those. The precision weighed is the
/// one asked for, else the one autoPrecision picks on those devices.
DeviceChoice chooseJobDevices(const BackendModule& module, const BackendOptions& options,
                              const CountWorkEstimate* work);

/// The CLI's start, before reading: chooses the job's devices (chooseJobDevices with `work`, for
/// the module selectBackend would pick), keeps the others out of the driver
/// (reserveDevices) and returns the options with gpuDevices and deviceChoice set, to give to
/// warmUpBackend and the job. Options of the CPU, or with no module to choose, come back as
/// they are. Never throws: a problem shows when the job selects its backend.
BackendOptions reserveJobDevices(const BackendOptions& options, const BackendRegistry& backends,
                                 const CountWorkEstimate* work) noexcept;

} // namespace tpacf
