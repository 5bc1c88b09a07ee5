// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Toolbar and menu icons.
#include <QApplication>
#include <QIcon>
#include <QStyle>

namespace tpacf::ui {

/// The desktop theme's icon `name` where it has one (Linux), the style's built-in one elsewhere.
inline QIcon themedIcon(const QString& name, QStyle::StandardPixmap fallback) {
    return QIcon::fromTheme(name, qApp->style()->standardIcon(fallback));
}

} // namespace tpacf::ui
