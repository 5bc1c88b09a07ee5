#pragma once
// The CUDA backend behind a plain C++ header: no CUDA type leaks out of kernels/.
#include "tpacf/backend.h"

#include <memory>

namespace tpacf::cuda {

/// The CUDA module's provider. Always available to link: in a build without CUDA it reports
/// "built without CUDA support" and offers no devices.
std::unique_ptr<GpuBackendProvider> makeProvider();

} // namespace tpacf::cuda
