// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to the result writers (result_io.cpp: tables; result_json.cpp: JSON): the metadata
// and conventions every form of a result carries, and the checks and number formats they share.
#include "base/number_text.h"
#include "io/table.h"
#include "tpacf/correlation_result.h"
#include "tpacf/result_io.h"
#include "tpacf/units.h"

#include <cstddef>
#include <string>
#include <vector>

namespace tpacf::io {

extern const char* const kToolName;
extern const char* const kBinConvention;
extern const char* const kJackknifeConvention;
/// How the result's σ and covariance were made: kJackknifeConvention, or the bootstrap's.
std::string errorBarConvention(const CorrelationResult& result);

/// Shortest text that reads back as the same double (base/number_text.h).
using detail::formatDouble;
/// Line breaks replaced by spaces: a value stays on its metadata line.
std::string oneLine(std::string text);
/// UTC now as ISO 8601 ("2026-11-24T13:22:40Z").
std::string utcTimestamp();
std::string thetaConvention(AngleUnit unit, BinScale scale);
std::string precisionConvention(Precision precision);
/// "name N=5000 sum_w=... ; read as ...; fingerprint ...".
std::string describeInput(const InputSummary& input);
Metadata resultMetadata(const CorrelationResult& result);
/// The result's metadata a script reads by type (N and Σw of every catalog, fingerprints, bin
/// count and range, estimator, flags, jackknife K, elapsed seconds, version): typed keys beside
/// the prose of resultMetadata.
TypedMetadata resultTypedMetadata(const CorrelationResult& result);
/// The same for a count (tpacf count): N and Σw of its catalogs, bins, flags, elapsed seconds.
TypedMetadata countTypedMetadata(const CountSummary& summary);
std::vector<std::string> resultConventions(const CorrelationResult& result);
std::string unitName(AngleUnit unit);
/// Throws ConfigError unless `actual` == `expected` ("result is inconsistent: ...").
void requireSize(std::size_t actual, std::size_t expected, const char* what);
/// The number of table rows: every bin when counts are present, none for a result without
/// counts (cancelled); anything in between is a ConfigError.
std::size_t checkedRowCount(const CorrelationResult& result);

} // namespace tpacf::io
