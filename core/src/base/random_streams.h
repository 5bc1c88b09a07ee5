// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to core: the pseudo-random streams whose output is the same on every platform and
// standard library (std::uniform_int_distribution is not), so that regions, bootstrap draws,
// mock randoms and simulated photons do not depend on the toolchain. SplitMix64 (Steele, Lea
// and Flood) seeds and draws small things; xoshiro256** (Blackman and Vigna), seeded through
// SplitMix64 as its authors advise, draws many.
#include <bit>
#include <cstdint>
#include <limits>

namespace tpacf::detail {

class SplitMix64 {
public:
    explicit SplitMix64(std::uint64_t seed) noexcept : m_state(seed) {}
    std::uint64_t next() noexcept {
        std::uint64_t z = (m_state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    /// Uniform in [0, n) (n > 0), by rejection so no value is favoured.
    std::uint64_t below(std::uint64_t n) noexcept {
        const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() -
                                    std::numeric_limits<std::uint64_t>::max() % n;
        std::uint64_t value;
        do
            value = next();
        while (value >= limit);
        return value % n;
    }
    /// Uniform in [0, 1).
    double unit() noexcept { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

private:
    std::uint64_t m_state;
};

class Xoshiro256 {
public:
    /// The four words of state from a SplitMix64 stream.
    explicit Xoshiro256(SplitMix64 seeder) noexcept {
        for (auto& word : m_s)
            word = seeder.next();
    }
    std::uint64_t next() noexcept {
        const std::uint64_t result = std::rotl(m_s[1] * 5, 7) * 9;
        const std::uint64_t t = m_s[1] << 17;
        m_s[2] ^= m_s[0];
        m_s[3] ^= m_s[1];
        m_s[1] ^= m_s[2];
        m_s[0] ^= m_s[3];
        m_s[2] ^= t;
        m_s[3] = std::rotl(m_s[3], 45);
        return result;
    }
    /// Uniform in [0, 1) with 53 random bits.
    double unit() noexcept { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
    /// Uniform in [0, n), n > 0, without bias (Lemire's multiply and reject): one draw almost
    /// always, where a modulo would need a division.
    std::uint64_t below(std::uint64_t n) noexcept {
        __extension__ typedef unsigned __int128 Wide; // GCC and Clang: the 64 × 64-bit product
        Wide product = static_cast<Wide>(next()) * n;
        if (static_cast<std::uint64_t>(product) < n) {
            const std::uint64_t floor = (0 - n) % n;
            while (static_cast<std::uint64_t>(product) < floor)
                product = static_cast<Wide>(next()) * n;
        }
        return static_cast<std::uint64_t>(product >> 64);
    }

private:
    std::uint64_t m_s[4]{};
};

} // namespace tpacf::detail
