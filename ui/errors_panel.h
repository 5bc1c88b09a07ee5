// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Errors controls: none, or jackknife error bars over K regions (k-means on the sky, seeded)
// or over the regions a catalog column names. The panel only collects the choice; regions and
// statistics are the core's.
#include "session.h"

#include <QStringList>
#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace tpacf::ui {

class ErrorsPanel : public QWidget {
    Q_OBJECT
public:
    explicit ErrorsPanel(QWidget* parent = nullptr);

    ErrorSettings settings() const;
    void setSettings(const ErrorSettings& settings);

    /// Whether the fields make a usable choice, and why not (empty when valid). Checks that need
    /// the catalogs (K against N) are the main window's.
    bool isValid() const { return m_problem.isEmpty(); }
    QString problem() const { return m_problem; }

    QComboBox* methodCombo() const { return m_method; }
    QSpinBox* regionsSpin() const { return m_regions; }
    /// Offers `columns` (e.g. the data catalog file's column names) in the region column's
    /// list; the text typed or chosen stays, and any other name can still be typed.
    void setRegionColumnChoices(const QStringList& columns);
    QStringList regionColumnChoices() const;

    /// The region column: an editable list of the catalog's columns.
    QComboBox* columnCombo() const { return m_column; }
    /// Its text field.
    QLineEdit* columnEdit() const;
    QSpinBox* seedSpin() const { return m_seed; }
    QComboBox* nsideCombo() const { return m_nside; }
    QSpinBox* bootstrapSpin() const { return m_bootstrap; }
    /// How samples weigh pairs between regions: the method's default, then each weighting.
    QComboBox* crossWeightCombo() const { return m_crossWeight; }
    QLineEdit* regionsFileEdit() const { return m_regionsFile; }

Q_SIGNALS:
    void changed();

private:
    void onEdited();
    void updateState();

    QComboBox* m_method = nullptr;
    QSpinBox* m_regions = nullptr;
    QComboBox* m_column = nullptr;
    QSpinBox* m_seed = nullptr;
    QComboBox* m_nside = nullptr; // HEALPix regions' NSIDE
    QLabel* m_nsideLabel = nullptr;
    QSpinBox* m_bootstrap = nullptr; // 0: the jackknife's σ
    QLineEdit* m_regionsFile = nullptr;
    QPushButton* m_regionsFileBrowse = nullptr;
    QLabel* m_bootstrapLabel = nullptr;
    QLabel* m_crossWeightLabel = nullptr;
    QComboBox* m_crossWeight = nullptr;
    QWidget* m_regionsRow = nullptr;
    QLabel* m_regionsLabel = nullptr;
    QLabel* m_seedLabel = nullptr;
    QLabel* m_error = nullptr;
    QString m_problem;
    bool m_updating = false;
};

} // namespace tpacf::ui
