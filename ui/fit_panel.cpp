// SPDX-License-Identifier: GPL-3.0-or-later
#include "fit_panel.h"

#include "catalog_source.h"

#include <tpacf/errors.h>
#include <tpacf/output_file.h>

#include <QDir>
#include <QFileInfo>
#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace tpacf::ui {

namespace {

/// Decimals that show the smallest edge with two significant digits.
int decimalsFor(double smallest) {
    if (!(smallest > 0))
        return 3;
    return std::clamp(2 - int(std::floor(std::log10(smallest))), 1, 10);
}

QString fourDigits(double value) {
    return QString::number(value, 'g', 4);
}

} // namespace

FitPanel::FitPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("fitPanel"));
    m_min = new QDoubleSpinBox(this);
    m_max = new QDoubleSpinBox(this);
    for (QDoubleSpinBox* spin : {m_min, m_max})
        spin->setKeyboardTracking(false);
    m_min->setToolTip(tr("Fit the bins whose centre lies at or above this θ"));
    m_max->setToolTip(tr("Fit the bins whose centre lies at or below this θ"));
    m_integralConstraint = new QCheckBox(tr("Integral constraint"), this);
    m_integralConstraint->setToolTip(
        tr("Fit w = A·(θ^(1−γ) − C), the bias of a finite field: C is the mean of θ^(1−γ) over "
           "the random pairs (RR), C = Σ RR·θ^(1−γ) / Σ RR (Roche & Eales 1999). The plot then "
           "also shows the power law without C and w + A·C."));
    m_fitButton = new QPushButton(tr("Fit"), this);
    m_fitButton->setToolTip(
        tr("Generalised least squares with the jackknife covariance (its inverse with the "
           "Hartlap factor), σ only without it, unweighted without error bars"));
    m_clearButton = new QPushButton(tr("Clear"), this);
    m_exportButton = new QPushButton(tr("Export Fit…"), this);
    m_exportButton->setToolTip(
        tr("The fit's parameters and errors as CSV, as tpacf run --fit-output writes them"));
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("fitSummary"));
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setWordWrap(true);

    // Two short rows, so that the bar never widens the plots past a 1280-pixel screen.
    auto* range = new QHBoxLayout;
    range->setContentsMargins(0, 0, 0, 0);
    range->addWidget(new QLabel(tr("Power law w = A·θ^(1−γ) over θ"), this));
    range->addWidget(m_min);
    range->addWidget(new QLabel(tr("to"), this));
    range->addWidget(m_max);
    range->addWidget(m_integralConstraint);
    range->addStretch();
    auto* actions = new QHBoxLayout;
    actions->setContentsMargins(0, 0, 0, 0);
    actions->addWidget(m_fitButton);
    actions->addWidget(m_clearButton);
    actions->addWidget(m_exportButton);
    actions->addWidget(m_summary, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 4, 6, 4);
    layout->setSpacing(2);
    layout->addLayout(range);
    layout->addLayout(actions);

    connect(m_fitButton, &QPushButton::clicked, this, [this] { fit(); });
    connect(m_clearButton, &QPushButton::clicked, this, &FitPanel::clearFit);
    connect(m_exportButton, &QPushButton::clicked, this, &FitPanel::exportDialog);
    // Once a fit is shown, changing the range or the constraint refits at once.
    const auto refit = [this] {
        m_userRange = true; // resetRange() blocks the signals: this is the user's edit
        if (m_wanted && m_result && !m_partial)
            fit();
    };
    connect(m_min, &QDoubleSpinBox::valueChanged, this, refit);
    connect(m_max, &QDoubleSpinBox::valueChanged, this, refit);
    connect(m_integralConstraint, &QCheckBox::toggled, this, refit);
    updateState();
}

