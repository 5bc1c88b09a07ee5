// selectBackend: auto falls back to the CPU with a notice, explicit choices fail loudly, and the
// parse/name helpers round-trip. The GPU module is a fake written here.
#include "tpacf_test_main.h"
#include "tpacf/backend.h"
#include "tpacf/cpu_pair_counter.h"
#include "tpacf/errors.h"

#include <QtTest/QtTest>

#include <memory>
#include <string>
#include <thread>

using tpacf::BackendKind;
using tpacf::BackendOptions;
using tpacf::BackendSelection;
using tpacf::GpuBackendProvider;
using tpacf::GpuDeviceInfo;
using tpacf::PairCounter;
using tpacf::Precision;

namespace {

// Stands for the GPU module's counter: records how it was made, counts nothing.
class FakeGpuCounter final : public PairCounter {
  public:
    FakeGpuCounter(Precision precision, std::vector<int> devices)
        : m_precision(precision), m_devices(std::move(devices)) {}
    std::string backendName() const override { return "cuda"; }
    std::string deviceDescription() const override { return "Fake GPU (1 GPU)"; }
    Precision precision() const override { return m_precision; }
    std::vector<tpacf::PairCounts> countBatch(std::span<const tpacf::CountTask> tasks,
                                              const tpacf::Binning& binning,
                                              const tpacf::CountControl&) override {
        return std::vector<tpacf::PairCounts>(tasks.size(), tpacf::PairCounts(binning.count()));
    }
    const std::vector<int>& devices() const { return m_devices; }

  private:
    Precision m_precision;
    std::vector<int> m_devices;
};

class FakeProvider final : public GpuBackendProvider {
  public:
    enum class CreateFails { No, Unavailable, Config };

    FakeProvider(bool compiledIn, int deviceCount, std::string reason,
                 CreateFails fails = CreateFails::No)
        : m_compiledIn(compiledIn), m_deviceCount(deviceCount), m_reason(std::move(reason)),
          m_fails(fails) {}

    std::string name() const override { return "cuda"; }
    bool compiledIn() const override { return m_compiledIn; }
    std::vector<GpuDeviceInfo> devices() const override {
        std::vector<GpuDeviceInfo> list;
        for (int i = 0; i < m_deviceCount; ++i)
            list.push_back({i, "Fake GPU", 80ull << 30, 9, 0, 132});
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
        return std::make_unique<FakeGpuCounter>(precision, deviceIndices);
    }

    mutable int createCalls = 0;

  private:
    bool m_compiledIn;
    int m_deviceCount;
    std::string m_reason;
    CreateFails m_fails;
};

BackendOptions options(BackendKind kind, std::optional<Precision> precision = std::nullopt) {
    BackendOptions o;
    o.kind = kind;
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
    void autoFallsBackToCpu_data();
    void autoFallsBackToCpu();
    void autoPropagatesConfigError();
    void cudaExplicit();
    void cudaUnavailable_data();
    void cudaUnavailable();
    void cpuExplicit();
    void cpuFloatRejected();
    void parseBackendKind_data();
    void parseBackendKind();
    void backendKindNames();
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
    BackendOptions o = options(BackendKind::Auto,
                               precision < 0 ? std::nullopt : std::optional(Precision(precision)));
    o.gpuDevices = {1};
    const BackendSelection selection = tpacf::selectBackend(o, &gpu);
    QVERIFY(selection.counter);
    QCOMPARE(selection.counter->backendName(), std::string("cuda"));
    QCOMPARE(int(selection.counter->precision()), expected);
    QCOMPARE(selection.notice, std::string());
    const auto* fake = dynamic_cast<const FakeGpuCounter*>(selection.counter.get());
    QVERIFY(fake);
    QCOMPARE(fake->devices(), std::vector<int>{1});
}

void TestBackendSelection::autoFallsBackToCpu_data() {
    QTest::addColumn<int>("provider"); // 0: none, 1: not compiled in, 2: no devices, 3: busy
    QTest::addColumn<QString>("reason");
    QTest::newRow("no provider") << 0 << "this build has no GPU backend";
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
    BackendOptions o = options(BackendKind::Auto);
    o.cpuThreads = 3;
    const BackendSelection selection = tpacf::selectBackend(o, gpu.get());
    QVERIFY(selection.counter);
    QCOMPARE(selection.counter->backendName(), std::string("cpu"));
    QVERIFY(selection.counter->precision() == Precision::Double);
    QCOMPARE(selection.counter->deviceDescription(), std::string("CPU, 3 threads"));
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
                             tpacf::selectBackend(options(BackendKind::Auto), &gpu));
}

