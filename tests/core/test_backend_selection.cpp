// SPDX-License-Identifier: GPL-3.0-or-later
// selectBackend: auto falls back to the CPU with a notice, explicit choices fail loudly, and the
// registry resolves names, keeps them unique and takes a second module as one more entry. The GPU
// modules are fakes written here.
#include "tpacf_test_main.h"
#include "tpacf/backend.h"
#include "tpacf/cpu_pair_counter.h"
#include "tpacf/errors.h"

#include <QtTest/QtTest>

#include <memory>
#include <string>
#include <thread>

using tpacf::BackendModule;
using tpacf::BackendOptions;
using tpacf::BackendRegistry;
using tpacf::BackendSelection;
using tpacf::GpuDeviceInfo;
using tpacf::PairCounter;
using tpacf::Precision;

namespace {

// Stands for the GPU module's counter: records how it was made, counts nothing.
class FakeGpuCounter final : public PairCounter {
  public:
    FakeGpuCounter(std::string backend, Precision precision, std::vector<int> devices)
        : m_backend(std::move(backend)), m_precision(precision), m_devices(std::move(devices)) {}
    std::string backendName() const override { return m_backend; }
    std::string deviceDescription() const override { return "Fake GPU (1 GPU)"; }
    Precision precision() const override { return m_precision; }
    std::vector<tpacf::TaskCounts> countBatch(std::span<const tpacf::CountTask> tasks,
                                              const tpacf::Binning& binning,
                                              const tpacf::CountControl&) override {
        return std::vector<tpacf::TaskCounts>(tasks.size(), {tpacf::PairCounts(binning.count())});
    }
    const std::vector<int>& devices() const { return m_devices; }

  private:
    std::string m_backend;
    Precision m_precision;
    std::vector<int> m_devices;
};

class FakeProvider final : public BackendModule {
  public:
    enum class CreateFails { No, Unavailable, Config };

    FakeProvider(bool compiledIn, int deviceCount, std::string reason,
                 CreateFails fails = CreateFails::No, std::string name = "cuda")
        : m_compiledIn(compiledIn), m_deviceCount(deviceCount), m_reason(std::move(reason)),
          m_fails(fails), m_name(std::move(name)) {}

    std::string name() const override { return m_name; }
    bool compiledIn() const override { return m_compiledIn; }
    std::vector<GpuDeviceInfo> devices() const override {
        std::vector<GpuDeviceInfo> list;
        for (int i = 0; i < m_deviceCount; ++i) {
            list.push_back({i, "Fake GPU", 80ull << 30, 9, 0, 132});
            if (static_cast<std::size_t>(i) < fp32PerFp64.size())
                list.back().fp32PerFp64 = fp32PerFp64[static_cast<std::size_t>(i)];
        }
        return list;
    }
    std::string unavailableReason() const override { return m_deviceCount ? "" : m_reason; }
    std::string versionDescription() const override { return "fake runtime 1.0"; }
    std::unique_ptr<PairCounter> create(Precision precision,
                                        const std::vector<int>& deviceIndices) const override {
        ++createCalls;
        if (m_fails == CreateFails::Unavailable)
            throw tpacf::BackendUnavailable("device 0 is busy");
        if (m_fails == CreateFails::Config)
            throw tpacf::ConfigError("device 7 does not exist");
        return std::make_unique<FakeGpuCounter>(m_name, precision, deviceIndices);
    }

    mutable int createCalls = 0;
    std::vector<int> fp32PerFp64; // per device; devices beyond it report 0 (unknown)

