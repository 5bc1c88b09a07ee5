// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Choosing a backend. The CPU is built in; every other backend is a BackendModule that the
// program registers at start-up (kernels/ offers one), so core names none of them and a new
// backend is one registry entry. selectBackend() picks from the registry by name. Pair counting
// only: the side tools have registries of their own (lab.h's LabRegistry, multitau.h's
// CorrelatorRegistry) that the programs fill beside this one.
#include "tpacf/pair_counter.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tpacf {

/// The names every registry knows: the automatic choice and the built-in CPU backend.
inline constexpr std::string_view kAutoBackend = "auto";
inline constexpr std::string_view kCpuBackend = "cpu";
/// Accepted for the first registered module, as the command line always has.
inline constexpr std::string_view kGpuAlias = "gpu";

struct BackendOptions {
    /// "auto", "cpu" or a registered module's name (any case; "gpu": the first module).
    std::string name = std::string(kAutoBackend);
    /// Unset ("auto"): double on the CPU (always double) and on GPUs with full-rate FP64
    /// (fp32PerFp64 <= kFullRateFp64Ratio), float (hi+lo) on GPUs with slow FP64; see
    /// autoPrecision().
    std::optional<Precision> precision;
    int cpuThreads = 0; // <= 0: all hardware threads
    /// The GPUs to count on (--devices, the GUI's choice). Empty: chosen for the job
    /// (chooseJobDevices): with a work estimate, as many of this process's devices as shorten
    /// the wall; without one, all of them.
    std::vector<int> gpuDevices;
    /// Where gpuDevices were chosen automatically by the caller (the CLI, before reading the
    /// catalogs): why, for the result ("auto: 1 of 4 GPUs, ..."); "" when they were asked for.
    std::string deviceChoice;
    /// Under MPI, this process's place among the ranks of its host: each rank takes its own
    /// share of the devices (devicesOfRank). One process: {0, 1}.
    struct HostPlacement {
        int rank = 0;
        int ranks = 1;
    } placement;
    CullingMode culling = CullingMode::Auto;
    /// The most device memory a GPU counter's catalogs may take, bytes per device; 0: what each
    /// device has free. A batch that needs more is counted in chunks (PairCounter).
    std::uint64_t deviceMemoryLimit = 0;
};

struct GpuDeviceInfo {
    int index = 0;
    std::string name;
    std::uint64_t memoryBytes = 0;
    int computeMajor = 0;
    int computeMinor = 0;
    int multiprocessors = 0;
    /// FP32 : FP64 throughput ratio the device reports (2 on an H100 or A100, 64 on a GeForce
    /// RTX 40); 0 when unknown.
    int fp32PerFp64 = 0;
    /// Which of the build's GPU code the device runs ("sm_90 machine code", "compute_90 PTX
    /// (compiled by the driver at first use)"); "" when the module does not say.
    std::string code;
    /// Peak SM clock in kHz; 0 when unknown.
    int clockKHz = 0;
    /// Pairs per second a full-range count is expected to reach on this device alone, in float
    /// and in double: what the automatic device count weighs a job's work against. 0: unknown.
    double pairsPerSecondFloat = 0;
    double pairsPerSecondDouble = 0;
    /// This process has started the device (driver and context): a job adds it at no cost.
    bool started = false;
    /// False where this process keeps the device out of its driver (BackendModule::
    /// reserveDevices): listed, but no counter of this process can use it.
    bool reachable = true;
};

/// Devices whose FP64 runs at least at a third of their FP32 rate count in double when the
/// precision is left to the program: there double costs a few percent and gives counts
/// identical to the CPU.
inline constexpr int kFullRateFp64Ratio = 3;

/// The precision "auto" means on `devices` (those a counter would use), and why, in a phrase
/// for the result ("double: NVIDIA H100 80GB HBM3 computes FP64 at 1/2 of its FP32 rate").
struct PrecisionChoice {
    Precision precision = Precision::Float;
    std::string reason;
};
PrecisionChoice autoPrecision(const std::vector<GpuDeviceInfo>& devices);

