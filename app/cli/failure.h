// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What an error thrown by a subcommand means for the user: its exit code and the one line
// printed for it. The dispatcher prints it; under MPI the ranks agree on one (rank_group.h).
#include "cli/rank_group.h"

#include <exception>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tpacf::cli {

/// The exit code and the line ("tpacf: ...", no newline) for `error`, thrown by `command`.
/// Usage errors point at the subcommand's --help; Cancelled is a cancellation, anything else an
/// error.
RankFailure describeFailure(std::exception_ptr error, std::string_view command);

/// Messages must stay one line: a shell script greps them, a test matches them.
std::string oneLine(std::string text);

/// Thrown on every rank once the ranks agreed that the run ends with `failure` (any rank's):
/// the dispatcher prints failure.line on rank 0 and exits with failure.exitCode everywhere.
class RunEnded : public std::runtime_error {
public:
    explicit RunEnded(RankFailure failure)
        : std::runtime_error(failure.line), m_failure(std::move(failure)) {}
    const RankFailure& failure() const noexcept { return m_failure; }

private:
    RankFailure m_failure;
};

/// Runs `body` on every rank, then lets the ranks agree on how it went: returns where it went
/// well everywhere, throws RunEnded on every rank where it failed on any. With one process the
/// error is thrown as it was. Every rank must call it at the same point.
template <typename Body>
void collectively(RankGroup& ranks, std::string_view command, Body&& body) {
    if (!ranks.distributed()) {
        body();
        return;
    }
    std::optional<RankFailure> mine;
    try {
        body();
    } catch (...) {
        mine = describeFailure(std::current_exception(), command);
    }
    if (auto failure = ranks.agree(mine))
        throw RunEnded(std::move(*failure));
}

} // namespace tpacf::cli
