// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Which of this build's GPU code a device can run, decided from its compute capability and the
// CUDA_ARCHITECTURES the library was compiled for, before any context is made: a device none of
// it runs on is left out of the backend's devices with a sentence saying why, instead of failing
// at the first launch with cudaErrorNoKernelImageForDevice.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tpacf::cuda::detail {

/// One entry of CUDA_ARCHITECTURES: machine code (SASS) for sm_<cc>, or PTX for compute_<cc>.
struct CodeTarget {
    int cc = 0;           ///< 10 · major + minor
    bool machine = false; ///< SASS; else PTX
    bool exact = false;   ///< an arch-specific target ("90a"): that compute capability only
};

/// Parses a CMake CUDA_ARCHITECTURES list ("75-real;90-real;90-virtual", or comma-separated;
/// "80" = real and virtual; "90a-real"). nullopt for the lists CMake resolves elsewhere ("all", "all-major",
/// "native") or anything unreadable: then the build's reach is unknown and no device is refused.
std::optional<std::vector<CodeTarget>> parseArchitectures(std::string_view list);

/// What a device of compute capability major.minor runs: the newest machine code of its own
/// major generation no newer than it, else the newest PTX no newer than it (JIT-compiled by the
/// driver at first use).
struct DeviceCode {
    bool runs = false;
    bool jit = false;
    int cc = 0;               ///< the target chosen
    std::string description;  ///< "sm_86 machine code", "compute_90 PTX (compiled by the driver)"
};
DeviceCode codeForDevice(int major, int minor, const std::vector<CodeTarget>& targets);

/// The targets in words, for messages: "machine code for sm_75, sm_90; PTX for compute_90".
std::string describeTargets(const std::vector<CodeTarget>& targets);

/// Why a device cannot run this build's code (empty when it can, or when the build's targets
/// are unknown). `architectures` is the CUDA_ARCHITECTURES list the library was built with.
std::string unsupportedReason(int index, const std::string& name, int major, int minor,
                              std::string_view architectures);

/// The CUDA_ARCHITECTURES this library was compiled for ("" when the build did not say).
std::string_view builtArchitectures();

} // namespace tpacf::cuda::detail
