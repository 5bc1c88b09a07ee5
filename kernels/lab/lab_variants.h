// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The CUDA rungs of the Kernel Lab (tpacf/lab.h), one factory per rung; each rung's kernel is
// in its own file of kernels/lab/. The CUDA lab provider (lab_provider.cpp) offers them.
#include "tpacf/cuda/cuda_backend.h"
#include "tpacf/lab.h"
#include "tpacf/pair_counter.h"

#include <memory>

namespace tpacf::cuda::lab {

std::unique_ptr<tpacf::lab::LabVariant> makeNaiveVariant(int device);  // lab_naive.cu
std::unique_ptr<tpacf::lab::LabVariant> makeChord2Variant(int device); // lab_chord2.cu
std::unique_ptr<tpacf::lab::LabVariant>
makeSharedHistogramVariant(int device); // lab_shared_histogram.cu
std::unique_ptr<tpacf::lab::LabVariant>
makeRegisterBlockedVariant(int device);                              // lab_register_blocked.cu
std::unique_ptr<tpacf::lab::LabVariant> makeHiLoVariant(int device); // lab_hilo.cu
/// The product's own counter on `device`, in `precision` (what precision "auto" picks there),
/// with the provider's tuning (lab_product.cpp).
std::unique_ptr<tpacf::lab::LabVariant> makeProductVariant(int device, Precision precision,
                                                           const CudaTuning& tuning);

/// The six rungs, in order, on `device`.
tpacf::lab::LabVariantList makeCudaLabVariants(int device, Precision productPrecision,
                                               const CudaTuning& tuning);

} // namespace tpacf::cuda::lab
