// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The fit bar under the w(θ) plot: a power law w = A·θ^(1−γ) over a θ range, fitted by the
// core's fitPowerLaw (generalised least squares with the jackknife covariance where the result
// has one), optionally with the integral constraint estimated from RR. Shows A, γ and χ²/dof and
// writes them as the CSV `tpacf run --fit-output` writes.
#include "job_worker.h"

#include <tpacf/power_law_fit.h>

#include <QWidget>

#include <optional>

class QCheckBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;

namespace tpacf::ui {

class FitPanel : public QWidget {
    Q_OBJECT
public:
    /// The folder the export dialog opens in (the window's last export folder).
    void setExportFolder(const QString& folder) { m_exportFolder = folder; }
    const QString& exportFolder() const { return m_exportFolder; }
    explicit FitPanel(QWidget* parent = nullptr);

    /// A new result. A partial one drops the fit until the final one; a final one is refitted
    /// over the same range if a fit was asked for (the range reset where the bins changed).
    void setResult(const ResultPtr& result, bool partial);

    /// The range the bar starts with: the longest run of bins with a finite w > 0 (and a finite
    /// σ > 0 where the result has error bars), from the lower edge of its first bin to the upper
    /// edge of its last, so that every centre lies inside; with a jackknife of K samples at most
    /// (K − 3)/2 bins of it (where w/σ is largest), as many as its covariance inverts well for.
    /// nullopt: no such bin.
    static std::optional<std::pair<double, double>> defaultRange(const CorrelationResult& result);

    /// Fits over the range and constraint set in the controls; false (the reason shown, and in
    /// lastError()) when the core refuses (too few bins, bad range, no RR for the constraint).
    bool fit();
    /// fit() over `options`' range and constraint, set in the controls as if typed there (a
    /// reopened session's fit).
    bool fitWith(const PowerLawFitOptions& options);
    /// Forgets the fit (the curve goes).
    void clearFit();
    bool exportFit(const QString& path, QString* error) const;

    const std::optional<PowerLawFit>& currentFit() const { return m_fit; }
    /// The options of the current fit (or of the next, from the controls).
    PowerLawFitOptions options() const;
    QString lastError() const { return m_error; }
    /// The read-out line: "A = … ± …, γ = … ± …, χ²/dof = …".
    QString summary() const;

    QDoubleSpinBox* minSpin() const { return m_min; }
    QDoubleSpinBox* maxSpin() const { return m_max; }
    QCheckBox* integralConstraintCheck() const { return m_integralConstraint; }
    QPushButton* fitButton() const { return m_fitButton; }
    QPushButton* exportButton() const { return m_exportButton; }

Q_SIGNALS:
    void fitChanged();

private:
    void resetRange();
    void updateState();
    void exportDialog();

    QDoubleSpinBox* m_min = nullptr;
    QDoubleSpinBox* m_max = nullptr;
    QCheckBox* m_integralConstraint = nullptr;
    QPushButton* m_fitButton = nullptr;
    QPushButton* m_clearButton = nullptr;
    QPushButton* m_exportButton = nullptr;
    QLabel* m_summary = nullptr;

    ResultPtr m_result;
    bool m_partial = false;
    bool m_wanted = false;    // a fit was asked for: refit new final results
    bool m_userRange = false; // the range was set by hand (kept for results of the same bins)
    std::optional<PowerLawFit> m_fit;
    PowerLawFitOptions m_fitOptions;
    QString m_error;
    QString m_exportFolder;
};

} // namespace tpacf::ui
