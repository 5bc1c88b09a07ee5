// SPDX-License-Identifier: GPL-3.0-or-later
// Kernel Lab, CUDA rung 6: the product itself. A thin LabVariant over the real CUDA counter
// (kernels/src/cuda_pair_counter.cpp, its kernel in kernels/src/pair_kernels.cu and
// pair_loops.cuh), created as the program creates it, so this rung times exactly what users
// get: same precision rule, same culling rule, same tuning.
#include "cuda_pair_counter.h"
#include "lab_harness.h"
#include "lab_variants.h"

#include "tpacf/culling.h"
#include "tpacf/errors.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <limits>

namespace tpacf::cuda::lab {
namespace {

class ProductVariant final : public CudaLabVariant {
public:
    ProductVariant(int device, Precision precision, const CudaTuning& tuning)
        : CudaLabVariant(device), m_precision(precision), m_tuning(tuning) {}

    std::string key() const override { return "cuda-6-product"; }
    std::string name() const override {
        return std::string(
                   "Product: the real CUDA counter (tiles, culling, whole-tile binning), ") +
               (m_precision == Precision::Double ? "double" : "float hi+lo") +
               " as precision \"auto\" picks on this GPU";
    }
    int rung() const override { return 6; }
    // Double: identical to the CPU by design (DESIGN.md); float: within the float-mode bound.
    bool exact() const override { return m_precision == Precision::Double; }
    std::string sourceFile() const override { return "kernels/lab/lab_product.cpp"; }
    std::string explanation() const override {
        return "The counter every run uses, unchanged (kernels/src/pair_kernels.cu and "
               "pair_loops.cuh). On top of rungs 4 and 5: the catalogs are sorted along a "
               "Morton curve and cut into tiles of 4 points per thread, each with its bounding "
               "box; with culling (the program's rule: on when the largest angle is small "
               "enough to pay) only the tile pairs within reach of the bins are visited; a tile "
               "pair whose boxes lie in one bin is added whole, without computing a pair, and "
               "one that is out of range is skipped; the bin lookup takes constant time (a "
               "table over the float bits of c², then one compare) instead of a binary search; "
               "in float, pairs farther apart than a chord of 0.5 are binned on the hi parts "
               "alone; the histogram path (per thread, per "
               "warp, global) is chosen from the bin count and the shared memory. Precision is "
               "what \"auto\" picks: double (identical to the CPU) on GPUs with full-rate FP64 "
               "such as the H100, float hi+lo elsewhere. Timed as users see it: each count "
               "includes the catalogs' upload and preparation on the device, which rungs 1-5 "
               "do once before timing.";
    }

    LabCounts count(const Catalog& first, const Catalog* second, const Binning& binning,
                    int repeats, const std::atomic<bool>* cancel) override {
        LabDevice dev(device()); // BackendUnavailable with the reason, before any counter
        const std::unique_ptr<PairCounter> counter = detail::makeCudaPairCounter(
            m_precision, {dev.index()}, dev.properties().name, m_tuning);
        counter->setCulling(CullingMode::Auto);

        // [lab:excerpt cuda-6-product]
        const std::array<CountTask, 1> tasks{CountTask{&first, second}};
        CountControl control;
        control.cancelRequested = cancel; // the product checks it every ~100 ms
        LabCounts result;
        result.seconds = std::numeric_limits<double>::infinity();
        double bestDevice = std::numeric_limits<double>::infinity();
        for (int repeat = 0; repeat < std::max(repeats, 1); ++repeat) {
            const auto start = std::chrono::steady_clock::now();
            std::vector<TaskCounts> counts = counter->countBatch(tasks, binning, control);
            result.seconds = std::min(
                result.seconds,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
            bestDevice = std::min(bestDevice, counter->lastDeviceSeconds().value_or(-1.0));
            result.counts = std::move(counts.front().raw);
        }
        // [lab:end]
        result.deviceSeconds = bestDevice;

        const PairShape shape = pairShape(first, second);
        result.notes = {
            "device " + std::to_string(dev.index()) + ": " + dev.properties().name,
            std::to_string(shape.pairTotal()) + " pairs",
            std::string("precision ") + std::string(precisionName(m_precision)) +
                " (what \"auto\" picks on this device)",
            std::string("culling ") + (counter->lastBatchCulled()
                                           ? "on (the program's rule chose it for these bins)"
                                           : "off (the program's rule: brute force pays here)"),
            "seconds: the whole countBatch as a run makes it, the catalogs' upload and "
            "preparation (Morton sort, hi/lo split, tile boxes, the tile-pair list) included; "
            "device seconds: the counter's own busy time on the device",
            "launched in chunks of ~30 ms of work by the product's launch loop",
        };
        if (const std::string tuning = m_tuning.describe(); !tuning.empty())
            result.notes.push_back("tuning: " + tuning);
        return result;
    }

private:
    Precision m_precision;
    CudaTuning m_tuning;
};

} // namespace

std::unique_ptr<LabVariant> makeProductVariant(int device, Precision precision,
                                               const CudaTuning& tuning) {
    return std::make_unique<ProductVariant>(device, precision, tuning);
}

} // namespace tpacf::cuda::lab
