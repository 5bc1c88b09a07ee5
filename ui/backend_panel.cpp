// SPDX-License-Identifier: GPL-3.0-or-later
#include "backend_panel.h"

#include <QCheckBox>
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
constexpr int kAllDevices = -2; // every GPU of the module, whatever the job's size
constexpr QLatin1String kAutoName(kAutoBackend.data(), qsizetype(kAutoBackend.size()));
constexpr QLatin1String kCpuName(kCpuBackend.data(), qsizetype(kCpuBackend.size()));
// Precision combo entries: -1 automatic, else the Precision value.
constexpr int kAutoPrecision = -1;
} // namespace

BackendPanel::BackendPanel(BackendRegistry backends, QWidget* parent)
    : QWidget(parent), m_backends(std::move(backends)) {
    m_estimator = new QComboBox(this);
    m_estimator->setObjectName(QStringLiteral("estimatorCombo"));
    for (const EstimatorInfo& info : estimators())
        m_estimator->addItem(QString::fromLatin1(info.name), int(info.id));
    // Item and combo tooltips (with the formulas of the current mode) are set by updateFormula().
    m_formula = new QLabel(this);
    m_formula->setWordWrap(true);
    m_formula->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_meanTheta = new QCheckBox(tr("Mean separation per bin (⟨θ⟩)"), this);
    m_meanTheta->setObjectName(QStringLiteral("meanThetaCheck"));
    m_meanTheta->setToolTip(
        tr("<p>Also sum every counted pair's separation: the results gain the mean θ and mean "
           "ln θ of the DD, DR and RR pairs of each bin (pair-weighted with weights), and "
           "View ▸ Points at Mean Separation draws w(θ) there.</p>"
           "<p>A pass of its own after the counts, in double on every backend: it visits each "
           "pair in range one by one, so it takes several times the count's time (on a GPU, "
           "about 15× for a survey job to 10°).</p>"));

    m_backend = new QComboBox(this);
    m_backend->setObjectName(QStringLiteral("backendCombo"));
    const auto addEntry = [this](const QString& text, const QString& name, int device,
                                 const QString& tip) {
        m_backend->addItem(text);
        m_backend->setItemData(m_backend->count() - 1, name, kNameRole);
        m_backend->setItemData(m_backend->count() - 1, device, kDeviceRole);
        m_backend->setItemData(m_backend->count() - 1, tip, Qt::ToolTipRole);
    };
    addEntry(tr("Auto (GPU when available)"), QString(kAutoName), kNoDevice,
             tr("The GPUs where there are any, as many as the run's work pays for (a small run "
                "starts one; the log says how many and why), else the CPU (the log then says "
                "so)"));
    addEntry(tr("CPU (double precision)"), QString(kCpuName), kNoDevice,
             tr("Every CPU core (or the CPU threads below), in double precision: the exact "
                "reference the GPU backends are checked against"));
    // With several modules each device says whose it is; with one the plain "GPU k" is clear.
    const bool nameModules = m_backends.modules().size() > 1;
    QStringList unavailable;
    for (const auto& module : m_backends.modules()) {
        const QString name = QString::fromStdString(module->name());
        const auto devices = module->devices();
        if (devices.empty())
            unavailable.append(QString::fromStdString(module->unavailableReason()));
        if (devices.size() > 1) {
            QString text = tr("All %1 GPUs").arg(devices.size());
            if (nameModules)
                text = QString::fromStdString(module->displayName()) + QLatin1Char(' ') + text;
            addEntry(text, name, kAllDevices,
                     tr("Every GPU, however small the run: each one's start (~0.3 s) is paid "
                        "even where the split cannot win it back"));
        }
        for (const GpuDeviceInfo& device : devices) {
            const double gib = double(device.memoryBytes) / double(1ull << 30);
            QString text = tr("GPU %1: %2 (%3 GiB)")
                               .arg(device.index)
                               .arg(QString::fromStdString(device.name))
                               .arg(gib, 0, 'f', 1); // as `tpacf devices` shows it
            if (nameModules)
                text = QString::fromStdString(module->displayName()) + QLatin1Char(' ') + text;
            addEntry(text, name, device.index,
                     tr("This GPU alone: compute %1.%2, %3 multiprocessors. Automatic precision "
                        "here: %4")
                         .arg(device.computeMajor)
                         .arg(device.computeMinor)
                         .arg(device.multiprocessors)
                         .arg(QString::fromStdString(autoPrecision({device}).reason)));
            m_haveGpu = true;
        }
    }

    m_backend->setToolTip(
        tr("<p>What counts the pairs. Every backend counts the same pairs into the same bins; "
           "they differ in speed.</p>"
           "<p><b>Auto</b>: the GPUs, as many as the run's work pays for (each costs ~0.3 s to "
           "start), else the CPU (the log says so).<br>"
           "<b>All GPUs</b>: every GPU, whatever the run's size.<br>"
           "<b>CPU</b>: all cores, in double precision: the exact reference.<br>"
           "<b>GPU k</b>: that CUDA device alone.</p>"));

    m_threads = new QSpinBox(this);
    m_threads->setObjectName(QStringLiteral("threadsSpin"));
    m_threads->setRange(0, 1024);
    m_threads->setSpecialValueText(tr("All (%1)").arg(QThread::idealThreadCount()));
    m_threads->setToolTip(tr("Threads of the CPU backend; 0 uses every hardware thread"));

    m_precision = new QComboBox(this);
    m_precision->setObjectName(QStringLiteral("precisionCombo"));
    m_precision->addItem(tr("Automatic (double where FP64 is full rate)"), kAutoPrecision);
    m_precision->addItem(tr("Double (exact reference)"), int(Precision::Double));
    m_precision->addItem(tr("Float (hi+lo, GPU only)"), int(Precision::Float));
    m_precision->setItemData(
        m_precision->findData(int(Precision::Double)),
        tr("Counts identical to the CPU's, bin for bin; on a GPU with slow FP64 (GeForce, most "
           "RTX cards) many times slower than float"),
        Qt::ToolTipRole);
    m_precision->setItemData(
        m_precision->findData(int(Precision::Float)),
        tr("Each coordinate as two floats (hi + lo): squared chord lengths to about 2e-7 at every "
           "separation; counts differ from double only by pairs within that rounding of a bin "
           "edge (at most 1e-5 × count + 2 per bin). GPU only: the CPU always counts in double"),
        Qt::ToolTipRole);
    // Automatic's item and the combo's tooltip say what it means with the backend chosen:
    // updateEnabledState().

    m_culling = new QComboBox(this);
    m_culling->setObjectName(QStringLiteral("cullingCombo"));
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

    // The longest entries ("Automatic (double where FP64 is full rate)", a GPU's full name) are
    // wider than the dock column: the combos elide them there instead of widening the panel
    // past the column, where a horizontal scroll bar would hide the fields' right ends.
    for (QComboBox* combo : {m_estimator, m_backend, m_precision, m_culling}) {
        combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        combo->setMinimumContentsLength(12);
    }
    // The threads field as wide as the others (a spin box would otherwise take its narrow
    // hint and look squashed beside the combos).
    m_threads->setSizePolicy(QSizePolicy::Expanding, m_threads->sizePolicy().verticalPolicy());

    // Two forms, the estimator's and the backend's, so that a section can go between them
    // (insertSection: the window's error bars, which must not sit below the fold).
    const auto makeForm = [] {
        auto* form = new QFormLayout;
        // Fields take the column's width whatever the style's default (some styles keep hints).
        form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
        return form;
    };
    auto* estimatorForm = makeForm();
    estimatorForm->addRow(tr("Estimator:"), m_estimator);
    estimatorForm->addRow(QString(), m_formula);
    estimatorForm->addRow(QString(), m_meanTheta);
    auto* backendForm = makeForm();
    backendForm->addRow(tr("Backend:"), m_backend);
    backendForm->addRow(tr("CPU threads:"), m_threads);
    backendForm->addRow(tr("Precision:"), m_precision);
    backendForm->addRow(tr("Spatial culling:"), m_culling);
    // One label column for both forms, so that their fields line up.
    int labelWidth = 0;
    for (QFormLayout* form : {estimatorForm, backendForm})
        for (int row = 0; row < form->rowCount(); ++row)
            if (QLayoutItem* label = form->itemAt(row, QFormLayout::LabelRole); label && label->widget())
                labelWidth = qMax(labelWidth, label->widget()->sizeHint().width());
    for (QFormLayout* form : {estimatorForm, backendForm})
        for (int row = 0; row < form->rowCount(); ++row)
            if (QLayoutItem* label = form->itemAt(row, QFormLayout::LabelRole); label && label->widget())
                label->widget()->setFixedWidth(labelWidth);
    m_layout = new QVBoxLayout(this);
    // No gap of its own between the two forms: the panel is as tall as one form was.
    m_layout->setSpacing(0);
    m_layout->addLayout(estimatorForm);
    m_layout->addLayout(backendForm);
    m_layout->addWidget(m_gpuNote);
    m_layout->addStretch();

    connect(m_estimator, &QComboBox::currentIndexChanged, this, [this] {
        updateFormula();
        Q_EMIT changed();
    });
    connect(m_backend, &QComboBox::currentIndexChanged, this, [this] {
        updateEnabledState();
        Q_EMIT changed();
    });
    connect(m_meanTheta, &QCheckBox::toggled, this, &BackendPanel::changed);
    connect(m_threads, &QSpinBox::valueChanged, this, &BackendPanel::changed);
    connect(m_precision, &QComboBox::currentIndexChanged, this, &BackendPanel::changed);
    connect(m_culling, &QComboBox::currentIndexChanged, this, &BackendPanel::changed);

    updateFormula();
    updateEnabledState();
}

