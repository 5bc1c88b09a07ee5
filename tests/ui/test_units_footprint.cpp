// SPDX-License-Identifier: GPL-3.0-or-later
// Units, footprints and files that hold no text, through the GUI layer (offscreen): the mapping
// dialog offers every unit and suggests one from the values (a headerless file in arcmin or
// radians gets the dialog; one in degrees does not), keeps units a session gave, refuses binary
// files and stays on the screen with lines of 10,000 bytes; the catalog set warns about data off
// their randoms and catalogs read in a unit their values do not fit, offers a failed load again
// in the unit its values fit, and rereads a catalog in place; the panel shows all of it; the sky
// preview shows the randoms by default.
#include "catalog_set.h"
#include "catalogs_panel.h"
#include "column_mapping_dialog.h"
#include "sky_plot.h"
#include "tpacf_test_main.h"

#include <tpacf/errors.h>
#include <tpacf/mock.h>
#include <tpacf/text_check.h>

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QScreen>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeWidget>

#include <random>

using namespace tpacf;
using namespace tpacf::ui;

namespace {

constexpr int kTimeoutMs = 30000;

bool waitIdle(const CatalogSet& set) {
    return QTest::qWaitFor([&set] { return !set.isLoading(); }, kTimeoutMs);
}

// `rows` points of a 20° × 10° box at RA 150–170°, Dec 0–10°, written as `unit` values.
QByteArray boxText(int rows, double raScale, double decScale, double raOffset = 150,
                   double decOffset = 0) {
    std::mt19937_64 random(42);
    std::uniform_real_distribution<double> unit(0, 1);
    QByteArray text;
    for (int i = 0; i < rows; ++i)
        text += QByteArray::number((raOffset + 20 * unit(random)) * raScale, 'g', 12) + ' ' +
                QByteArray::number((decOffset + 10 * unit(random)) * decScale, 'g', 12) + '\n';
    return text;
}

ColumnMappingDialog* openDialog() {
    for (QWidget* widget : QApplication::topLevelWidgets())
        if (auto* dialog = qobject_cast<ColumnMappingDialog*>(widget);
            dialog && dialog->isVisible())
            return dialog;
    return nullptr;
}

} // namespace

Q_DECLARE_METATYPE(tpacf::AngleUnit)

class TestUnitsFootprint : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void textProblems_data();
    void textProblems();
    void dialogOffersEveryUnit();
    void headerlessFileGetsTheSuggestedUnit_data();
    void headerlessFileGetsTheSuggestedUnit();
    void chosenUnitsAreKeptAndCompared();
    void binaryFileIsRefusedBeforeAPreview();
    void longLinesKeepTheDialogOnTheScreen();
    void footprintWarningOfTheSet();
    void catalogInTheWrongUnitIsTold();
    void failedLoadOffersTheUnitItsValuesFit();
    void rereadKeepsTheRandomsPlace();
    void panelRereadsThroughTheDialog();
    void skyPreviewShowsRandomsByDefault();

private:
    QString write(const QString& name, const QByteArray& bytes);

    QTemporaryDir m_dir;
};

QString TestUnitsFootprint::write(const QString& name, const QByteArray& bytes) {
    const QString path = m_dir.filePath(name);
    QFile file(path);
    if (file.open(QIODevice::WriteOnly))
        file.write(bytes);
    return path;
}

void TestUnitsFootprint::initTestCase() {
    QVERIFY(m_dir.isValid());
}

void TestUnitsFootprint::textProblems_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("problem"); // "": text

    QTest::newRow("plain text") << QByteArray("# ra dec\n10 20\r\n11\t21\n") << QString();
    QTest::newRow("utf-8 header") << QByteArray("# RA (°) Dec (°)\n10 20\n") << QString();
    // A Latin-1 "°" in a header is one odd byte among many: still text.
    QTest::newRow("latin-1 header")
        << QByteArray("# RA (\xB0) Dec (\xB0)\n10 20\n11 21\n") << QString();
    QTest::newRow("cut inside a character") << QByteArray("10 20\n# \xC2") << QString();
    QTest::newRow("NUL byte") << QByteArray("10 20\n\0\1\2", 9)
                              << QStringLiteral("looks like a binary file, not text (a NUL byte "
                                                "at byte 7); FITS tables are read from files "
                                                "named .fits, .fit or .fts (also .gz)");
    QTest::newRow("gzip") << QByteArray("\x1F\x8B\x08\x00", 4)
                          << QStringLiteral("is gzip-compressed");
    QTest::newRow("FITS") << QByteArray("SIMPLE  =                    T")
                          << QStringLiteral(".fits");
    QTest::newRow("UTF-16") << QByteArray("\xFF\xFE"
                                          "1\0"
                                          "0\0",
                                          6)
                            << QStringLiteral("UTF-16");
    QByteArray noise;
    std::mt19937 random(3);
    for (int i = 0; i < 4096; ++i)
        noise += char(0x80 | (random() & 0x7F)); // never NUL; mostly no UTF-8 either
    QTest::newRow("high bytes") << noise << QStringLiteral("are neither UTF-8 text");
}

