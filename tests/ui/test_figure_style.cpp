// SPDX-License-Identifier: GPL-3.0-or-later
// The figure style: JSON round trips, every bad style file refused with the file and
// the field named, the style kept in a session (old sessions still open), and the Export Plot
// dialog's controls, presets, preview and "Save Style…".
#include "figure_dialog.h"
#include "figure_style.h"
#include "main_window.h"
#include "plot_panel.h"
#include "session.h"
#include "tpacf_test_main.h"

#include <tpacf/catalog_reader.h>
#include <tpacf/correlation_job.h>

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <qcustomplot.h>

#include <cmath>

using namespace tpacf;
using namespace tpacf::ui;

Q_DECLARE_METATYPE(tpacf::ui::FigureStyle)

namespace {

const QString kSamples = QStringLiteral(TPACF_SOURCE_DIR "/resources/samples/");

FigureStyle everyFieldSet() {
    FigureStyle style = FigureStyle::fromPreset(FigureStyle::Preset::Custom);
    style.widthIn = 5.25;
    style.heightIn = 3.125;
    style.fontFamily = QStringLiteral("DejaVu Serif");
    style.fontPt = 10.5;
    style.dpi = 600;
    style.legend = FigureStyle::Legend::Outside;
    style.title = true;
    style.x = {FigureStyle::Scale::Linear, 0.5, 200.0};
    style.y = {FigureStyle::Scale::Log, 1e-3, std::nan("")};
    style.marker = FigureStyle::Marker::Triangle;
    style.markerPt = 6.5;
    style.errorBarPt = 1.25;
    style.errorCapPt = 0;
    style.thetaUnit = AngleUnit::Arcsecond;
    return style;
}

MainWindow::Options quietOptions() {
    MainWindow::Options options;
    options.loadSample = false;
    options.useSettings = false;
    options.interactive = false;
    return options;
}

} // namespace