void BackendPanel::insertSection(QWidget* section) {
    m_layout->insertWidget(1, section);
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

namespace {

// What each estimator is good for, in a sentence (the formulas are the core's table's).
QString estimatorUse(Estimator estimator) {
    switch (estimator) {
    case Estimator::LandySzalay:
        return BackendPanel::tr("The standard: smallest variance, least sensitive to the edges of "
                                "the footprint.");
    case Estimator::Natural:
        return BackendPanel::tr("Also called Peebles–Hauser. Ignores DR; biased near the edges "
                                "of the footprint.");
    case Estimator::DavisPeebles:
        return BackendPanel::tr("Ignores RR; sensitive to the data's own density fluctuations.");
    case Estimator::Hamilton:
        return BackendPanel::tr("A ratio of DD, DR and RR; like Landy–Szalay it corrects for "
                                "the edges to first order.");
    }
    return {};
}

} // namespace

void BackendPanel::updateFormula() {
    // The formulas come from the core's estimator table, in the form the next run uses.
    QString overview;
    for (int i = 0; i < m_estimator->count(); ++i) {
        const auto id = Estimator(m_estimator->itemData(i).toInt());
        const QString formula = QString::fromLatin1(estimatorFormula(id, m_cross));
        const QString use = estimatorUse(id);
        m_estimator->setItemData(i, use.isEmpty() ? formula : formula + QStringLiteral("\n") + use,
                                 Qt::ToolTipRole);
        overview += QStringLiteral("<b>%1</b>: %2<br>")
                        .arg(m_estimator->itemText(i).toHtmlEscaped(), formula.toHtmlEscaped());
    }
    m_estimator->setToolTip(
        tr("<p>How the normalised pair counts become w(θ)%1:</p><p>%2</p>"
           "<p>Every run counts DD, DR and RR, so after a run another estimator needs no new "
           "count.</p>")
            .arg(m_cross ? tr(" for two samples") : QString(), overview));
    m_formula->setText(QString::fromLatin1(estimatorFormula(estimator(), m_cross)));
}

Estimator BackendPanel::estimator() const {
    return Estimator(m_estimator->currentData().toInt());
}

void BackendPanel::setEstimator(Estimator estimator) {
    m_estimator->setCurrentIndex(qMax(0, m_estimator->findData(int(estimator))));
}

bool BackendPanel::meanSeparation() const {
    return m_meanTheta->isChecked();
}

void BackendPanel::setMeanSeparation(bool on) {
    m_meanTheta->setChecked(on);
}

BackendOptions BackendPanel::backendOptions() const {
    BackendOptions options;
    options.name = m_backend->currentData(kNameRole).toString().toStdString();
    const int device = m_backend->currentData(kDeviceRole).toInt();
    if (device == kAllDevices) {
        if (const BackendModule* module = m_backends.find(options.name))
            for (const GpuDeviceInfo& info : module->devices())
                options.gpuDevices.push_back(info.index);
    } else if (device != kNoDevice) {
        options.gpuDevices = {device};
    }
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
    else if (name != kAutoName && options.gpuDevices.size() > 1)
        index = findEntry(name, kAllDevices);
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

    const QString automatic = automaticPrecisionHere();
    m_precision->setItemData(m_precision->findData(kAutoPrecision),
                             tr("With the backend chosen: %1").arg(automatic), Qt::ToolTipRole);
    m_precision->setToolTip(
        tr("<p>The arithmetic of the pair separations.</p>"
           "<p><b>Automatic</b>: double on the CPU and on GPUs whose FP64 runs at a third of "
           "their FP32 rate or better (H100, A100, V100); elsewhere the hi+lo float mode. With "
           "the backend chosen: %1.</p>"
           "<p><b>Double</b>: counts identical to the CPU reference.</p>"
           "<p><b>Float (hi+lo)</b>: each coordinate as two floats; counts differ from double "
           "only by pairs within rounding (about 2e-7) of a bin edge. GPU only.</p>")
            .arg(automatic.toHtmlEscaped()));
}

QString BackendPanel::automaticPrecisionHere() const {
    const QString name = m_backend->currentData(kNameRole).toString();
    if (name == kCpuName)
        return tr("double (the CPU always counts in double)");
    // The devices the run would use: the one chosen, or under Auto every device of the first
    // module that has any (as the job's selection does).
    const int device = m_backend->currentData(kDeviceRole).toInt();
    for (const auto& module : m_backends.modules()) {
        std::vector<GpuDeviceInfo> devices = module->devices();
        if (devices.empty() ||
            (name != kAutoName && QString::fromStdString(module->name()) != name))
            continue;
        if (device >= 0)
            std::erase_if(devices, [device](const GpuDeviceInfo& d) { return d.index != device; });
        if (!devices.empty())
            return QString::fromStdString(autoPrecision(devices).reason);
    }
    return tr("double (no usable GPU: runs use the CPU)");
}

} // namespace tpacf::ui
