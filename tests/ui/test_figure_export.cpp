// SPDX-License-Identifier: GPL-3.0-or-later
// Exported figures: the PDF page and the PNG pixels are exactly what the style asks,
// SVG is written where Qt Svg is built in, the legend placed "auto" covers no data point or error
// bar of the sample's figure, the title is off by default, the style's axes and θ unit are drawn,
// and the GUI's power-law fit is the core's fitPowerLaw on the same result, curve and CSV alike.
#include "figure_style.h"
#include "fit_panel.h"
#include "plot_export.h"
#include "plot_panel.h"
#include "tpacf_test_main.h"

#include <tpacf/catalog_reader.h>
#include <tpacf/correlation_job.h>
#include <tpacf/power_law_fit.h>

#include <QCheckBox>
#include <QFile>
#include <QImage>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <qcustomplot.h>

#include <cmath>

using namespace tpacf;
using namespace tpacf::ui;

Q_DECLARE_METATYPE(tpacf::ui::FigureStyle)

namespace {

const QString kSamples = QStringLiteral(TPACF_SOURCE_DIR "/resources/samples/");

FigureStyle sized(double widthIn, double heightIn, int dpi) {
    FigureStyle style = FigureStyle::fromPreset(FigureStyle::Preset::Custom);
    style.widthIn = widthIn;
    style.heightIn = heightIn;
    style.dpi = dpi;
    return style;
}

QByteArray readAll(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

/// The page size in points from the PDF's MediaBox.
QSizeF pdfMediaBox(const QString& path) {
    const QRegularExpression box(
        QStringLiteral(R"(/MediaBox\s*\[\s*([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)\s*\])"));
    const auto match = box.match(QString::fromLatin1(readAll(path)));
    if (!match.hasMatch())
        return {};
    return {match.captured(3).toDouble() - match.captured(1).toDouble(),
            match.captured(4).toDouble() - match.captured(2).toDouble()};
}

/// Every drawn w point and error bar of `panel`'s w(θ) plot, in its pixels: the rectangle `area`
/// (padded by a marker's radius) must hold none. Computed from the panel's plotted values, not
/// from the export's own check.
QString dataUnderLegend(const PlotPanel& panel, const QRectF& legend) {
    QCustomPlot* plot = panel.plot(PlotPanel::Plot::Correlation);
    const bool logY = plot->yAxis->scaleType() == QCPAxis::stLogarithmic;
    const double radius = panel.drawingStyle()->markerPt * 96.0 / 72.0 / 2 + 1;
    const QRectF area = legend.adjusted(-radius, -radius, radius, radius);
    const QVector<QPointF>& points = panel.plottedW();
    const QVector<double>& sigma = panel.plottedWErrors();
    for (int i = 0; i < points.size(); ++i) {
        const double value = logY ? std::abs(points[i].y()) : points[i].y();
        if (logY && value <= 0)
            continue;
        const double x = plot->xAxis->coordToPixel(points[i].x());
        const double y = plot->yAxis->coordToPixel(value);
        if (area.contains(QPointF(x, y)))
            return QStringLiteral("point %1 at (%2, %3)").arg(i).arg(x).arg(y);
        if (i < sigma.size() && std::isfinite(sigma[i]) && sigma[i] > 0) {
            const double low = value - sigma[i];
            const double top = plot->yAxis->coordToPixel(value + sigma[i]);
            const double bottom =
                logY && low <= 0 ? plot->axisRect()->bottom() : plot->yAxis->coordToPixel(low);
            if (x >= area.left() && x <= area.right() && qMax(top, bottom) >= area.top() &&
                qMin(top, bottom) <= area.bottom())
                return QStringLiteral("error bar %1 at x = %2").arg(i).arg(x);
        }
    }
    for (const QPointF& point : panel.plottedFit()) {
        const QPointF pixel(plot->xAxis->coordToPixel(point.x()),
                            plot->yAxis->coordToPixel(point.y()));
        if (area.contains(pixel))
            return QStringLiteral("the fitted curve at (%1, %2)").arg(pixel.x()).arg(pixel.y());
    }
    return {};
}

} // namespace

class TestFigureExport : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        const auto read = [](const char* name) {
            return std::make_shared<const Catalog>(
                readCatalog((kSamples + QString::fromLatin1(name)).toStdString()));
        };
        CorrelationParams params;
        params.data = read("sample_data.txt");
        params.randoms = {read("sample_random_1.txt"), read("sample_random_2.txt")};
        params.bins = BinSpec::preset("log5");
        params.backend.name = "cpu";
        m_plain = std::make_shared<const CorrelationResult>(CorrelationJob(params).run());
        params.jackknife.regions = 20;
        m_jackknife = std::make_shared<const CorrelationResult>(CorrelationJob(params).run());
        QVERIFY(m_jackknife->hasJackknife());
    }

    void pdfPageIsTheSizeAsked_data() {
        QTest::addColumn<FigureStyle>("style");
        QTest::newRow("screen 6 x 4 in") << FigureStyle::fromPreset(FigureStyle::Preset::Screen);
        QTest::newRow("single column")
            << FigureStyle::fromPreset(FigureStyle::Preset::SingleColumn);
        QTest::newRow("double column")
            << FigureStyle::fromPreset(FigureStyle::Preset::DoubleColumn);
        QTest::newRow("5 x 5 in") << sized(5, 5, 300);
        QTest::newRow("10 x 3.3 in") << sized(10, 3.3, 150);
    }

    void pdfPageIsTheSizeAsked() {
        QFETCH(FigureStyle, style);
        const QString path = m_dir.filePath(QStringLiteral("page.pdf"));
        QString error;
        QVERIFY2(exportFigure(*panelWith(m_jackknife), PlotPanel::Plot::Correlation, style, path,
                              &error),
                 qPrintable(error));
        const QSizeF points = pdfMediaBox(path);
        // Qt's PDF writer sizes pages in whole points: within half a point (1/144 in).
        QVERIFY2(std::abs(points.width() - style.widthIn * 72) <= 0.5,
                 qPrintable(QString::number(points.width())));
        QVERIFY2(std::abs(points.height() - style.heightIn * 72) <= 0.5,
                 qPrintable(QString::number(points.height())));
        // poppler's reading of the same file, where it is installed.
        const QString pdfinfo = QStandardPaths::findExecutable(QStringLiteral("pdfinfo"));
        if (!pdfinfo.isEmpty()) {
            QProcess process;
            process.start(pdfinfo, {path});
            QVERIFY(process.waitForFinished(30000));
            const QString out = QString::fromLocal8Bit(process.readAllStandardOutput());
            const auto match =
                QRegularExpression(QStringLiteral(R"(Page size:\s+([\d.]+) x ([\d.]+) pts)"))
                    .match(out);
            QVERIFY2(match.hasMatch(), qPrintable(out));
            QVERIFY(std::abs(match.captured(1).toDouble() - style.widthIn * 72) <= 0.5);
            QVERIFY(std::abs(match.captured(2).toDouble() - style.heightIn * 72) <= 0.5);
        }
    }

    void pngIsThePixelsAsked_data() {
        QTest::addColumn<FigureStyle>("style");
        QTest::addColumn<int>("plot");
        QTest::addColumn<QSize>("pixels");
        QTest::newRow("single column, 300 dpi")
            << FigureStyle::fromPreset(FigureStyle::Preset::SingleColumn) << 0 << QSize(1050, 788);
        QTest::newRow("double column, 600 dpi") << [] {
            FigureStyle style = FigureStyle::fromPreset(FigureStyle::Preset::DoubleColumn);
            style.dpi = 600;
            return style;
        }() << 0 << QSize(4320, 2160);
        QTest::newRow("odd size, 150 dpi")
            << sized(1001.0 / 150, 667.0 / 150, 150) << 0 << QSize(1001, 667);
        QTest::newRow("pair counts, 72 dpi") << sized(6, 4, 72) << 1 << QSize(432, 288);
        QTest::newRow("covariance, 200 dpi") << sized(6, 5, 200) << 2 << QSize(1200, 1000);
    }

    void pngIsThePixelsAsked() {
        QFETCH(FigureStyle, style);
        QFETCH(int, plot);
        QFETCH(QSize, pixels);
        const QString path = m_dir.filePath(QStringLiteral("figure.png"));
        QString error;
        QVERIFY2(exportFigure(*panelWith(m_jackknife), PlotPanel::Plot(plot), style, path, &error),
                 qPrintable(error));
        const QImage image(path, "png");
        QCOMPARE(image.size(), pixels);
        QCOMPARE(qRound(image.dotsPerMeterX() * 0.0254), style.dpi);
        QCOMPARE(qRound(image.dotsPerMeterY() * 0.0254), style.dpi);
    }

    void svgWhereSupported() {
        const QString path = m_dir.filePath(QStringLiteral("figure.svg"));
        const FigureStyle style = FigureStyle::fromPreset(FigureStyle::Preset::SingleColumn);
        QString error;
        const bool written = exportFigure(*panelWith(m_jackknife), PlotPanel::Plot::Correlation,
                                          style, path, &error);
        if (!svgSupported()) {
            QVERIFY(!written);
            QVERIFY2(error.contains(QStringLiteral("SVG")), qPrintable(error));
            QSKIP("this build has no Qt Svg: refused with a message, as checked");
        }
        QVERIFY2(written, qPrintable(error));
        const QString svg = QString::fromUtf8(readAll(path));
        const auto match =
            QRegularExpression(
                QStringLiteral(R"svg(<svg width="([\d.]+)mm" height="([\d.]+)mm")svg"))
                .match(svg);
        QVERIFY2(match.hasMatch(), qPrintable(svg.left(300)));
        QVERIFY(std::abs(match.captured(1).toDouble() - style.widthIn * 25.4) < 0.1);
        QVERIFY(std::abs(match.captured(2).toDouble() - style.heightIn * 25.4) < 0.1);
        QVERIFY(svg.contains(QStringLiteral("</svg>")));
    }

    void unknownSuffixRefused() {
        QString error;
        QVERIFY(!exportFigure(*panelWith(m_plain), PlotPanel::Plot::Correlation, FigureStyle{},
                              m_dir.filePath(QStringLiteral("figure.jpg")), &error));
        QVERIFY2(error.contains(QStringLiteral(".png")), qPrintable(error));
        FigureStyle reversed;
        reversed.x.min = 10;
        reversed.x.max = 1;
        QVERIFY(!exportFigure(*panelWith(m_plain), PlotPanel::Plot::Correlation, reversed,
                              m_dir.filePath(QStringLiteral("figure.png")), &error));
        QVERIFY2(error.contains(QStringLiteral("x.min")), qPrintable(error));
    }

    void legendCoversNoData_data() {
        QTest::addColumn<FigureStyle>("style");
        QTest::addColumn<bool>("jackknife");
        QTest::addColumn<bool>("fit");
        for (const auto preset : {FigureStyle::Preset::Screen, FigureStyle::Preset::SingleColumn,
                                  FigureStyle::Preset::DoubleColumn})
            for (const bool jackknife : {false, true})
                for (const bool fit : {false, true})
                    QTest::addRow("%s%s%s", qPrintable(presetKey(preset)),
                                  jackknife ? ", error bars" : "", fit ? ", fit" : "")
                        << FigureStyle::fromPreset(preset) << jackknife << fit;
        FigureStyle linear = FigureStyle::fromPreset(FigureStyle::Preset::SingleColumn);
        linear.y.scale = FigureStyle::Scale::Linear;
        QTest::newRow("single column, linear w") << linear << true << false;
    }

    void legendCoversNoData() {
        QFETCH(FigureStyle, style);
        QFETCH(bool, jackknife);
        QFETCH(bool, fit);
        std::unique_ptr<PlotPanel> panel = panelWith(jackknife ? m_jackknife : m_plain);
        if (fit)
            QVERIFY2(panel->fitPanel()->fit(), qPrintable(panel->fitPanel()->lastError()));
        const std::unique_ptr<PlotPanel> copy = panel->figureCopy(style);
        QCustomPlot* plot = copy->plot(PlotPanel::Plot::Correlation);
        styleFigure(plot, style);
        QVERIFY(plot->legend->visible());
        const QRectF legend = plot->legend->outerRect();
        const QString hidden = dataUnderLegend(*copy, legend);
        QVERIFY2(hidden.isEmpty(), qPrintable(hidden));
        // Inside the axes only where it hides nothing; otherwise out of them.
        if (plot->legend->layout() == static_cast<QCPLayout*>(plot->plotLayout()))
            QVERIFY(!legend.intersects(QRectF(plot->axisRect()->rect())));
    }

    void legendStaysInsideWhereACornerIsFree() {
        // Only three bins, at the bottom left: the top-right corner is free.
        auto result = std::make_shared<CorrelationResult>(*m_plain);
        for (std::size_t k = 0; k < result->w.size(); ++k)
            result->w[k] = k >= 10 && k < 13 ? 0.01 * double(k - 9) : std::nan("");
        const std::unique_ptr<PlotPanel> panel = panelWith(result);
        FigureStyle style;
        style.y = {FigureStyle::Scale::Linear, 0, 1};
        const std::unique_ptr<PlotPanel> copy = panel->figureCopy(style);
        QCustomPlot* plot = copy->plot(PlotPanel::Plot::Correlation);
        styleFigure(plot, style);
        QCOMPARE(plot->legend->layout(), static_cast<QCPLayout*>(plot->axisRect()->insetLayout()));
        QVERIFY(dataUnderLegend(*copy, plot->legend->outerRect()).isEmpty());
    }

    void legendOutsideAndOff() {
        const std::unique_ptr<PlotPanel> panel = panelWith(m_jackknife);
        FigureStyle style;
        style.legend = FigureStyle::Legend::Outside;
        std::unique_ptr<PlotPanel> copy = panel->figureCopy(style);
        QCustomPlot* plot = copy->plot(PlotPanel::Plot::Correlation);
        styleFigure(plot, style);
        QCOMPARE(plot->legend->layout(), static_cast<QCPLayout*>(plot->plotLayout()));
        QVERIFY(plot->legend->outerRect().top() >= plot->axisRect()->outerRect().bottom());
        style.legend = FigureStyle::Legend::Off;
        copy = panel->figureCopy(style);
        styleFigure(copy->plot(PlotPanel::Plot::Correlation), style);
        QVERIFY(!copy->plot(PlotPanel::Plot::Correlation)->legend->visible());
    }

    void titleOffByDefault() {
        const std::unique_ptr<PlotPanel> panel = panelWith(m_plain);
        const auto titles = [](QCustomPlot* plot) {
            QStringList texts;
            for (QCPLayoutElement* element : plot->plotLayout()->elements(true))
                if (auto* text = qobject_cast<QCPTextElement*>(element))
                    texts.append(text->text());
            return texts;
        };
        FigureStyle style;
        QVERIFY(!style.title);
        std::unique_ptr<PlotPanel> copy = panel->figureCopy(style);
        styleFigure(copy->plot(PlotPanel::Plot::Correlation), style);
        QVERIFY(titles(copy->plot(PlotPanel::Plot::Correlation)).isEmpty());
        style.title = true;
        copy = panel->figureCopy(style);
        styleFigure(copy->plot(PlotPanel::Plot::Correlation), style);
        QCOMPARE(titles(copy->plot(PlotPanel::Plot::Correlation)),
                 QStringList{panel->plotTitle(PlotPanel::Plot::Correlation)});
    }

    void styleAxesAndThetaUnit() {
        const std::unique_ptr<PlotPanel> panel = panelWith(m_plain); // bins in arcmin
        QCOMPARE(m_plain->bins.unit, AngleUnit::Arcminute);
        FigureStyle style;
        style.thetaUnit = AngleUnit::Degree;
        style.x = {FigureStyle::Scale::Linear, 0.01, 2.0};
        style.y = {FigureStyle::Scale::Log, 0.001, 100.0};
        style.marker = FigureStyle::Marker::Square;
        style.markerPt = 6;
        const std::unique_ptr<PlotPanel> copy = panel->figureCopy(style);
        QCustomPlot* plot = copy->plot(PlotPanel::Plot::Correlation);
        QCOMPARE(plot->xAxis->scaleType(), QCPAxis::stLinear);
        QCOMPARE(plot->yAxis->scaleType(), QCPAxis::stLogarithmic);
        QCOMPARE(plot->xAxis->range().lower, 0.01);
        QCOMPARE(plot->xAxis->range().upper, 2.0);
        QCOMPARE(plot->yAxis->range().lower, 0.001);
        QCOMPARE(plot->yAxis->range().upper, 100.0);
        QVERIFY2(plot->xAxis->label().contains(QStringLiteral("deg")),
                 qPrintable(plot->xAxis->label()));
        // θ in degrees: every positive w at its bin centre / 60.
        QCPGraph* points = plot->graph(0);
        int k = 0;
        for (const QPointF& point : copy->plottedW()) {
            if (point.y() <= 0)
                continue;
            QVERIFY(k < points->dataCount());
            QVERIFY(std::abs(points->data()->at(k)->key - point.x() / 60.0) <= 1e-12 * point.x());
            ++k;
        }
        QCOMPARE(k, points->dataCount());
        QCOMPARE(points->scatterStyle().shape(), QCPScatterStyle::ssSquare);
        QCOMPARE(points->scatterStyle().size(), 8.0); // 6 pt at 96 px per inch
        // The panel on screen is untouched.
        QCOMPARE(panel->plot(PlotPanel::Plot::Correlation)->graph(0)->scatterStyle().shape(),
                 QCPScatterStyle::ssDisc);
    }

    void guiFitIsTheCoresFit_data() {
        QTest::addColumn<bool>("jackknife");
        QTest::addColumn<bool>("integralConstraint");
        QTest::newRow("covariance") << true << false;
        QTest::newRow("covariance, integral constraint") << true << true;
        QTest::newRow("no errors") << false << false;
    }

    void guiFitIsTheCoresFit() {
        QFETCH(bool, jackknife);
        QFETCH(bool, integralConstraint);
        const ResultPtr result = jackknife ? m_jackknife : m_plain;
        const std::unique_ptr<PlotPanel> panel = panelWith(result);
        FitPanel* fitPanel = panel->fitPanel();
        // The default range: bins with w > 0 (and σ > 0 with jackknife), no more of them than
        // (K − 3)/2 for a jackknife of K samples, contiguous.
        const auto range = FitPanel::defaultRange(*result);
        QVERIFY(range);
        std::vector<std::size_t> inside;
        for (std::size_t k = 0; k < result->centres.size(); ++k)
            if (result->centres[k] >= range->first && result->centres[k] <= range->second)
                inside.push_back(k);
        QVERIFY(inside.size() >= 3);
        QCOMPARE(inside.back() - inside.front() + 1, inside.size());
        QCOMPARE(range->first, result->edges[inside.front()]);
        QCOMPARE(range->second, result->edges[inside.back() + 1]);
        for (std::size_t k : inside) {
            QVERIFY(result->w[k] > 0);
            QVERIFY(!jackknife || result->wError[k] > 0);
        }
        if (jackknife)
            QVERIFY(inside.size() <= (result->jackknifeSamples.size() - 3) / 2);
        const double step = std::pow(10.0, -fitPanel->minSpin()->decimals());
        QVERIFY(std::abs(fitPanel->minSpin()->value() - range->first) <= step);
        QVERIFY(std::abs(fitPanel->maxSpin()->value() - range->second) <= step);
        // The fit over it works on the sample.
        QVERIFY2(fitPanel->fit(), qPrintable(fitPanel->lastError()));

        PowerLawFitOptions options;
        options.thetaMin = 1.0; // the usual clustering range of the sample, arcmin
        options.thetaMax = 100.0;
        options.integralConstraint = integralConstraint;
        fitPanel->minSpin()->setValue(options.thetaMin);
        fitPanel->maxSpin()->setValue(options.thetaMax);
        fitPanel->integralConstraintCheck()->setChecked(integralConstraint);
        QVERIFY2(fitPanel->fit(), qPrintable(fitPanel->lastError()));

        const PowerLawFit core = fitPowerLaw(*result, options);
        const PowerLawFit& gui = *fitPanel->currentFit();
        QCOMPARE(gui.amplitude, core.amplitude);
        QCOMPARE(gui.gamma, core.gamma);
        QCOMPARE(gui.amplitudeError, core.amplitudeError);
        QCOMPARE(gui.gammaError, core.gammaError);
        QVERIFY((std::isnan(gui.chi2) && std::isnan(core.chi2)) || gui.chi2 == core.chi2);
        QCOMPARE(gui.dof, core.dof);
        QVERIFY(gui.bins == core.bins);
        QCOMPARE(gui.integralConstraintApplied, integralConstraint);
        QVERIFY(fitPanel->summary().contains(QStringLiteral("γ = ")));

        // The curve drawn passes through the core's model at every fitted bin.
        const QVector<QPointF> curve = panel->plottedFit();
        QVERIFY(curve.size() > int(core.bins.size()));
        for (std::size_t k : core.bins) {
            bool found = false;
            for (const QPointF& point : curve)
                if (point.x() == result->centres[k]) {
                    QCOMPARE(point.y(), core.model[k]);
                    found = true;
                }
            QVERIFY2(found || core.model[k] <= 0, qPrintable(QString::number(k)));
        }
        // ... and in the exported figure.
        const std::unique_ptr<PlotPanel> copy = panel->figureCopy(FigureStyle{});
        QCOMPARE(copy->plottedFit(), curve);

        // "Export Fit…" writes the CLI's --fit-output file.
        const QString path = m_dir.filePath(QStringLiteral("fit.csv"));
        QString error;
        QVERIFY2(fitPanel->exportFit(path, &error), qPrintable(error));
        QCOMPARE(readAll(path).toStdString(),
                 powerLawFitCsv(core, options, angleUnitName(result->bins.unit)));

        // A partial result drops the curve; the final one brings the same fit back.
        panel->setResult(result, true);
        QVERIFY(!fitPanel->currentFit());
        QVERIFY(panel->plottedFit().isEmpty());
        panel->setResult(result, false);
        QVERIFY(fitPanel->currentFit());
        QCOMPARE(fitPanel->currentFit()->amplitude, core.amplitude);
    }

    void fitRefusedWithReason() {
        const std::unique_ptr<PlotPanel> panel = panelWith(m_plain);
        FitPanel* fitPanel = panel->fitPanel();
        fitPanel->minSpin()->setValue(10.0);
        fitPanel->maxSpin()->setValue(12.0); // no bin centre in it
        QVERIFY(!fitPanel->fit());
        QVERIFY(!fitPanel->lastError().isEmpty());
        QVERIFY(panel->plottedFit().isEmpty());
        QString error;
        QVERIFY(!fitPanel->exportFit(m_dir.filePath(QStringLiteral("none.csv")), &error));
    }

private:
    std::unique_ptr<PlotPanel> panelWith(const ResultPtr& result) {
        auto panel = std::make_unique<PlotPanel>();
        panel->setResult(result, false);
        return panel;
    }

    QTemporaryDir m_dir;
    ResultPtr m_plain, m_jackknife;
};

TPACF_TEST_MAIN(TestFigureExport)
#include "test_figure_export.moc"
