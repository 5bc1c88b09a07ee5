// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Private to the ASCII reader: the column units an ECSV catalog states (astropy's Enhanced CSV,
// a YAML header in '#' lines), so that RA and Dec are read in the units the file says.
#include "tpacf/catalog_reader.h"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace tpacf::detail {

/// Column name → unit, from the `datatype:` list of an ECSV header ("# %ECSV 1.0" first);
/// columns without a unit are absent. Empty for text that is no ECSV.
std::map<std::string, std::string> ecsvColumnUnits(std::string_view text);

/// `options` for the catalog `text` whose RA and Dec are columns `ra` and `dec` of
/// `columnNames`: withStatedUnits for the units its ECSV header gives them; `options` itself
/// where the text is no ECSV or states no unit for them.
ReadOptions withEcsvUnits(const ReadOptions& options, std::string_view text,
                          const std::vector<std::string>& columnNames, std::size_t ra,
                          std::size_t dec, const std::string& source);

/// `options` with RA and Dec read in the units an ECSV file states for them: deg, arcmin,
/// arcsec or rad for both, or RA in hourangle (hours) with Dec in an angle unit. A unit that
/// is no angle, two different angle units, or a --coord-unit (other than the default deg) or
/// --ra-hours that contradicts the file is an InputError naming `source`. Unstated units leave
/// `options` as they are.
ReadOptions withStatedUnits(const ReadOptions& options, const std::string& raUnit,
                            const std::string& decUnit, const std::string& raName,
                            const std::string& decName, const std::string& source);

} // namespace tpacf::detail