std::optional<std::pair<double, double>> FitPanel::defaultRange(const CorrelationResult& result) {
    // A power law is positive, and a bin without σ cannot be weighted: the longest run of bins
    // that can be fitted, so that the first Fit works on a typical result.
    const bool errors = result.hasJackknife();
    const auto usable = [&](std::size_t k) {
        const bool sigma = !errors || (k < result.wError.size() &&
                                       std::isfinite(result.wError[k]) && result.wError[k] > 0);
        return k < result.centres.size() && result.centres[k] > 0 && std::isfinite(result.w[k]) &&
               result.w[k] > 0 && sigma;
    };
    std::size_t bestStart = 0, bestLength = 0, start = 0, length = 0;
    for (std::size_t k = 0; k < result.w.size() && k + 1 < result.edges.size(); ++k) {
        if (!usable(k)) {
            length = 0;
            continue;
        }
        if (length++ == 0)
            start = k;
        if (length > bestLength) {
            bestStart = start;
            bestLength = length;
        }
    }
    if (bestLength == 0)
        return std::nullopt;
    // A jackknife covariance of K samples inverts well for few bins only: the Hartlap factor
    // (K − p − 2)/(K − 1) stays above 1/2 for p ≤ (K − 3)/2. Of a longer run, the window of that
    // many bins where w is measured best (the largest Σ (w/σ)²).
    const std::size_t samples = result.jackknifeSamples.size();
    const std::size_t cap = errors && samples >= 9 ? (samples - 3) / 2
                            : errors               ? std::size_t(3)
                                                   : bestLength;
    if (bestLength > cap) {
        const auto weight = [&](std::size_t k) {
            return (result.w[k] / result.wError[k]) * (result.w[k] / result.wError[k]);
        };
        double best = -1;
        std::size_t bestWindow = bestStart;
        for (std::size_t first = bestStart; first + cap <= bestStart + bestLength; ++first) {
            double sum = 0;
            for (std::size_t k = first; k < first + cap; ++k)
                sum += weight(k);
            if (sum > best) {
                best = sum;
                bestWindow = first;
            }
        }
        bestStart = bestWindow;
        bestLength = cap;
    }
    return std::make_pair(result.edges[bestStart], result.edges[bestStart + bestLength]);
}

void FitPanel::resetRange() {
    const QSignalBlocker blockMin(m_min), blockMax(m_max);
    if (!m_result || m_result->edges.size() < 2) {
        m_min->setRange(0, 0);
        m_max->setRange(0, 0);
        return;
    }
    const std::vector<double>& edges = m_result->edges;
    const auto positive = std::find_if(edges.begin(), edges.end(), [](double e) { return e > 0; });
    const double low = positive != edges.end() ? *positive : edges.back();
    const int decimals = decimalsFor(low);
    const QString suffix = QLatin1Char(' ') + unitLabel(m_result->bins.unit);
    for (QDoubleSpinBox* spin : {m_min, m_max}) {
        spin->setDecimals(decimals);
        spin->setRange(0, edges.back());
        spin->setSingleStep(std::pow(10.0, -decimals + 1));
        spin->setSuffix(suffix);
    }
    const auto range = defaultRange(*m_result);
    m_min->setValue(range ? range->first : low);
    m_max->setValue(range ? range->second : edges.back());
}

void FitPanel::setResult(const ResultPtr& result, bool partial) {
    const bool newBins = !m_result || !result || m_result->edges != result->edges ||
                         m_result->bins.unit != result->bins.unit;
    m_result = result;
    m_partial = partial;
    if (newBins)
        m_userRange = false;
    // A live estimate's w is not the final one's: the range follows each result until the user
    // sets one.
    if (newBins || !m_userRange)
        resetRange();
    const bool hadFit = m_fit.has_value();
    m_fit.reset();
    m_error.clear();
    if (m_wanted && result && !partial) {
        fit(); // emits fitChanged
        return;
    }
    updateState();
    if (hadFit)
        Q_EMIT fitChanged();
}

PowerLawFitOptions FitPanel::options() const {
    if (m_fit)
        return m_fitOptions;
    PowerLawFitOptions options;
    options.thetaMin = m_min->value();
    options.thetaMax = m_max->value();
    options.integralConstraint = m_integralConstraint->isChecked();
    return options;
}

