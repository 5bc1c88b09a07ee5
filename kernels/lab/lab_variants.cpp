// SPDX-License-Identifier: GPL-3.0-or-later
// The CUDA rungs of the Kernel Lab, in ladder order (what the CUDA lab provider offers).
#include "lab_variants.h"

namespace tpacf::cuda::lab {

tpacf::lab::LabVariantList makeCudaLabVariants(int device, Precision productPrecision,
                                               const CudaTuning& tuning) {
    tpacf::lab::LabVariantList variants;
    variants.push_back(makeNaiveVariant(device));
    variants.push_back(makeChord2Variant(device));
    variants.push_back(makeSharedHistogramVariant(device));
    variants.push_back(makeRegisterBlockedVariant(device));
    variants.push_back(makeHiLoVariant(device));
    variants.push_back(makeProductVariant(device, productPrecision, tuning));
    return variants;
}

} // namespace tpacf::cuda::lab
