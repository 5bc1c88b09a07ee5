// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The CUDA module's error type, apart from cuda_backend.h so that the device code (every .cu
// file includes cuda_check.h) does not depend on the backend interface and its headers.
#include "tpacf/errors.h"

#include <string>

namespace tpacf::cuda {

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
