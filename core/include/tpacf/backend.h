// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Choosing a backend. The CPU is built in; every other backend is a BackendModule that the
// program registers at start-up (kernels/ offers one), so core names none of them and a new
// backend is one registry entry. selectBackend() picks from the registry by name.
#include "tpacf/lab.h"
#include "tpacf/multitau.h"
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
    int cpuThreads = 0;          // <= 0: all hardware threads
    std::vector<int> gpuDevices; // empty: every visible device of the module
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
    /// Usable devices; empty when there are none.
    virtual std::vector<GpuDeviceInfo> devices() const = 0;
    /// Why there are no devices ("built without ...", "no driver: ..."); "" when some.
    virtual std::string unavailableReason() const = 0;
    /// Devices the module sees but cannot count on (left out of devices()), a sentence each
    /// saying why. Default: none.
    virtual std::vector<std::string> unsupportedDevices() const;
    /// Driver and runtime versions for people; "" when unknown.
    virtual std::string versionDescription() const = 0;
    /// A counter over the given devices (empty: all). Throws BackendUnavailable or ConfigError.
    virtual std::unique_ptr<PairCounter> create(Precision precision,
                                                const std::vector<int>& deviceIndices) const = 0;
    /// Starts what a first count on `deviceIndices` (empty: all) waits for (the driver, each
    /// device's context: ~0.25 s on a GPU host), so that a caller can overlap it with reading
    /// the catalogs. Never throws: a failure shows when the counter is made. Default: nothing.
    virtual void warmUp(const std::vector<int>& deviceIndices) const;
    /// The module's rungs of the Kernel Lab (lab.h): teaching kernels, never used by a job.
    /// Default: none.
    virtual lab::LabVariantList labVariants() const;
    /// A multi-tau correlator of photon streams (multitau.h) on `deviceIndices` (empty: the
    /// first device); null where the module has none (the default). Throws like create().
    virtual std::unique_ptr<fcs::MultiTauCorrelator>
    createCorrelator(const fcs::MultiTauSettings& settings, std::size_t channels,
                     const std::vector<int>& deviceIndices) const;
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
};

/// Auto: the first module with a usable device, else the CPU with a notice. A module by name: that
/// module or BackendUnavailable. Cpu with Precision::Float, or a name `backends` does not know:
/// ConfigError. The counter comes with setCulling(options.culling) applied.
BackendSelection selectBackend(const BackendOptions& options, const BackendRegistry& backends);

/// warmUp() of the module selectBackend would choose for `options` (none for the CPU); for
/// "auto", of the first module that lists devices. Never throws.
void warmUpBackend(const BackendOptions& options, const BackendRegistry& backends) noexcept;

} // namespace tpacf
