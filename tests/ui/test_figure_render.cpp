// SPDX-License-Identifier: GPL-3.0-or-later
// tpacf_figure on its own (what `tpacf run --plot` links): a hand-made result drawn by
// CorrelationFigure (positive and negative w on log and linear y, error bars, the fit) and
// written offscreen as a PNG of the size asked, without any of Studio's widgets.
#include "correlation_figure.h"
#include "figure_plot.h"
#include "figure_style.h"
#include "tpacf_test_main.h"

#include <QFile>
#include <QImage>
#include <QImageReader>
#include <QTemporaryDir>
#include <QTest>

#include <qcustomplot.h>

#include <cmath>

using namespace tpacf;
using namespace tpacf::ui;

namespace {

/// Six log bins over 1'–100', w of both signs, σ in every bin; one non-finite w is skipped.
CorrelationResult handMadeResult() {
    CorrelationResult result;
    result.bins.scale = BinScale::Logarithmic;
    result.bins.unit = AngleUnit::Arcminute;
    for (int k = 0; k <= 6; ++k)
        result.edges.push_back(std::pow(10.0, k / 3.0));
    for (int k = 0; k < 6; ++k)
        result.centres.push_back(std::sqrt(result.edges[k] * result.edges[k + 1]));
    result.w = {0.5, 0.2, 0.05, -0.01, 0.004, std::nan("")};
    result.wError = {0.05, 0.03, 0.02, 0.015, 0.01, 0.01};
    result.data.name = "/some/where/data.txt";
    result.data.size = 1000;
    result.randoms.resize(2);
    return result;
}

int pointCount(const QCPGraph* graph) {
    return graph->visible() ? graph->dataCount() : 0;
}

} // namespace

class TestFigureRender : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void logYPutsNegativeWOnItsOwnGraph() {
        const CorrelationResult result = handMadeResult();
        QCustomPlot plot;
        setupFigurePlot(&plot);
        CorrelationFigure figure(&plot, plot.font());
        figure.drawPoints(&result, result.wError, true, 1.0);
        QCOMPARE(figure.plottedW().size(), 5); // the NaN bin is skipped
        QCOMPARE(figure.plottedWErrors().size(), 5);
        QCOMPARE(pointCount(figure.pointsGraph()), 4);
        QCOMPARE(pointCount(figure.negativeGraph()), 1);
        QCOMPARE(figure.negativeGraph()->data()->at(0)->value, 0.01); // |w|
        QVERIFY(plot.legend->hasItemWithPlottable(figure.negativeGraph()));
        QVERIFY(figure.yExtent().has_value());

        figure.drawPoints(&result, result.wError, false, 1.0);
        QCOMPARE(pointCount(figure.pointsGraph()), 5);
        QCOMPARE(pointCount(figure.negativeGraph()), 0);
        QVERIFY(!plot.legend->hasItemWithPlottable(figure.negativeGraph()));
    }

    void titleNamesTheInputs() {
        const QString title = CorrelationFigure::resultTitle(handMadeResult());
        QVERIFY2(title.contains(QStringLiteral("data.txt")), qPrintable(title));
        QVERIFY2(title.contains(QStringLiteral("2 random sets")), qPrintable(title));
    }

    void fitIsDrawnOverItsBins() {
        const CorrelationResult result = handMadeResult();
        FitCurve curve;
        curve.fit.amplitude = 0.5;
        curve.fit.gamma = 1.8;
        curve.fit.bins = {0, 1, 2};
        curve.fit.model.assign(result.centres.size(), 0.0);
        for (std::size_t k : curve.fit.bins)
            curve.fit.model[k] = 0.5 * std::pow(result.centres[k], 1.0 - 1.8);
        QCustomPlot plot;
        setupFigurePlot(&plot);
        CorrelationFigure figure(&plot, plot.font());
        figure.drawPoints(&result, result.wError, true, 1.0);
        figure.drawFit(&curve, &result, true, 1.0);
        const QVector<QPointF> drawn = figure.plottedFit();
        QVERIFY(drawn.size() > 3);
        QCOMPARE(drawn.front().x(), result.centres[0]);
        QCOMPARE(drawn.back().x(), result.centres[2]);
        figure.drawFit(nullptr, &result, true, 1.0);
        QVERIFY(figure.plottedFit().isEmpty());
    }

    void writesAPngOfTheAskedSize() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        FigureStyle style = FigureStyle::fromPreset(FigureStyle::Preset::Custom);
        style.widthIn = 3.0;
        style.heightIn = 2.0;
        style.dpi = 100;
        const QString path = dir.filePath(QStringLiteral("w.png"));
        QString error;
        QVERIFY2(exportCorrelationPlot(handMadeResult(), path, style, std::nullopt, &error),
                 qPrintable(error));
        QImageReader reader(path);
        QCOMPARE(reader.format(), QByteArray("png"));
        const QImage image = reader.read();
        QCOMPARE(image.size(), QSize(300, 200));
        QCOMPARE(std::lround(image.dotsPerMeterX() * 0.0254), 100L);
    }

    void refusesAnUnknownSuffix() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("w.gif"));
        QString error;
        QVERIFY(
            !exportCorrelationPlot(handMadeResult(), path, FigureStyle{}, std::nullopt, &error));
        QVERIFY2(error.contains(QStringLiteral(".png")), qPrintable(error));
        QVERIFY(!QFile::exists(path));
    }
};

TPACF_TEST_MAIN(TestFigureRender)
#include "test_figure_render.moc"