bool FitPanel::fit() {
    m_wanted = true;
    m_fit.reset();
    m_error.clear();
    if (!m_result || m_partial) {
        m_error = m_result ? tr("The fit waits for the final result.")
                           : tr("There is no result to fit yet.");
    } else {
        PowerLawFitOptions options;
        options.thetaMin = m_min->value();
        options.thetaMax = m_max->value();
        options.integralConstraint = m_integralConstraint->isChecked();
        try {
            m_fit = fitPowerLaw(*m_result, options);
            m_fitOptions = options;
        } catch (const std::exception& failure) {
            m_error = tr("No fit: %1").arg(QString::fromStdString(failure.what()));
        }
    }
    updateState();
    Q_EMIT fitChanged();
    return m_fit.has_value();
}

bool FitPanel::fitWith(const PowerLawFitOptions& options) {
    {
        // One fit, not one per control.
        const QSignalBlocker blockMin(m_min), blockMax(m_max), blockCheck(m_integralConstraint);
        m_min->setValue(options.thetaMin);
        m_max->setValue(options.thetaMax);
        m_integralConstraint->setChecked(options.integralConstraint);
    }
    m_userRange = true;
    return fit();
}

void FitPanel::clearFit() {
    m_wanted = false;
    const bool hadFit = m_fit.has_value();
    m_fit.reset();
    m_error.clear();
    updateState();
    if (hadFit)
        Q_EMIT fitChanged();
}

QString FitPanel::summary() const {
    if (!m_fit)
        return m_error;
    const PowerLawFit& fit = *m_fit;
    QString text = tr("A = %1 ± %2, γ = %3 ± %4, χ²/dof = %5/%6")
                       .arg(fourDigits(fit.amplitude), fourDigits(fit.amplitudeError),
                            fourDigits(fit.gamma), fourDigits(fit.gammaError), fourDigits(fit.chi2))
                       .arg(fit.dof);
    if (fit.integralConstraintApplied)
        text += tr(", C = %1").arg(fourDigits(fit.integralConstraint));
    text += tr("   (%1 bins, %2")
                .arg(fit.bins.size())
                .arg(QString::fromLatin1(fitWeightingName(fit.weighting).data(),
                                         qsizetype(fitWeightingName(fit.weighting).size())));
    if (fit.hartlapFactor != 1)
        text += tr(", Hartlap × %1").arg(fit.hartlapFactor, 0, 'f', 3);
    text += tr("; A is w at θ = 1 %1)").arg(unitLabel(m_result->bins.unit));
    return text;
}

void FitPanel::updateState() {
    const bool final = m_result && !m_partial;
    m_fitButton->setEnabled(final);
    m_min->setEnabled(m_result != nullptr);
    m_max->setEnabled(m_result != nullptr);
    m_exportButton->setEnabled(m_fit.has_value());
    m_clearButton->setEnabled(m_fit.has_value() || m_wanted);
    QString text = summary();
    if (text.isEmpty())
        text = final ? tr("Choose the θ range and press Fit.")
                     : tr("The fit needs a final result: press Run (Ctrl+R).");
    m_summary->setText(text);
    m_summary->setStyleSheet(m_error.isEmpty() || m_fit ? QString()
                                                        : QStringLiteral("color: #a40000;"));
    QStringList notes;
    if (m_fit)
        for (const std::string& note : m_fit->notes)
            notes.append(QString::fromStdString(note));
    m_summary->setToolTip(notes.join(QLatin1Char('\n')));
}

bool FitPanel::exportFit(const QString& path, QString* error) const {
    if (!m_fit || !m_result) {
        *error = tr("There is no fit to export: press Fit first.");
        return false;
    }
    try {
        // The CLI's writer: the file is the one `tpacf run --fit-output` writes.
        writeFileAtomically(
            QFile::encodeName(path).toStdString(),
            powerLawFitCsv(*m_fit, m_fitOptions, angleUnitName(m_result->bins.unit)));
    } catch (const std::exception& failure) {
        *error = QString::fromStdString(failure.what());
        return false;
    }
    return true;
}

void FitPanel::exportDialog() {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export Fit"), QDir(m_exportFolder).filePath(QStringLiteral("wtheta_fit.csv")),
        tr("CSV (*.csv)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!exportFit(path, &error)) {
        m_summary->setText(error);
        m_summary->setStyleSheet(QStringLiteral("color: #a40000;"));
    } else {
        m_exportFolder = QFileInfo(path).absolutePath();
        m_summary->setText(summary() + tr(" — written to %1").arg(path));
    }
}

} // namespace tpacf::ui
