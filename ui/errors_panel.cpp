// SPDX-License-Identifier: GPL-3.0-or-later
#include "errors_panel.h"

#include <tpacf/bootstrap.h>
#include <tpacf/jackknife.h>
#include <tpacf/sky_mask.h>

#include <QComboBox>
#include <QFileDialog>
#include <QPushButton>
#include <QCompleter>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPalette>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

#include <limits>

namespace tpacf::ui {

ErrorsPanel::ErrorsPanel(QWidget* parent) : QWidget(parent) {
    m_method = new QComboBox(this);
    m_method->addItem(tr("None"), int(ErrorSettings::Method::None));
    m_method->addItem(tr("Jackknife, K regions on the sky"), int(ErrorSettings::Method::Regions));
    m_method->addItem(tr("Jackknife, K HEALPix regions"),
                      int(ErrorSettings::Method::Healpix));
    m_method->addItem(tr("Jackknife, regions from a column"), int(ErrorSettings::Method::Column));
    m_method->addItem(tr("Jackknife, regions from a file"), int(ErrorSettings::Method::File));
    m_method->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_method->setMinimumContentsLength(12); // elided in a narrow dock rather than widening it
    m_method->setToolTip(tr("Jackknife: w(θ) is recomputed with each sky region left out; the "
                            "spread gives σ(θ) and the covariance matrix."));

    m_regions = new QSpinBox(this);
    m_regions->setRange(ErrorSettings::kMinRegions, ErrorSettings::kMaxRegions);
    m_regions->setValue(ErrorSettings::kDefaultRegions);
    m_regions->setToolTip(tr("Number of jackknife regions K (equal-count regions grown on the "
                             "sphere by k-means on the data)"));
    // Editable: the list holds the data file's columns, but a name it lacks (a column of the
    // random files only, a 1-based number) can be typed.
    m_column = new QComboBox(this);
    m_column->setObjectName(QStringLiteral("regionColumn"));
    m_column->setEditable(true);
    m_column->setInsertPolicy(QComboBox::NoInsert);
    m_column->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_column->setMinimumContentsLength(12);
    m_column->lineEdit()->setPlaceholderText(tr("column name, e.g. patch"));
    // Inline completion would type the rest of a listed name over what is being typed.
    m_column->completer()->setCompletionMode(QCompleter::PopupCompletion);
    m_column->completer()->setCaseSensitivity(Qt::CaseInsensitive);
    m_column->setToolTip(tr("A catalog column holding integer region labels, in the data and "
                            "every random catalog: pick one of the data file's columns or type "
                            "a name or a 1-based column number"));
    m_seed = new QSpinBox(this);
    m_seed->setRange(0, std::numeric_limits<int>::max());
    m_seed->setValue(1);
    m_seed->setToolTip(
        tr("Seed of the k-means region split: the same seed gives the same regions"));

    m_nside = new QComboBox(this);
    m_nside->setObjectName(QStringLiteral("healpixNside"));
    for (int nside = 1; nside <= kMaxMaskNside; nside *= 2)
        m_nside->addItem(QString::number(nside), nside);
    m_nside->setCurrentIndex(m_nside->findData(ErrorSettings{}.healpixNside));
    m_nside->setToolTip(tr("HEALPix NSIDE: the data's occupied pixels, in NESTED order, are cut "
                           "into K runs of near-equal data weight (a pixel is about 55′ across "
                           "at NSIDE 64, 3.4′ at 1024)"));
    m_nsideLabel = new QLabel(tr("NSIDE:"), this);
    m_regionsFile = new QLineEdit(this);
    m_regionsFile->setObjectName(QStringLiteral("regionsFile"));
    m_regionsFile->setPlaceholderText(tr("regions.json"));
    m_regionsFile->setToolTip(
        tr("A regions file (File ▸ Save Jackknife Regions…, tpacf run --save-regions): two "
           "samples, or data and mocks, then share their regions"));
    m_regionsFileBrowse = new QPushButton(tr("Browse…"), this);
    connect(m_regionsFileBrowse, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Regions File"), QString(),
                                                          tr("Regions files (*.json)"));
        if (!path.isEmpty())
            m_regionsFile->setText(path);
    });

    m_bootstrap = new QSpinBox(this);
    m_bootstrap->setObjectName(QStringLiteral("bootstrapSamples"));
    m_bootstrap->setRange(0, kMaxBootstrapSamples);
    m_bootstrap->setSpecialValueText(tr("off (jackknife σ)"));
    m_bootstrap->setToolTip(
        tr("σ and the covariance from B bootstrap samples of the regions instead of the "
           "jackknife: the regions drawn with replacement, a pair between two regions weighing "
           "the mean of their draws (TreeCorr's bootstrap with cross_patch_weight 'mean'; per "
           "region, Loh's 2008 marks)"));
    m_bootstrapLabel = new QLabel(tr("Bootstrap B:"), this);

    m_crossWeight = new QComboBox(this);
    m_crossWeight->setObjectName(QStringLiteral("crossRegionWeight"));
    m_crossWeight->addItem(QString(), -1); // the method's default; named in updateState
    for (const CrossRegionWeightInfo& info : crossRegionWeights()) {
        m_crossWeight->addItem(QString::fromUtf8(info.key), int(info.id));
        m_crossWeight->setItemData(m_crossWeight->count() - 1, QString::fromUtf8(info.rule),
                                   Qt::ToolTipRole);
    }
    m_crossWeight->setToolTip(
        tr("How each sample weighs a pair between a region it keeps and one it leaves out, as "
           "TreeCorr's cross_patch_weight: simple drops it, mean counts it 1/2, match counts it "
           "1 − K/(2 + √2(K − 1)) (Mohammad & Percival 2022; jackknife only)"));

    auto* form = new QFormLayout;
    form->setContentsMargins(0, 0, 0, 0);
    form->addRow(tr("Errors:"), m_method);
    m_regionsLabel = new QLabel(tr("Regions K:"), this);
    m_seedLabel = new QLabel(tr("Seed:"), this);
    // K and the seed share a row: the dock column is short on height, not on width.
    m_regionsRow = new QWidget(this);
    auto* regionsLayout = new QHBoxLayout(m_regionsRow);
    regionsLayout->setContentsMargins(0, 0, 0, 0);
    regionsLayout->addWidget(m_regions, 1);
    regionsLayout->addWidget(m_seedLabel);
    regionsLayout->addWidget(m_seed, 1);
    regionsLayout->addWidget(m_nsideLabel);
    regionsLayout->addWidget(m_nside, 1);
    // The column takes the same row: each method shows its own fields there, so the panel
    // keeps one height whichever method is chosen.
    regionsLayout->addWidget(m_column, 1);
    regionsLayout->addWidget(m_regionsFile, 1);
    regionsLayout->addWidget(m_regionsFileBrowse);
    form->addRow(m_regionsLabel, m_regionsRow);
    form->addRow(m_bootstrapLabel, m_bootstrap);
    // A row of its own: beside B it would widen the dock column past a laptop's.
    m_crossWeightLabel = new QLabel(tr("Cross pairs:"), this);
    form->addRow(m_crossWeightLabel, m_crossWeight);

    m_error = new QLabel(this);
    m_error->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral("QLabel { color: #b00020; font-weight: bold; }"));
    m_error->setObjectName(QStringLiteral("errorsError"));
    m_error->hide();

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(form);
    layout->addWidget(m_error);

    connect(m_method, &QComboBox::currentIndexChanged, this, &ErrorsPanel::onEdited);
    connect(m_regions, &QSpinBox::valueChanged, this, &ErrorsPanel::onEdited);
    connect(m_column, &QComboBox::editTextChanged, this, &ErrorsPanel::onEdited);
    connect(m_seed, &QSpinBox::valueChanged, this, &ErrorsPanel::onEdited);
    connect(m_nside, &QComboBox::currentIndexChanged, this, &ErrorsPanel::onEdited);
    connect(m_bootstrap, &QSpinBox::valueChanged, this, &ErrorsPanel::onEdited);
    connect(m_crossWeight, &QComboBox::currentIndexChanged, this, &ErrorsPanel::onEdited);
    connect(m_regionsFile, &QLineEdit::textChanged, this, &ErrorsPanel::onEdited);
    updateState();
}