void TestUnitsFootprint::textProblems() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, problem);
    const auto found = textProblem(std::string_view(bytes.constData(), std::size_t(bytes.size())));
    if (problem.isEmpty()) {
        QVERIFY2(!found, found ? found->c_str() : "");
        return;
    }
    QVERIFY(found.has_value());
    QVERIFY2(QString::fromStdString(*found).contains(problem), found->c_str());
}

void TestUnitsFootprint::dialogOffersEveryUnit() {
    const QString path = write(QStringLiteral("three.txt"), "# ra dec z\n10 20 0.1\n");
    ColumnMappingDialog dialog(CatalogSource{path}, previewCatalogFile(path.toStdString()));
    QStringList units;
    for (int i = 0; i < dialog.unitCombo()->count(); ++i)
        units.append(dialog.unitCombo()->itemText(i));
    QCOMPARE(units, (QStringList{QStringLiteral("deg"), QStringLiteral("arcmin"),
                                 QStringLiteral("arcsec"), QStringLiteral("rad")}));
    QVERIFY(dialog.raInHoursCheck() != nullptr);
    // arcsec reaches the source.
    dialog.unitCombo()->setCurrentIndex(dialog.unitCombo()->findText(QStringLiteral("arcsec")));
    QCOMPARE(dialog.source().unit, AngleUnit::Arcsecond);
    dialog.raInHoursCheck()->setChecked(true);
    QVERIFY(dialog.source().raInHours);
}

void TestUnitsFootprint::headerlessFileGetsTheSuggestedUnit_data() {
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<bool>("needsDialog");
    QTest::addColumn<AngleUnit>("unit");
    QTest::addColumn<bool>("raInHours");
    QTest::addColumn<QString>("note"); // part of the unit note; "" : hidden

    const double degree = kPi / 180;
    QTest::newRow("degrees") << boxText(30, 1, 1) << false << AngleUnit::Degree << false
                             << QString();
    // The file: Dec up to 600′ (10°), RA 9000–10200′.
    QTest::newRow("arcmin") << boxText(30, 60, 60) << true << AngleUnit::Arcminute << false
                            << QStringLiteral("Unit suggested by the values: |Dec| up to");
    QTest::newRow("arcsec") << boxText(30, 3600, 3600) << true << AngleUnit::Arcsecond << false
                            << QStringLiteral("arcsec?");
    QTest::newRow("radians") << boxText(30, degree, degree) << true << AngleUnit::Radian << false
                             << QStringLiteral("all |Dec| ≤ π/2 and RA within [0, 2π]: radians?");
    // Hours: only mentioned, as a field in degrees at RA < 24° looks the same.
    QTest::newRow("hours") << boxText(30, 1.0 / 15, 1, 150, 20) << false << AngleUnit::Degree
                           << false << QStringLiteral("The values would also fit: all RA within");
}

