// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli/masking.h"

#include "flags/common_flags.h"

namespace tpacf::cli {

std::optional<MaskRequest> maskRequestFrom(const ParsedArgs& args) {
    using namespace flags;
    const auto path = args.value(kMask);
    if (!path) {
        for (const auto* flag : {&kMaskThreshold, &kMaskColumn})
            if (args.has(*flag))
                args.fail(std::string(flag->name) + " needs --mask FILE");
        return std::nullopt;
    }
    MaskRequest request;
    request.path = *path;
    request.options.column = args.value(kMaskColumn).value_or("");
    request.threshold = args.number(kMaskThreshold, 0.0);
    if (!(request.threshold >= 0.0 && request.threshold <= 1.0))
        args.fail("--mask-threshold " + *args.value(kMaskThreshold) +
                  " is not a completeness between 0 and 1");
    return request;
}

std::string applyMaskToCatalogs(const MaskRequest& request, const SkyMask& mask,
                                const std::vector<MaskedInput>& inputs) {
    std::vector<MaskedCount> counts;
    for (const MaskedInput& input : inputs) {
        const Catalog& catalog = **input.catalog;
        MaskedCatalog cut = cutToMask(catalog, mask, request.threshold);
        counts.push_back({input.label, cut.kept, catalog.size()});
        *input.catalog = std::make_shared<const Catalog>(std::move(cut.catalog));
    }
    return maskingNote(mask, request.threshold, counts);
}

} // namespace tpacf::cli
