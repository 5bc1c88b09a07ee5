#include "backend_panel.h"

#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QThread>
#include <QVBoxLayout>

namespace tpacf::ui {

namespace {
// Backend combo entries carry the backend's registered name and a device index (-1: none).
constexpr int kNameRole = Qt::UserRole;
constexpr int kDeviceRole = Qt::UserRole + 1;
constexpr int kNoDevice = -1;
constexpr QLatin1String kAutoName(kAutoBackend.data(), qsizetype(kAutoBackend.size()));
constexpr QLatin1String kCpuName(kCpuBackend.data(), qsizetype(kCpuBackend.size()));
// Precision combo entries: -1 automatic, else the Precision value.
constexpr int kAutoPrecision = -1;
} // namespace

BackendPanel::BackendPanel(BackendRegistry backends, QWidget* parent)
    : QWidget(parent), m_backends(std::move(backends)) {
    m_estimator = new QComboBox(this);
    for (const EstimatorInfo& info : estimators()) {
        m_estimator->addItem(QString::fromLatin1(info.name), int(info.id));
        m_estimator->setItemData(m_estimator->count() - 1, QString::fromLatin1(info.formula),
                                 Qt::ToolTipRole);
    }
    m_formula = new QLabel(this);
    m_formula->setWordWrap(true);
    m_formula->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_backend = new QComboBox(this);
    const auto addEntry = [this](const QString& text, const QString& name, int device) {
        m_backend->addItem(text);
        m_backend->setItemData(m_backend->count() - 1, name, kNameRole);
        m_backend->setItemData(m_backend->count() - 1, device, kDeviceRole);
    };
    addEntry(tr("Auto (GPU when available)"), QString(kAutoName), kNoDevice);
    addEntry(tr("CPU (double precision)"), QString(kCpuName), kNoDevice);
    // With several modules each device says whose it is; with one the plain "GPU k" is clear.
    const bool nameModules = m_backends.modules().size() > 1;
    QStringList unavailable;
    for (const auto& module : m_backends.modules()) {
        const QString name = QString::fromStdString(module->name());
        const auto devices = module->devices();
        if (devices.empty())
            unavailable.append(QString::fromStdString(module->unavailableReason()));
        for (const GpuDeviceInfo& device : devices) {
            const double gib = double(device.memoryBytes) / double(1ull << 30);
            QString text = tr("GPU %1: %2 (%3 GiB)")
                               .arg(device.index)
                               .arg(QString::fromStdString(device.name))
                               .arg(gib, 0, 'f', 1); // as `tpacf devices` shows it
            if (nameModules)
                text = QString::fromStdString(module->displayName()) + QLatin1Char(' ') + text;
            addEntry(text, name, device.index);
            m_haveGpu = true;
        }
    }

    m_threads = new QSpinBox(this);
    m_threads->setRange(0, 1024);
    m_threads->setSpecialValueText(tr("All (%1)").arg(QThread::idealThreadCount()));
    m_threads->setToolTip(tr("Threads of the CPU backend; 0 uses every hardware thread"));

    m_precision = new QComboBox(this);
    m_precision->addItem(tr("Automatic (double where FP64 is full rate)"), kAutoPrecision);
    m_precision->addItem(tr("Double (exact reference)"), int(Precision::Double));
    m_precision->addItem(tr("Float (hi+lo, GPU only)"), int(Precision::Float));

    m_culling = new QComboBox(this);
    m_culling->addItem(tr("Auto (by θ max and N)"), int(CullingMode::Auto));
    m_culling->addItem(tr("On (nearby sky cells only)"), int(CullingMode::On));
    m_culling->addItem(tr("Off (every pair)"), int(CullingMode::Off));
    m_culling->setToolTip(
        tr("<p>Spatial culling sorts the points into cells on the sky and visits only the pairs "
           "of cells that can hold a pair below the largest bin edge (θ max). With bins that "
           "stop well short of 180° it skips most pairs and is much faster.</p>"
           "<p>The counts are the same either way: culling never drops a pair in range.</p>"
           "<p><b>Auto</b> lets the backend decide from θ max and the catalog sizes; "
           "<b>On</b> and <b>Off</b> force it. The result says which was used.</p>"));

    m_gpuNote = new QLabel(this);
    m_gpuNote->setWordWrap(true);
    m_gpuNote->setStyleSheet(QStringLiteral("QLabel { color: palette(mid); }"));
    if (!m_haveGpu) {
        const QString reason =
            unavailable.isEmpty() ? tr("no GPU module") : unavailable.join(QStringLiteral("; "));
        m_gpuNote->setText(tr("No GPU: %1. Runs use the CPU.").arg(reason));
    } else {
        m_gpuNote->hide();
    }

    auto* form = new QFormLayout;
    form->addRow(tr("Estimator:"), m_estimator);
    form->addRow(QString(), m_formula);
    form->addRow(tr("Backend:"), m_backend);
    form->addRow(tr("CPU threads:"), m_threads);
    form->addRow(tr("Precision:"), m_precision);
    form->addRow(tr("Spatial culling:"), m_culling);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_gpuNote);
    layout->addStretch();