void TestUnitsFootprint::headerlessFileGetsTheSuggestedUnit() {
    QFETCH(QByteArray, text);
    QFETCH(bool, needsDialog);
    QFETCH(AngleUnit, unit);
    QFETCH(bool, raInHours);
    QFETCH(QString, note);
    const QString path =
        write(QStringLiteral("%1.txt").arg(QString::fromLatin1(QTest::currentDataTag())), text);
    const TablePreview preview = previewCatalogFile(path.toStdString());
    QCOMPARE(preview.columnCount, std::size_t(2));
    QVERIFY(!preview.hasHeader);
    QCOMPARE(ColumnMappingDialog::needsMapping(preview), needsDialog);

    ColumnMappingDialog dialog(CatalogSource{path}, preview);
    QCOMPARE(dialog.source().unit, unit);
    QCOMPARE(dialog.source().raInHours, raInHours);
    QCOMPARE(dialog.unitNoteLabel()->isHidden(), note.isEmpty());
    QVERIFY2(dialog.unitNoteLabel()->text().contains(note),
             qPrintable(dialog.unitNoteLabel()->text()));

    // What the dialog chose reads the whole file, into the 150–170° × 0–30° the text holds.
    CatalogSet set;
    CatalogChange change;
    change.data = dialog.source();
    QSignalSpy failed(&set, &CatalogSet::changeFailed);
    set.queueChange(change);
    QVERIFY(waitIdle(set));
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.front().at(1).toString()));
    QCOMPARE(set.dataCatalog()->size(), std::size_t(30));
    // The hours row is read in degrees, as the user would have left it: RA 10–11.3°.
    if (QLatin1String(QTest::currentDataTag()) != QLatin1String("hours")) {
        const SkyExtent extent = set.dataCatalog()->extent();
        QVERIFY(extent.raMin >= 150 * kPi / 180 - 1e-9 && extent.raMax <= 170 * kPi / 180 + 1e-9);
        QVERIFY(set.unitWarnings().isEmpty());
    }
}

void TestUnitsFootprint::chosenUnitsAreKeptAndCompared() {
    const double degree = kPi / 180;
    const QString path = write(QStringLiteral("radians_kept.txt"), boxText(20, degree, degree));
    const TablePreview preview = previewCatalogFile(path.toStdString());
    // A source that names its units (a session) keeps them; the note says the values disagree.
    CatalogSource given{path};
    given.unit = AngleUnit::Arcsecond;
    ColumnMappingDialog kept(given, preview);
    QCOMPARE(kept.source().unit, AngleUnit::Arcsecond);
    QVERIFY2(kept.unitNoteLabel()->text().startsWith(QStringLiteral("Read as arcsec? The values "
                                                                    "suggest otherwise")),
             qPrintable(kept.unitNoteLabel()->text()));
    // Back to what the values say: the note agrees.
    kept.unitCombo()->setCurrentIndex(kept.unitCombo()->findData(int(AngleUnit::Radian)));
    QVERIFY(
        kept.unitNoteLabel()->text().startsWith(QStringLiteral("Unit suggested by the values")));
    // A unit the user picks stays when the columns change.
    ColumnMappingDialog picked(CatalogSource{path}, preview);
    QCOMPARE(picked.source().unit, AngleUnit::Radian);
    picked.unitCombo()->setCurrentIndex(picked.unitCombo()->findData(int(AngleUnit::Degree)));
    picked.decCombo()->setCurrentIndex(0);
    picked.decCombo()->setCurrentIndex(1);
    QCOMPARE(picked.source().unit, AngleUnit::Degree);
    QVERIFY(picked.unitNoteLabel()->text().startsWith(QStringLiteral("Read as deg?")));
}

void TestUnitsFootprint::binaryFileIsRefusedBeforeAPreview() {
    QByteArray bytes("\x7F"
                     "ELF\x02\x01\x01",
                     7);
    bytes += QByteArray(300, '\0');
    bytes += "10 20 30 40 50\n";
    const QString path = write(QStringLiteral("program.bin"), bytes);
    const TablePreview preview = previewCatalogFile(path.toStdString());
    ColumnMappingDialog dialog(CatalogSource{path}, preview);
    QVERIFY(dialog.refusal().startsWith(path + QStringLiteral(": looks like a binary file")));
    QVERIFY(!dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok)->isEnabled());
    QVERIFY(dialog.findChild<QTableWidget*>()->isHidden());
    QVERIFY(dialog.noteLabel()->text().contains(QStringLiteral("FITS tables are read from files "
                                                               "named .fits, .fit or .fts")));
    // Loading it anyway says the same, naming the file.
    CatalogSet set;
    QSignalSpy failed(&set, &CatalogSet::changeFailed);
    CatalogChange change;
    change.data = CatalogSource{path};
    set.queueChange(change);
    QVERIFY(failed.wait(kTimeoutMs));
    const QString message = failed.front().at(1).toString();
    QVERIFY2(message.startsWith(path + QStringLiteral(": looks like a binary file, not text (a NUL "
                                                      "byte at byte 8)")),
             qPrintable(message));
    // A text file under a binary-looking name is no problem.
    QVERIFY(binaryFileMessage(write(QStringLiteral("text.bin"), "10 20\n")).isEmpty());
}

