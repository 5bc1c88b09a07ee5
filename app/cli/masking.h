// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// --mask on tpacf run and count: the mask read before any catalog (a bad mask costs no read).
// run hands it to the job (CorrelationParams::mask), which cuts the catalogs; count, which
// counts without a job, cuts its catalogs here.
#include "cli/args.h"
#include "tpacf/catalog.h"
#include "tpacf/sky_mask.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tpacf::cli {

struct MaskRequest {
    std::string path;
    MaskReadOptions options;
    double threshold = 0.0;
};

/// --mask, --mask-column and --mask-threshold read and checked; nullopt without --mask (the
/// other two without it are a usage error).
std::optional<MaskRequest> maskRequestFrom(const ParsedArgs& args);

/// One catalog of tpacf count to cut, and how the note names it ("A", "B").
struct MaskedInput {
    std::shared_ptr<const Catalog>* catalog = nullptr;
    std::string label;
};

/// Cuts each catalog to the mask in place. Returns the note that says so: the mask, its sky
/// fraction, and "kept K of N" for each. InputError naming the catalog's file when the mask
/// keeps none of its points.
std::string applyMaskToCatalogs(const MaskRequest& request, const SkyMask& mask,
                                const std::vector<MaskedInput>& inputs);

} // namespace tpacf::cli
