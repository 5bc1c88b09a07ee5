// SPDX-License-Identifier: GPL-3.0-or-later
// GPU suite, mean separation per bin (--mean-theta): the CUDA backend's sums of θ and ln θ per
// bin (countSeparationMoments, on the device, in double whatever the counting precision) against
// a brute force in long double (every pair binned by the counting contract, its angle by
// atan2(|u × v|, u · v) from the same unit vectors) and against the CPU backend's sums.
// Pairs per bin identical; Σw, Σw·θ, Σw·ln θ within 1e-12 of their sums of magnitudes. Cases:
// auto and cross, weighted (one side and both), uniform and clustered (duplicates: ln 0 = −inf),
// log bins to 180°, a linear range from 0, an edge list with 0 and 180°, more bins than a block
// keeps in shared memory, a plan of several launches, both counters (double and float), and a
// cancel. Plain executable; exit 0 passed, 1 failed, 77 skipped (no CUDA or no device).
#include "gpu_test_support.h"
#include "../support/separation_brute_force.h"
#include "tpacf/bins.h"
#include "tpacf/separation_moments.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

using namespace tpacf;

namespace {

using gputest::expect;
using gputest::Stats;

constexpr double kRelative = 1e-12;

using test::SeparationReference;

void compare(Stats& stats, const SeparationMoments& got, const SeparationReference& ref,
             const std::string& what) {
    if (!expect(stats, got.binCount() == ref.pairs.size(), what + ": bin count"))
        return;
    for (std::size_t k = 0; k < ref.pairs.size(); ++k) {
        const std::string where = what + ", bin " + std::to_string(k);
        expect(stats, got.pairs[k] == ref.pairs[k],
               where + ": " + std::to_string(got.pairs[k]) + " pairs, reference " +
                   std::to_string(ref.pairs[k]));
        const auto close = [&](double value, long double expected, long double scale,
                               const char* name) {
            const bool ok = std::isinf(static_cast<double>(expected))
                                ? value == static_cast<double>(expected)
                                : std::fabs(value - expected) <= kRelative * scale;
            char text[200];
            std::snprintf(text, sizeof text, ": %s %.17g, reference %.17Lg", name, value, expected);
            expect(stats, ok, where + text);
        };
        close(got.weight[k], ref.weight[k], ref.weightScale[k], "sum w");
        close(got.theta[k], ref.theta[k], ref.thetaScale[k], "sum w theta");
        close(got.logTheta[k], ref.logTheta[k], ref.logScale[k], "sum w ln theta");
    }
}

Catalog weightedCopy(const Catalog& catalog, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> weight(0.25, 2.0);
    std::vector<double> ra(catalog.ra().begin(), catalog.ra().end());
    std::vector<double> dec(catalog.dec().begin(), catalog.dec().end());
    std::vector<double> w(catalog.size());
    for (double& value : w)
        value = weight(rng);
    return Catalog::fromRadians(catalog.name() + " weighted", std::move(ra), std::move(dec),
                                std::move(w));
}

} // namespace

