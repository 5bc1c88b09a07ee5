// SPDX-License-Identifier: GPL-3.0-or-later
// GPU suite, the Kernel Lab's CUDA rungs (issue 17) against the double CPU reference
// (CpuPairCounter) and against what each rung's explanation promises.
// Plain executable. Exit 0: all passed; 1: a failure; 77: skipped (no CUDA, or no device).
//
// - The exact rungs (chord², shared histogram, register-blocked, the product in double) equal
//   the reference bin for bin; the float ones (hi/lo, the product in float) differ per bin by
//   at most 1e-5 · count + 2, or else by no more than the pairs within 1e-6 of an edge
//   (DESIGN.md's float-mode bound).
// - The naive rung's errors are the ones its explanation states: every bin below 1.1′ empty
//   (1 − cos θ in float cannot resolve less than ~1.19′), bins from 10° on within 1e-3 · count
//   + 10; and its 32-bit counter, on one wide bin of a 100,000-point cap (4,999,950,000 pairs,
//   all within 40°), reads the true count modulo 2^32 where rung 3's 64-bit counters hold it.
// - Metadata: six rungs in order, sources carrying their excerpt markers; cancel and empty
//   catalogs. --quick: N 3000 and 20000; otherwise 100000 too.
#include "gpu_test_support.h"
#include "tpacf/bins.h"
#include "tpacf/cpu_pair_counter.h"
#include "tpacf/cuda/cuda_backend.h"
#include "tpacf/cuda/cuda_lab.h"
#include "tpacf/errors.h"
#include "tpacf/lab.h"
#include "tpacf/units.h"
#include "tpacf/work_runner.h"

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#ifndef TPACF_SOURCE_DIR
#error "TPACF_SOURCE_DIR: the source tree, where the rungs' excerpts are read"
#endif

using namespace tpacf;

