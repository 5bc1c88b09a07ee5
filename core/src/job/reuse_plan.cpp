// SPDX-License-Identifier: GPL-3.0-or-later
#include "job/reuse_plan.h"

#include "tpacf/errors.h"

#include <utility>

namespace tpacf::job {

std::string describeCatalog(const Catalog& catalog) {
    return catalog.name().empty() ? std::string("(unnamed)") : "'" + catalog.name() + "'";
}

namespace {

// What catalogs.all()[index] is, for messages: "random catalog 2 'r2.txt'".
std::string roleOf(const JobCatalogs& catalogs, std::size_t index) {
    const std::size_t sets = catalogs.randoms.size();
    std::string role;
    if (index == 0)
        role = catalogs.cross() ? "the first data catalog" : "the data catalog";
    else if (index <= sets)
        role = "random catalog " + std::to_string(index);
    else if (index == sets + 1)
        role = "the second data catalog";
    else
        role = "random catalog " + std::to_string(index - sets - 1) + " of the second sample";
    return role + " " + describeCatalog(*catalogs.all()[index]);
}

// The stored count task t takes under the strict rules: nullopt where the file does not hold
// it and it may be counted (DD, DR, RD of other data); a ConfigError naming the reason where
// reusing it is asked for and impossible (a random whose content is in no count, other
// regions, no weighted sums).
std::optional<CountStore::Match> strictMatch(const CountStore& store,
                                             const JobCatalogs& catalogs,
                                             const std::vector<TaskCatalogs>& layout,
                                             const std::vector<std::string>& labels,
                                             const std::vector<CountCatalog>& keys, std::size_t t,
                                             std::size_t regionCount, bool weighted) {
    const std::string source = store.sourceName();
    const CountCatalog& first = keys[layout[t].first];
    const CountCatalog* second = layout[t].second ? &keys[*layout[t].second] : nullptr;
    const auto match = store.find(first.content, second ? &second->content : nullptr);
    if (!match) {
        if (isRandomRandom(catalogs, t)) {
            for (const std::optional<std::size_t> index :
                 {std::optional<std::size_t>(layout[t].first), layout[t].second})
                if (index && !store.findCatalog(keys[*index].content))
                    throw ConfigError(roleOf(catalogs, *index) +
                                      ": its content (coordinates and weights as read) "
                                      "differs from every catalog in " +
                                      source + ", so " + labels[t] +
                                      " cannot be reused (give the random catalogs that "
                                      "counted them, or run without --reuse-counts)");
            throw ConfigError(labels[t] + " is not in " + source +
                              ": its catalogs are there, but not counted together");
        }
        return std::nullopt;
    }
    const StoredCount& stored = *match->count;
    // The content fingerprint covers N and the weights, but the file states them apart: a
    // file whose N or Σw differ from the catalog of that content was edited.
    for (const auto& [storedIndex, key] :
         {std::pair{std::optional<std::size_t>(stored.first), match->swapped ? second : &first},
          std::pair{stored.second, match->swapped ? &first : second}}) {
        if (!storedIndex || !key)
            continue;
        const CountCatalog& said = store.catalogs[*storedIndex];
        if (said.size != key->size || said.weighted != key->weighted ||
            !(said.weights == key->weights))
            throw InputError(source, 0, 0,
                             "implausible count file: it gives catalog " + said.name + " N = " +
                                 std::to_string(said.size) + " (Σw " +
                                 std::to_string(said.weights.sum) +
                                 "), but the catalog of that content has N = " +
                                 std::to_string(key->size) + " (Σw " +
                                 std::to_string(key->weights.sum) + "); the file was edited");
    }
    if (regionCount > 0) {
        // The stored catalogs' regions in this run's order of the two catalogs.
        const Fingerprint& storedA = store.catalogs[stored.first].regions;
        const Fingerprint* storedB =
            stored.second ? &store.catalogs[*stored.second].regions : nullptr;
        const Fingerprint& forFirst = match->swapped ? *storedB : storedA;
        const Fingerprint* forSecond = match->swapped ? &storedA : storedB;
        const bool sameRegions = forFirst == first.regions &&
                                 (!second || (forSecond && *forSecond == second->regions));
        if (!sameRegions || !stored.regions)
            throw ConfigError(labels[t] + ": the jackknife regions differ from those of the "
                                          "counts in " +
                              source +
                              " (its catalogs are the same, the region of some point is not)");
    }
    if (weighted && (first.weighted || (second && second->weighted)) &&
        !stored.counts.isWeighted())
        throw ConfigError(labels[t] + " in " + source + " has no weighted sums");
    return match;
}

// Every count counted afresh.
ReusePlan countEverything(const JobCatalogs& catalogs) {
    ReusePlan plan;
    plan.stored.resize(taskCatalogs(catalogs).size());
    for (std::size_t t = 0; t < plan.stored.size(); ++t)
        plan.counted.push_back(t);
    return plan;
}

// Throws ConfigError where the store as a whole cannot serve this run: a part of the work only,
// other bins, another number of regions.
void requireUsableStore(const CountStore& store, const Binning& binning, std::size_t regionCount) {
    const std::string source = store.sourceName();
    if (!store.whole()) {
        std::string missing;
        for (const std::uint32_t part : store.missingShares())
            missing += (missing.empty() ? "" : ", ") + std::to_string(part + 1);
        throw ConfigError(source + " holds " + store.describeShares() +
                          " of the work only (missing: " + missing +
                          "): combine all parts into one count file before reusing it");
    }
    store.requireBins(binning);
    if (regionCount > 0 && store.regionCount != regionCount)
        throw ConfigError("the jackknife regions differ from those of the counts in " + source +
                          ": this run has " + std::to_string(regionCount) + " regions, the file " +
                          (store.regionCount > 0 ? std::to_string(store.regionCount) + " regions"
                                                 : std::string("no regions (counted without "
                                                               "jackknife)")));
}

} // namespace

// Strict: any refusal is the run's error. WhereMatching: a refused count (or every count, where
// the store as a whole does not fit) is counted afresh.
ReusePlan planReuse(const CountStore* store, CorrelationParams::ReusePolicy policy,
                    const JobCatalogs& catalogs, const std::vector<CountCatalog>& keys,
                    const Binning& binning, std::size_t regionCount, bool weighted) {
    if (!store)
        return countEverything(catalogs);
    const bool strict = policy == CorrelationParams::ReusePolicy::Strict;
    try {
        requireUsableStore(*store, binning, regionCount);
    } catch (const ConfigError&) {
        if (strict)
            throw;
        return countEverything(catalogs);
    }
    const std::vector<TaskCatalogs> layout = taskCatalogs(catalogs);
    const std::vector<std::string> labels = countLabels(catalogs);
    ReusePlan plan;
    plan.stored.resize(layout.size());
    for (std::size_t t = 0; t < layout.size(); ++t) {
        std::optional<CountStore::Match> match;
        try {
            match = strictMatch(*store, catalogs, layout, labels, keys, t, regionCount, weighted);
        } catch (const ConfigError&) {
            if (strict)
                throw;
        }
        if (match) {
            plan.stored[t] = match;
            plan.reusedLabels.push_back(labels[t]);
        } else {
            plan.counted.push_back(t);
            plan.countedLabels.push_back(labels[t]);
        }
    }
    return plan;
}

std::string joinLabels(const std::vector<std::string>& labels) {
    std::string text;
    for (const std::string& label : labels)
        text += (text.empty() ? "" : ", ") + label;
    return text;
}

} // namespace tpacf::job
