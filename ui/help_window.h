// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Help > User Guide: the bundled HTML guide in a QTextBrowser beside its table of contents, and
// the action that opens it (F1 opens the section of the panel that has the focus).
#include <QAction>
#include <QUrl>
#include <QWidget>

class QLineEdit;
class QListWidget;
class QTextBrowser;

namespace tpacf::ui {

class HelpWindow : public QWidget {
    Q_OBJECT
public:
    /// A top-level window owned by `owner` (closed and deleted with it).
    explicit HelpWindow(QWidget* owner);

    /// Opens `url` (a page of :/help/, with an optional #section) and brings the window up.
    void showUrl(const QUrl& url);
    /// `owner`'s guide window (made on first use), showing `url`.
    static HelpWindow* showFor(QWidget* owner, const QUrl& url);

    QTextBrowser* browser() const { return m_browser; }
    QListWidget* contents() const { return m_contents; }

private:
    void onSourceChanged(const QUrl& url);
    void findNext(bool backwards);

    QListWidget* m_contents = nullptr;
    QTextBrowser* m_browser = nullptr;
    QLineEdit* m_find = nullptr;
};

/// Help > User Guide. Chosen from the menu it opens the guide's first page; through its shortcut
/// (F1) the section of the focused panel (helpUrlForWidget()).
class UserGuideAction : public QAction {
    Q_OBJECT
public:
    explicit UserGuideAction(QWidget* window);

    /// What the guide opens at when the action triggers now.
    QUrl targetUrl() const;

protected:
    bool event(QEvent* event) override;

private:
    void open();

    QWidget* m_window = nullptr;
    bool m_byShortcut = false;
};

} // namespace tpacf::ui
