#pragma once
// Choosing a backend. core knows no CUDA: a GPU module (kernels/) hands in a
// GpuBackendProvider, and selectBackend() picks between it and the CPU.
#include "tpacf/pair_counter.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tpacf {

enum class BackendKind { Auto, Cpu, Cuda };

struct BackendOptions {
    BackendKind kind = BackendKind::Auto;
    /// Unset: float on a GPU, double on the CPU (the CPU backend is always double).
    std::optional<Precision> precision;
    int cpuThreads = 0;          // <= 0: all hardware threads
    std::vector<int> gpuDevices; // empty: every visible device
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

/// What a GPU module offers. Implementations never throw from the queries.
class GpuBackendProvider {
public:
    virtual ~GpuBackendProvider() = default;
    /// "cuda".
    virtual std::string name() const = 0;
    /// False when the program was built without this backend.
    virtual bool compiledIn() const = 0;
    /// Usable devices; empty when there are none.
    virtual std::vector<GpuDeviceInfo> devices() const = 0;
    /// Why there are no devices ("built without CUDA", "no CUDA driver: ..."); "" when some.
    virtual std::string unavailableReason() const = 0;
    /// Driver and runtime versions, e.g. "CUDA runtime 13.0, driver 13.0"; "" when unknown.
    virtual std::string versionDescription() const = 0;
    /// A counter over the given devices (empty: all). Throws BackendUnavailable or ConfigError.
    virtual std::unique_ptr<PairCounter> create(Precision precision,
                                                const std::vector<int>& deviceIndices) const = 0;
};

/// The counter to use and a one-line notice for the user (e.g. the fallback to the CPU), or "".
struct BackendSelection {
    std::unique_ptr<PairCounter> counter;
    std::string notice;
};

/// Auto: the GPU where one is usable, else the CPU with a notice. Cuda: the GPU or
/// BackendUnavailable. Cpu with Precision::Float: ConfigError. `gpu` may be null. The counter
/// comes with setCulling(options.culling) applied.
BackendSelection selectBackend(const BackendOptions& options, const GpuBackendProvider* gpu);

/// "auto", "cpu", "cuda" (also "gpu").
std::optional<BackendKind> parseBackendKind(std::string_view text) noexcept;
std::string_view backendKindName(BackendKind kind) noexcept;

} // namespace tpacf
