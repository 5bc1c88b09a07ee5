// SPDX-License-Identifier: GPL-3.0-or-later
// The module's shared pieces: backends, array conversion, the GIL-free run with Ctrl-C, errors.
#include "binding.h"

#include "tpacf/culling.h"
#include "tpacf/cuda/cuda_backend.h"
#include "tpacf/errors.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <string_view>

namespace tpacf::python {

const BackendRegistry& backends() {
    // As app/cli/cli_main.cpp's makeBackends: the CPU is built in, CUDA is a module (a provider
    // that says "not built" without CUDA). Built on first use, kept for the process.
    static const BackendRegistry registry = [] {
        BackendRegistry made;
        made.add(tpacf::cuda::makeProvider());
        return made;
    }();
    return registry;
}

namespace {

std::string shapeText(const py::array& array) {
    std::string text = "(";
    for (py::ssize_t i = 0; i < array.ndim(); ++i)
        text += (i ? ", " : "") + std::to_string(array.shape(i));
    return text + (array.ndim() == 1 ? ",)" : ")");
}

template <class T>
std::vector<double> copied(const py::array& array) {
    // unchecked<T, 1> reads through the strides: a view (a[::2], a column of a 2-D array) is
    // read in place, never reinterpreted as contiguous.
    const auto view = array.unchecked<T, 1>();
    std::vector<double> values(static_cast<std::size_t>(view.shape(0)));
    for (py::ssize_t i = 0; i < view.shape(0); ++i)
        values[static_cast<std::size_t>(i)] = static_cast<double>(view(i));
    return values;
}

} // namespace

// Through the dtype's Python attributes: pybind11 2.10 reads kind and itemsize from the C struct,
// whose layout NumPy 2 changed (its itemsize() then reads another field).
char dtypeKind(const py::dtype& dtype) {
    return py::cast<std::string>(dtype.attr("kind")).at(0);
}

py::ssize_t dtypeSize(const py::dtype& dtype) {
    return py::cast<py::ssize_t>(dtype.attr("itemsize"));
}

std::vector<double> doublesFrom(const py::handle& object, const std::string& what) {
    if (!py::isinstance<py::array>(object))
        throw py::type_error(what + ": expected a numpy array of float32 or float64, got " +
                             std::string(py::str(py::type::of(object).attr("__name__"))));
    const auto array = py::reinterpret_borrow<py::array>(object);
    const py::dtype dtype = array.dtype();
    if (dtypeKind(dtype) != 'f' || (dtypeSize(dtype) != 4 && dtypeSize(dtype) != 8))
        throw py::type_error(what + ": numpy array of " + py::cast<std::string>(dtype.attr("name")) +
                             " values; give float32 or float64");
    if (array.ndim() != 1)
        throw py::value_error(what + ": expected a one-dimensional array, got shape " +
                              shapeText(array));
    if (dtype.equal(py::dtype::of<double>()))
        return copied<double>(array);
    if (dtype.equal(py::dtype::of<float>()))
        return copied<float>(array);
    // float32 or float64 in the other byte order: numpy converts it exactly.
    return copied<double>(py::array_t<double, py::array::forcecast>::ensure(array));
}

template <class T>
static py::array_t<T> matrixOfRows(const std::vector<std::vector<T>>& rows) {
    const std::size_t columns = rows.empty() ? 0 : rows.front().size();
    py::array_t<T> matrix({static_cast<py::ssize_t>(rows.size()), static_cast<py::ssize_t>(columns)});
    T* out = matrix.mutable_data();
    for (const auto& row : rows) {
        if (row.size() != columns)
            throw std::logic_error("matrixOf: rows of different lengths");
        out = std::copy(row.begin(), row.end(), out);
    }
    return matrix;
}

py::array_t<double> matrixOf(const std::vector<std::vector<double>>& rows) {
    return matrixOfRows(rows);
}

py::array_t<std::uint64_t> matrixOf(const std::vector<std::vector<std::uint64_t>>& rows) {
    return matrixOfRows(rows);
}

Interruption::Interruption(py::object progress) : m_progress(std::move(progress)) {
    if (!m_progress.is_none() && !PyCallable_Check(m_progress.ptr()))
        throw py::type_error("progress: expected a callable taking a dict, or None");
}

Interruption::~Interruption() = default;

void Interruption::stopWithPythonError() {
    // With the GIL held, inside a catch of py::error_already_set.
    const std::lock_guard lock(m_mutex);
    if (!m_error)
        m_error = std::current_exception();
    m_cancel.store(true);
}

void Interruption::poll(const std::function<py::dict()>& fields) {
    if (m_progress.is_none() || m_cancel.load())
        return;
    py::gil_scoped_acquire gil;
    try {
        m_progress(fields());
    } catch (py::error_already_set&) {
        stopWithPythonError();
    }
}

void Interruption::checkSignals() {
    py::gil_scoped_acquire gil;
    try {
        // Runs the handlers of signals that arrived meanwhile (on the main thread; elsewhere
        // nothing): Ctrl-C raises KeyboardInterrupt here.
        if (PyErr_CheckSignals() != 0)
            throw py::error_already_set();
    } catch (py::error_already_set&) {
        stopWithPythonError();
    }
}

void Interruption::rethrowIfRaised() {
    std::exception_ptr error;
    {
        const std::lock_guard lock(m_mutex);
        std::swap(error, m_error);
    }
    if (error)
        std::rethrow_exception(error);
}

void runWithoutGil(Interruption& interruption, const std::function<void()>& work) {
    // The work runs on a thread of its own while this one, the caller's (the main thread in a
    // notebook), looks for Ctrl-C every 50 ms: signal handlers run on the main thread only, and
    // a file being read or a backend preparing reports no progress to poll from.
    std::exception_ptr failure;
    {
        py::gil_scoped_release release;
        std::mutex mutex;
        std::condition_variable finished;
        bool done = false;
        std::thread worker([&] {
            try {
                work();
            } catch (...) {
                failure = std::current_exception();
            }
            const std::lock_guard lock(mutex);
            done = true;
            finished.notify_one();
        });
        std::unique_lock lock(mutex);
        while (!finished.wait_for(lock, std::chrono::milliseconds(50), [&] { return done; })) {
            lock.unlock();
            interruption.checkSignals();
            lock.lock();
        }
        lock.unlock();
        worker.join();
    }
    // Whatever the count threw on its way out (Cancelled), the Python error that stopped it is
    // what the caller must see.
    interruption.rethrowIfRaised();
    if (failure)
        std::rethrow_exception(failure);
}

BackendOptions backendOptionsOf(const std::string& backend, const py::object& precision,
                                const py::object& devices, int threads,
                                const std::string& culling) {
    BackendOptions options;
    const auto name = backends().resolve(backend);
    if (!name)
        throw ConfigError("backend: '" + backend + "' is not a backend (" +
                          backends().namesText() + ")");
    options.name = *name;
    if (!precision.is_none()) {
        const std::string text = py::cast<std::string>(precision);
        if (text != "auto") {
            const auto parsed = parsePrecision(text);
            if (!parsed)
                throw ConfigError("precision: '" + text +
                                  "' is not a precision (float, double, auto)");
            options.precision = *parsed;
        }
    }
    if (threads < 0 || threads > 4096)
        throw ConfigError("threads: " + std::to_string(threads) +
                          " is outside 0..4096 (0: every hardware thread)");
    options.cpuThreads = threads;
    if (!devices.is_none()) {
        for (const py::handle device : devices)
            options.gpuDevices.push_back(py::cast<int>(device));
        std::vector<int> sorted = options.gpuDevices;
        std::sort(sorted.begin(), sorted.end());
        if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
            throw ConfigError("devices: a device is named twice");
    }
    const auto mode = parseCullingMode(culling);
    if (!mode)
        throw ConfigError("culling: '" + culling + "' is not a culling mode (auto, on, off)");
    options.culling = *mode;
    return options;
}

void bindErrors(py::module_& module) {
    // Every error core reports on purpose is a tpacf.Error; bad input and bad settings are also
    // ValueErrors, a backend that cannot run here a RuntimeError. A cancelled count (Ctrl-C) is
    // a KeyboardInterrupt.
    const auto make = [&](const char* name, const char* doc, const py::object& bases) {
        const std::string qualified = std::string("tpacf.") + name;
        PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases.ptr(), nullptr);
        if (!type)
            throw py::error_already_set();
        module.add_object(name, py::handle(type));
        return py::handle(type); // this reference is never released: the type lives as long as the process
    };
    static const py::handle error =
        make("Error", "Base of every error the tpacf engine reports on purpose.",
             py::reinterpret_borrow<py::object>(PyExc_Exception));
    static const py::handle inputError = make(
        "InputError", "Bad input: a catalog value, file, row or column (also a ValueError).",
        py::make_tuple(error, py::handle(PyExc_ValueError)));
    static const py::handle configError = make(
        "ConfigError", "Invalid settings: bins, estimator, backend options (also a ValueError).",
        py::make_tuple(error, py::handle(PyExc_ValueError)));
    static const py::handle unavailable =
        make("BackendUnavailable",
             "A backend asked for by name cannot run here (also a RuntimeError).",
             py::make_tuple(error, py::handle(PyExc_RuntimeError)));
    py::register_exception_translator([](std::exception_ptr thrown) {
        try {
            if (thrown)
                std::rethrow_exception(thrown);
        } catch (const Cancelled&) {
            PyErr_SetNone(PyExc_KeyboardInterrupt);
        } catch (const InputError& problem) {
            PyErr_SetString(inputError.ptr(), problem.what());
        } catch (const ConfigError& problem) {
            PyErr_SetString(configError.ptr(), problem.what());
        } catch (const BackendUnavailable& problem) {
            PyErr_SetString(unavailable.ptr(), problem.what());
        } catch (const Error& problem) {
            PyErr_SetString(error.ptr(), problem.what());
        }
    });
}

} // namespace tpacf::python
