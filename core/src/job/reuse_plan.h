// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Which counts of a job come from a reused count store and which are counted (the "reuse" stage
// of CorrelationJob::run): the store checked as a whole, then each count against the job's
// catalogs, their regions and weights, strictly or counting afresh where it does not match.
#include "job/job_counts.h"
#include "tpacf/correlation_job.h"

#include <optional>
#include <string>
#include <vector>

namespace tpacf::job {

struct ReusePlan {
    std::vector<std::optional<CountStore::Match>> stored; // per task; nullopt: counted
    std::vector<std::size_t> counted;                     // tasks to count, in task order
    std::vector<std::string> reusedLabels, countedLabels;
};

/// Strict: any refusal is the run's error (ConfigError, or InputError for an edited file).
/// WhereMatching: a refused count (or every count, where the store as a whole does not fit) is
/// counted afresh. No store: every count is counted.
ReusePlan planReuse(const CountStore* store, CorrelationParams::ReusePolicy policy,
                    const JobCatalogs& catalogs, const std::vector<CountCatalog>& keys,
                    const Binning& binning, std::size_t regionCount, bool weighted);

/// "DD, RR_1" for notes.
std::string joinLabels(const std::vector<std::string>& labels);

/// "'name'" or "(unnamed)", for messages.
std::string describeCatalog(const Catalog& catalog);

} // namespace tpacf::job