    connect(m_estimator, &QComboBox::currentIndexChanged, this, [this] {
        updateFormula();
        Q_EMIT changed();
    });
    connect(m_backend, &QComboBox::currentIndexChanged, this, [this] {
        updateEnabledState();
        Q_EMIT changed();
    });
    connect(m_threads, &QSpinBox::valueChanged, this, &BackendPanel::changed);
    connect(m_precision, &QComboBox::currentIndexChanged, this, &BackendPanel::changed);
    connect(m_culling, &QComboBox::currentIndexChanged, this, &BackendPanel::changed);

    updateFormula();
    updateEnabledState();
}

void BackendPanel::setCrossMode(bool cross) {
    if (cross == m_cross)
        return;
    m_cross = cross;
    updateFormula();
}

QString BackendPanel::formulaText() const {
    return m_formula->text();
}

void BackendPanel::updateFormula() {
    // The formulas come from the core's estimator table, in the form the next run uses.
    for (int i = 0; i < m_estimator->count(); ++i)
        m_estimator->setItemData(i,
                                 QString::fromLatin1(estimatorFormula(
                                     Estimator(m_estimator->itemData(i).toInt()), m_cross)),
                                 Qt::ToolTipRole);
    m_formula->setText(QString::fromLatin1(estimatorFormula(estimator(), m_cross)));
}

Estimator BackendPanel::estimator() const {
    return Estimator(m_estimator->currentData().toInt());
}

void BackendPanel::setEstimator(Estimator estimator) {
    m_estimator->setCurrentIndex(qMax(0, m_estimator->findData(int(estimator))));
}

BackendOptions BackendPanel::backendOptions() const {
    BackendOptions options;
    options.name = m_backend->currentData(kNameRole).toString().toStdString();
    const int device = m_backend->currentData(kDeviceRole).toInt();
    if (device != kNoDevice)
        options.gpuDevices = {device};
    options.cpuThreads = m_threads->value();
    const int precision = m_precision->currentData().toInt();
    if (precision != kAutoPrecision)
        options.precision = Precision(precision);
    options.culling = CullingMode(m_culling->currentData().toInt());
    return options;
}

void BackendPanel::setBackendOptions(const BackendOptions& options) {
    const QString name = QString::fromStdString(m_backends.resolve(options.name).value_or(""));
    int index = -1;
    if (name == kCpuName)
        index = findEntry(QString(kCpuName), kNoDevice);
    else if (name != kAutoName && !options.gpuDevices.empty())
        index = findEntry(name, options.gpuDevices.front());
    if (index < 0) // that module or device is not in this machine
        index = findEntry(QString(kAutoName), kNoDevice);
    m_backend->setCurrentIndex(index);
    m_threads->setValue(qMax(0, options.cpuThreads));
    const int precision = options.precision ? int(*options.precision) : kAutoPrecision;
    m_precision->setCurrentIndex(qMax(0, m_precision->findData(precision)));
    m_culling->setCurrentIndex(qMax(0, m_culling->findData(int(options.culling))));
    updateEnabledState();
}

int BackendPanel::findEntry(const QString& name, int device) const {
    for (int i = 0; i < m_backend->count(); ++i)
        if (m_backend->itemData(i, kNameRole).toString() == name &&
            m_backend->itemData(i, kDeviceRole).toInt() == device)
            return i;
    return -1;
}

void BackendPanel::updateEnabledState() {
    const QString name = m_backend->currentData(kNameRole).toString();
    // The CPU backend is double only; float makes sense only where a GPU can run it.
    const bool floatPossible = m_haveGpu && name != kCpuName;
    if (auto* model = qobject_cast<QStandardItemModel*>(m_precision->model())) {
        if (QStandardItem* item = model->item(m_precision->findData(int(Precision::Float))))
            item->setEnabled(floatPossible);
    }
    if (!floatPossible && m_precision->currentData().toInt() == int(Precision::Float))
        m_precision->setCurrentIndex(m_precision->findData(kAutoPrecision));
    m_threads->setEnabled(name == kAutoName || name == kCpuName);
}

} // namespace tpacf::ui
