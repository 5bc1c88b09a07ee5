// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A plot title on screen that never widens its plot: QCustomPlot makes a text element's width a
// minimum of the whole plot, so one long title (a survey's file name, a running note) raised the
// main window's minimum width past a laptop screen. The title shown is the text elided to the
// plot's width, the whole text in the plot's tooltip; figures exported keep the whole text.
#include <QObject>
#include <QPointer>
#include <QString>

#include <qcustomplot.h>


namespace tpacf::ui {

class FittedTitle : public QObject {
    Q_OBJECT
public:
    /// Fits `element`, a title of `plot`, from now on; both outlive this object (it is the
    /// plot's child).
    FittedTitle(QCustomPlot* plot, QCPTextElement* element);

    /// The whole title; what is shown is elided to the plot's width.
    void setText(const QString& text);
    const QString& text() const { return m_text; }
    /// Off: the whole text is shown and may widen the plot (a hidden copy drawn as a figure).
    void setFitting(bool on);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void fit();

    QCustomPlot* m_plot;
    QPointer<QCPTextElement> m_element; // a figure's style may delete the title
    QString m_text;
    bool m_fitting = true;
};

} // namespace tpacf::ui
