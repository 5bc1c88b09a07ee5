// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Estimator and backend choice: Auto, the CPU with a thread count, or one device of a registered
// backend module (listed by name and memory), the precision and spatial culling.
#include <tpacf/backend.h>
#include <tpacf/estimator.h>

#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QSpinBox;
class QVBoxLayout;

namespace tpacf::ui {

class BackendPanel : public QWidget {
    Q_OBJECT
public:
    /// Lists Auto, the CPU, then every device of each module in `backends`.
    explicit BackendPanel(BackendRegistry backends, QWidget* parent = nullptr);

    Estimator estimator() const;
    void setEstimator(Estimator estimator);

    /// Puts `section` (the window's error bars) between the estimator and the backend.
    void insertSection(QWidget* section);

    /// Two samples loaded: the formula and the tooltips show the estimators' cross forms
    /// ("(D1D2 − D1R2 − R1D2 + R1R2) / R1R2").
    void setCrossMode(bool cross);
    bool crossMode() const { return m_cross; }
    QString formulaText() const;

    /// Sum the pairs' separations too (CorrelationParams::meanSeparation, --mean-theta).
    bool meanSeparation() const;
    void setMeanSeparation(bool on);
    QCheckBox* meanThetaCheck() const { return m_meanTheta; }

    BackendOptions backendOptions() const;
    /// Selects the closest available choice (a GPU device that is not present falls back to Auto).
    void setBackendOptions(const BackendOptions& options);

    QComboBox* estimatorCombo() const { return m_estimator; }
    QComboBox* backendCombo() const { return m_backend; }
    QComboBox* precisionCombo() const { return m_precision; }
    QSpinBox* threadsSpin() const { return m_threads; }
    QComboBox* cullingCombo() const { return m_culling; }

Q_SIGNALS:
    void changed();

private:
    void updateEnabledState();
    void updateFormula();
    /// What precision "Automatic" means with the backend entry chosen, and why.
    QString automaticPrecisionHere() const;
    /// The backend combo's entry for a backend name and device index (-1: none), or -1.
    int findEntry(const QString& name, int device) const;

    const BackendRegistry m_backends;
    QComboBox* m_estimator = nullptr;
    QLabel* m_formula = nullptr;
    QCheckBox* m_meanTheta = nullptr;
    QComboBox* m_backend = nullptr;
    QSpinBox* m_threads = nullptr;
    QComboBox* m_precision = nullptr;
    QComboBox* m_culling = nullptr;
    QLabel* m_gpuNote = nullptr;
    QVBoxLayout* m_layout = nullptr;
    bool m_haveGpu = false;
    bool m_cross = false;
};

} // namespace tpacf::ui
