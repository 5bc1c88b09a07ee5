// SPDX-License-Identifier: GPL-3.0-or-later
#include "tpacf/count_store.h"

#include "tpacf/errors.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace tpacf {

namespace {

// Two 64-bit lanes over 64-bit words: each step of a lane is a bijection of its state for a
// given word, and the lanes run independent chains (so the second costs little time). Not a
// cryptographic hash: it tells catalogs apart, it does not resist forgery.
class WordHasher {
public:
    explicit WordHasher(std::uint64_t domain) noexcept { add(domain); }

    void add(std::uint64_t word) noexcept {
        m_first = std::rotl(m_first ^ (word * 0x87c37b91114253d5ULL), 31) * 0x9e3779b97f4a7c15ULL +
                  0x52dce729ULL;
        m_second =
            std::rotl(m_second ^ (word * 0x4cf5ad432745937fULL), 27) * 0xc2b2ae3d27d4eb4fULL +
            0x38495ab5ULL;
        ++m_words;
    }
    void add(double value) noexcept { add(std::bit_cast<std::uint64_t>(value)); }

    Fingerprint finish() const noexcept {
        std::uint64_t first = m_first ^ m_words,
                      second = m_second ^ (m_words * 0xff51afd7ed558ccdULL);
        first += second;
        second += first;
        first = mix(first);
        second = mix(second);
        first += second;
        second += first;
        return {first, second};
    }

private:
    static std::uint64_t mix(std::uint64_t k) noexcept {
        k ^= k >> 33;
        k *= 0xff51afd7ed558ccdULL;
        k ^= k >> 33;
        k *= 0xc4ceb9fe1a85ec53ULL;
        k ^= k >> 33;
        return k;
    }