namespace {

using gputest::expect;
using gputest::kSkip;
using gputest::Stats;

const char* const kKeys[] = {
    "cuda-1-naive", "cuda-2-chord2", "cuda-3-shared-histogram", "cuda-4-register-blocked",
    "cuda-5-hilo",  "cuda-6-product"};

struct BinCase {
    std::string label;
    BinSpec spec;
};

std::vector<BinCase> binCases() {
    return {
        {"log15 0.01'-1'", BinSpec::logCount(0.01, 1, AngleUnit::Arcminute, 15)},
        {"log20 1'-10deg", BinSpec::logCount(1, 600, AngleUnit::Arcminute, 20)},
        {"log30 0.01'-180deg", BinSpec::logCount(0.01, 10800, AngleUnit::Arcminute, 30)},
    };
}

// ---- metadata ------------------------------------------------------------------------------

/// Whether the variant's source file holds "[lab:excerpt key]" and, after it, "[lab:end]".
bool hasExcerpt(const lab::LabVariant& variant) {
    std::ifstream file(std::string(TPACF_SOURCE_DIR) + "/" + variant.sourceFile());
    if (!file)
        return false;
    std::stringstream text;
    text << file.rdbuf();
    const std::string content = text.str();
    const std::size_t begin = content.find("[lab:excerpt " + variant.key() + "]");
    return begin != std::string::npos && content.find("[lab:end]", begin) != std::string::npos;
}

void checkMetadata(Stats& stats, const lab::LabVariantList& variants, Precision productPrecision) {
    expect(stats, variants.size() == 6, "the CUDA module offers six rungs");
    for (std::size_t r = 0; r < variants.size() && r < 6; ++r) {
        const lab::LabVariant& v = *variants[r];
        const std::string what = "rung " + std::to_string(r + 1) + " (" + v.key() + ")";
        expect(stats, v.key() == kKeys[r], what + ": key " + kKeys[r]);
        expect(stats, v.rung() == static_cast<int>(r + 1), what + ": rung number");
        expect(stats, v.backend() == "cuda", what + ": backend cuda");
        expect(stats, !v.name().empty() && v.explanation().size() > 200,
               what + ": a name and an explanation");
        expect(stats, hasExcerpt(v), what + ": " + v.sourceFile() + " holds its excerpt markers");
        const bool exact = r >= 1 && r <= 3 ? true
                           : r == 5         ? productPrecision == Precision::Double
                                            : false;
        expect(stats, v.exact() == exact, what + ": exact() " + (exact ? "true" : "false"));
    }
}

// ---- catalogs and the reference -----------------------------------------------------------

/// Uniform points with Dec >= 70°: every pair lies within 40°.
Catalog capCatalog(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    const double zMin = std::sin(70.0 * kPi / 180.0);
    std::vector<double> ra(n), dec(n);
    for (std::size_t i = 0; i < n; ++i) {
        ra[i] = 2 * kPi * unit(rng);
        dec[i] = std::asin(zMin + (1 - zMin) * unit(rng));
    }
    return Catalog::fromRadians("cap", std::move(ra), std::move(dec));
}

/// Pairs whose double c² lies within a relative 1e-6 of an edge of each bin: the only pairs
/// the float mode may bin differently from the reference.
PairCounts nearEdgePairs(const Catalog& a, const Catalog* second, const Binning& binning) {
    constexpr double kRelative = 1e-6;
    const auto edges = binning.chord2Edges();
    const Catalog& b = second ? *second : a;
    PairCounts near(binning.count(), 0);
    std::mutex mutex;
    parallelForRanges(a.size(), [&](std::size_t begin, std::size_t end) {
        PairCounts local(binning.count(), 0);
        for (std::size_t i = begin; i < end; ++i) {
            for (std::size_t j = second ? 0 : i + 1; j < b.size(); ++j) {
                const double dx = a.x()[i] - b.x()[j], dy = a.y()[i] - b.y()[j],
                             dz = a.z()[i] - b.z()[j];
                const double c2 = dx * dx + dy * dy + dz * dz;
                const auto it = std::lower_bound(edges.begin(), edges.end(), c2 * (1 - kRelative));
                if (it == edges.end() || *it > c2 * (1 + kRelative))
                    continue;
                const std::size_t e = static_cast<std::size_t>(it - edges.begin());
                if (e > 0)
                    ++local[e - 1];
                if (e < binning.count())
                    ++local[e];
            }
        }
        const std::lock_guard lock(mutex);
        for (std::size_t k = 0; k < near.size(); ++k)
            near[k] += local[k];
    });
    return near;
}

std::int64_t difference(std::uint64_t got, std::uint64_t want) {
    return static_cast<std::int64_t>(got) - static_cast<std::int64_t>(want);
}

// ---- the checks of one case -----------------------------------------------------------------

struct Case {
    std::string label; // for messages: "auto N=3000 log15 0.01'-1'"
    const Catalog* first;
    const Catalog* second;
    const Binning* binning;
    PairCounts reference;
};

void checkExact(Stats& stats, const std::string& what, const PairCounts& got, const Case& c) {
    bool same = got.size() == c.reference.size();
    for (std::size_t k = 0; same && k < got.size(); ++k)
        if (got[k] != c.reference[k]) {
            std::printf("  bin %zu: %" PRIu64 ", reference %" PRIu64 "\n", k, got[k],
                        c.reference[k]);
            same = false;
        }
    expect(stats, same, what + ": equals the double reference bin for bin");
}

void checkFloatBound(Stats& stats, const std::string& what, const PairCounts& got, const Case& c) {
    bool ok = got.size() == c.reference.size();
    std::optional<PairCounts> near;
    for (std::size_t k = 0; ok && k < got.size(); ++k) {
        const double diff = std::abs(static_cast<double>(difference(got[k], c.reference[k])));
        if (diff <= 1e-5 * static_cast<double>(c.reference[k]) + 2)
            continue;
        if (!near)
            near = nearEdgePairs(*c.first, c.second, *c.binning);
        if (diff > static_cast<double>((*near)[k])) {
            std::printf("  bin %zu: %" PRIu64 ", reference %" PRIu64 ", %" PRIu64
                        " pairs near its edges\n",
                        k, got[k], c.reference[k], (*near)[k]);
            ok = false;
        }
    }
    expect(stats, ok, what + ": within the float-mode bound of the reference");
}

/// Rung 1: what its explanation says, bin by bin (log bins, edges in arcmin).
void checkNaive(Stats& stats, const std::string& what, const PairCounts& got, const Case& c) {
    const auto edges = c.binning->edges();
    const double toArcmin =
        toRadians(1.0, c.binning->unit()) / toRadians(1.0, AngleUnit::Arcminute);
    bool emptyBelow = true, closeAbove = true;
    std::uint64_t referenceBelowDegree = 0;
    bool someWrongBelowDegree = false;
    for (std::size_t k = 0; k < got.size(); ++k) {
        const double lo = edges[k] * toArcmin, hi = edges[k + 1] * toArcmin;
        if (hi <= 1.1 && got[k] != 0) {
            std::printf("  bin %zu (%.3g'-%.3g'): %" PRIu64 " pairs, expected none\n", k, lo, hi,
                        got[k]);
            emptyBelow = false;
        }
        if (lo >= 600 && hi <= 170 * 60) {
            const double diff = std::abs(static_cast<double>(difference(got[k], c.reference[k])));
            if (diff > 1e-3 * static_cast<double>(c.reference[k]) + 10) {
                std::printf("  bin %zu (%.3g'-%.3g'): %" PRIu64 ", reference %" PRIu64 "\n", k, lo,
                            hi, got[k], c.reference[k]);
                closeAbove = false;
            }
        }
        // Just above the float limit (1.187') the float angle is off by tens of percent: a bin
        // there with pairs enough cannot come out right. (Below 1°, further up, a small sample
        // may happen to keep every pair in its bin.)
        if (lo < 2.4 && hi > 1.1) {
            referenceBelowDegree += c.reference[k];
            someWrongBelowDegree = someWrongBelowDegree || got[k] != c.reference[k];
        }
    }
    expect(stats, emptyBelow, what + ": every bin below 1.1' is empty (float cos θ)");
    expect(stats, closeAbove, what + ": bins from 10° to 170° within 1e-3 of the reference");
    if (referenceBelowDegree >= 100)
        expect(stats, someWrongBelowDegree, what + ": some bin reaching 1.1'-2.4' is wrong");
}

void runCase(Stats& stats, const lab::LabVariantList& variants, const Case& c) {
    std::uint64_t pairs = 0;
    for (std::uint64_t n : c.reference)
        pairs += n;
    std::printf("%s: %" PRIu64 " pairs in range\n", c.label.c_str(), pairs);
    for (const auto& variant : variants) {
        const std::string what = c.label + " " + variant->key();
        const lab::LabCounts result = variant->count(*c.first, c.second, *c.binning, 1, nullptr);
        expect(stats, result.counts.size() == c.binning->count(), what + ": one count per bin");
        expect(stats, result.seconds > 0 && !result.notes.empty(), what + ": a time and notes");
        if (result.counts.size() != c.binning->count())
            continue;
        if (variant->rung() == 1)
            checkNaive(stats, what, result.counts, c);
        else if (variant->exact())
            checkExact(stats, what, result.counts, c);
        else
            checkFloatBound(stats, what, result.counts, c);
    }
    std::fflush(stdout);
}

// ---- the 32-bit wrap -------------------------------------------------------------------------

void checkWrap(Stats& stats, const lab::LabVariantList& variants) {
    constexpr std::size_t kN = 100000;
    const Catalog cap = capCatalog(kN, 17);
    const Binning wide(BinSpec::linearCount(0, 60, AngleUnit::Degree, 1));
    const std::uint64_t all = std::uint64_t{kN} * (kN - 1) / 2; // every pair is within 40°
    const std::uint64_t wrapped = all % (std::uint64_t{1} << 32);
    const lab::LabCounts naive = variants[0]->count(cap, nullptr, wide, 1, nullptr);
    std::printf("wrap: %" PRIu64 " pairs in one bin; naive reads %" PRIu64 " (%.2f s)\n", all,
                naive.counts.empty() ? 0 : naive.counts[0], naive.seconds);
    expect(stats, naive.counts.size() == 1 && naive.counts[0] == wrapped,
           "naive: a 32-bit counter over 4,999,950,000 pairs reads the count modulo 2^32 (" +
               std::to_string(wrapped) + ")");
    const lab::LabCounts shared = variants[2]->count(cap, nullptr, wide, 1, nullptr);
    expect(stats, shared.counts.size() == 1 && shared.counts[0] == all,
           "shared histogram: 64-bit global counters hold 4,999,950,000 pairs");
}

// ---- cancel and empty catalogs ------------------------------------------------------------

void checkControls(Stats& stats, const lab::LabVariantList& variants, const Catalog& catalog,
                   const Binning& binning) {
    const Catalog empty = Catalog::fromRadians("empty", {}, {});
    for (const auto& variant : variants) {
        std::atomic<bool> cancel{true};
        bool cancelled = false;
        try {
            variant->count(catalog, nullptr, binning, 1, &cancel);
        } catch (const Cancelled&) {
            cancelled = true;
        }
        expect(stats, cancelled, variant->key() + ": a set cancel flag ends in Cancelled");

        const lab::LabCounts none = variant->count(empty, nullptr, binning, 2, nullptr);
        const lab::LabCounts cross = variant->count(catalog, &empty, binning, 1, nullptr);
        const auto zero = [&](const PairCounts& counts) {
            return counts.size() == binning.count() &&
                   std::all_of(counts.begin(), counts.end(), [](auto n) { return n == 0; });
        };
        expect(stats, zero(none.counts) && zero(cross.counts),
               variant->key() + ": an empty catalog gives zero counts");
    }
}

} // namespace