  private:
    bool m_compiledIn;
    int m_deviceCount;
    std::string m_reason;
    CreateFails m_fails;
    std::string m_name;
};

// A second module, as a new backend would be: its own name, devices and counters.
std::shared_ptr<FakeProvider> labModule(int deviceCount) {
    return std::make_shared<FakeProvider>(true, deviceCount, "no lab board plugged in",
                                          FakeProvider::CreateFails::No, "lab");
}

// The modules given, borrowed (the test keeps them, to count their create() calls).
BackendRegistry registryWith(std::initializer_list<const FakeProvider*> modules) {
    BackendRegistry registry;
    for (const FakeProvider* module : modules)
        if (module)
            registry.add(std::shared_ptr<const BackendModule>(module, [](const BackendModule*) {}));
    return registry;
}

BackendOptions options(std::string name, std::optional<Precision> precision = std::nullopt) {
    BackendOptions o;
    o.name = std::move(name);
    o.precision = precision;
    return o;
}

bool contains(const std::string& text, const char* part) {
    return text.find(part) != std::string::npos;
}

} // namespace

class TestBackendSelection : public QObject {
    Q_OBJECT

  private slots:
    void autoUsesGpuWhenPresent_data();
    void autoUsesGpuWhenPresent();
    void autoPrecisionFollowsFp64Rate_data();
    void autoPrecisionFollowsFp64Rate();
    void autoFallsBackToCpu_data();
    void autoFallsBackToCpu();
    void autoPropagatesConfigError();
    void cudaExplicit();
    void cudaUnavailable_data();
    void cudaUnavailable();
    void cpuExplicit();
    void cpuFloatRejected();
    void resolveNames_data();
    void resolveNames();
    void registryNames();
    void secondModuleByName();
    void secondModuleChosenByAuto();
    void secondModuleUnavailable();
    void namesAreUnique();
    void replaceModule();
    void unknownNameIsConfigError();
    void parsePrecision_data();
    void parsePrecision();
};

void TestBackendSelection::autoUsesGpuWhenPresent_data() {
    QTest::addColumn<int>("precision"); // -1: unset
    QTest::addColumn<int>("expected");
    QTest::newRow("unset gives float") << -1 << int(Precision::Float);
    QTest::newRow("float") << int(Precision::Float) << int(Precision::Float);
    QTest::newRow("double") << int(Precision::Double) << int(Precision::Double);
}

void TestBackendSelection::autoUsesGpuWhenPresent() {
    QFETCH(int, precision);
    QFETCH(int, expected);
    const FakeProvider gpu(true, 2, "");
    BackendOptions o =
        options("auto", precision < 0 ? std::nullopt : std::optional(Precision(precision)));
    o.gpuDevices = {1};
    const BackendSelection selection = tpacf::selectBackend(o, registryWith({&gpu}));
    QVERIFY(selection.counter);
    QCOMPARE(selection.counter->backendName(), std::string("cuda"));
    QCOMPARE(int(selection.counter->precision()), expected);
    QCOMPARE(selection.notice, std::string());
    const auto* fake = dynamic_cast<const FakeGpuCounter*>(selection.counter.get());
    QVERIFY(fake);
    QCOMPARE(fake->devices(), std::vector<int>{1});
}

void TestBackendSelection::autoPrecisionFollowsFp64Rate_data() {
    QTest::addColumn<QList<int>>("ratios");  // FP32:FP64 of each device
    QTest::addColumn<QList<int>>("chosen");  // --devices; empty: all
    QTest::addColumn<int>("expected");
    QTest::addColumn<QString>("reason");
    const int dbl = int(Precision::Double), flt = int(Precision::Float);
    QTest::newRow("H100-like, half rate") << QList<int>{2} << QList<int>{} << dbl
                                          << "auto: double, since Fake GPU computes FP64 at 1/2";
    QTest::newRow("at the limit") << QList<int>{3} << QList<int>{} << dbl << "at 1/3 of";
    QTest::newRow("GeForce-like, 1/64") << QList<int>{64} << QList<int>{} << flt
                                        << "auto: float (hi+lo), since Fake GPU computes FP64 at 1/64";
    QTest::newRow("rate unknown") << QList<int>{0} << QList<int>{} << flt
                                  << "does not report its FP64 rate";
    QTest::newRow("one slow device of two") << QList<int>{2, 32} << QList<int>{} << flt << "1/32";
    QTest::newRow("only the fast one chosen") << QList<int>{2, 32} << QList<int>{0} << dbl << "1/2";
    QTest::newRow("only the slow one chosen") << QList<int>{2, 32} << QList<int>{1} << flt << "1/32";
}

