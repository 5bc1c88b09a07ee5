// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Settings panels scroll: a wheel turned to scroll one must scroll it, not change the spin box or
// combo box that happens to pass under the mouse.
class QWidget;

namespace tpacf::ui {

/// Every spin box and combo box under `panel` takes the wheel only once it has the focus (a click
/// or Tab gives it, the wheel alone no longer does); an unfocused one hands the wheel to the
/// scroll area it sits in, which scrolls. Call once the panel's controls exist.
void guardWheel(QWidget* panel);

} // namespace tpacf::ui