int main(int argc, char** argv) {
    const bool quick = argc > 1 && std::string(argv[1]) == "--quick";
    const auto provider = cuda::makeProvider();
    if (!provider->compiledIn()) {
        std::printf("SKIP: %s\n", provider->unavailableReason().c_str());
        return kSkip;
    }
    Stats stats;
    const lab::LabVariantList variants = cuda::makeLabProvider()->variants();
    const auto devices = provider->devices();
    const Precision productPrecision =
        devices.empty() ? Precision::Float : autoPrecision({devices.front()}).precision;
    checkMetadata(stats, variants, productPrecision);
    if (devices.empty()) {
        // The rungs say why they cannot run, as the product's counter does.
        const Catalog one = gputest::uniformCatalog(10, 1, "ten");
        const Binning bins(BinSpec::logCount(1, 60, AngleUnit::Arcminute, 5));
        for (const auto& variant : variants) {
            bool unavailable = false;
            try {
                variant->count(one, nullptr, bins, 1, nullptr);
            } catch (const BackendUnavailable&) {
                unavailable = true;
            }
            expect(stats, unavailable, variant->key() + ": BackendUnavailable without a device");
        }
        std::printf("SKIP: no CUDA device: %s (%d checks, %d failures)\n",
                    provider->unavailableReason().c_str(), stats.checks, stats.failures);
        return stats.failures == 0 ? kSkip : 1;
    }
    std::printf("%s; device 0: %s; product rung in %s\n", provider->versionDescription().c_str(),
                devices.front().name.c_str(), std::string(precisionName(productPrecision)).c_str());
    if (variants.size() != 6) {
        std::printf("FAIL: %d checks, %d failures\n", stats.checks, stats.failures);
        return 1;
    }

    try {
        CpuPairCounter cpu(0);
        const std::vector<BinCase> bins = binCases();
        std::vector<Binning> binnings;
        for (const BinCase& b : bins)
            binnings.emplace_back(b.spec);
        std::vector<std::size_t> sizes = {3000, 20000};
        if (!quick)
            sizes.push_back(100000);
        std::uint64_t seed = 101;
        for (std::size_t n : sizes) {
            // Clumps of 0.05' to 1° and exact duplicates: pairs at every scale down to 0.01'.
            const Catalog data = gputest::clusteredCatalog(n, seed++, "data");
            // An odd size: partial tiles and blocks on the j side.
            const Catalog other = gputest::clusteredCatalog(n / 3 + 17, seed++, "other");
            for (std::size_t b = 0; b < bins.size(); ++b) {
                const std::string suffix = " N=" + std::to_string(n) + " " + bins[b].label;
                runCase(stats, variants,
                        {"auto" + suffix, &data, nullptr, &binnings[b],
                         cpu.countAuto(data, binnings[b])});
                runCase(stats, variants,
                        {"cross" + suffix, &data, &other, &binnings[b],
                         cpu.countCross(data, other, binnings[b])});
            }
            std::printf("N=%zu done: %d checks, %d failures\n", n, stats.checks, stats.failures);
        }

        // Repeats count the same pairs again (counters zeroed between them).
        {
            const Catalog data = gputest::clusteredCatalog(3000, 7, "data");
            const PairCounts reference = cpu.countAuto(data, binnings[2]);
            for (const auto& variant : variants) {
                if (!variant->exact())
                    continue;
                const lab::LabCounts three = variant->count(data, nullptr, binnings[2], 3, nullptr);
                expect(stats, three.counts == reference,
                       variant->key() + ": three repeats give the reference counts");
            }
            checkControls(stats, variants, data, binnings[2]);
        }
        checkWrap(stats, variants);
    } catch (const std::exception& e) {
        std::printf("FAIL: unexpected exception: %s\n", e.what());
        ++stats.failures;
    }
    std::printf("%s: %d checks, %d failures\n", stats.failures == 0 ? "PASS" : "FAIL", stats.checks,
                stats.failures);
    return stats.failures == 0 ? 0 : 1;
}