void TestBackendSelection::autoPrecisionFollowsFp64Rate() {
    QFETCH(QList<int>, ratios);
    QFETCH(QList<int>, chosen);
    QFETCH(int, expected);
    QFETCH(QString, reason);
    FakeProvider gpu(true, static_cast<int>(ratios.size()), "");
    gpu.fp32PerFp64.assign(ratios.begin(), ratios.end());
    for (const char* name : {"auto", "cuda"}) {
        BackendOptions o = options(name);
        o.gpuDevices.assign(chosen.begin(), chosen.end());
        const BackendSelection selection = tpacf::selectBackend(o, registryWith({&gpu}));
        QCOMPARE(int(selection.counter->precision()), expected);
        QVERIFY2(contains(selection.precisionChoice, reason.toStdString().c_str()),
                 selection.precisionChoice.c_str());
        // Asked for explicitly, the precision is taken as given.
        o.precision = Precision(1 - expected);
        const BackendSelection asked = tpacf::selectBackend(o, registryWith({&gpu}));
        QCOMPARE(int(asked.counter->precision()), 1 - expected);
        QCOMPARE(asked.precisionChoice, std::string("requested"));
    }
}

void TestBackendSelection::autoFallsBackToCpu_data() {
    QTest::addColumn<int>("provider"); // 0: none, 1: not compiled in, 2: no devices, 3: busy
    QTest::addColumn<QString>("reason");
    QTest::newRow("no module") << 0 << "this build has no GPU backend";
    QTest::newRow("built without CUDA") << 1 << "built without CUDA";
    QTest::newRow("no driver") << 2 << "no CUDA driver: libcuda.so.1 not found";
    QTest::newRow("device busy") << 3 << "device 0 is busy";
}

void TestBackendSelection::autoFallsBackToCpu() {
    QFETCH(int, provider);
    QFETCH(QString, reason);
    std::unique_ptr<FakeProvider> gpu;
    if (provider == 1)
        gpu = std::make_unique<FakeProvider>(false, 0, reason.toStdString());
    else if (provider == 2)
        gpu = std::make_unique<FakeProvider>(true, 0, reason.toStdString());
    else if (provider == 3)
        gpu = std::make_unique<FakeProvider>(true, 1, "", FakeProvider::CreateFails::Unavailable);
    BackendOptions o = options("auto");
    o.cpuThreads = 3;
    const BackendSelection selection = tpacf::selectBackend(o, registryWith({gpu.get()}));
    QVERIFY(selection.counter);
    QCOMPARE(selection.counter->backendName(), std::string("cpu"));
    QVERIFY(selection.counter->precision() == Precision::Double);
    QCOMPARE(selection.counter->deviceDescription(), std::string("CPU, 3 threads"));
    // Without a module core has no module name to give: the reason alone says it.
    if (provider != 0)
        QVERIFY2(contains(selection.notice, "no CUDA device"), selection.notice.c_str());
    QVERIFY2(contains(selection.notice, reason.toStdString().c_str()), selection.notice.c_str());
    QVERIFY2(contains(selection.notice, "using the CPU backend"), selection.notice.c_str());
    if (provider == 1 || provider == 2)
        QCOMPARE(gpu->createCalls, 0);
}

void TestBackendSelection::autoPropagatesConfigError() {
    // Bad settings are the user's to fix, not a reason to switch silently to the CPU.
    const FakeProvider gpu(true, 1, "", FakeProvider::CreateFails::Config);
    QVERIFY_THROWS_EXCEPTION(tpacf::ConfigError,
                             tpacf::selectBackend(options("auto"), registryWith({&gpu})));
}

