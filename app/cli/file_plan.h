// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The files one command reads and writes, checked together before any catalog is read or any
// pair counted: every output can be written, and no output is an input or another output.
#include "tpacf/output_file.h"

#include <string>
#include <vector>

namespace tpacf::cli {

class FilePlan {
public:
    /// A catalog the command reads; `role` is its flag ("--data").
    FilePlan& input(std::string role, std::string path);
    /// A file the command writes; `role` is its flag ("--output").
    FilePlan& output(std::string role, std::string path);

    /// Throws InputError (exit 2) naming the file and its flag on the first problem found.
    void check() const;

private:
    std::vector<NamedPath> m_inputs, m_outputs;
};

} // namespace tpacf::cli
