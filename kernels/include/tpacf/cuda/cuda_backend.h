#pragma once
// The CUDA backend behind a plain C++ header: no CUDA type leaks out of kernels/.
#include "tpacf/backend.h"
#include "tpacf/errors.h"

#include <memory>
#include <string>

namespace tpacf::cuda {

/// The CUDA module's provider. Always available to link: in a build without CUDA it reports
/// "built without CUDA support" and offers no devices.
std::unique_ptr<GpuBackendProvider> makeProvider();

/// A failed CUDA runtime call or kernel launch: what() names the call, file:line and the CUDA
/// error (name and text); code() is the cudaError_t value.
class CudaError : public Error {
  public:
    CudaError(const std::string& message, int code) : Error(message), m_code(code) {}
    int code() const noexcept { return m_code; }

  private:
    int m_code;
};

} // namespace tpacf::cuda
