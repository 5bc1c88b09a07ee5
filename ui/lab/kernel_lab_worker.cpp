// SPDX-License-Identifier: GPL-3.0-or-later
#include "kernel_lab_worker.h"

#include <functional>

#include <tpacf/errors.h>
#include <tpacf/mock.h>

#include <algorithm>

namespace tpacf::ui {

namespace {

// runLab takes a list it owns; the window keeps its variants between runs, so each run gets
// forwarders that share them (and keep them alive should the window close mid-run).
class SharedVariantForwarder final : public lab::LabVariant {
public:
    explicit SharedVariantForwarder(SharedLabVariant variant) : m_variant(std::move(variant)) {}
    std::string key() const override { return m_variant->key(); }
    std::string name() const override { return m_variant->name(); }
    int rung() const override { return m_variant->rung(); }
    std::string backend() const override { return m_variant->backend(); }
    bool exact() const override { return m_variant->exact(); }
    std::string explanation() const override { return m_variant->explanation(); }
    std::string sourceFile() const override { return m_variant->sourceFile(); }
    lab::LabCounts count(const Catalog& first, const Catalog* second, const Binning& binning,
                         int repeats, const std::atomic<bool>* cancel) override {
        return m_variant->count(first, second, binning, repeats, cancel);
    }

private:
    SharedLabVariant m_variant;
};

} // namespace

std::shared_ptr<const Catalog> firstPoints(const std::shared_ptr<const Catalog>& catalog,
                                           std::size_t maxPoints) {
    if (!catalog || catalog->size() <= maxPoints)
        return catalog;
    auto head = [maxPoints](std::span<const double> values) {
        return std::vector<double>(values.begin(), values.begin() + std::ptrdiff_t(maxPoints));
    };
    Catalog::Columns columns;
    columns.ra = head(catalog->ra());
    columns.dec = head(catalog->dec());
    columns.x = head(catalog->x());
    columns.y = head(catalog->y());
    columns.z = head(catalog->z());
    if (catalog->hasWeights())
        columns.weight = head(catalog->weight());
    return std::make_shared<const Catalog>(
        Catalog::fromBuiltColumns(catalog->name(), std::move(columns)));
}

KernelLabWorker::KernelLabWorker(QObject* parent) : QObject(parent) {
    qRegisterMetaType<LabReportPtr>();
}

bool KernelLabWorker::start(LabRunRequest request) {
    if (!m_state.claim())
        return false;
    QMetaObject::invokeMethod(
        this, [this, request = std::move(request)] { execute(request); }, Qt::QueuedConnection);
    return true;
}

bool KernelLabWorker::startDemo(LabDemoRequest request) {
    if (!m_state.claim())
        return false;
    QMetaObject::invokeMethod(
        this, [this, request] { executeDemo(request); }, Qt::QueuedConnection);
    return true;
}

void KernelLabWorker::requestCancel() noexcept {
    m_state.requestCancel();
}

void KernelLabWorker::runGuarded(const std::function<std::function<void()>()>& work,
                                 const QString& unknownError) {
    // The worker is released before each final signal, so that a slot reacting to it can start the
    // next run; `work` returns the signal to send once it has succeeded.
    auto finish = [this] { m_state.release(); };
    try {
        if (m_state.cancelRequested())
            throw Cancelled();
        const std::function<void()> emitResult = work();
        finish();
        emitResult();
    } catch (const Cancelled&) {
        finish();
        Q_EMIT cancelled();
    } catch (const std::exception& error) {
        finish();
        Q_EMIT failed(QString::fromStdString(error.what()));
    } catch (...) {
        finish();
        Q_EMIT failed(unknownError);
    }
}

void KernelLabWorker::execute(const LabRunRequest& request) {
    runGuarded([&]() -> std::function<void()> {
        std::shared_ptr<const Catalog> first = firstPoints(request.first, request.maxPoints);
        std::shared_ptr<const Catalog> second = firstPoints(request.second, request.maxPoints);
        if (!first)
            first = std::make_shared<const Catalog>(generateUniformRandoms(
                request.maxPoints, Footprint::fullSky(), request.seed, "uniform"));
        const Binning binning(request.bins);
        lab::LabVariantList variants;
        for (const SharedLabVariant& variant : request.variants)
            variants.push_back(std::make_unique<SharedVariantForwarder>(variant));
        const auto onProgress = [this](int done, int total) { Q_EMIT progress(done, total); };
        auto report = std::make_shared<const lab::LabReport>(
            lab::runLab(variants, *first, second.get(), binning, request.repeats, onProgress,
                        m_state.cancelFlag()));
        if (m_state.cancelRequested())
            return [this] { Q_EMIT cancelled(); };
        return [this, report] { Q_EMIT finished(report); };
    }, tr("The lab run stopped with an unknown error."));
}

void KernelLabWorker::executeDemo(const LabDemoRequest& request) {
    runGuarded([&]() -> std::function<void()> {
        LabDemoResultPtr result = runLabDemo(request, m_state.cancelFlag());
        return [this, result] { Q_EMIT demoFinished(result); };
    }, tr("The demonstration stopped with an unknown error."));
}

} // namespace tpacf::ui
