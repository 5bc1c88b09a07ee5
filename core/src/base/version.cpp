// SPDX-License-Identifier: GPL-3.0-or-later
#include "tpacf/version.h"

namespace tpacf {
std::string_view version() noexcept { return TPACF_VERSION; }
} // namespace tpacf