ErrorSettings ErrorsPanel::settings() const {
    ErrorSettings settings;
    settings.method = ErrorSettings::Method(m_method->currentData().toInt());
    settings.regions = m_regions->value();
    settings.regionColumn = m_column->currentText().trimmed();
    settings.seed = quint64(m_seed->value());
    settings.healpixNside = m_nside->currentData().toInt();
    settings.bootstrapSamples = m_bootstrap->value();
    if (const int weight = m_crossWeight->currentData().toInt(); weight >= 0)
        settings.crossRegionWeight = CrossRegionWeight(weight);
    settings.regionsFile = m_regionsFile->text().trimmed();
    return settings;
}

void ErrorsPanel::setSettings(const ErrorSettings& settings) {
    m_updating = true;
    {
        const QSignalBlocker b1(m_method), b2(m_regions), b3(m_column), b4(m_seed), b5(m_nside),
            b6(m_bootstrap), b7(m_regionsFile), b8(m_crossWeight);
        m_regionsFile->setText(settings.regionsFile);
        m_crossWeight->setCurrentIndex(qMax(
            0, m_crossWeight->findData(settings.crossRegionWeight ? int(*settings.crossRegionWeight)
                                                                  : -1)));
        m_bootstrap->setValue(settings.bootstrapSamples);
        if (const int index = m_nside->findData(settings.healpixNside); index >= 0)
            m_nside->setCurrentIndex(index);
        m_method->setCurrentIndex(qMax(0, m_method->findData(int(settings.method))));
        // Out-of-range K (a hand-edited session) is clamped by the spin box to 2..500.
        m_regions->setValue(settings.regions);
        m_column->setEditText(settings.regionColumn);
        m_seed->setValue(int(qMin<quint64>(settings.seed, quint64(m_seed->maximum()))));
    }
    m_updating = false;
    onEdited();
}