void TestBackendSelection::cudaExplicit() {
    const FakeProvider gpu(true, 1, "");
    const BackendSelection selection =
        tpacf::selectBackend(options("cuda", Precision::Double), registryWith({&gpu}));
    QCOMPARE(selection.counter->backendName(), std::string("cuda"));
    QVERIFY(selection.counter->precision() == Precision::Double);
    QCOMPARE(selection.notice, std::string());
}

void TestBackendSelection::cudaUnavailable_data() {
    QTest::addColumn<int>("provider"); // 1: not compiled in, 2: no devices, 3: busy
    QTest::addColumn<QString>("reason");
    QTest::newRow("built without CUDA") << 1 << "built without CUDA";
    QTest::newRow("no driver") << 2 << "no CUDA driver: libcuda.so.1 not found";
    QTest::newRow("device busy") << 3 << "device 0 is busy";
}

void TestBackendSelection::cudaUnavailable() {
    QFETCH(int, provider);
    QFETCH(QString, reason);
    std::unique_ptr<FakeProvider> gpu;
    if (provider == 1)
        gpu = std::make_unique<FakeProvider>(false, 0, reason.toStdString());
    else if (provider == 2)
        gpu = std::make_unique<FakeProvider>(true, 0, reason.toStdString());
    else if (provider == 3)
        gpu = std::make_unique<FakeProvider>(true, 1, "", FakeProvider::CreateFails::Unavailable);
    try {
        tpacf::selectBackend(options("cuda"), registryWith({gpu.get()}));
        QFAIL("no BackendUnavailable");
    } catch (const tpacf::BackendUnavailable& e) {
        QVERIFY2(contains(e.what(), reason.toStdString().c_str()), e.what());
    }
}

void TestBackendSelection::cpuExplicit() {
    // The CPU even where a GPU is present, double by default and when asked.
    const FakeProvider gpu(true, 1, "");
    for (const auto precision : {std::optional<Precision>(), std::optional(Precision::Double)}) {
        BackendOptions o = options("cpu", precision);
        o.cpuThreads = 1;
        const BackendSelection selection = tpacf::selectBackend(o, registryWith({&gpu}));
        QCOMPARE(selection.counter->backendName(), std::string("cpu"));
        QCOMPARE(selection.counter->deviceDescription(), std::string("CPU, 1 thread"));
        QCOMPARE(selection.notice, std::string());
    }
    QCOMPARE(gpu.createCalls, 0);
    // cpuThreads <= 0: every hardware thread.
    const BackendSelection all = tpacf::selectBackend(options("cpu"), BackendRegistry{});
    const auto* cpu = dynamic_cast<const tpacf::CpuPairCounter*>(all.counter.get());
    QVERIFY(cpu);
    QCOMPARE(cpu->threadCount(), int(std::max(1u, std::thread::hardware_concurrency())));
}

void TestBackendSelection::cpuFloatRejected() {
    try {
        tpacf::selectBackend(options("cpu", Precision::Float), BackendRegistry{});
        QFAIL("no ConfigError");
    } catch (const tpacf::ConfigError& e) {
        QCOMPARE(std::string(e.what()),
                 std::string("the CPU backend counts in double precision only"));
    }
}

void TestBackendSelection::resolveNames_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("expected"); // "": rejected
    QTest::newRow("auto") << "auto" << "auto";
    QTest::newRow("cpu") << "cpu" << "cpu";
    QTest::newRow("cuda") << "cuda" << "cuda";
    QTest::newRow("gpu") << "gpu" << "cuda";
    QTest::newRow("CUDA") << "CUDA" << "cuda";
    QTest::newRow("Cpu") << "Cpu" << "cpu";
    QTest::newRow("empty") << "" << "";
    QTest::newRow("opencl") << "opencl" << "";
    QTest::newRow("cpu with space") << "cpu " << "";
}