void TestUnitsFootprint::longLinesKeepTheDialogOnTheScreen() {
    const QByteArray longName(10000, 'x');
    QByteArray text = "ra dec " + longName + "\n";
    for (int i = 0; i < 5; ++i)
        text += "10 20 " + QByteArray(8000, '7') + "\n";
    const QString path = write(QStringLiteral("long.txt"), text);
    ColumnMappingDialog dialog(CatalogSource{path}, previewCatalogFile(path.toStdString()));
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    const QRect available = dialog.screen()->availableGeometry();
    QVERIFY2(
        dialog.frameGeometry().width() <= available.width(),
        qPrintable(
            QStringLiteral("%1 > %2").arg(dialog.frameGeometry().width()).arg(available.width())));
    QVERIFY(dialog.height() <= available.height());
    // Nothing in it asks for more (a combo of 10,000-character column names would ask for
    // 70,000 px): adjustSize() would keep it on the screen too.
    QVERIFY2(dialog.sizeHint().width() <= available.width(),
             qPrintable(QString::number(dialog.sizeHint().width())));
    auto* table = dialog.findChild<QTableWidget*>();
    QCOMPARE(table->item(0, 2)->text().size(), ColumnMappingDialog::kMaxFieldChars);
    QCOMPARE(table->item(0, 2)->toolTip().size(), qsizetype(8000)); // whole in the tooltip
    QCOMPARE(table->horizontalHeaderItem(2)->text(),
             QStringLiteral("3: ") +
                 QString(ColumnMappingDialog::kMaxFieldChars - 1, QLatin1Char('x')) +
                 QChar(0x2026));
    QCOMPARE(dialog.raCombo()->currentText(), QStringLiteral("1: ra"));
    // OK is inside the dialog, on the screen.
    QPushButton* ok = dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
    QVERIFY(ok->isEnabled());
    const QPoint okRight = ok->mapToGlobal(QPoint(ok->width(), 0));
    QVERIFY(okRight.x() <= available.right() + 1);
}

void TestUnitsFootprint::footprintWarningOfTheSet() {
    // Data in a cap at RA 0°, randoms in the opposite cap: every data point is off the randoms.
    const QString data = m_dir.filePath(QStringLiteral("cap_data.txt"));
    const QString randoms = m_dir.filePath(QStringLiteral("cap_randoms.txt"));
    const QString inside = m_dir.filePath(QStringLiteral("cap_randoms_same.txt"));
    writeCatalogAscii(data.toStdString(),
                      generateUniformRandoms(3000, Footprint::cap(0, 0, 10), 1));
    writeCatalogAscii(randoms.toStdString(),
                      generateUniformRandoms(9000, Footprint::cap(180, 0, 15), 2));
    writeCatalogAscii(inside.toStdString(),
                      generateUniformRandoms(9000, Footprint::cap(0, 0, 10), 3));
    CatalogSet set;
    CatalogsPanel panel;
    connect(&set, &CatalogSet::catalogsChanged, &panel,
            [&] { panel.setCatalogs(set.data(), set.randoms(), set.data2(), set.randoms2()); });
    CatalogChange change;
    change.data = CatalogSource{data};
    change.randoms = {CatalogSource{randoms}};
    set.queueChange(change);
    QVERIFY(waitIdle(set));
    const QString warning = set.footprintWarning();
    QVERIFY2(warning.startsWith(QStringLiteral("cap_data.txt and its randoms: 100 % of the data "
                                               "points lie in sky cells")),
             qPrintable(warning));
    QVERIFY(set.footprintWarning() == warning); // asked again: the same (kept) answer
    QVERIFY(!panel.warningLabel()->isHidden());
    QVERIFY2(panel.warningText().contains(warning), qPrintable(panel.warningText()));

    // Randoms over the data's cap: the randoms at fault are removed, and the warning goes.
    CatalogChange fix;
    fix.randoms = {CatalogSource{inside}};
    set.queueChange(fix);
    QVERIFY(waitIdle(set));
    // The far randoms still count: the randoms now cover 3.25 times the data's cap.
    QVERIFY2(set.footprintWarning().contains(QStringLiteral("times the data's area")),
             qPrintable(set.footprintWarning()));
    QVERIFY(set.removeRandom(0));
    QVERIFY2(set.footprintWarning().isEmpty(), qPrintable(set.footprintWarning()));
    QVERIFY(panel.warningLabel()->isHidden());
    QVERIFY(panel.warningText().isEmpty());

    // The second sample is compared with the first's randoms where it has none.
    CatalogChange second;
    second.data2 = CatalogSource{randoms};
    set.queueChange(second);
    QVERIFY(waitIdle(set));
    QVERIFY2(set.footprintWarning().startsWith(QStringLiteral("cap_randoms.txt and its randoms: "
                                                              "100 %")),
             qPrintable(set.footprintWarning()));
}

