// SPDX-License-Identifier: GPL-3.0-or-later
#include "kernel_lab_excerpt.h"

#include <QFile>
#include <QStringList>

#include <mutex>

// Resources of a static library must be registered explicitly (outside any namespace).
static void registerLabSources() {
#ifdef TPACF_UI_HAVE_LAB_SOURCES
    Q_INIT_RESOURCE(lab);
#endif
}

namespace tpacf::ui {

QString bundledLabSourceRoot() {
    static std::once_flag registered;
    std::call_once(registered, registerLabSources);
    return QStringLiteral(":/lab");
}

QString labExcerptFromText(const QString& text, const QString& key) {
    if (key.isEmpty())
        return {};
    // The closing bracket makes "cpu-1" not match "[lab:excerpt cpu-1-naive]".
    const QString begin = QStringLiteral("[lab:excerpt %1]").arg(key);
    const QString end = QStringLiteral("[lab:end]");
    QStringList lines;
    bool inside = false, closed = false;
    const QStringList fileLines = text.split(u'\n');
    for (qsizetype i = 0; i < fileLines.size(); ++i) {
        QString line = fileLines[i];
        // A final newline leaves an empty last piece that getline would not read as a line.
        if (i + 1 == fileLines.size() && line.isEmpty())
            break;
        if (line.endsWith(u'\r'))
            line.chop(1);
        if (!inside) {
            inside = line.contains(begin);
            continue;
        }
        if (line.contains(end)) {
            closed = true;
            break;
        }
        lines.append(line);
    }
    if (!closed)
        return {};
    // As sourceExcerpt: less the indent (spaces) every non-blank line shares, one '\n' a line.
    qsizetype common = -1;
    for (const QString& line : lines) {
        qsizetype indent = 0;
        while (indent < line.size() && line[indent] == u' ')
            ++indent;
        if (indent < line.size() && (common < 0 || indent < common))
            common = indent;
    }
    QString excerpt;
    for (const QString& line : lines) {
        if (common >= 0 && line.size() > common)
            excerpt += line.mid(common);
        excerpt += u'\n';
    }
    return excerpt;
}

QString readLabExcerpt(const QString& sourceRoot, const QString& sourceFile, const QString& key) {
    if (sourceFile.isEmpty())
        return {};
    QFile file(sourceRoot + u'/' + sourceFile);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return labExcerptFromText(QString::fromUtf8(file.readAll()), key);
}

} // namespace tpacf::ui