void TestBackendSelection::resolveNames() {
    QFETCH(QString, text);
    QFETCH(QString, expected);
    const FakeProvider gpu(true, 1, "");
    const auto name = registryWith({&gpu}).resolve(text.toStdString());
    QCOMPARE(name.has_value(), !expected.isEmpty());
    if (name)
        QCOMPARE(QString::fromStdString(*name), expected);
    // "gpu" means the first module: there is none in the CPU-only registry.
    QVERIFY(!BackendRegistry().resolve("gpu"));
}

void TestBackendSelection::registryNames() {
    const FakeProvider gpu(true, 1, "");
    const BackendRegistry registry = registryWith({&gpu});
    for (const std::string& name : registry.names())
        QVERIFY(registry.resolve(name) == name);
    QCOMPARE(registry.names(), (std::vector<std::string>{"auto", "cpu", "cuda"}));
    QCOMPARE(BackendRegistry().names(), (std::vector<std::string>{"auto", "cpu"}));
    QCOMPARE(registry.find("cuda"), static_cast<const BackendModule*>(&gpu));
    QVERIFY(!registry.find("cpu"));
    QVERIFY(!registry.find("auto"));
}

void TestBackendSelection::secondModuleByName() {
    const FakeProvider gpu(true, 1, "");
    const auto lab = labModule(3);
    const BackendRegistry registry = registryWith({&gpu, lab.get()});
    QCOMPARE(registry.names(), (std::vector<std::string>{"auto", "cpu", "cuda", "lab"}));
    QCOMPARE(registry.namesText(), std::string("auto, cpu, cuda, lab"));
    QCOMPARE(registry.find("LAB"), static_cast<const BackendModule*>(lab.get()));

    BackendOptions o = options("lab", Precision::Double);
    o.gpuDevices = {2};
    const BackendSelection selection = tpacf::selectBackend(o, registry);
    QCOMPARE(selection.counter->backendName(), std::string("lab"));
    QVERIFY(selection.counter->precision() == Precision::Double);
    QCOMPARE(selection.notice, std::string());
    const auto* fake = dynamic_cast<const FakeGpuCounter*>(selection.counter.get());
    QVERIFY(fake);
    QCOMPARE(fake->devices(), std::vector<int>{2});
    QCOMPARE(lab->createCalls, 1);
    QCOMPARE(gpu.createCalls, 0);
}

void TestBackendSelection::secondModuleChosenByAuto() {
    // Auto takes the first module that can count, in the order they were added.
    const FakeProvider noDevice(true, 0, "no CUDA driver");
    const auto lab = labModule(1);
    const BackendSelection selection =
        tpacf::selectBackend(options("auto"), registryWith({&noDevice, lab.get()}));
    QCOMPARE(selection.counter->backendName(), std::string("lab"));
    QCOMPARE(selection.notice, std::string());

    const FakeProvider gpu(true, 1, "");
    QCOMPARE(tpacf::selectBackend(options("auto"), registryWith({&gpu, lab.get()}))
                 .counter->backendName(),
             std::string("cuda"));
    // A module whose device is busy hands over to the next one.
    const FakeProvider busy(true, 1, "", FakeProvider::CreateFails::Unavailable);
    QCOMPARE(tpacf::selectBackend(options("auto"), registryWith({&busy, lab.get()}))
                 .counter->backendName(),
             std::string("lab"));
}

void TestBackendSelection::secondModuleUnavailable() {
    const FakeProvider gpu(true, 1, "");
    const auto lab = labModule(0);
    const BackendRegistry registry = registryWith({&gpu, lab.get()});
    try {
        tpacf::selectBackend(options("lab"), registry);
        QFAIL("no BackendUnavailable");
    } catch (const tpacf::BackendUnavailable& e) {
        QVERIFY2(contains(e.what(), "the LAB backend is not available"), e.what());
        QVERIFY2(contains(e.what(), "no lab board plugged in"), e.what());
    }
    QCOMPARE(lab->createCalls, 0);

    // Auto with no module able to count: the notice names each and why.
    const FakeProvider noDevice(true, 0, "no CUDA driver");
    const BackendSelection selection =
        tpacf::selectBackend(options("auto"), registryWith({&noDevice, lab.get()}));
    QCOMPARE(selection.counter->backendName(), std::string("cpu"));
    QVERIFY2(contains(selection.notice, "no CUDA device (no CUDA driver)"),
             selection.notice.c_str());
    QVERIFY2(contains(selection.notice, "no LAB device (no lab board plugged in)"),
             selection.notice.c_str());
    QVERIFY2(contains(selection.notice, "using the CPU backend"), selection.notice.c_str());
}