void TestUnitsFootprint::catalogInTheWrongUnitIsTold() {
    // A file in radians read as degrees (as a headerless file was, before the dialog asked).
    const double degree = kPi / 180;
    const QString path = write(QStringLiteral("radians.txt"), boxText(40, degree, degree));
    CatalogSet set;
    CatalogsPanel panel;
    CatalogChange change;
    change.data = CatalogSource{path};
    set.queueChange(change);
    QVERIFY(waitIdle(set));
    QCOMPARE(set.unitWarnings(),
             QStringList{QStringLiteral("radians.txt: read as deg, but all |Dec| ≤ π/2 and RA "
                                        "within [0, 2π]: radians?")});
    panel.setCatalogs(set.data(), set.randoms());
    QVERIFY(panel.warningText().contains(set.unitWarnings().front()));
    QVERIFY(panel.warningText().contains(QStringLiteral("Change the unit…")));
    // Read again in radians: nothing to tell.
    CatalogSource radians{path};
    radians.unit = AngleUnit::Radian;
    set.queueChange(CatalogChange::reread(CatalogRole::Data, 0, radians));
    QVERIFY(waitIdle(set));
    QVERIFY(set.unitWarnings().isEmpty());
    panel.setCatalogs(set.data(), set.randoms());
    QVERIFY(panel.warningText().isEmpty());
}

void TestUnitsFootprint::failedLoadOffersTheUnitItsValuesFit() {
    // Arcminutes whose first rows would pass as degrees: the preview says nothing, the reader
    // fails at a later row, and the set offers the unit all the values fit.
    QByteArray text;
    for (int i = 0; i < 60; ++i)
        text += QByteArray::number(10 + i) + ' ' + QByteArray::number(3 * i) + '\n';
    const QString path = write(QStringLiteral("late_arcmin.txt"), text);
    const QString random = write(QStringLiteral("late_random.txt"), boxText(50, 1, 1));
    CatalogSet set;
    CatalogsPanel panel;
    panel.setCatalogSet(&set);
    QSignalSpy failed(&set, &CatalogSet::changeFailed);
    QSignalSpy unitFailure(&set, &CatalogSet::unitFailureChanged);
    CatalogChange change;
    change.data = CatalogSource{path};
    change.randoms = {CatalogSource{random}};
    set.queueChange(change);
    QVERIFY(waitIdle(set));
    QCOMPARE(failed.count(), 1);
    const QString message = failed.front().at(1).toString();
    QVERIFY2(message.contains(QStringLiteral("line 32, column 2: Dec 93 deg is outside [-90, 90]")),
             qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("Its values fit arcmin (|Dec| up to 177 is beyond 90 "
                                             "but within 5400: arcmin?)")),
             qPrintable(message));
    // Issue 35, item 14: the unit is chosen in the column dialog, and the message says so.
    QVERIFY2(message.endsWith(QStringLiteral("choose the unit in the column dialog (Columns… under "
                                             "the catalog list).")),
             qPrintable(message));
    QCOMPARE(unitFailure.count(), 1);
    QVERIFY(set.unitFailure().has_value());
    const UnitFailure failure = *set.unitFailure();
    QCOMPARE(failure.fileIndex, 0);
    QCOMPARE(failure.suggested.unit, AngleUnit::Arcminute);
    QVERIFY(panel.warningText().contains(QStringLiteral("late_arcmin.txt could not be read in deg; "
                                                        "its values fit arcmin")));
    QVERIFY(panel.warningText().contains(QStringLiteral("Choose the unit…")));

    // Retried in arcmin: both files load, and the offer goes.
    set.queueChange(failure.retriedWith(failure.suggested));
    QVERIFY(waitIdle(set));
    QCOMPARE(failed.count(), 1);
    QCOMPARE(set.dataCatalog()->size(), std::size_t(60));
    QCOMPARE(set.data()->source.unit, AngleUnit::Arcminute);
    QCOMPARE(set.randoms().front().source.unit, AngleUnit::Degree); // only the file at fault
    QVERIFY(!set.unitFailure());
    QCOMPARE(unitFailure.count(), 2);
    QVERIFY(!panel.warningText().contains(QStringLiteral("could not be read")));
}

