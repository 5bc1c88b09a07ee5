// SPDX-License-Identifier: GPL-3.0-or-later
// The automatic device count (device_choice.h).
#include "tpacf/device_choice.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>

namespace tpacf {

namespace {

// Points of one tile of the GPU kernels at small and at large θ_max (kernels/src/gpu_schedule.h):
// a tile pair is computed whole once its boxes are in reach, so the reach widens by the tiles'
// size.
constexpr double kSmallTilePoints = 256;
constexpr double kLargeTilePoints = 1024;
constexpr double kSmallTileThetaMaxDegrees = 20.0;
// Points per catalog of the subsample that measures the fraction in reach: 512 x 512 pairs
// (~1 ms), which resolves fractions down to ~1e-5; below, the full-sky fraction stands.
constexpr std::size_t kSamplePoints = 512;

// Angular radius of a cap holding `tilePoints` of `points` spread over the whole sky.
double tileRadius(double points, double tilePoints) {
    if (points <= tilePoints)
        return std::numbers::pi;
    // Area 4π·tile/N = π r² (small caps).
    return std::sqrt(4.0 * tilePoints / points);
}

// Fraction of the pairs of a uniform full sky closer than θ (radians): (1 − cos θ)/2.
double fullSkyFraction(double theta) {
    return theta >= std::numbers::pi ? 1.0 : (1.0 - std::cos(theta)) / 2.0;
}

double reachOf(const Binning& binning, double pointsA, double pointsB) {
    const double tile =
        binning.maxDegrees() <= kSmallTileThetaMaxDegrees ? kSmallTilePoints : kLargeTilePoints;
    return binning.edgesRadians().back() + tileRadius(pointsA, tile) + tileRadius(pointsB, tile);
}

double pairTotalOf(const CountShape& count) {
    const auto a = static_cast<double>(count.first);
    return count.isAuto ? a * (a - 1) / 2 : a * static_cast<double>(count.second);
}

// Fraction of the pairs of an even subsample (every k-th point) of `a` and `b` (b null: auto)
// closer than `reach`.
double sampledFraction(const Catalog& a, const Catalog* b, double reach) {
    const Catalog& second = b ? *b : a;
    const double limit = chord2OfAngle(std::min(reach, std::numbers::pi));
    const auto pick = [](const Catalog& catalog) {
        std::vector<std::size_t> rows;
        const std::size_t n = catalog.size();
        const std::size_t step = std::max<std::size_t>(1, n / kSamplePoints);
        for (std::size_t i = 0; i < n && rows.size() < kSamplePoints; i += step)
            rows.push_back(i);
        return rows;
    };
    const std::vector<std::size_t> rowsA = pick(a), rowsB = b ? pick(second) : rowsA;
    std::uint64_t near = 0, total = 0;
    for (std::size_t i = 0; i < rowsA.size(); ++i)
        for (std::size_t j = b ? 0 : i + 1; j < rowsB.size(); ++j) {
            const std::size_t p = rowsA[i], q = rowsB[j];
            const double dx = a.x()[p] - second.x()[q], dy = a.y()[p] - second.y()[q],
                         dz = a.z()[p] - second.z()[q];
            near += dx * dx + dy * dy + dz * dz < limit ? 1 : 0;
            ++total;
        }
    return total > 0 ? static_cast<double>(near) / static_cast<double>(total) : 0.0;
}

std::string secondsText(double seconds) {
    char text[32];
    std::snprintf(text, sizeof text, seconds < 10 ? "%.2f s" : "%.0f s", seconds);
    return text;
}

std::string gpusText(std::size_t count) {
    return std::to_string(count) + (count == 1 ? " GPU" : " GPUs");
}

} // namespace

CountWorkEstimate estimateCountWork(std::span<const CountShape> counts, const Binning& binning,
                                    CullingMode culling, double shareFraction) {
    CountWorkEstimate work;
    double pairs = 0;
    for (const CountShape& count : counts)
        pairs += pairTotalOf(count);
    work.culled = chooseCulling(culling, binning.maxDegrees(),
                                static_cast<std::uint64_t>(std::min(pairs, 1.8e19)));
    double computed = 0;
    for (const CountShape& count : counts) {
        const auto a = static_cast<double>(count.first);
        const double b = count.isAuto ? a : static_cast<double>(count.second);
        const double fraction = work.culled ? fullSkyFraction(reachOf(binning, a, b)) : 1.0;
        computed += pairTotalOf(count) * fraction;
    }
    const double share = std::clamp(shareFraction, 0.0, 1.0);
    work.pairs = static_cast<std::uint64_t>(std::min(pairs * share, 1.8e19));
    work.pairsComputed = computed * share;
    return work;
}

CountWorkEstimate estimateCountWork(std::span<const CountTask> tasks, const Binning& binning,
                                    CullingMode culling, double shareFraction) {
    std::vector<CountShape> shapes;
    for (const CountTask& task : tasks)
        shapes.push_back({task.first ? task.first->size() : 0,
                          task.second ? task.second->size() : 0, task.isAuto()});
    CountWorkEstimate work = estimateCountWork(shapes, binning, culling, shareFraction);
    if (!work.culled)
        return work;
    double computed = 0;
    for (std::size_t t = 0; t < tasks.size(); ++t) {
        const CountTask& task = tasks[t];
        if (!task.first || task.first->empty() || (task.second && task.second->empty()))
            continue;
        const auto a = static_cast<double>(shapes[t].first);
        const double b = task.isAuto() ? a : static_cast<double>(shapes[t].second);
        const double reach = reachOf(binning, a, b);
        const double fraction =
            std::max(fullSkyFraction(reach), sampledFraction(*task.first, task.second, reach));
        computed += pairTotalOf(shapes[t]) * fraction;
    }
    work.pairsComputed = computed * std::clamp(shareFraction, 0.0, 1.0);
    work.sampled = true;
    return work;
}

DeviceChoice chooseDeviceCount(const CountWorkEstimate& work,
                               const std::vector<GpuDeviceInfo>& candidates, Precision precision) {
    std::vector<GpuDeviceInfo> order;
    for (const GpuDeviceInfo& device : candidates)
        if (device.reachable)
            order.push_back(device);
    // Devices already started cost nothing to add: they come first.
    std::stable_partition(order.begin(), order.end(),
                          [](const GpuDeviceInfo& device) { return device.started; });
    DeviceChoice choice;
    if (order.empty())
        return choice;
    const auto rateOf = [&](const GpuDeviceInfo& device) {
        return precision == Precision::Float ? device.pairsPerSecondFloat
                                             : device.pairsPerSecondDouble;
    };
    const bool ratesKnown = std::all_of(order.begin(), order.end(),
                                        [&](const GpuDeviceInfo& d) { return rateOf(d) > 0; });
    if (!ratesKnown || order.size() == 1) {
        for (const GpuDeviceInfo& device : order)
            choice.devices.push_back(device.index);
        // One device: nothing was chosen, nothing to say.
        if (order.size() > 1)
            choice.reason = "auto device count: all " + gpusText(order.size()) +
                            " (their pair rates are not known)";
        return choice;
    }
    // Estimated wall of the first k devices; the first device's start counts too (it is the
    // same for every k, unless it is started already).
    std::vector<double> wall;
    double starts = 0, rate = 0;
    for (std::size_t k = 1; k <= order.size(); ++k) {
        const GpuDeviceInfo& added = order[k - 1];
        starts += added.started ? 0.0 : kDeviceStartSeconds;
        rate += rateOf(added);
        wall.push_back(starts + kDeviceSplitSeconds * static_cast<double>(k - 1) +
                       work.pairsComputed / rate);
    }
    const double best = *std::min_element(wall.begin(), wall.end());
    std::size_t count = 1;
    while (wall[count - 1] > best * 1.01)
        ++count;
    for (std::size_t k = 0; k < count; ++k)
        choice.devices.push_back(order[k].index);
    const double oneDevice = work.pairsComputed / rateOf(order.front());
    std::string reason =
        "auto device count: " + std::to_string(count) + " of " + gpusText(order.size()) +
        ", for about " + secondsText(oneDevice) + " of counting on one (" +
        (work.sampled ? "estimated from the catalogs" : "estimated from their sizes") + ")";
    if (count < order.size())
        reason += count == 1 ? "; another GPU would save less than its start (" +
                                   secondsText(kDeviceStartSeconds) + ") and share cost"
                             : "; more would save less than their starts cost";
    else if (count > 1)
        reason += ", about " + secondsText(wall[count - 1]) + " on " + gpusText(count) +
                  " with their starts";
    choice.reason = std::move(reason);
    return choice;
}

std::vector<int> devicesOfRank(const std::vector<int>& pool, int rank, int ranks) {
    if (ranks <= 1 || pool.empty())
        return pool;
    const auto n = pool.size();
    const auto r = static_cast<std::size_t>(std::clamp(rank, 0, ranks - 1));
    const auto parts = static_cast<std::size_t>(ranks);
    if (n < parts)
        return {pool[r % n]};
    return std::vector<int>(pool.begin() + static_cast<std::ptrdiff_t>(r * n / parts),
                            pool.begin() + static_cast<std::ptrdiff_t>((r + 1) * n / parts));
}

DeviceChoice chooseJobDevices(const BackendModule& module, const BackendOptions& options,
                              const CountWorkEstimate* work) {
    const std::vector<GpuDeviceInfo> all = module.devices();
    const auto& placement = options.placement;
    DeviceChoice choice;
    if (!options.gpuDevices.empty()) {
        choice.devices = devicesOfRank(options.gpuDevices, placement.rank, placement.ranks);
        choice.reason = options.deviceChoice;
        if (choice.reason.empty() && placement.ranks > 1)
            choice.reason = "rank " + std::to_string(placement.rank) + " of " +
                            std::to_string(placement.ranks) +
                            " on this host: its share of the "
                            "GPUs asked for";
        return choice;
    }
    // The rank's share of every listed device, then those this process can reach (a process
    // that reserved its share reaches exactly that).
    std::vector<int> listed;
    for (const GpuDeviceInfo& device : all)
        listed.push_back(device.index);
    std::vector<int> pool;
    std::vector<GpuDeviceInfo> candidates;
    for (const int index : devicesOfRank(listed, placement.rank, placement.ranks))
        for (const GpuDeviceInfo& device : all)
            if (device.index == index && device.reachable) {
                pool.push_back(index);
                candidates.push_back(device);
            }
    const std::string rankText = placement.ranks > 1
                                     ? " (rank " + std::to_string(placement.rank) + " of " +
                                           std::to_string(placement.ranks) + " on this host)"
                                     : std::string();
    if (!work) {
        choice.devices = pool;
        choice.reason = pool.size() < all.size()
                            ? "this process's " + gpusText(pool.size()) + rankText
                            : std::string();
        return choice;
    }
    const Precision precision =
        options.precision ? *options.precision : autoPrecision(candidates).precision;
    choice = chooseDeviceCount(*work, candidates, precision);
    choice.reason += rankText;
    return choice;
}

BackendOptions reserveJobDevices(const BackendOptions& options, const BackendRegistry& backends,
                                 const CountWorkEstimate* work) noexcept {
    try {
        const BackendModule* module = backendModuleFor(options, backends);
        if (!module)
            return options;
        DeviceChoice choice = chooseJobDevices(*module, options, work);
        if (choice.devices.empty())
            return options;
        module->reserveDevices(choice.devices);
        BackendOptions chosen = options;
        chosen.gpuDevices = std::move(choice.devices);
        chosen.deviceChoice = std::move(choice.reason);
        // The devices are this rank's already: the job must not split them again.
        chosen.placement = {};
        return chosen;
    } catch (...) {
        return options;
    }
}

} // namespace tpacf
