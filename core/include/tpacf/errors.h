// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Typed errors of the core library. Every what() is a complete one-line message
// a user can act on; the CLI maps them to exit codes, the GUI to a failed signal.
#include <stdexcept>
#include <string>

namespace tpacf {

/// Base of every error the library reports on purpose.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Bad user input: a file, row or field. Carries the place (file, 1-based line and column;
/// 0 where not applicable) so callers can show or test it.
class InputError : public Error {
public:
    InputError(std::string file, long line, int column, std::string problem);
    explicit InputError(const std::string& message);

    const std::string& file() const noexcept { return m_file; }
    long line() const noexcept { return m_line; }
    int column() const noexcept { return m_column; }
    const std::string& problem() const noexcept { return m_problem; }

private:
    std::string m_file;
    long m_line = 0;
    int m_column = 0;
    std::string m_problem;
};

/// Invalid settings (bins, estimator, backend options, command-line values).
class ConfigError : public Error {
public:
    using Error::Error;
};

/// A backend was asked for explicitly but cannot run here (no driver, no device, not built).
class BackendUnavailable : public Error {
public:
    using Error::Error;
};

/// Raised inside a backend when its cancel token is set; jobs turn it into a cancelled status.
class Cancelled : public Error {
public:
    Cancelled() : Error("cancelled") {}
};

} // namespace tpacf
