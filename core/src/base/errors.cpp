// SPDX-License-Identifier: GPL-3.0-or-later
#include "tpacf/errors.h"

#include <utility>

namespace tpacf {

namespace {
std::string placeMessage(const std::string& file, long line, int column, const std::string& problem) {
    // Appended piecewise: GCC 12 warns (-Wrestrict, a false alarm) on chained operator+.
    std::string message = file.empty() ? std::string("input") : file;
    if (line > 0) {
        message.append(":");
        message.append(std::to_string(line));
    }
    if (column > 0) {
        message.append(": column ");
        message.append(std::to_string(column));
    }
    message.append(": ");
    message.append(problem);
    return message;
}
} // namespace

InputError::InputError(std::string file, long line, int column, std::string problem)
    : Error(placeMessage(file, line, column, problem)), m_file(std::move(file)), m_line(line),
      m_column(column), m_problem(std::move(problem)) {}

InputError::InputError(const std::string& message) : Error(message), m_problem(message) {}

} // namespace tpacf