class TestFigureStyle : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void jsonRoundTrip_data() {
        QTest::addColumn<FigureStyle>("style");
        QTest::newRow("default") << FigureStyle{};
        QTest::newRow("single column")
            << FigureStyle::fromPreset(FigureStyle::Preset::SingleColumn);
        QTest::newRow("double column")
            << FigureStyle::fromPreset(FigureStyle::Preset::DoubleColumn);
        QTest::newRow("every field set") << everyFieldSet();
    }

    void jsonRoundTrip() {
        QFETCH(FigureStyle, style);
        QVERIFY(style.problem().isEmpty());
        QString error;
        const std::optional<FigureStyle> back = FigureStyle::fromJson(style.toJson(), &error);
        QVERIFY2(back, qPrintable(error));
        QVERIFY(*back == style);
        // Through a file, as "Save Style…" writes it and --plot-style reads it.
        const QString path = m_dir.filePath(QStringLiteral("round-trip.json"));
        QVERIFY2(saveFigureStyleFile(path, style, &error), qPrintable(error));
        const std::optional<FigureStyle> loaded = loadFigureStyleFile(path, &error);
        QVERIFY2(loaded, qPrintable(error));
        QVERIFY(*loaded == style);
    }

    void presetGivesDefaults() {
        // A file may name only a preset and override what it wants.
        QString error;
        const auto style = FigureStyle::fromJson(
            QJsonDocument::fromJson(R"({"preset": "single-column", "fontSize": 7})").object(),
            &error);
        QVERIFY2(style, qPrintable(error));
        QCOMPARE(style->widthIn, 3.5);
        QCOMPARE(style->heightIn, 2.625);
        QCOMPARE(style->fontPt, 7.0);
        QCOMPARE(style->widthPx(), 1050); // 3.5 in at 300 dpi
        const auto wide = FigureStyle::fromJson(
            QJsonDocument::fromJson(R"({"widthIn": 7.2, "aspect": 2})").object(), &error);
        QVERIFY2(wide, qPrintable(error));
        QCOMPARE(wide->heightIn, 3.6);
    }

    void badStyleFile_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("expected");
        QTest::newRow("wrong type")
            << QByteArray(R"({"widthIn": "wide"})") << QStringLiteral("widthIn must be a number");
        QTest::newRow("unknown field") << QByteArray(R"({"fontsize": 8})")
                                       << QStringLiteral("fontsize is not a figure style field");
        QTest::newRow("range reversed") << QByteArray(R"({"x": {"min": 5, "max": 1}})")
                                        << QStringLiteral("x.min (5) must be below x.max (1)");
        QTest::newRow("log axis from 0")
            << QByteArray(R"({"y": {"scale": "log", "min": 0}})")
            << QStringLiteral("y.min (0) must be above 0 on a log axis");
        QTest::newRow("unknown in axis") << QByteArray(R"({"y": {"low": 0.1}})")
                                         << QStringLiteral("y.low is not a figure style field");
        QTest::newRow("legend") << QByteArray(R"({"legend": "left"})")
                                << QStringLiteral("legend must be one of auto, outside, off");
        QTest::newRow("dpi") << QByteArray(R"({"dpi": 10})")
                             << QStringLiteral("dpi (10) must be from 50 to 2400");
        QTest::newRow("dpi not whole")
            << QByteArray(R"({"dpi": 300.5})") << QStringLiteral("dpi must be a whole number");
        QTest::newRow("too narrow") << QByteArray(R"({"widthIn": 0.2})")
                                    << QStringLiteral("widthIn (0.2) must be from 1 to 40");
        QTest::newRow("marker") << QByteArray(R"({"marker": {"shape": "star"}})")
                                << QStringLiteral("marker.shape must be one of disc, circle");
        QTest::newRow("theta unit")
            << QByteArray(R"({"thetaUnit": "parsec"})") << QStringLiteral("thetaUnit must be auto");
        QTest::newRow("title") << QByteArray(R"({"title": "no"})")
                               << QStringLiteral("title must be true or false");
        // Qt's parser stops after the bad value: the line and column it reports.
        QTest::newRow("not JSON") << QByteArray("{\n  \"title\": tru\n}")
                                  << QStringLiteral("bad.json:3:1: not valid JSON");
        QTest::newRow("not an object")
            << QByteArray("[1, 2]") << QStringLiteral("a figure style is a JSON object");
        QTest::newRow("a session") << QByteArray(R"({"format": "tpacf-studio-session"})")
                                   << QStringLiteral("format must be \"tpacf-figure-style\"");
        QTest::newRow("aspect and height") << QByteArray(R"({"aspect": 1.5, "heightIn": 3})")
                                           << QStringLiteral("aspect and heightIn both");
        QTest::newRow("too many pixels")
            << QByteArray(R"({"widthIn": 40, "heightIn": 40, "dpi": 2400})")
            << QStringLiteral("more than 100 million");
    }

    void badStyleFile() {
        QFETCH(QByteArray, content);
        QFETCH(QString, expected);
        const QString path = m_dir.filePath(QStringLiteral("bad.json"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write(content);
        file.close();
        QString error;
        QVERIFY(!loadFigureStyleFile(path, &error));
        QVERIFY2(error.startsWith(path), qPrintable(error)); // the file first
        QVERIFY2(error.contains(expected), qPrintable(error));
    }

    void missingStyleFile() {
        QString error;
        const QString path = m_dir.filePath(QStringLiteral("nowhere.json"));
        QVERIFY(!loadFigureStyleFile(path, &error));
        QVERIFY2(error.contains(path), qPrintable(error));
    }

    void sessionKeepsStyle() {
        Session session;
        session.settings.figure = everyFieldSet();
        const QString path = m_dir.filePath(QStringLiteral("styled.tpacf-session"));
        QString error;
        QVERIFY2(saveSessionFile(path, session, &error), qPrintable(error));
        const std::optional<Session> loaded = loadSessionFile(path, &error);
        QVERIFY2(loaded, qPrintable(error));
        QVERIFY(loaded->settings.figure == everyFieldSet());

        // A session written before figure styles (no "figure") opens with the default style, and
        // so does one whose style block is broken: the session itself still opens.
        QJsonObject old = session.toJson();
        old.remove(QStringLiteral("figure"));
        QVERIFY(Session::fromJson(old).settings.figure == FigureStyle{});
        QJsonObject broken = session.toJson();
        broken[QStringLiteral("figure")] =
            QJsonObject{{QStringLiteral("dpi"), QStringLiteral("x")}};
        QVERIFY(Session::fromJson(broken).settings.figure == FigureStyle{});
    }

    void windowReopensSessionWithStyle() {
        const FigureStyle style = everyFieldSet();
        const QString path = m_dir.filePath(QStringLiteral("window.tpacf-session"));
        {
            MainWindow window(BackendRegistry{}, quietOptions());
            QSignalSpy loaded(&window, &MainWindow::loadFinished);
            QVERIFY(
                window.setDataCatalog(CatalogSource{kSamples + QStringLiteral("sample_data.txt")}));
            QVERIFY(loaded.wait(30000));
            window.plotPanel()->setExportStyle(style);
            QVERIFY(window.session().settings.figure == style);
            QVERIFY(window.saveSession(path));
        }
        MainWindow reopened(BackendRegistry{}, quietOptions());
        QVERIFY(reopened.plotPanel()->exportStyle() == FigureStyle{});
        QSignalSpy loaded(&reopened, &MainWindow::loadFinished);
        QVERIFY(reopened.loadSession(path));
        QVERIFY(loaded.wait(30000));
        QVERIFY(loaded.last().front().toBool());
        QVERIFY(reopened.plotPanel()->exportStyle() == style);
    }

    void dialogControls() {
        PlotPanel panel;
        panel.setResult(sampleResult(), false);
        const FigureStyle style = everyFieldSet();
        PlotExportDialog dialog(panel, PlotPanel::Plot::Correlation, style);
        // The controls hold every field: what comes out is what went in.
        QVERIFY(dialog.style() == style);

        // A preset sets size and fonts and keeps the rest.
        dialog.presetCombo()->setCurrentIndex(
            dialog.presetCombo()->findData(int(FigureStyle::Preset::SingleColumn)));
        FigureStyle single = dialog.style();
        QCOMPARE(single.preset, FigureStyle::Preset::SingleColumn);
        QCOMPARE(single.widthIn, 3.5);
        QCOMPARE(single.heightIn, 2.625);
        QCOMPARE(single.legend, FigureStyle::Legend::Outside);
        // A width of one's own is no longer the preset.
        dialog.widthSpin()->setValue(4.0);
        QCOMPARE(dialog.style().preset, FigureStyle::Preset::Custom);

        // The preview is the figure at its printed proportions.
        dialog.updatePreview();
        const QImage preview = dialog.previewImage();
        QVERIFY(!preview.isNull());
        QVERIFY(std::abs(double(preview.width()) / preview.height() - 4.0 / 2.625) < 0.02);

        // "Save Style…" writes what --plot-style reads.
        const QString path = m_dir.filePath(QStringLiteral("dialog-style.json"));
        QString error;
        QVERIFY2(dialog.saveStyle(path, &error), qPrintable(error));
        const std::optional<FigureStyle> saved = loadFigureStyleFile(path, &error);
        QVERIFY2(saved, qPrintable(error));
        QVERIFY(*saved == dialog.style());

        // An invalid range is refused in the dialog as in a file.
        FigureStyle reversed = dialog.style();
        reversed.x.min = 10;
        reversed.x.max = 1;
        dialog.setStyle(reversed);
        QVERIFY(dialog.problem().contains(QStringLiteral("x.min")));
        QVERIFY(!dialog.saveStyle(path, &error));
    }

    void dialogUsesCurrentView() {
        PlotPanel panel;
        panel.setResult(sampleResult(), false);
        QCustomPlot* plot = panel.plot(PlotPanel::Plot::Correlation);
        plot->xAxis->setRange(2.0, 50.0);
        plot->yAxis->setRange(0.5, 40.0);
        PlotExportDialog dialog(panel, PlotPanel::Plot::Correlation, FigureStyle{});
        dialog.useCurrentView();
        const FigureStyle style = dialog.style();
        QCOMPARE(style.x.min, 2.0);
        QCOMPARE(style.x.max, 50.0);
        QCOMPARE(style.y.min, 0.5);
        QCOMPARE(style.y.max, 40.0);
        QCOMPARE(style.x.scale, FigureStyle::Scale::Log); // log bins on screen
    }

private:
    ResultPtr sampleResult() {
        if (!m_result) {
            CorrelationParams params;
            params.data = std::make_shared<const Catalog>(
                readCatalog((kSamples + QStringLiteral("sample_data.txt")).toStdString()));
            params.randoms = {std::make_shared<const Catalog>(
                readCatalog((kSamples + QStringLiteral("sample_random_1.txt")).toStdString()))};
            params.bins = BinSpec::preset("log5");
            params.backend.name = "cpu";
            m_result = std::make_shared<const CorrelationResult>(CorrelationJob(params).run());
        }
        return m_result;
    }

    QTemporaryDir m_dir;
    ResultPtr m_result;
};

TPACF_TEST_MAIN(TestFigureStyle)
#include "test_figure_style.moc"