/// A backend beside the built-in CPU, with devices of its own (a GPU module). Implementations
/// never throw from the queries.
class BackendModule {
public:
    virtual ~BackendModule() = default;
    /// Lower-case, unique in a registry; what --backend, sessions and results call it.
    virtual std::string name() const = 0;
    /// For messages ("the X backend is not available"); by default the name in upper case.
    virtual std::string displayName() const;
    /// False when the program was built without this backend.
    virtual bool compiledIn() const = 0;
    /// Usable devices; empty when there are none. Read without starting any device (the CUDA
    /// module asks NVML, ~10 ms a GPU, where the driver's start costs ~0.25 s a GPU), so that
    /// listing them costs a job nothing.
    virtual std::vector<GpuDeviceInfo> devices() const = 0;
    /// Why there are no devices ("built without ...", "no driver: ..."); "" when some.
    virtual std::string unavailableReason() const = 0;
    /// Devices the module sees but cannot count on (left out of devices()), a sentence each
    /// saying why. Default: none.
    virtual std::vector<std::string> unsupportedDevices() const;
    /// Driver and runtime versions for people; "" when unknown.
    virtual std::string versionDescription() const = 0;
    /// What the module was built with, known without starting anything (a GPU module: its
    /// toolkit and the architectures it has code for); "" by default.
    virtual std::string buildDescription() const;
    /// A counter over the given devices (empty: all reachable ones), each started on a thread
    /// of its own. Throws BackendUnavailable or ConfigError.
    virtual std::unique_ptr<PairCounter> create(Precision precision,
                                                const std::vector<int>& deviceIndices) const = 0;
    /// Starts what a first count in `precision` on `deviceIndices` (empty: all reachable) waits
    /// for (the driver, each device's context, the kernels it loads first), one thread a device,
    /// so that a caller can overlap it with reading the catalogs. Never throws: a failure shows
    /// when the counter is made. Default: nothing.
    virtual void warmUp(const std::vector<int>& deviceIndices, Precision precision) const;
    /// Keeps every device but `deviceIndices` out of this process's driver, where the module
    /// can and nothing has started it yet (CUDA: the driver starts every visible GPU, ~0.25 s
    /// each, one after another, whether a job uses it or not). Only for a process that will
    /// use no other device of the module in its lifetime (the CLI's one job); the devices left
    /// out are then listed with reachable = false. Never throws. Default: nothing.
    virtual void reserveDevices(const std::vector<int>& deviceIndices) const;
};

/// The backends a program offers: the built-in CPU and the modules added at start-up, in the
/// order "auto" tries them. A value: copies share the (immutable) modules, so a job or a worker
/// thread can keep its own copy.
class BackendRegistry {
public:
    /// The CPU alone.
    BackendRegistry() = default;

    /// Adds a module after the others. ConfigError when it is null, its name is empty, not lower
    /// case, reserved ("auto", "cpu", "gpu") or already taken.
    BackendRegistry& add(std::shared_ptr<const BackendModule> module);
    /// Puts `module` in place of the registered one of the same name (e.g. one with other
    /// settings); ConfigError when there is none.
    BackendRegistry& replace(std::shared_ptr<const BackendModule> module);

    const std::vector<std::shared_ptr<const BackendModule>>& modules() const noexcept {
        return m_modules;
    }
    /// The module of that name (any case), or null ("cpu", "auto" and unknown names).
    const BackendModule* find(std::string_view name) const noexcept;
    /// "auto", "cpu", then each module's name.
    std::vector<std::string> names() const;
    /// names() joined with ", ", for messages and help texts.
    std::string namesText() const;
    /// The registered name `text` means: any case, "gpu" for the first module; nullopt when none.
    std::optional<std::string> resolve(std::string_view text) const;

private:
    std::vector<std::shared_ptr<const BackendModule>> m_modules;
};

/// The counter to use and a one-line notice for the user (e.g. the fallback to the CPU), or "".
struct BackendSelection {
    std::unique_ptr<PairCounter> counter;
    std::string notice;
    /// How the precision was chosen: "requested" when BackendOptions::precision was given,
    /// else the auto rule's reason ("auto: double, ...").
    std::string precisionChoice;
    /// How the GPUs were chosen: "" for the CPU and for devices asked for, else the reason
    /// (DeviceChoice::reason; the result carries it as a note).
    std::string deviceChoice;
};

struct CountWorkEstimate; // device_choice.h

/// Auto: the first module with a usable device, else the CPU with a notice. A module by name: that
/// module or BackendUnavailable. Cpu with Precision::Float, or a name `backends` does not know:
/// ConfigError. The counter comes with setCulling(options.culling) applied. `work`: the job's
/// estimated work, from which the GPUs are chosen where options.gpuDevices is empty
/// (chooseJobDevices); null: every device of this process.
BackendSelection selectBackend(const BackendOptions& options, const BackendRegistry& backends,
                               const CountWorkEstimate* work = nullptr);

/// The module selectBackend would choose for `options`: null for the CPU; for "auto", the first
/// module that lists devices. Never throws.
const BackendModule* backendModuleFor(const BackendOptions& options,
                                      const BackendRegistry& backends) noexcept;

/// warmUp() of the module selectBackend would choose for `options` (none for the CPU), on
/// options.gpuDevices (empty: this process's devices), in the precision the job will count in.
/// Never throws.
void warmUpBackend(const BackendOptions& options, const BackendRegistry& backends) noexcept;

} // namespace tpacf
