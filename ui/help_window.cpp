// SPDX-License-Identifier: GPL-3.0-or-later
#include "help_window.h"

#include "help_topics.h"

#include <QApplication>
#include <QEvent>
#include <QHBoxLayout>
#include <QKeySequence>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QScreen>
#include <QScrollBar>
#include <QShortcut>
#include <QSplitter>
#include <QStyle>
#include <QTextBrowser>
#include <QToolButton>
#include <QVBoxLayout>

namespace tpacf::ui {

namespace {

constexpr int kPageRole = Qt::UserRole;

QToolButton* toolButton(QWidget* parent, QStyle::StandardPixmap icon, const QString& text,
                        const QKeySequence& key) {
    auto* button = new QToolButton(parent);
    button->setIcon(parent->style()->standardIcon(icon));
    button->setText(text);
    button->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    button->setShortcut(key);
    button->setToolTip(key.isEmpty() ? text
                                     : QStringLiteral("%1 (%2)").arg(
                                           text, key.toString(QKeySequence::NativeText)));
    return button;
}

} // namespace

HelpWindow::HelpWindow(QWidget* owner) : QWidget(owner, Qt::Window) {
    setObjectName(QStringLiteral("helpWindow"));
    setWindowTitle(tr("TPACF Studio User Guide"));
    setAttribute(Qt::WA_DeleteOnClose, false); // kept, so reopening shows where one left off
    initHelpResources();

    m_contents = new QListWidget(this);
    m_contents->setObjectName(QStringLiteral("helpContents"));
    for (const HelpTopic& page : helpPages()) {
        auto* item = new QListWidgetItem(page.title, m_contents);
        item->setData(kPageRole, page.page);
    }

    m_browser = new QTextBrowser(this);
    m_browser->setObjectName(QStringLiteral("helpBrowser"));
    // Links to the web (astropy, cfitsio) open in the desktop's browser; pages of the guide here.
    m_browser->setOpenExternalLinks(true);

    QToolButton* back =
        toolButton(this, QStyle::SP_ArrowBack, tr("Back"), QKeySequence(QKeySequence::Back));
    QToolButton* forward = toolButton(this, QStyle::SP_ArrowForward, tr("Forward"),
                                      QKeySequence(QKeySequence::Forward));
    QToolButton* home = toolButton(this, QStyle::SP_DirHomeIcon, tr("Contents"), QKeySequence());
    back->setEnabled(false);
    forward->setEnabled(false);
    connect(back, &QToolButton::clicked, m_browser, &QTextBrowser::backward);
    connect(forward, &QToolButton::clicked, m_browser, &QTextBrowser::forward);
    connect(home, &QToolButton::clicked, this, [this] { showUrl(helpHomeUrl()); });
    connect(m_browser, &QTextBrowser::backwardAvailable, back, &QToolButton::setEnabled);
    connect(m_browser, &QTextBrowser::forwardAvailable, forward, &QToolButton::setEnabled);

    m_find = new QLineEdit(this);
    m_find->setObjectName(QStringLiteral("helpFind"));
    m_find->setPlaceholderText(tr("Find in page (Ctrl+F)"));
    m_find->setClearButtonEnabled(true);
    m_find->setMaximumWidth(260);
    connect(m_find, &QLineEdit::returnPressed, this, [this] { findNext(false); });
    auto* findShortcut = new QShortcut(QKeySequence::Find, this);
    connect(findShortcut, &QShortcut::activated, this, [this] {
        m_find->setFocus();
        m_find->selectAll();
    });
    auto* findAgain = new QShortcut(QKeySequence::FindNext, this);
    connect(findAgain, &QShortcut::activated, this, [this] { findNext(false); });
    auto* findBack = new QShortcut(QKeySequence::FindPrevious, this);
    connect(findBack, &QShortcut::activated, this, [this] { findNext(true); });
    auto* close = new QShortcut(QKeySequence(Qt::Key_Escape), this);
    connect(close, &QShortcut::activated, this, &QWidget::close);

    auto* bar = new QHBoxLayout;
    bar->addWidget(back);
    bar->addWidget(forward);
    bar->addWidget(home);
    bar->addStretch();
    bar->addWidget(m_find);

    auto* splitter = new QSplitter(this);
    splitter->addWidget(m_contents);
    splitter->addWidget(m_browser);
    splitter->setStretchFactor(1, 1);
    splitter->setChildrenCollapsible(false);
    // The contents as wide as their longest title; the page takes the rest.
    const int contentsWidth = m_contents->sizeHintForColumn(0) + 2 * m_contents->frameWidth() + 12;
    splitter->setSizes({contentsWidth, 4 * contentsWidth});

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->addLayout(bar);
    layout->addWidget(splitter, 1);

    connect(m_browser, &QTextBrowser::sourceChanged, this, &HelpWindow::onSourceChanged);
    // Choosing a page in the contents opens it; choosing the page on show goes back to its top.
    // (onSourceChanged() selects the row of a page reached by a link without this signal.)
    connect(m_contents, &QListWidget::currentItemChanged, this, [this](QListWidgetItem* item) {
        if (item)
            showUrl(QUrl(QStringLiteral("qrc:/help/") + item->data(kPageRole).toString()));
    });
    connect(m_contents, &QListWidget::itemClicked, this, [this](QListWidgetItem* item) {
        if (item->data(kPageRole).toString() == m_browser->source().fileName())
            m_browser->verticalScrollBar()->setValue(0);
    });

    // A reading size, inside the screen (1280×720 laptops included).
    QSize size(980, 700);
    if (const QScreen* screen = owner ? owner->screen() : QApplication::primaryScreen())
        size = size.boundedTo(screen->availableGeometry().size() * 0.9);
    resize(size);
}

void HelpWindow::showUrl(const QUrl& url) {
    // Shown first: a section is scrolled to in the page as laid out at the window's width.
    show();
    if (isMinimized())
        showNormal();
    raise();
    activateWindow();
    // setSource() ignores a URL equal to the current one apart from its section: scroll there.
    if (url.matches(m_browser->source(), QUrl::RemoveFragment) && url.hasFragment())
        m_browser->scrollToAnchor(url.fragment());
    else
        m_browser->setSource(url);
}

HelpWindow* HelpWindow::showFor(QWidget* owner, const QUrl& url) {
    auto* window =
        owner->findChild<HelpWindow*>(QStringLiteral("helpWindow"), Qt::FindDirectChildrenOnly);
    if (!window)
        window = new HelpWindow(owner);
    window->showUrl(url);
    return window;
}

void HelpWindow::onSourceChanged(const QUrl& url) {
    const QString page = url.fileName();
    for (int row = 0; row < m_contents->count(); ++row)
        if (m_contents->item(row)->data(kPageRole).toString() == page) {
            const QSignalBlocker blocker(m_contents);
            m_contents->setCurrentRow(row);
        }
    const QString title = m_browser->documentTitle();
    setWindowTitle(title.isEmpty() ? tr("TPACF Studio User Guide")
                                   : tr("%1 — TPACF Studio User Guide").arg(title));
}

void HelpWindow::findNext(bool backwards) {
    const QString text = m_find->text();
    if (text.isEmpty())
        return;
    const QTextDocument::FindFlags flags =
        backwards ? QTextDocument::FindBackward : QTextDocument::FindFlags();
    if (m_browser->find(text, flags))
        return;
    // Wrap around once, from the other end of the page.
    QTextCursor cursor = m_browser->textCursor();
    cursor.movePosition(backwards ? QTextCursor::End : QTextCursor::Start);
    m_browser->setTextCursor(cursor);
    m_browser->find(text, flags);
}

UserGuideAction::UserGuideAction(QWidget* window)
    : QAction(tr("&User Guide"), window), m_window(window) {
    setObjectName(QStringLiteral("userGuideAction"));
    setShortcut(QKeySequence::HelpContents);
    const QString tip = tr("The user guide; %1 opens it at the section of the panel you are in")
                            .arg(shortcut().toString(QKeySequence::NativeText));
    setStatusTip(tip);
    setToolTip(tip);
    connect(this, &QAction::triggered, this, &UserGuideAction::open);
}

QUrl UserGuideAction::targetUrl() const {
    return m_byShortcut ? helpUrlForWidget(QApplication::focusWidget()) : helpHomeUrl();
}

bool UserGuideAction::event(QEvent* event) {
    // A shortcut reaches the action as this event and triggers it within; a menu click does not.
    if (event->type() != QEvent::Shortcut)
        return QAction::event(event);
    m_byShortcut = true;
    const bool handled = QAction::event(event);
    m_byShortcut = false;
    return handled;
}

void UserGuideAction::open() {
    HelpWindow::showFor(m_window, targetUrl());
}

} // namespace tpacf::ui
