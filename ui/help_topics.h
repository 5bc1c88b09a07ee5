// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The user guide's pages (HTML bundled under :/help/) and which section of it describes the
// panel a widget belongs to: what F1 opens.
#include <QList>
#include <QString>
#include <QUrl>

class QWidget;

namespace tpacf::ui {

/// A page of the guide, or a section of one (anchor set).
struct HelpTopic {
    QString title;
    QString page;   // file name under :/help/, e.g. "bins.html"
    QString anchor; // an id in that page; empty: the page's top

    QUrl url() const;
};

/// The guide's pages in reading order (its table of contents).
const QList<HelpTopic>& helpPages();
/// The guide's first page.
QUrl helpHomeUrl();

/// The guide's section for where `widget` sits: the nearest of its ancestors (itself first)
/// whose object name or class the guide describes (e.g. a spin box of the Binning dock: the
/// bins page); the home page for null or anything else.
QUrl helpUrlForWidget(const QWidget* widget);
/// The sections helpUrlForWidget() can give, each with the object name or class it answers, for
/// tests that every one exists in the bundled pages.
QList<QPair<QString, HelpTopic>> helpContextTopics();

/// Registers the bundled pages (a static library's resources need it); called by the functions
/// above, harmless to call again.
void initHelpResources();

} // namespace tpacf::ui
