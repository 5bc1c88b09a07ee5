// SPDX-License-Identifier: GPL-3.0-or-later
#include "fitted_title.h"

#include <qcustomplot.h>

#include <QEvent>
#include <QFontMetrics>

namespace tpacf::ui {

FittedTitle::FittedTitle(QCustomPlot* plot, QCPTextElement* element)
    : QObject(plot), m_plot(plot), m_element(element), m_text(element->text()) {
    // A minimum width of one pixel: the layout then takes the element's height from its text
    // but no width, so the title never holds the plot (and the window) wider than it is.
    m_element->setMinimumSize(1, 0);
    m_plot->installEventFilter(this);
    fit();
}

void FittedTitle::setText(const QString& text) {
    m_text = text;
    fit();
}

bool FittedTitle::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_plot && event->type() == QEvent::Resize)
        fit();
    return QObject::eventFilter(watched, event);
}

void FittedTitle::setFitting(bool on) {
    m_fitting = on;
    if (m_element)
        m_element->setMinimumSize(on ? 1 : 0, 0);
    fit();
}

void FittedTitle::fit() {
    if (!m_element)
        return;
    if (!m_fitting) {
        m_element->setText(m_text);
        m_plot->setToolTip(QString());
        return;
    }
    const QMargins margins = m_element->margins();
    const int room = std::max(40, m_plot->width() - margins.left() - margins.right() - 8);
    const QString shown = QFontMetrics(m_element->font()).elidedText(m_text, Qt::ElideMiddle, room);
    if (shown != m_element->text())
        m_element->setText(shown);
    m_plot->setToolTip(shown == m_text ? QString() : m_text);
}

} // namespace tpacf::ui
