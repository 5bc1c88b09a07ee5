// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Binning panel: scale, unit, range and bin size or a preset, or custom edges typed in or
// loaded from a file. Validation is the core's: the panel builds a tpacf::Binning and shows the
// ConfigError message inline when it throws.
#include <tpacf/bins.h>

#include <QDoubleSpinBox>
#include <QList>
#include <QWidget>

#include <optional>

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;

namespace tpacf::ui {

/// `value` in `from` expressed in `to`. Among deg, arcmin and arcsec the factor is an integer
/// (one correctly rounded multiply or divide); to or from rad it is the core's own factor, so a
/// converted bin edge gives the same radians as the original.
double convertAngle(double value, AngleUnit from, AngleUnit to);

/// A spin box that shows values compactly (0.01, 10000, 1e-05) instead of a fixed decimal count.
class CompactDoubleSpinBox : public QDoubleSpinBox {
    Q_OBJECT
public:
    explicit CompactDoubleSpinBox(QWidget* parent = nullptr);
    QString textFromValue(double value) const override;
};

class BinningPanel : public QWidget {
    Q_OBJECT
public:
    explicit BinningPanel(QWidget* parent = nullptr);

    BinSpec spec() const;
    void setSpec(const BinSpec& spec);
    /// Fills the fields from BinSpec::preset(name).
    void applyPreset(const QString& name);

    /// The validated bins; nullopt when the fields are invalid (see problem()).
    const std::optional<Binning>& binning() const { return m_binning; }
    bool isValid() const { return m_binning.has_value(); }
    /// The core's message for invalid fields; empty when valid.
    QString problem() const { return m_problem; }

    /// Reads an edges file (tpacf::parseBinEdgesText: one edge or "lo hi" per line) into the
    /// custom edges field and selects the custom scale. On failure the fields are left as they
    /// were and `error` says why (file and line). The Load button calls it after its dialog.
    bool loadEdgesFile(const QString& path, QString* error);

    // For tests and the main window.
    QComboBox* scaleCombo() const { return m_scale; }
    QDoubleSpinBox* minSpin() const { return m_min; }
    QDoubleSpinBox* maxSpin() const { return m_max; }
    QDoubleSpinBox* sizeSpin() const { return m_sizeValue; }
    /// Changing the unit converts the range, a bin width and custom edges into it.
    QComboBox* unitCombo() const { return m_unit; }
    QComboBox* sizeModeCombo() const { return m_sizeMode; }
    /// Custom edges, comma or whitespace separated, in the unit of the unit selector.
    QLineEdit* edgesEdit() const { return m_edgesText; }
    QPushButton* loadEdgesButton() const { return m_loadEdges; }

Q_SIGNALS:
    /// The spec changed; binning() and problem() are up to date.
    void changed();

private:
    enum class SizeMode { PerDecade, Count, Width };
    SizeMode sizeMode() const;
    void fillSizeModes(BinScale scale, SizeMode mode);
    void configureSizeSpin(SizeMode mode);
    void onFieldEdited();
    void onUnitChanged();
    void captureUnitAnchor();
    void validate();
    void syncPresetCombo();
    void showScaleRows(BinScale scale);
    void onLoadEdgesClicked();

    QComboBox* m_preset = nullptr;
    QComboBox* m_scale = nullptr;
    QComboBox* m_unit = nullptr;
    CompactDoubleSpinBox* m_min = nullptr;
    CompactDoubleSpinBox* m_max = nullptr;
    QComboBox* m_sizeMode = nullptr;
    CompactDoubleSpinBox* m_sizeValue = nullptr;
    QLineEdit* m_edgesText = nullptr;
    QPushButton* m_loadEdges = nullptr;
    // Rows shown for log/linear (range, size) or for custom edges; label and field each.
    QList<QWidget*> m_rangeRows, m_edgesRows;
    QLabel* m_summary = nullptr;
    QLabel* m_error = nullptr;
    QPlainTextEdit* m_edges = nullptr;

    std::optional<Binning> m_binning;
    QString m_problem;
    // Why the custom edges text does not read as numbers; empty when it does.
    QString m_edgesTextProblem;
    bool m_updating = false;

    // The fields as last set or typed, in the unit they were given in. A unit change converts
    // from here, so switching units back and forth never drifts, and switching back to this
    // unit restores the exact values and text.
    struct UnitAnchor {
        AngleUnit unit = AngleUnit::Arcminute;
        double min = 0, max = 0, size = 0;
        QString edgesText;
    };
    UnitAnchor m_anchor;
};

} // namespace tpacf::ui