QLineEdit* ErrorsPanel::columnEdit() const {
    return m_column->lineEdit();
}

void ErrorsPanel::setRegionColumnChoices(const QStringList& columns) {
    if (columns == regionColumnChoices())
        return;
    const QString typed = m_column->currentText();
    {
        // Refilling the list must not replace what the user typed or chose.
        const QSignalBlocker blocker(m_column);
        m_column->clear();
        m_column->addItems(columns);
        m_column->setEditText(typed);
    }
}

QStringList ErrorsPanel::regionColumnChoices() const {
    QStringList columns;
    for (int i = 0; i < m_column->count(); ++i)
        columns.append(m_column->itemText(i));
    return columns;
}

void ErrorsPanel::onEdited() {
    if (m_updating)
        return;
    updateState();
    Q_EMIT changed();
}

void ErrorsPanel::updateState() {
    const ErrorSettings current = settings();
    const bool healpix = current.method == ErrorSettings::Method::Healpix;
    const bool regions = current.method == ErrorSettings::Method::Regions || healpix;
    const bool column = current.method == ErrorSettings::Method::Column;
    const bool file = current.method == ErrorSettings::Method::File;
    // Only the fields of the chosen method are shown, so the panel stays short.
    m_regionsLabel->setVisible(regions || column || file);
    m_regionsLabel->setText(column ? tr("Region column:")
                            : file ? tr("Regions file:")
                                   : tr("Regions K:"));
    m_regionsRow->setVisible(regions || column || file);
    m_regionsFile->setVisible(file);
    m_regionsFileBrowse->setVisible(file);
    m_regions->setVisible(regions);
    m_seedLabel->setVisible(regions && !healpix);
    m_seed->setVisible(regions && !healpix);
    m_nsideLabel->setVisible(healpix);
    m_nside->setVisible(healpix);
    // The bootstrap resamples the regions: offered once they are defined (a column named).
    const bool regionsDefined = regions || (column && !current.regionColumn.isEmpty()) ||
                                (file && !current.regionsFile.isEmpty());
    m_bootstrapLabel->setVisible(regionsDefined);
    m_bootstrap->setVisible(regionsDefined);
    m_crossWeightLabel->setVisible(regionsDefined);
    m_crossWeight->setVisible(regionsDefined);
    const bool bootstrap = current.bootstrapSamples > 0;
    m_crossWeight->setItemText(0, bootstrap ? tr("default (mean)") : tr("default (simple)"));
    m_column->setVisible(column);

    m_problem.clear();
    if (column && current.regionColumn.isEmpty())
        m_problem = tr("Jackknife: name the region column.");
    if (file && current.regionsFile.isEmpty())
        m_problem = tr("Jackknife: choose the regions file.");
    if ((regions || column) && current.bootstrapSamples == 1)
        m_problem = tr("Bootstrap: at least %1 samples, or off.").arg(kMinBootstrapSamples);
    if (regionsDefined && current.crossRegionWeight) {
        try { // the core's rule: the bootstrap takes 'mean' only
            (void)effectiveCrossRegionWeight(current.crossRegionWeight, bootstrap);
        } catch (const std::exception&) {
            m_problem = tr("The bootstrap weighs pairs between regions by the mean only: choose "
                           "“mean” or the default.");
        }
    }
    if (regions) {
        try { // the core's rule for an explicit K (the spin box range is inside it)
            validateJackknifeRegionCount(current.regions);
        } catch (const std::exception& error) {
            m_problem = QString::fromStdString(error.what());
        }
    }
    QPalette palette = m_column->parentWidget()->palette();
    if (column && !m_problem.isEmpty())
        palette.setColor(QPalette::Base, QColor(0xff, 0xdd, 0xdd));
    m_column->setPalette(palette);
    m_error->setText(m_problem);
    m_error->setVisible(!m_problem.isEmpty());
}

} // namespace tpacf::ui
