// SPDX-License-Identifier: GPL-3.0-or-later
#include "mask_randoms_dialog.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace tpacf::ui {

namespace {

QWidget* withBrowse(QLineEdit* edit, QPushButton* button) {
    auto* row = new QWidget;
    auto* layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(edit, 1);
    layout->addWidget(button);
    return row;
}

} // namespace

MaskRandomsDialog::MaskRandomsDialog(const QString& folder, qint64 suggestedCount, QWidget* parent)
    : QDialog(parent), m_folder(folder) {
    setWindowTitle(tr("Make Randoms from Mask"));
    auto* intro = new QLabel(
        tr("Random points uniform on the sphere inside a HEALPix map or MOC (FITS), thinned by "
           "its completeness. The same seed gives the same catalog. The file is added as a "
           "random catalog, and its header names the mask and the seed."));
    intro->setWordWrap(true);

    m_mask = new QLineEdit;
    m_mask->setObjectName(QStringLiteral("maskPathEdit"));
    m_mask->setPlaceholderText(tr("footprint.fits"));
    auto* browseMask = new QPushButton(tr("Browse…"));
    connect(browseMask, &QPushButton::clicked, this, &MaskRandomsDialog::browseMask);

    m_count = new QDoubleSpinBox;
    m_count->setObjectName(QStringLiteral("maskRandomsCount"));
    m_count->setDecimals(0);
    m_count->setRange(1, 1e9);
    m_count->setGroupSeparatorShown(true);
    m_count->setValue(static_cast<double>(suggestedCount));
    m_count->setToolTip(tr("Points to draw: usually 10 to 50 times the data"));
    m_seed = new QSpinBox;
    m_seed->setObjectName(QStringLiteral("maskRandomsSeed"));
    m_seed->setRange(0, 2147483647);
    m_seed->setValue(1);

    m_output = new QLineEdit;
    m_output->setObjectName(QStringLiteral("maskRandomsOutput"));
    m_output->setText(QDir(folder).filePath(QStringLiteral("randoms_from_mask.txt")));
    auto* browseOutput = new QPushButton(tr("Browse…"));
    connect(browseOutput, &QPushButton::clicked, this, &MaskRandomsDialog::browseOutput);

    auto* form = new QFormLayout;
    form->addRow(tr("Mask:"), withBrowse(m_mask, browseMask));
    form->addRow(tr("Points:"), m_count);
    form->addRow(tr("Seed:"), m_seed);
    form->addRow(tr("Save as:"), withBrowse(m_output, browseOutput));

    m_problem = new QLabel;
    m_problem->setObjectName(QStringLiteral("maskRandomsProblem"));
    m_problem->setWordWrap(true);
    m_problem->setStyleSheet(QStringLiteral("color: palette(link)"));
    m_problem->hide();

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Make Randoms"));
    connect(buttons, &QDialogButtonBox::accepted, this, &MaskRandomsDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addLayout(form);
    layout->addWidget(m_problem);
    layout->addWidget(buttons);
    resize(520, sizeHint().height());
}

MaskRandomsRequest MaskRandomsDialog::request() const {
    return {m_mask->text().trimmed(), m_output->text().trimmed(),
            static_cast<qint64>(m_count->value()), static_cast<quint64>(m_seed->value())};
}

void MaskRandomsDialog::setRequest(const MaskRandomsRequest& request) {
    m_mask->setText(request.maskPath);
    m_output->setText(request.outputPath);
    m_count->setValue(static_cast<double>(request.count));
    m_seed->setValue(static_cast<int>(request.seed));
}

// What can be seen before the work starts is said here, with the dialog still open; what only
// reading the mask finds (not a HEALPix table, a NaN) comes after, in the Log.
void MaskRandomsDialog::accept() {
    const MaskRandomsRequest asked = request();
    QString problem;
    const QFileInfo mask(asked.maskPath), output(asked.outputPath);
    if (asked.maskPath.isEmpty())
        problem = tr("Choose the mask: a HEALPix map or a MOC in a FITS file.");
    else if (!mask.isFile())
        problem = tr("The mask %1 is not a file.").arg(asked.maskPath);
    else if (asked.outputPath.isEmpty())
        problem = tr("Choose where the random catalog goes.");
    else if (output.exists() && output.canonicalFilePath() == mask.canonicalFilePath())
        problem = tr("The random catalog would overwrite the mask: choose another file.");
    else if (!QFileInfo(output.absolutePath()).isDir())
        problem = tr("The folder %1 does not exist.").arg(output.absolutePath());
    if (!problem.isEmpty()) {
        m_problem->setText(problem);
        m_problem->show();
        return;
    }
    QDialog::accept();
}

void MaskRandomsDialog::browseMask() {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Choose a Mask"), m_folder,
        tr("HEALPix maps and MOCs (*.fits *.fit *.fts *.fits.gz);;All files (*)"));
    if (!path.isEmpty())
        m_mask->setText(path);
}

void MaskRandomsDialog::browseOutput() {
    const QString path = QFileDialog::getSaveFileName(this, tr("Save Randoms As"), m_output->text(),
                                                      tr("Text catalogs (*.txt)"));
    if (!path.isEmpty())
        m_output->setText(path);
}

} // namespace tpacf::ui
