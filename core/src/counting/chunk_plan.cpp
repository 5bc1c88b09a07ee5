// SPDX-License-Identifier: GPL-3.0-or-later
// The plan of a chunked count (chunk_plan.h): piece counts, the pairs out of reach, and the
// sub-batches in an order where consecutive ones share pieces.
#include "counting/chunk_plan.h"

#include "tpacf/chunked_count.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace tpacf::chunk {

namespace {

std::uint64_t autoPairs(std::uint64_t n) noexcept {
    return n < 2 ? 0 : (n % 2 == 0 ? (n / 2) * (n - 1) : n * ((n - 1) / 2));
}

// Piece counts ordered so that consecutive ones share pieces: by the first piece (a "row"),
// its auto first, then the second pieces ascending in even rows and descending in odd ones (a
// snake: a row ends where the next begins), then by task (DR_1, DR_2 … of one piece pair meet).
std::vector<std::uint32_t> countingOrder(const Plan& plan) {
    const std::uint64_t lastPiece = plan.piecePoints.size();
    const auto rank = [&](const SubTask& s) -> std::uint64_t {
        if (s.b == kNoPiece)
            return 0;
        return 1 + (s.a % 2 == 0 ? s.b : lastPiece - s.b);
    };
    std::vector<std::uint32_t> order(plan.subTasks.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = std::uint32_t(i);
    std::sort(order.begin(), order.end(), [&](std::uint32_t i, std::uint32_t j) {
        const SubTask& s = plan.subTasks[i];
        const SubTask& t = plan.subTasks[j];
        if (s.a != t.a)
            return s.a < t.a;
        if (rank(s) != rank(t))
            return rank(s) < rank(t);
        return s.task < t.task;
    });
    return order;
}

// The unordered piece pair a piece count needs ({a, a} for an auto or a piece with itself).
std::pair<std::uint32_t, std::uint32_t> piecePair(const SubTask& s) noexcept {
    const std::uint32_t b = s.b == kNoPiece ? s.a : s.b;
    return {std::min(s.a, b), std::max(s.a, b)};
}

// Greedy packing: piece counts in counting order join the sub-batch while its distinct pieces
// stay within the budget; then every piece count left whose pieces are all in it rides along
// (an auto of a piece met later, DR_i of the same pieces): fewer calls, no extra memory.
void packSubBatches(Plan& plan, std::uint64_t maxPointsPerBatch) {
    const std::vector<std::uint32_t> order = countingOrder(plan);
    std::vector<std::uint32_t> byPair = order;
    std::stable_sort(byPair.begin(), byPair.end(), [&](std::uint32_t i, std::uint32_t j) {
        return piecePair(plan.subTasks[i]) < piecePair(plan.subTasks[j]);
    });
    std::vector<char> done(plan.subTasks.size(), 0);
    std::vector<char> inBatch(plan.piecePoints.size(), 0);
    std::size_t next = 0;
    for (;;) {
        while (next < order.size() && done[order[next]])
            ++next;
        if (next == order.size())
            break;
        SubBatch batch;
        std::uint64_t points = 0;
        const auto take = [&](std::uint32_t id) {
            const SubTask& s = plan.subTasks[id];
            for (const std::uint32_t piece : {s.a, s.b})
                if (piece != kNoPiece && !inBatch[piece]) {
                    inBatch[piece] = 1;
                    points += plan.piecePoints[piece];
                    batch.pieces.push_back(piece);
                }
            batch.subTasks.push_back(id);
            done[id] = 1;
        };
        for (std::size_t k = next; k < order.size(); ++k) {
            const std::uint32_t id = order[k];
            if (done[id])
                continue;
            const SubTask& s = plan.subTasks[id];
            std::uint64_t extra = inBatch[s.a] ? 0 : plan.piecePoints[s.a];
            if (s.b != kNoPiece && s.b != s.a && !inBatch[s.b])
                extra += plan.piecePoints[s.b];
            // The first always fits: two pieces hold at most the budget.
            if (!batch.subTasks.empty() && points + extra > maxPointsPerBatch)
                break;
            take(id);
        }
        std::vector<std::uint32_t> pieces = batch.pieces;
        std::sort(pieces.begin(), pieces.end());
        for (std::size_t i = 0; i < pieces.size(); ++i)
            for (std::size_t j = i; j < pieces.size(); ++j) {
                const auto key = std::make_pair(pieces[i], pieces[j]);
                auto it = std::lower_bound(byPair.begin(), byPair.end(), key,
                                           [&](std::uint32_t id, const auto& k) {
                                               return piecePair(plan.subTasks[id]) < k;
                                           });
                for (; it != byPair.end() && piecePair(plan.subTasks[*it]) == key; ++it)
                    if (!done[*it])
                        take(*it);
            }
        for (const std::uint32_t piece : batch.pieces)
            inBatch[piece] = 0;
        plan.batches.push_back(std::move(batch));
    }
}

} // namespace

std::vector<const Catalog*> distinctCatalogs(std::span<const CountTask> tasks) {
    std::unordered_set<const Catalog*> seen;
    std::vector<const Catalog*> catalogs;
    for (const CountTask& task : tasks)
        for (const Catalog* catalog : {task.first, task.second})
            if (catalog && seen.insert(catalog).second)
                catalogs.push_back(catalog);
    return catalogs;
}

Plan makePlan(std::span<const CountTask> tasks, const Binning& binning,
              std::uint64_t maxPointsPerBatch, const std::function<void(std::size_t)>& preparing,
              const SplitPoll& poll) {
    Plan plan;
    const std::vector<const Catalog*> catalogs = distinctCatalogs(tasks);
    std::unordered_map<const Catalog*, std::uint32_t> setOf;
    for (std::size_t c = 0; c < catalogs.size(); ++c)
        setOf.emplace(catalogs[c], std::uint32_t(c));

    std::vector<std::uint32_t> firstPiece;
    for (std::size_t c = 0; c < catalogs.size(); ++c) {
        preparing(c);
        plan.sets.push_back(splitCatalog(*catalogs[c], maxPointsPerBatch / 2, poll));
        const PieceSet& set = plan.sets.back();
        firstPiece.push_back(std::uint32_t(plan.piecePoints.size()));
        for (std::size_t p = 0; p < set.pieceCount(); ++p) {
            plan.pieceSet.push_back(std::uint32_t(c));
            plan.pieceIndex.push_back(p);
            plan.piecePoints.push_back(set.pieceSize(p));
        }
    }
    preparing(catalogs.size());

    // Only the largest edge can rule a piece pair out: pairs closer than the smallest edge are
    // left out by the counter itself, and need their pieces counted.
    const double reach = binning.chord2Edges().back() * (1.0 + kPieceSkipMargin);
    plan.countedPairs.assign(tasks.size(), 0);
    plan.skippedPairs.assign(tasks.size(), 0);
    for (std::size_t t = 0; t < tasks.size(); ++t) {
        const CountTask& task = tasks[t];
        const std::uint32_t first = setOf.at(task.first);
        const std::uint32_t second = task.second ? setOf.at(task.second) : first;
        const PieceSet& a = plan.sets[first];
        const PieceSet& b = plan.sets[second];
        for (std::size_t i = 0; i < a.pieceCount(); ++i) {
            const std::uint32_t pa = firstPiece[first] + std::uint32_t(i);
            if (task.isAuto() && a.pieceSize(i) >= 2) {
                plan.subTasks.push_back(
                    {std::uint32_t(t), pa, kNoPiece, autoPairs(a.pieceSize(i))});
                plan.countedPairs[t] += plan.subTasks.back().pairs;
            }
            for (std::size_t j = task.isAuto() ? i + 1 : 0; j < b.pieceCount(); ++j) {
                const std::uint64_t pairs = std::uint64_t(a.pieceSize(i)) * b.pieceSize(j);
                if (boxGapChord2(a.bounds[i], b.bounds[j]) > reach) {
                    ++plan.skippedPiecePairs;
                    plan.skippedPairs[t] += pairs;
                    continue;
                }
                plan.subTasks.push_back(
                    {std::uint32_t(t), pa, firstPiece[second] + std::uint32_t(j), pairs});
                plan.countedPairs[t] += pairs;
            }
        }
    }
    packSubBatches(plan, maxPointsPerBatch);
    return plan;
}

} // namespace tpacf::chunk
