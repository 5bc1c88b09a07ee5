// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the parts of the Python module (_tpacf) share: the backends the module offers, the
// conversion of numpy arrays, and the one way a count runs (GIL released, Ctrl-C and the
// progress callback polled from the job's progress reports).
#include "tpacf/backend.h"
#include "tpacf/pair_counter.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <span>
#include <string>
#include <vector>

namespace tpacf::python {

namespace py = pybind11;

/// The backends of this process, built once (the CPU and the CUDA module, as the CLI's
/// makeBackends): every call shares them, so that a second call does not start CUDA again.
const BackendRegistry& backends();

/// A dtype's kind ('f', 'i', 'u', ...) and size in bytes, read as NumPy 1 and 2 both give them.
char dtypeKind(const py::dtype& dtype);
py::ssize_t dtypeSize(const py::dtype& dtype);

/// A numpy array as a copy in double. float32 and float64 only (any layout: strided views are
/// read element by element, once); anything else is a TypeError naming `what`, an array of more
/// than one dimension a ValueError.
std::vector<double> doublesFrom(const py::handle& array, const std::string& what);

/// A vector as a new numpy array (copied: the array owns its memory).
template <class T>
py::array_t<T> arrayOf(std::span<const T> values) {
    py::array_t<T> array(static_cast<py::ssize_t>(values.size()));
    std::copy(values.begin(), values.end(), array.mutable_data());
    return array;
}
template <class T>
py::array_t<T> arrayOf(const std::vector<T>& values) {
    return arrayOf(std::span<const T>(values));
}
/// Rows of equal length as a 2-D array (rows × columns); empty rows: shape (0, 0).
py::array_t<double> matrixOf(const std::vector<std::vector<double>>& rows);
py::array_t<std::uint64_t> matrixOf(const std::vector<std::vector<std::uint64_t>>& rows);

/// The state of one count seen from Python: the cancel flag the job polls, and the Python error
/// (KeyboardInterrupt, an exception of the progress callback) that set it.
class Interruption {
public:
    /// `progress`: a callable taking a dict, or None (TypeError for anything else).
    explicit Interruption(py::object progress);
    ~Interruption();

    const std::atomic<bool>* flag() const noexcept { return &m_cancel; }
    /// From the job's progress report, on the counting thread, without the GIL: takes the GIL
    /// and calls the progress callback with `fields()`; an exception it raises stops the count.
    void poll(const std::function<py::dict()>& fields);
    /// Without the GIL: takes it and runs pending signal handlers; KeyboardInterrupt (or any
    /// error a handler raises) stops the count.
    void checkSignals();
    /// Rethrows the Python error that stopped the count, if any (with the GIL held).
    void rethrowIfRaised();

private:
    void stopWithPythonError();

    py::object m_progress;
    std::atomic<bool> m_cancel{false};
    std::mutex m_mutex;
    std::exception_ptr m_error;
};

/// Runs `work` on a worker thread with the GIL released while the calling thread polls for
/// Ctrl-C; then rethrows the Python error that stopped it, else whatever `work` threw (a
/// Cancelled from core becomes KeyboardInterrupt through the module's translator).
void runWithoutGil(Interruption& interruption, const std::function<void()>& work);

/// The backend options of the Python calls: backend name, precision, devices, threads, culling;
/// wording of errors as the CLI's flags have it.
BackendOptions backendOptionsOf(const std::string& backend, const py::object& precision,
                                const py::object& devices, int threads, const std::string& culling);

void bindErrors(py::module_& module);
void bindCatalogs(py::module_& module);
void bindBins(py::module_& module);
void bindCounting(py::module_& module);
void bindCorrelate(py::module_& module);
void bindDevices(py::module_& module);
void bindMasks(py::module_& module);

} // namespace tpacf::python
