#pragma once
// Choosing a backend. The CPU is built in; every other backend is a BackendModule that the
// program registers at start-up (kernels/ offers one), so core names none of them and a new
// backend is one registry entry. selectBackend() picks from the registry by name.
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
    /// Unset: float on a GPU, double on the CPU (the CPU backend is always double).
    std::optional<Precision> precision;
    int cpuThreads = 0;          // <= 0: all hardware threads
    std::vector<int> gpuDevices; // empty: every visible device of the module
    CullingMode culling = CullingMode::Auto;
};

struct GpuDeviceInfo {
    int index = 0;
    std::string name;
    std::uint64_t memoryBytes = 0;
    int computeMajor = 0;
    int computeMinor = 0;
    int multiprocessors = 0;
};

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
    /// Driver and runtime versions for people; "" when unknown.
    virtual std::string versionDescription() const = 0;
    /// A counter over the given devices (empty: all). Throws BackendUnavailable or ConfigError.
    virtual std::unique_ptr<PairCounter> create(Precision precision,
                                                const std::vector<int>& deviceIndices) const = 0;
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
};

/// Auto: the first module with a usable device, else the CPU with a notice. A module by name: that
/// module or BackendUnavailable. Cpu with Precision::Float, or a name `backends` does not know:
/// ConfigError. The counter comes with setCulling(options.culling) applied.
BackendSelection selectBackend(const BackendOptions& options, const BackendRegistry& backends);

} // namespace tpacf