    std::uint64_t m_first = 0x6a09e667f3bcc908ULL, m_second = 0xbb67ae8584caa73bULL;
    std::uint64_t m_words = 0;
};

constexpr std::uint64_t kCatalogDomain = 0x7470616366636174ULL; // "tpacfcat"
constexpr std::uint64_t kRegionDomain = 0x7470616366726567ULL;  // "tpacfreg"

std::string shareList(const std::vector<std::uint32_t>& shares) {
    std::string text;
    for (const std::uint32_t share : shares)
        text += (text.empty() ? "" : ", ") + std::to_string(share + 1);
    return text;
}

bool sameCatalog(const CountCatalog& a, const CountCatalog& b) noexcept {
    return a.content == b.content && a.regions == b.regions;
}

// Bit for bit (memcmp may not be given the null pointer of an empty vector).
bool sameBits(std::span<const double> a, std::span<const double> b) noexcept {
    return a.size() == b.size() &&
           (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

template <typename Value> void addInto(std::vector<Value>& sum, const std::vector<Value>& part) {
    for (std::size_t i = 0; i < sum.size() && i < part.size(); ++i)
        sum[i] += part[i];
}

} // namespace

std::string Fingerprint::hex() const {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string text(32, '0');
    for (int i = 0; i < 16; ++i) {
        text[15 - i] = kDigits[(high >> (4 * i)) & 0xf];
        text[31 - i] = kDigits[(low >> (4 * i)) & 0xf];
    }
    return text;
}

std::optional<Fingerprint> Fingerprint::parseHex(std::string_view text) noexcept {
    if (text.size() != 32)
        return std::nullopt;
    Fingerprint result;
    for (std::size_t i = 0; i < 32; ++i) {
        const char c = text[i];
        std::uint64_t digit;
        if (c >= '0' && c <= '9')
            digit = static_cast<std::uint64_t>(c - '0');
        else if (c >= 'a' && c <= 'f')
            digit = static_cast<std::uint64_t>(c - 'a' + 10);
        else
            return std::nullopt;
        std::uint64_t& half = i < 16 ? result.high : result.low;
        half = (half << 4) | digit;
    }
    return result;
}

Fingerprint contentFingerprint(const Catalog& catalog) {
    WordHasher hasher(kCatalogDomain);
    hasher.add(static_cast<std::uint64_t>(catalog.size()));
    hasher.add(static_cast<std::uint64_t>(catalog.hasWeights() ? 1 : 0));
    const auto ra = catalog.ra();
    const auto dec = catalog.dec();
    const auto weight = catalog.weight();
    if (catalog.hasWeights()) {
        for (std::size_t i = 0; i < ra.size(); ++i) {
            hasher.add(ra[i]);
            hasher.add(dec[i]);
            hasher.add(weight[i]);
        }
    } else {
        for (std::size_t i = 0; i < ra.size(); ++i) {
            hasher.add(ra[i]);
            hasher.add(dec[i]);
        }
    }
    return hasher.finish();
}

Fingerprint regionFingerprint(std::span<const std::int32_t> regions, std::size_t regionCount) {
    WordHasher hasher(kRegionDomain);
    hasher.add(static_cast<std::uint64_t>(regionCount));
    hasher.add(static_cast<std::uint64_t>(regions.size()));
    std::size_t i = 0;
    for (; i + 1 < regions.size(); i += 2)
        hasher.add((static_cast<std::uint64_t>(static_cast<std::uint32_t>(regions[i])) << 32) |
                   static_cast<std::uint32_t>(regions[i + 1]));
    if (i < regions.size())
        hasher.add(static_cast<std::uint64_t>(static_cast<std::uint32_t>(regions[i])));
    return hasher.finish();
}

CountCatalog CountCatalog::of(const Catalog& catalog, std::span<const std::int32_t> regions,
                              std::size_t regionCount) {
    CountCatalog result;
    result.name = catalog.name();
    result.content = contentFingerprint(catalog);
    if (regionCount > 0)
        result.regions = regionFingerprint(regions, regionCount);
    result.size = catalog.size();
    result.weighted = catalog.hasWeights();
    result.weights = WeightSums::of(catalog);
    return result;
}

std::vector<std::uint32_t> CountStore::missingShares() const {
    std::vector<std::uint32_t> missing;
    for (std::uint32_t part = 0; part < shareParts; ++part)
        if (!std::binary_search(sharesHeld.begin(), sharesHeld.end(), part))
            missing.push_back(part);
    return missing;
}

std::string CountStore::describeShares() const {
    if (whole())
        return "the whole batch";
    return (sharesHeld.size() == 1 ? "part " : "parts ") + shareList(sharesHeld) + " of " +
           std::to_string(shareParts);
}

std::string CountStore::sourceName() const {
    return source.empty() ? std::string("the reused counts") : source;
}

std::optional<std::size_t> CountStore::findCatalog(const Fingerprint& content) const noexcept {
    for (std::size_t i = 0; i < catalogs.size(); ++i)
        if (catalogs[i].content == content)
            return i;
    return std::nullopt;
}

std::size_t CountStore::addCatalog(CountCatalog catalog) {
    for (std::size_t i = 0; i < catalogs.size(); ++i)
        if (sameCatalog(catalogs[i], catalog))
            return i;
    catalogs.push_back(std::move(catalog));
    return catalogs.size() - 1;
}

std::optional<CountStore::Match> CountStore::find(const Fingerprint& first,
                                                  const Fingerprint* second) const {
    for (const StoredCount& count : counts) {
        const Fingerprint& a = catalogs.at(count.first).content;
        if (!second) {
            if (count.isAuto() && a == first)
                return Match{&count, false};
            continue;
        }
        if (count.isAuto())
            continue;
        const Fingerprint& b = catalogs.at(*count.second).content;
        if (a == first && b == *second)
            return Match{&count, false};
    }
    if (second) // A × B counts the same pairs as B × A
        for (const StoredCount& count : counts)
            if (!count.isAuto() && catalogs.at(count.first).content == *second &&
                catalogs.at(*count.second).content == first)
                return Match{&count, true};
    return std::nullopt;
}

void CountStore::setBins(const Binning& binning) {
    binsDescription = binning.spec().describe();
    unit = binning.unit();
    edges.assign(binning.edges().begin(), binning.edges().end());
    chord2Edges.assign(binning.chord2Edges().begin(), binning.chord2Edges().end());
}

void CountStore::requireBins(const Binning& binning) const {
    if (!sameBits(binning.chord2Edges(), chord2Edges))
        throw ConfigError("the bins differ from those of the counts in " + sourceName() +
                          ": this run has " + binning.spec().describe() + ", the file " +
                          binsDescription +
                          (binning.spec().describe() == binsDescription
                               ? " (their c^2 thresholds differ in the last bits)"
                               : ""));
}

CountStore combineCountStores(std::span<const CountStore> stores) {
    if (stores.empty())
        throw ConfigError("no count files to combine");
    CountStore total = stores.front();
    total.source.clear();
    const CountStore& first = stores.front();
    const auto fail = [&](const CountStore& store, const std::string& why) {
        throw ConfigError("cannot combine " + store.sourceName() + " with " + first.sourceName() +
                          ": " + why);
    };
    for (std::size_t s = 1; s < stores.size(); ++s) {
        const CountStore& store = stores[s];
        if (!sameBits(store.chord2Edges, first.chord2Edges))
            fail(store, "the bins differ (" + store.binsDescription + " and " +
                            first.binsDescription + ")");
        if (store.shareParts != first.shareParts)
            fail(store, "they are shares of a different split (" + store.describeShares() +
                            " and " + first.describeShares() + ")");
        if (store.regionCount != first.regionCount)
            fail(store, "the jackknife region counts differ (" + std::to_string(store.regionCount) +
                            " and " + std::to_string(first.regionCount) + ")");
        if (store.backend != first.backend || store.precision != first.precision ||
            store.culling != first.culling)
            fail(store, "shares add up only when counted alike, and they were counted by " +
                            store.backend + " (" + std::string(precisionName(store.precision)) +
                            ", culling " + std::string(cullingModeName(store.culling)) + ") and " +
                            first.backend + " (" + std::string(precisionName(first.precision)) +
                            ", culling " + std::string(cullingModeName(first.culling)) + ")");
        bool sameCatalogs = store.catalogs.size() == first.catalogs.size();
        for (std::size_t c = 0; sameCatalogs && c < first.catalogs.size(); ++c)
            sameCatalogs = sameCatalog(store.catalogs[c], first.catalogs[c]);
        if (!sameCatalogs)
            fail(store, "their catalogs differ (content or regions)");
        bool sameCounts = store.counts.size() == first.counts.size();
        for (std::size_t c = 0; sameCounts && c < first.counts.size(); ++c) {
            const StoredCount& a = store.counts[c];
            const StoredCount& b = first.counts[c];
            sameCounts = a.first == b.first && a.second == b.second &&
                         a.counts.raw.size() == b.counts.raw.size() &&
                         a.counts.isWeighted() == b.counts.isWeighted() &&
                         a.regions.has_value() == b.regions.has_value();
        }
        if (!sameCounts)
            fail(store, "they hold different counts");
        for (const std::uint32_t share : store.sharesHeld) {
            if (std::binary_search(total.sharesHeld.begin(), total.sharesHeld.end(), share))
                fail(store, "part " + std::to_string(share + 1) + " of " +
                                std::to_string(store.shareParts) + " is in both");
            total.sharesHeld.insert(
                std::upper_bound(total.sharesHeld.begin(), total.sharesHeld.end(), share), share);
        }
        for (std::size_t c = 0; c < total.counts.size(); ++c) {
            TaskCounts& sum = total.counts[c].counts;
            const TaskCounts& part = store.counts[c].counts;
            addInto(sum.raw, part.raw);
            addInto(sum.weighted, part.weighted);
            if (total.counts[c].regions) {
                RegionPairCounts& regions = *total.counts[c].regions;
                const RegionPairCounts& partRegions = *store.counts[c].regions;
                addInto(regions.total, partRegions.total);
                addInto(regions.touching, partRegions.touching);
                addInto(regions.within, partRegions.within);
                addInto(regions.weightedTotal, partRegions.weightedTotal);
                addInto(regions.weightedTouching, partRegions.weightedTouching);
                addInto(regions.weightedWithin, partRegions.weightedWithin);
            }
        }
    }
    return total;
}

} // namespace tpacf
