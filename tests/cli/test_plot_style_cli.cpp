// SPDX-License-Identifier: GPL-3.0-or-later
// tpacf run --plot FILE --plot-style style.json end to end: the figure has the size the
// style asks (PDF page in points, PNG pixels and DPI, SVG in mm), the fitted curve is drawn with
// --fit, and a bad or missing style file, or --plot-style without --plot, is one line and exit 2
// before any counting.
#include "cli_process.h"
#include "tpacf_test_main.h"

#include <QColor>
#include <QFile>
#include <QImage>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

#ifndef TPACF_EXE
#error "TPACF_EXE must name the tpacf executable"
#endif

namespace {

using Outcome = tpacf::test::ProcessOutcome;
const QString kSamples = QStringLiteral(TPACF_SOURCE_DIR "/resources/samples/");

QByteArray readAll(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

bool writeText(const QString& path, const QByteArray& text) {
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(text) == text.size();
}

/// Pixels within 12 of `color` in each channel.
qint64 pixelsOf(const QImage& image, const QColor& color) {
    qint64 count = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) {
            const QColor pixel = image.pixelColor(x, y);
            if (std::abs(pixel.red() - color.red()) < 12 &&
                std::abs(pixel.green() - color.green()) < 12 &&
                std::abs(pixel.blue() - color.blue()) < 12)
                ++count;
        }
    return count;
}

} // namespace