void TestUnitsFootprint::rereadKeepsTheRandomsPlace() {
    const QString a = write(QStringLiteral("ra.txt"), boxText(11, 1, 1));
    const QString b = write(QStringLiteral("rb.txt"), boxText(12, 1, 1));
    CatalogSet set;
    CatalogChange change;
    change.randoms = {CatalogSource{a}, CatalogSource{b}};
    set.queueChange(change);
    QVERIFY(waitIdle(set));
    CatalogSource arcmin{a};
    arcmin.unit = AngleUnit::Arcminute;
    const auto before = set.randoms()[1].catalog;
    set.queueChange(CatalogChange::reread(CatalogRole::Random, 0, arcmin));
    QVERIFY(waitIdle(set));
    QCOMPARE(set.randoms().size(), 2);
    QVERIFY(set.randoms()[0].source == arcmin);
    QCOMPARE(set.randoms()[0].catalog->size(), std::size_t(11));
    QVERIFY(set.randoms()[1].catalog == before);
    // arcmin values: 1/60 of the degrees read before.
    QVERIFY(set.randoms()[0].catalog->extent().raMax < 3.0 * kPi / 180);
}

void TestUnitsFootprint::panelRereadsThroughTheDialog() {
    const QString path = write(QStringLiteral("panel_arcmin.txt"), boxText(25, 60, 60));
    CatalogSet set;
    CatalogChange change;
    CatalogSource asDegrees{path};
    asDegrees.unit = AngleUnit::Arcsecond; // read in a wrong unit that still passes
    change.randoms = {asDegrees};
    set.queueChange(change);
    QVERIFY(waitIdle(set));
    CatalogsPanel panel;
    panel.setCatalogs(set.data(), set.randoms());
    QTreeWidget* tree = panel.tree();
    tree->setCurrentItem(tree->topLevelItem(1)->child(0));
    QVERIFY(panel.columnsButton()->isEnabled());
    QSignalSpy requested(&panel, &CatalogsPanel::changeRequested);
    // The dialog is modal: answer it once it shows.
    bool seen = false;
    QTimer::singleShot(0, &panel, [&] {
        QVERIFY(QTest::qWaitFor([] { return openDialog() != nullptr; }, kTimeoutMs));
        ColumnMappingDialog* dialog = openDialog();
        seen = true;
        // The unit the source had is kept (it was given), and the note says it is wrong.
        QCOMPARE(dialog->source().unit, AngleUnit::Arcsecond);
        dialog->unitCombo()->setCurrentIndex(
            dialog->unitCombo()->findData(int(AngleUnit::Arcminute)));
        dialog->accept();
    });
    panel.columnsButton()->click();
    QVERIFY(seen);
    QCOMPARE(requested.count(), 1);
    const auto requestedChange = requested.front().front().value<CatalogChange>();
    QCOMPARE(requestedChange.replaceRandom, 0);
    QCOMPARE(requestedChange.randoms.size(), 1);
    QCOMPARE(requestedChange.randoms.front().unit, AngleUnit::Arcminute);
    QVERIFY(!requestedChange.data);
    // The bundled sample (a resource) has nothing to map.
    CatalogsPanel samplePanel;
    samplePanel.setCatalogs(LoadedCatalog{CatalogSource{QStringLiteral(":/samples/x.txt")},
                                          set.randoms().front().catalog},
                            {});
    samplePanel.tree()->setCurrentItem(samplePanel.tree()->topLevelItem(0)->child(0));
    QVERIFY(!samplePanel.columnsButton()->isEnabled());
}

void TestUnitsFootprint::skyPreviewShowsRandomsByDefault() {
    SkyPlot sky;
    QVERIFY(sky.randomsCheck()->isChecked());
    auto data = std::make_shared<const Catalog>(
        generateUniformRandoms(500, Footprint::box(10, 30, 0, 10), 1));
    auto randoms = std::make_shared<const Catalog>(
        generateUniformRandoms(2000, Footprint::box(10, 30, 0, 10), 2));
    sky.setCatalogs(data, {randoms});
    QCOMPARE(sky.plottedDataPoints(), 500);
    QCOMPARE(sky.plottedRandomPoints(), 2000);
    sky.randomsCheck()->setChecked(false);
    QCOMPARE(sky.plottedRandomPoints(), 0);
}

TPACF_TEST_MAIN(TestUnitsFootprint)
#include "test_units_footprint.moc"
