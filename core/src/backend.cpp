#include "tpacf/backend.h"

#include "tpacf/cpu_pair_counter.h"
#include "tpacf/errors.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace tpacf {

namespace {

// Why `gpu` cannot count here, or "" when it can.
std::string gpuUnavailableReason(const GpuBackendProvider* gpu) {
    if (!gpu)
        return "this build has no GPU backend";
    if (!gpu->compiledIn() || gpu->devices().empty()) {
        std::string reason = gpu->unavailableReason();
        return reason.empty() ? std::string("no usable device found") : reason;
    }
    return {};
}

// Every counter leaves here with the culling mode asked for, whichever backend it is.
std::unique_ptr<PairCounter> withCulling(std::unique_ptr<PairCounter> counter,
                                         const BackendOptions& options) {
    counter->setCulling(options.culling);
    return counter;
}

std::unique_ptr<PairCounter> makeCpuCounter(const BackendOptions& options) {
    return withCulling(std::make_unique<CpuPairCounter>(options.cpuThreads), options);
}

std::unique_ptr<PairCounter> makeGpuCounter(const BackendOptions& options,
                                            const GpuBackendProvider& gpu) {
    return withCulling(gpu.create(options.precision.value_or(Precision::Float), options.gpuDevices),
                       options);
}

} // namespace

BackendSelection selectBackend(const BackendOptions& options, const GpuBackendProvider* gpu) {
    switch (options.kind) {
    case BackendKind::Cpu:
        if (options.precision == Precision::Float)
            throw ConfigError("the CPU backend counts in double precision only");
        return {makeCpuCounter(options), {}};
    case BackendKind::Cuda: {
        const std::string reason = gpuUnavailableReason(gpu);
        if (!reason.empty())
            throw BackendUnavailable("the CUDA backend is not available: " + reason);
        return {makeGpuCounter(options, *gpu), {}};
    }
    case BackendKind::Auto:
        break;
    }

    std::string reason = gpuUnavailableReason(gpu);
    if (reason.empty()) {
        try {
            return {makeGpuCounter(options, *gpu), {}};
        } catch (const BackendUnavailable& e) {
            // Devices were listed but cannot be used (out of memory, busy, driver mismatch):
            // "auto" means the user accepts the CPU then. Bad settings (ConfigError) still fail.
            reason = e.what();
        }
    }
    std::string notice = "no CUDA device (" + reason + "); using the CPU backend";
    if (options.precision == Precision::Float)
        notice += " in double precision";
    return {makeCpuCounter(options), std::move(notice)};
}

std::optional<BackendKind> parseBackendKind(std::string_view text) noexcept {
    std::string lower(text);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (lower == "auto")
        return BackendKind::Auto;
    if (lower == "cpu")
        return BackendKind::Cpu;
    if (lower == "cuda" || lower == "gpu")
        return BackendKind::Cuda;
    return std::nullopt;
}

std::string_view backendKindName(BackendKind kind) noexcept {
    switch (kind) {
    case BackendKind::Auto:
        return "auto";
    case BackendKind::Cpu:
        return "cpu";
    case BackendKind::Cuda:
        return "cuda";
    }
    return "auto";
}

} // namespace tpacf