class TestPlotStyleCli : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void styledFigure_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QByteArray>("style"); // "": no --plot-style
        QTest::addColumn<QSizeF>("size");      // PDF points, PNG pixels, SVG mm
        QTest::addColumn<int>("dpi");          // PNG only
        QTest::newRow("default PNG")
            << QStringLiteral("w.png") << QByteArray() << QSizeF(1800, 1200) << 300;
        QTest::newRow("single column PDF")
            << QStringLiteral("w.pdf") << QByteArray(R"({"preset": "single-column"})")
            << QSizeF(252, 189) << 0;
        QTest::newRow("double column PNG at 600 dpi")
            << QStringLiteral("w.png") << QByteArray(R"({"preset": "double-column", "dpi": 600})")
            << QSizeF(4320, 2160) << 600;
        QTest::newRow("5 x 3 in PDF, legend outside, title")
            << QStringLiteral("w.PDF")
            << QByteArray(R"({"widthIn": 5, "heightIn": 3, "legend": "outside", "title": true,
                              "thetaUnit": "deg", "x": {"scale": "linear"}})")
            << QSizeF(360, 216) << 0;
        QTest::newRow("SVG single column")
            << QStringLiteral("w.svg") << QByteArray(R"({"preset": "single-column"})")
            << QSizeF(88.9, 66.675) << 0;
    }

    void styledFigure() {
        QFETCH(QString, file);
        QFETCH(QByteArray, style);
        QFETCH(QSizeF, size);
        QFETCH(int, dpi);
        const QString plotPath = m_dir.filePath(file);
        QStringList arguments = runArguments() + QStringList{QStringLiteral("--plot"), plotPath};
        if (!style.isEmpty()) {
            const QString stylePath = m_dir.filePath(QStringLiteral("style.json"));
            QVERIFY(writeText(stylePath, style));
            arguments << QStringLiteral("--plot-style") << stylePath;
        }
        const Outcome outcome = run(arguments);
        if (file.endsWith(QStringLiteral(".svg")) && outcome.exitCode == 2 &&
            outcome.err.contains(QStringLiteral("SVG is not supported by this build")))
            QSKIP("this build has no Qt Svg: --plot refuses .svg, as checked");
        QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));
        const QByteArray content = readAll(plotPath);
        QVERIFY(!content.isEmpty());
        if (file.endsWith(QStringLiteral(".png"))) {
            const QImage image = QImage::fromData(content, "png");
            QCOMPARE(image.size(), size.toSize());
            QCOMPARE(qRound(image.dotsPerMeterX() * 0.0254), dpi);
        } else if (file.endsWith(QStringLiteral(".svg"))) {
            const auto match =
                QRegularExpression(
                    QStringLiteral(R"svg(<svg width="([\d.]+)mm" height="([\d.]+)mm")svg"))
                    .match(QString::fromUtf8(content));
            QVERIFY(match.hasMatch());
            QVERIFY(std::abs(match.captured(1).toDouble() - size.width()) < 0.1);
            QVERIFY(std::abs(match.captured(2).toDouble() - size.height()) < 0.1);
        } else {
            const auto match =
                QRegularExpression(
                    QStringLiteral(R"(/MediaBox\s*\[\s*0\s+0\s+([\d.]+)\s+([\d.]+)\s*\])"))
                    .match(QString::fromLatin1(content));
            QVERIFY2(match.hasMatch(), content.left(200).constData());
            QVERIFY(std::abs(match.captured(1).toDouble() - size.width()) <= 0.5);
            QVERIFY(std::abs(match.captured(2).toDouble() - size.height()) <= 0.5);
        }
    }

    void fitCurveDrawn() {
        // The curve's orange only where --fit asks for it.
        const QColor fitColor(0xd9, 0x5f, 0x02);
        const QString without = m_dir.filePath(QStringLiteral("nofit.png"));
        const QString with = m_dir.filePath(QStringLiteral("fit.png"));
        Outcome outcome = run(runArguments() + QStringList{QStringLiteral("--plot"), without});
        QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));
        outcome =
            run(runArguments() + QStringList{QStringLiteral("--plot"), with,
                                             QStringLiteral("--fit"), QStringLiteral("1:100")});
        QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));
        QCOMPARE(pixelsOf(QImage(without, "png"), fitColor), qint64(0));
        const qint64 drawn = pixelsOf(QImage(with, "png"), fitColor);
        QVERIFY2(drawn > 300, qPrintable(QString::number(drawn)));
    }

    void badStyle_data() {
        QTest::addColumn<QByteArray>("style"); // written to bad.json; "-": no such file
        QTest::addColumn<QString>("expected");
        QTest::newRow("unknown field") << QByteArray(R"({"legend": "auto", "colour": "red"})")
                                       << QStringLiteral("colour is not a figure style field");
        QTest::newRow("range") << QByteArray(R"({"x": {"min": 10, "max": 1}})")
                               << QStringLiteral("x.min (10) must be below x.max (1)");
        QTest::newRow("syntax") << QByteArray("{\"dpi\": 300,,}")
                                << QStringLiteral("not valid JSON");
        QTest::newRow("missing file") << QByteArray("-") << QStringLiteral("Cannot open");
    }

    void badStyle() {
        QFETCH(QByteArray, style);
        QFETCH(QString, expected);
        const QString stylePath = m_dir.filePath(style == "-" ? QStringLiteral("absent.json")
                                                              : QStringLiteral("bad.json"));
        if (style != "-")
            QVERIFY(writeText(stylePath, style));
        const QString csv = m_dir.filePath(QStringLiteral("never.csv"));
        QFile::remove(csv);
        const Outcome outcome = run(QStringList{
            QStringLiteral("run"), QStringLiteral("--data"),
            kSamples + QStringLiteral("sample_data.txt"), QStringLiteral("--random"),
            kSamples + QStringLiteral("sample_random_1.txt"), QStringLiteral("--output"), csv,
            QStringLiteral("--plot"), m_dir.filePath(QStringLiteral("never.png")),
            QStringLiteral("--plot-style"), stylePath});
        QCOMPARE(outcome.exitCode, 2);
        const QStringList lines = outcome.err.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 1);
        QVERIFY2(lines[0].contains(QStringLiteral("--plot-style")), qPrintable(lines[0]));
        QVERIFY2(lines[0].contains(stylePath), qPrintable(lines[0]));
        QVERIFY2(lines[0].contains(expected), qPrintable(lines[0]));
        QVERIFY(!QFile::exists(csv)); // refused before the count
    }

    void styleWithoutPlot() {
        const QString stylePath = m_dir.filePath(QStringLiteral("alone.json"));
        QVERIFY(writeText(stylePath, "{}"));
        const Outcome outcome = run(
            QStringList{QStringLiteral("run"), QStringLiteral("--data"),
                        kSamples + QStringLiteral("sample_data.txt"), QStringLiteral("--random"),
                        kSamples + QStringLiteral("sample_random_1.txt"),
                        QStringLiteral("--output"), m_dir.filePath(QStringLiteral("never.csv")),
                        QStringLiteral("--plot-style"), stylePath});
        QCOMPARE(outcome.exitCode, 2);
        QVERIFY2(outcome.err.contains(QStringLiteral("add --plot FILE")), qPrintable(outcome.err));
    }

private:
    QStringList runArguments() const {
        return {QStringLiteral("run"),
                QStringLiteral("--data"),
                kSamples + QStringLiteral("sample_data.txt"),
                QStringLiteral("--random"),
                kSamples + QStringLiteral("sample_random_1.txt"),
                QStringLiteral("--preset"),
                QStringLiteral("log5"),
                QStringLiteral("--jackknife"),
                QStringLiteral("20"),
                QStringLiteral("--backend"),
                QStringLiteral("cpu"),
                QStringLiteral("--quiet"),
                QStringLiteral("--output"),
                m_dir.filePath(QStringLiteral("w.csv"))};
    }

    static Outcome run(const QStringList& arguments) {
        return tpacf::test::runProcess(QStringLiteral(TPACF_EXE), arguments, QString(), 120000);
    }

    QTemporaryDir m_dir;
};

TPACF_TEST_MAIN(TestPlotStyleCli)
#include "test_plot_style_cli.moc"