void TestBackendSelection::namesAreUnique() {
    BackendRegistry registry;
    registry.add(labModule(1));
    QVERIFY_THROWS_EXCEPTION(tpacf::ConfigError, registry.add(labModule(2)));
    for (const char* name : {"auto", "cpu", "gpu", "", "Lab2", "LAB"})
        QVERIFY_THROWS_EXCEPTION(tpacf::ConfigError,
                                 registry.add(std::make_shared<FakeProvider>(
                                     true, 1, "", FakeProvider::CreateFails::No, name)));
    QVERIFY_THROWS_EXCEPTION(tpacf::ConfigError, registry.add(nullptr));
    QCOMPARE(registry.names(), (std::vector<std::string>{"auto", "cpu", "lab"}));
}

void TestBackendSelection::replaceModule() {
    BackendRegistry registry;
    registry.add(labModule(0));
    const auto withDevices = labModule(2);
    registry.replace(withDevices);
    QCOMPARE(registry.modules().size(), std::size_t{1});
    QCOMPARE(registry.find("lab"), static_cast<const BackendModule*>(withDevices.get()));
    QVERIFY_THROWS_EXCEPTION(tpacf::ConfigError,
                             registry.replace(std::make_shared<FakeProvider>(true, 1, "")));
}

void TestBackendSelection::unknownNameIsConfigError() {
    const FakeProvider gpu(true, 1, "");
    const auto lab = labModule(1);
    for (const char* name : {"tpu", "", "cpu "}) {
        try {
            tpacf::selectBackend(options(name), registryWith({&gpu, lab.get()}));
            QFAIL("no ConfigError");
        } catch (const tpacf::ConfigError& e) {
            QVERIFY2(contains(e.what(), "is not a backend (auto, cpu, cuda, lab)"), e.what());
        }
    }
    // A module's name means nothing to a registry without it.
    QVERIFY_THROWS_EXCEPTION(tpacf::ConfigError,
                             tpacf::selectBackend(options("cuda"), BackendRegistry{}));
    QVERIFY_THROWS_EXCEPTION(tpacf::ConfigError,
                             tpacf::selectBackend(options("gpu"), BackendRegistry{}));
    QCOMPARE(gpu.createCalls + lab->createCalls, 0);
}

void TestBackendSelection::parsePrecision_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("expected"); // -1: rejected
    QTest::newRow("double") << "double" << int(Precision::Double);
    QTest::newRow("fp64") << "fp64" << int(Precision::Double);
    QTest::newRow("float") << "float" << int(Precision::Float);
    QTest::newRow("fp32") << "fp32" << int(Precision::Float);
    QTest::newRow("Double") << "Double" << int(Precision::Double);
    QTest::newRow("half") << "half" << -1;
    QTest::newRow("empty") << "" << -1;
}

void TestBackendSelection::parsePrecision() {
    QFETCH(QString, text);
    QFETCH(int, expected);
    const auto precision = tpacf::parsePrecision(text.toStdString());
    QCOMPARE(precision.has_value(), expected >= 0);
    if (precision) {
        QCOMPARE(int(*precision), expected);
        QVERIFY(tpacf::parsePrecision(tpacf::precisionName(*precision)) == precision);
    }
}

TPACF_TEST_MAIN(TestBackendSelection)
#include "test_backend_selection.moc"
