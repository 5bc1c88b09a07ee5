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

struct Reference {
    std::vector<std::uint64_t> pairs;
    std::vector<long double> weight, theta, logTheta, weightScale, thetaScale, logScale;
};

Reference bruteForce(const Catalog& a, const Catalog* b, const Binning& binning) {
    const std::size_t bins = binning.count();
    Reference ref{std::vector<std::uint64_t>(bins, 0), {}, {}, {}, {}, {}, {}};
    for (auto* sums : {&ref.weight, &ref.theta, &ref.logTheta, &ref.weightScale, &ref.thetaScale,
                       &ref.logScale})
        sums->assign(bins, 0.0L);
    const Catalog& second = b ? *b : a;
    const bool weighted = a.hasWeights() || second.hasWeights();
    for (std::size_t i = 0; i < a.size(); ++i)
        for (std::size_t j = b ? 0 : i + 1; j < second.size(); ++j) {
            const double dx = a.x()[i] - second.x()[j], dy = a.y()[i] - second.y()[j],
                         dz = a.z()[i] - second.z()[j];
            const int bin = binning.binOfChord2(dx * dx + dy * dy + dz * dz);
            if (bin < 0)
                continue;
            const long double u[3] = {a.x()[i], a.y()[i], a.z()[i]};
            const long double v[3] = {second.x()[j], second.y()[j], second.z()[j]};
            const long double cx = u[1] * v[2] - u[2] * v[1], cy = u[2] * v[0] - u[0] * v[2],
                              cz = u[0] * v[1] - u[1] * v[0];
            const long double theta = std::atan2(std::sqrt(cx * cx + cy * cy + cz * cz),
                                                 u[0] * v[0] + u[1] * v[1] + u[2] * v[2]);
            const long double w = weighted ? static_cast<long double>(pointWeight(a, i)) *
                                                 pointWeight(second, j)
                                           : 1.0L;
            const long double logTheta = std::log(theta);
            const auto k = static_cast<std::size_t>(bin);
            ref.pairs[k] += 1;
            ref.weight[k] += w;
            ref.theta[k] += w * theta;
            ref.logTheta[k] += w * logTheta;
            ref.weightScale[k] += std::fabs(w);
            ref.thetaScale[k] += std::fabs(w * theta);
            ref.logScale[k] += std::isfinite(logTheta) ? std::fabs(w * logTheta) : 0.0L;
        }
    return ref;
}

void compare(Stats& stats, const SeparationMoments& got, const Reference& ref,
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
            const Reference ref = bruteForce(*c.a, c.b, binning);
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
            expect(stats, plan.blocks.size() > (1u << 16), "the plan takes several launches");
            for (std::size_t t = 0; t < tasks.size(); ++t) {
                Reference asReference{cpu[t].pairs, {}, {}, {}, {}, {}, {}};
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
