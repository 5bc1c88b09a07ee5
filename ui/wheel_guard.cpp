// SPDX-License-Identifier: GPL-3.0-or-later
#include "wheel_guard.h"

#include <QAbstractScrollArea>
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QEvent>
#include <QObject>
#include <QWidget>

namespace tpacf::ui {

namespace {

class WheelGuard : public QObject {
public:
    using QObject::QObject;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (event->type() != QEvent::Wheel)
            return false;
        auto* control = qobject_cast<QWidget*>(watched);
        if (!control || control->hasFocus())
            return false;
        // The scroll area around the control scrolls instead; without one the wheel does nothing.
        for (QWidget* above = control->parentWidget(); above; above = above->parentWidget())
            if (auto* area = qobject_cast<QAbstractScrollArea*>(above)) {
                QCoreApplication::sendEvent(area->viewport(), event);
                break;
            }
        return true;
    }
};

} // namespace

void guardWheel(QWidget* panel) {
    auto* guard = new WheelGuard(panel);
    const auto protect = [guard](QWidget* control) {
        control->setFocusPolicy(Qt::StrongFocus); // not Qt::WheelFocus: the wheel gives no focus
        control->installEventFilter(guard);
    };
    for (QAbstractSpinBox* spin : panel->findChildren<QAbstractSpinBox*>())
        protect(spin);
    for (QComboBox* combo : panel->findChildren<QComboBox*>())
        protect(combo);
}

} // namespace tpacf::ui
