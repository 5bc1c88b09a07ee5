// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// `tpacf --version`: the version, then the optional parts this build has (GPU modules, MPI, FITS,
// plotting, the FCS correlator), so that a user or a cluster admin sees what a binary can do
// before a run fails on it. Nothing here starts a GPU.
#include "tpacf/backend.h"

#include <string>

namespace tpacf::cli {

/// "tpacf 0.1.0\nparts of this build:\n  cuda      yes ...\n  ...": one line per part,
/// "yes" or "no" first, then what it gives or why not.
std::string versionText(const BackendRegistry& backends);

} // namespace tpacf::cli
