// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli/file_plan.h"

#include <filesystem>
#include <system_error>

namespace tpacf::cli {

namespace {

/// The file behind an input name: a FITS name may carry cfitsio's extended syntax
/// ("cat.fits[1][col RA;DEC]", "cat.fits(copy.fits)"), which names no file itself.
std::string fileOfInput(const std::string& path) {
    std::error_code error;
    if (std::filesystem::exists(path, error))
        return path;
    const std::size_t selector = path.find_first_of("[(");
    return selector == std::string::npos || selector == 0 ? path : path.substr(0, selector);
}

} // namespace

FilePlan& FilePlan::input(std::string role, std::string path) {
    m_inputs.push_back({std::move(role), fileOfInput(path)});
    return *this;
}

FilePlan& FilePlan::output(std::string role, std::string path) {
    m_outputs.push_back({std::move(role), std::move(path)});
    return *this;
}

void FilePlan::check() const {
    for (const NamedPath& output : m_outputs)
        checkOutputWritable(output.path, output.role);
    checkOutputsDistinct(m_inputs, m_outputs);
}

} // namespace tpacf::cli
