// SPDX-License-Identifier: GPL-3.0-or-later
#include "run_history.h"

#include "catalog_source.h"
#include "result_json.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QJsonObject>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace tpacf::ui {

QString runSummary(const CorrelationResult& result) {
    const auto fileName = [](const InputSummary& input) {
        return QFileInfo(QString::fromStdString(input.name)).fileName();
    };
    QString text = fileName(result.data);
    if (result.isCross())
        text += QStringLiteral(" × ") + fileName(result.data2);
    text += result.randoms.size() == 1 ? QObject::tr(", 1 random set")
                                       : QObject::tr(", %1 random sets").arg(result.randoms.size());
    text += QStringLiteral(", ") + QString::fromStdString(result.bins.describe());
    text += QStringLiteral(", ") + QString::fromLatin1(estimatorName(result.estimator));
    if (result.hasJackknife())
        text += QObject::tr(", jackknife %1").arg(result.jackknifeRegions.count);
    if (result.isWeighted())
        text += QObject::tr(", weighted");
    return text;
}

QJsonArray historyToJson(const QList<RunRecord>& records) {
    QJsonArray array;
    for (const RunRecord& record : records) {
        if (!record.result)
            continue;
        QJsonObject object;
        object[QStringLiteral("finished")] = record.finished.toString(Qt::ISODateWithMs);
        object[QStringLiteral("summary")] = record.summary;
        object[QStringLiteral("result")] = resultToJson(*record.result);
        array.append(object);
    }
    return array;
}

QList<RunRecord> historyFromJson(const QJsonArray& array, int* dropped) {
    QList<RunRecord> records;
    int bad = 0;
    for (const QJsonValue& value : array) {
        const QJsonObject object = value.toObject();
        QString problem;
        ResultPtr result = resultFromJson(object.value(QStringLiteral("result")).toObject(), &problem);
        if (!result) {
            ++bad;
            continue;
        }
        RunRecord record;
        record.finished = QDateTime::fromString(object.value(QStringLiteral("finished")).toString(),
                                                Qt::ISODateWithMs);
        record.summary = object.value(QStringLiteral("summary")).toString();
        if (record.summary.isEmpty())
            record.summary = runSummary(*result);
        record.result = std::move(result);
        records.append(record);
    }
    if (dropped)
        *dropped = bad;
    return records;
}

RunHistory::RunHistory(QObject* parent) : QObject(parent) {}

void RunHistory::append(const ResultPtr& result, const QDateTime& finished) {
    if (!result)
        return;
    m_records.append({finished, runSummary(*result), result});
    while (m_records.size() > kMaxRecords)
        m_records.removeFirst();
    Q_EMIT changed();
}

void RunHistory::setRecords(QList<RunRecord> records) {
    m_records = std::move(records);
    while (m_records.size() > kMaxRecords)
        m_records.removeFirst();
    Q_EMIT changed();
}

RunHistoryPanel::RunHistoryPanel(RunHistory* history, QWidget* parent)
    : QWidget(parent), m_history(history) {
    m_list = new QListWidget(this);
    m_list->setObjectName(QStringLiteral("historyList"));
    m_list->setToolTip(tr("Every completed run of this session, newest last; saved with the "
                          "session. Double-click to show a run again."));
    m_show = new QPushButton(tr("&Show"), this);
    m_show->setToolTip(tr("Show this run's result in the plots and the table (no recount)"));
    m_overlay = new QPushButton(tr("Add as &Overlay"), this);
    m_overlay->setToolTip(tr("Draw this run beside the current one (Compare runs)"));
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_show);
    buttons->addWidget(m_overlay);
    buttons->addStretch();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(buttons);
    layout->addWidget(m_list, 1);
    connect(m_show, &QPushButton::clicked, this, [this] {
        if (m_list->currentRow() >= 0)
            Q_EMIT showRequested(m_list->currentRow());
    });
    connect(m_overlay, &QPushButton::clicked, this, [this] {
        if (m_list->currentRow() >= 0)
            Q_EMIT overlayRequested(m_list->currentRow());
    });
    connect(m_list, &QListWidget::itemDoubleClicked, this,
            [this] { Q_EMIT showRequested(m_list->currentRow()); });
    connect(m_list, &QListWidget::currentRowChanged, this, [this](int row) {
        m_show->setEnabled(row >= 0);
        m_overlay->setEnabled(row >= 0);
    });
    connect(m_history, &RunHistory::changed, this, &RunHistoryPanel::refresh);
    refresh();
}

void RunHistoryPanel::refresh() {
    m_list->clear();
    const QList<RunRecord>& records = m_history->records();
    for (int i = 0; i < records.size(); ++i) {
        const RunRecord& record = records.at(i);
        auto* item = new QListWidgetItem(
            tr("#%1  %2  —  %3")
                .arg(i + 1)
                .arg(record.finished.toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")),
                     record.summary),
            m_list);
        item->setToolTip(record.summary);
    }
    m_show->setEnabled(m_list->currentRow() >= 0);
    m_overlay->setEnabled(m_list->currentRow() >= 0);
}

} // namespace tpacf::ui