int main(int argc, char** argv) {
    return gputest::runCounterSuite(argc, argv, [](Stats& stats, gputest::CounterFixture& f) {
        const std::size_t n = f.quick ? 1500 : 4000;
        const Catalog uniform = gputest::uniformCatalog(n, 1, "uniform");
        const Catalog clustered = gputest::clusteredCatalog(n, 2, "clustered");
        const Catalog clusteredW = weightedCopy(clustered, 3);
        const Catalog otherW = weightedCopy(gputest::clusteredCatalog(n * 3 / 4, 4, "other"), 5);
        struct Case {
            std::string name;
            const Catalog* a;
            const Catalog* b;
            BinSpec bins;
        };
        const std::vector<Case> cases{
            {"uniform auto, log to 180 deg", &uniform, nullptr,
             BinSpec::logCount(1.0, 10800.0, AngleUnit::Arcminute, 15)},
            {"clustered auto, log 0.01-60 arcmin", &clustered, nullptr,
             BinSpec::logCount(0.01, 60.0, AngleUnit::Arcminute, 20)},
            {"clustered cross weighted both, linear from 0", &clusteredW, &otherW,
             BinSpec::linearCount(0.0, 2.0, AngleUnit::Degree, 8)},
            {"weighted against unweighted, edge list 0..180", &clusteredW, &uniform,
             BinSpec::fromEdges({0.0, 0.5, 5.0, 60.0, 179.0, 180.0}, AngleUnit::Degree)},
            {"clustered auto, 2000 linear bins (global sums)", &clustered, nullptr,
             BinSpec::linearCount(0.0, 20.0, AngleUnit::Degree, 2000)},
        };
        for (const Case& c : cases) {
            const Binning binning(c.bins);
            const CountTask task{c.a, c.b};
            const SeparationReference ref = test::separationReference(
                *c.a, c.b, binning, c.a->hasWeights() || (c.b && c.b->hasWeights()));
            const SeparationMoments cpu =
                f.cpu.countSeparationMoments(std::span(&task, 1), binning).front();
            compare(stats, cpu, ref, c.name + " (cpu)");
            for (PairCounter* gpu : {f.gpuDouble.get(), f.gpuFloat.get()}) {
                const SeparationMoments got =
                    gpu->countSeparationMoments(std::span(&task, 1), binning).front();
                compare(stats, got, ref,
                        c.name + (gpu->precision() == Precision::Float ? " (gpu float)"
                                                                       : " (gpu double)"));
            }
        }
        // A batch of several tasks, and a plan of many blocks (several launches), against the CPU.
        {
            const std::size_t big = f.quick ? 40000 : 120000;
            const Catalog data = gputest::clusteredCatalog(big, 6, "data");
            const Catalog randoms = gputest::uniformCatalog(big, 7, "randoms");
            const std::vector<CountTask> tasks{{&data, nullptr}, {&data, &randoms},
                                               {&randoms, nullptr}};
            const Binning binning(BinSpec::logCount(0.05, 600.0, AngleUnit::Arcminute, 16));
            const std::vector<SeparationMoments> cpu =
                f.cpu.countSeparationMoments(tasks, binning);
            const std::vector<SeparationMoments> gpu =
                f.gpuFloat->countSeparationMoments(tasks, binning);
            const MomentsPlan plan = planSeparationMoments(tasks, binning, 0, {});
            std::printf("batch of 3 tasks, N = %zu: %zu plan blocks, %.3g pairs visited\n", big,
                        plan.blocks.size(), static_cast<double>(plan.pairsVisited));
            if (!f.quick) // 40,000 points (--quick) fit one launch
                expect(stats, plan.blocks.size() > (1u << 16), "the plan takes several launches");
            for (std::size_t t = 0; t < tasks.size(); ++t) {
                SeparationReference asReference{cpu[t].pairs, {}, {}, {}, {}, {}, {}};
                for (std::size_t k = 0; k < binning.count(); ++k) {
                    asReference.weight.push_back(cpu[t].weight[k]);
                    asReference.theta.push_back(cpu[t].theta[k]);
                    asReference.logTheta.push_back(cpu[t].logTheta[k]);
                    asReference.weightScale.push_back(std::fabs(cpu[t].weight[k]));
                    asReference.thetaScale.push_back(std::fabs(cpu[t].theta[k]));
                    asReference.logScale.push_back(std::fabs(cpu[t].logTheta[k]));
                }
                compare(stats, gpu[t], asReference, "batch task " + std::to_string(t));
                const PairCounts counts =
                    f.cpu.countBatch(std::span(&tasks[t], 1), binning).front().raw;
                expect(stats, gpu[t].pairs == counts,
                       "batch task " + std::to_string(t) + ": pairs are the count's");
            }
        }
        const CountTask task{&uniform, nullptr};
        const Binning binning(BinSpec::logCount(1.0, 10800.0, AngleUnit::Arcminute, 15));
        expect(stats, gputest::cancelledBySetToken([&](const CountControl& control) {
                   f.gpuDouble->countSeparationMoments(std::span(&task, 1), binning, control);
               }),
               "a cancel ends the pass");
    });
}