void TestBackendSelection::cudaExplicit() {
    const FakeProvider gpu(true, 1, "");
    const BackendSelection selection =
        tpacf::selectBackend(options(BackendKind::Cuda, Precision::Double), &gpu);
    QCOMPARE(selection.counter->backendName(), std::string("cuda"));
    QVERIFY(selection.counter->precision() == Precision::Double);
    QCOMPARE(selection.notice, std::string());
}

void TestBackendSelection::cudaUnavailable_data() {
    QTest::addColumn<int>("provider"); // 0: none, 1: not compiled in, 2: no devices, 3: busy
    QTest::addColumn<QString>("reason");
    QTest::newRow("no provider") << 0 << "this build has no GPU backend";
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
        tpacf::selectBackend(options(BackendKind::Cuda), gpu.get());
        QFAIL("no BackendUnavailable");
    } catch (const tpacf::BackendUnavailable& e) {
        QVERIFY2(contains(e.what(), reason.toStdString().c_str()), e.what());
    }
}

void TestBackendSelection::cpuExplicit() {
    // The CPU even where a GPU is present, double by default and when asked.
    const FakeProvider gpu(true, 1, "");
    for (const auto precision : {std::optional<Precision>(), std::optional(Precision::Double)}) {
        BackendOptions o = options(BackendKind::Cpu, precision);
        o.cpuThreads = 1;
        const BackendSelection selection = tpacf::selectBackend(o, &gpu);
        QCOMPARE(selection.counter->backendName(), std::string("cpu"));
        QCOMPARE(selection.counter->deviceDescription(), std::string("CPU, 1 thread"));
        QCOMPARE(selection.notice, std::string());
    }
    QCOMPARE(gpu.createCalls, 0);
    // cpuThreads <= 0: every hardware thread.
    const BackendSelection all = tpacf::selectBackend(options(BackendKind::Cpu), nullptr);
    const auto* cpu = dynamic_cast<const tpacf::CpuPairCounter*>(all.counter.get());
    QVERIFY(cpu);
    QCOMPARE(cpu->threadCount(), int(std::max(1u, std::thread::hardware_concurrency())));
}

void TestBackendSelection::cpuFloatRejected() {
    try {
        tpacf::selectBackend(options(BackendKind::Cpu, Precision::Float), nullptr);
        QFAIL("no ConfigError");
    } catch (const tpacf::ConfigError& e) {
        QCOMPARE(std::string(e.what()),
                 std::string("the CPU backend counts in double precision only"));
    }
}

void TestBackendSelection::parseBackendKind_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("expected"); // -1: rejected
    QTest::newRow("auto") << "auto" << int(BackendKind::Auto);
    QTest::newRow("cpu") << "cpu" << int(BackendKind::Cpu);
    QTest::newRow("cuda") << "cuda" << int(BackendKind::Cuda);
    QTest::newRow("gpu") << "gpu" << int(BackendKind::Cuda);
    QTest::newRow("CUDA") << "CUDA" << int(BackendKind::Cuda);
    QTest::newRow("Cpu") << "Cpu" << int(BackendKind::Cpu);
    QTest::newRow("empty") << "" << -1;
    QTest::newRow("opencl") << "opencl" << -1;
    QTest::newRow("cpu with space") << "cpu " << -1;
}

void TestBackendSelection::parseBackendKind() {
    QFETCH(QString, text);
    QFETCH(int, expected);
    const auto kind = tpacf::parseBackendKind(text.toStdString());
    QCOMPARE(kind.has_value(), expected >= 0);
    if (kind)
        QCOMPARE(int(*kind), expected);
}

void TestBackendSelection::backendKindNames() {
    for (const BackendKind kind : {BackendKind::Auto, BackendKind::Cpu, BackendKind::Cuda})
        QVERIFY(tpacf::parseBackendKind(tpacf::backendKindName(kind)) == kind);
    QCOMPARE(tpacf::backendKindName(BackendKind::Cuda), std::string_view("cuda"));
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
