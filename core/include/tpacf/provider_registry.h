// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A registry of providers by name: what the programs fill at start-up beside their backends for
// the side tools (the Kernel Lab's variant providers, lab.h; the FCS correlators, multitau.h),
// so that the pair-counting interface (backend.h) knows nothing of them. A Provider has
// name() (lower case, unique), displayName() and unavailableReason() ("" when usable here).
#include "tpacf/errors.h"

#include <algorithm>
#include <cctype>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tpacf {

template <typename Provider>
class ProviderRegistry {
public:
    /// Adds a provider after the others. ConfigError when it is null, its name is empty, not
    /// lower case, reserved ("auto", "cpu", "gpu") or already taken.
    ProviderRegistry& add(std::shared_ptr<const Provider> provider) {
        if (!provider)
            throw ConfigError("a provider to register is missing");
        const std::string name = provider->name();
        if (name.empty() || lower(name) != name)
            throw ConfigError("the provider name '" + name + "' is not a lower-case word");
        if (name == "auto" || name == "cpu" || name == "gpu")
            throw ConfigError("the provider name '" + name + "' is reserved");
        if (find(name))
            throw ConfigError("a provider named '" + name + "' is already registered");
        m_providers.push_back(std::move(provider));
        return *this;
    }

    const std::vector<std::shared_ptr<const Provider>>& providers() const noexcept {
        return m_providers;
    }

    /// The provider of that name (any case), or null.
    const Provider* find(std::string_view name) const noexcept {
        for (const auto& provider : m_providers)
            if (equalNoCase(provider->name(), name))
                return provider.get();
        return nullptr;
    }

    /// The name `text` means: "auto" and "cpu" themselves, "gpu" the first provider, a
    /// provider's name in any case; nullopt when none.
    std::optional<std::string> resolve(std::string_view text) const {
        const std::string name = lower(text);
        if (name == "auto" || name == "cpu")
            return name;
        if (name == "gpu")
            return m_providers.empty() ? std::nullopt
                                       : std::optional<std::string>(m_providers.front()->name());
        if (const Provider* provider = find(name))
            return provider->name();
        return std::nullopt;
    }

    /// "auto, cpu, " and each provider's name, for messages and help texts.
    std::string namesText() const {
        std::string text = "auto, cpu";
        for (const auto& provider : m_providers)
            text += ", " + provider->name();
        return text;
    }

private:
    static std::string lower(std::string_view text) {
        std::string result(text);
        std::transform(result.begin(), result.end(), result.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        return result;
    }
    static bool equalNoCase(std::string_view a, std::string_view b) noexcept {
        return a.size() == b.size() &&
               std::equal(a.begin(), a.end(), b.begin(), [](unsigned char x, unsigned char y) {
                   return std::tolower(x) == std::tolower(y);
               });
    }

    std::vector<std::shared_ptr<const Provider>> m_providers;
};

} // namespace tpacf
