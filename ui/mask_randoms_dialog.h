// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// File ▸ Make Randoms from Mask…: the mask (a HEALPix map or MOC), how many points, the seed
// and where the catalog goes. The dialog only asks; MainWindow draws the points on a worker
// thread (makeRandomsFromMask) and adds the file as a random catalog.
#include <QDialog>
#include <QString>

class QLabel;
class QLineEdit;
class QSpinBox;
class QDoubleSpinBox;

namespace tpacf::ui {

struct MaskRandomsRequest {
    QString maskPath;
    QString outputPath;
    qint64 count = 0;
    quint64 seed = 1;
};

class MaskRandomsDialog : public QDialog {
    Q_OBJECT
public:
    MaskRandomsDialog(const QString& folder, qint64 suggestedCount, QWidget* parent = nullptr);

    MaskRandomsRequest request() const;
    /// For tests: the fields as a user fills them.
    void setRequest(const MaskRandomsRequest& request);

    void accept() override;

private:
    void browseMask();
    void browseOutput();

    QString m_folder;
    QLineEdit* m_mask = nullptr;
    QLineEdit* m_output = nullptr;
    QDoubleSpinBox* m_count = nullptr; // up to 10^9: past a QSpinBox's int
    QSpinBox* m_seed = nullptr;
    QLabel* m_problem = nullptr;
};

} // namespace tpacf::ui
