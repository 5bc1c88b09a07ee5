// SPDX-License-Identifier: GPL-3.0-or-later
#include "tpacf/loaded_result.h"

namespace tpacf {

const std::vector<double>* LoadedResult::column(std::string_view name) const {
    for (const LoadedColumn& column : counts)
        if (column.name == name)
            return &column.values;
    return nullptr;
}

std::string LoadedResult::meta(std::string_view key) const {
    for (const auto& [k, value] : metadata)
        if (k == key)
            return value;
    return {};
}

std::string LoadedResult::summary() const {
    std::string data = meta("data");
    if (data.empty())
        data = meta("data 1");
    // "path/galaxies.txt N=5000; read as ...": the file name alone.
    data = data.substr(0, data.find(" N="));
    if (const std::size_t slash = data.find_last_of("/\\"); slash != std::string::npos)
        data = data.substr(slash + 1);
    std::string estimator = meta("estimator");
    estimator = estimator.substr(0, estimator.find(':'));
    if (data.empty())
        return estimator;
    return estimator.empty() ? data : data + ", " + estimator;
}

} // namespace tpacf
