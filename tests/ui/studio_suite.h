// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Shared by the TPACF Studio suites (test_studio_*.cpp), which drive the GUI layer on the
// offscreen platform: helpers, a fake GPU provider, the FITS sample and StudioSuite, the fixture
// (small catalogs written by core, quick bins) each suite's initTestCase sets up.
#include "backend_panel.h"
#include "binning_panel.h"
#include "catalogs_panel.h"
#include "column_mapping_dialog.h"
#include "covariance_view.h"
#include "errors_panel.h"
#include "main_window.h"
#include "plot_panel.h"
#include "result_table.h"
#include "sky_plot.h"
#include "tpacf_test_main.h"

#include <tpacf/catalog_reader.h>
#include <tpacf/correlation_job.h>
#include <tpacf/errors.h>
#include <tpacf/mock.h>
#include <tpacf/result_io.h>

#include <qcustomplot.h>

#include <QAbstractItemView>
#include <QAction>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFile>
#include <QHeaderView>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeWidget>

#include <cmath>
#include <numeric>
#include <random>

#ifdef TPACF_TEST_HAVE_CFITSIO
#include <fitsio.h>
#endif

using namespace tpacf;
using namespace tpacf::ui;

namespace studiosuite {

// Doubles are equal, NaN included (an empty bin's w is NaN on both sides).
inline bool sameDouble(double a, double b) {
    return (std::isnan(a) && std::isnan(b)) || a == b;
}

// Catalogs are read on a background thread: waits until the window has no load left, processing
// events meanwhile. False on a timeout.
inline bool waitForLoads(MainWindow& window, int timeoutMs = 60000) {
    return QTest::qWaitFor([&window] { return !window.isLoading(); }, timeoutMs);
}

// Calls `start` (which queues a catalog load: setDataCatalog(), loadSession() and the like) and
// waits for the load to end: true when it was queued and its catalogs are now the window's.
template <typename Start> bool loadAndWait(MainWindow& window, Start&& start) {
    QSignalSpy finished(&window, &MainWindow::loadFinished);
    if (!start())
        return false;
    if (!waitForLoads(window) || finished.isEmpty())
        return false;
    return finished.last().front().toBool();
}

inline MainWindow::Options testOptions() {
    MainWindow::Options options;
    options.loadSample = false;
    options.useSettings = false;
    options.interactive = false; // no modal dialog may block a test
    return options;
}

// A GPU module with two devices whose counters cannot be created: lists like CUDA would and
// lets a run fail inside the job, as a broken driver would.
class FakeGpuProvider final : public BackendModule {
public:
    std::string name() const override { return "cuda"; }
    bool compiledIn() const override { return true; }
    std::vector<GpuDeviceInfo> devices() const override {
        return {{.index = 0,
                 .name = "Fake A100",
                 .memoryBytes = 40ull << 30,
                 .computeMajor = 8,
                 .computeMinor = 0,
                 .multiprocessors = 108},
                {.index = 1,
                 .name = "Fake H100",
                 .memoryBytes = 80ull << 30,
                 .computeMajor = 9,
                 .computeMinor = 0,
                 .multiprocessors = 132}};
    }
    std::string unavailableReason() const override { return ""; }
    std::string versionDescription() const override { return "CUDA runtime 99.0, driver 99.0"; }
    std::unique_ptr<PairCounter> create(Precision, const std::vector<int>&) const override {
        throw BackendUnavailable("fake device lost");
    }
};

// ra dec w rows from `catalog` (degrees) with weights 0.5 + (i mod 7)/4, every 97th negative:
// writes the file and returns the weights as written (the text the reader parses).
inline std::vector<double> writeWeighted(const QString& path, const Catalog& catalog) {
    std::vector<double> weights;
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text))
        return weights;
    QTextStream out(&file);
    out.setRealNumberPrecision(17);
    for (std::size_t i = 0; i < catalog.size(); ++i) {
        const double w = (i % 97 == 3 ? -1.0 : 1.0) * (0.5 + double(i % 7) / 4.0);
        weights.push_back(w);
        out << fromRadians(catalog.ra()[i], AngleUnit::Degree) << ' '
            << fromRadians(catalog.dec()[i], AngleUnit::Degree) << ' ' << w << '\n';
    }
    return weights;
}

// The catalogs panel's row of the first catalog in group `group`.
inline const QTreeWidgetItem* catalogRow(const MainWindow& window, int group) {
    const QTreeWidgetItem* header = window.catalogsPanel()->tree()->topLevelItem(group);
    return header && header->childCount() > 0 ? header->child(0) : nullptr;
}

// The tables of the FITS file: CATALOG (RA, DEC, Z) and RANDOMS with its columns in another
// order (Z, W, DEC, RA), so that a column number of one HDU is wrong in the other.
struct FitsSample {
    std::vector<double> ra, dec, z, w;
};

inline FitsSample makeFitsSample(std::size_t rows, unsigned seed) {
    std::mt19937_64 random(seed);
    std::uniform_real_distribution<double> raDist(150.0, 170.0), decDist(0.0, 20.0),
        zDist(0.0, 1.2), wDist(0.5, 2.0);
    FitsSample sample;
    for (std::size_t i = 0; i < rows; ++i) {
        sample.ra.push_back(raDist(random));
        sample.dec.push_back(decDist(random));
        sample.z.push_back(zDist(random));
        sample.w.push_back(wDist(random));
    }
    return sample;
}

inline const FitsSample& fitsCatalog() {
    static const FitsSample sample = makeFitsSample(40, 141);
    return sample;
}

inline const FitsSample& fitsRandoms() {
    static const FitsSample sample = makeFitsSample(300, 142);
    return sample;
}

// The RANDOMS rows the filter "Z>0.4 && Z<0.8" keeps, in file order (RA, Dec in degrees).
inline std::pair<std::vector<double>, std::vector<double>> filteredRandoms() {
    std::vector<double> ra, dec;
    const FitsSample& randoms = fitsRandoms();
    for (std::size_t i = 0; i < randoms.z.size(); ++i)
        if (randoms.z[i] > 0.4 && randoms.z[i] < 0.8) {
            ra.push_back(randoms.ra[i]);
            dec.push_back(randoms.dec[i]);
        }
    return {ra, dec};
}

#ifdef TPACF_TEST_HAVE_CFITSIO
// A binary table HDU of double columns; cfitsio's status accumulates in `status`.
inline void writeFitsTable(fitsfile* file, const char* extname,
                           const std::vector<const char*>& names,
                           const std::vector<const std::vector<double>*>& columns, int& status) {
    std::vector<const char*> forms(names.size(), "D");
    fits_create_tbl(file, BINARY_TBL, 0, int(names.size()), const_cast<char**>(names.data()),
                    const_cast<char**>(forms.data()), nullptr, extname, &status);
    for (std::size_t c = 0; c < columns.size(); ++c) {
        std::vector<double> values = *columns[c];
        fits_write_col(file, TDOUBLE, int(c) + 1, 1, 1, LONGLONG(values.size()), values.data(),
                       &status);
    }
}
#endif

#ifdef TPACF_TEST_HAVE_CFITSIO
// A partial HEALPix map as healpy writes one (write_map(partial=True)): PIXEL and SIGNAL
// columns, the pixels in `ordering` ("RING" or "NESTED") at `nside`. Returns cfitsio's status.
inline int writeHealpixMap(const QString& path, long nside, const char* ordering,
                           const std::vector<long long>& pixels,
                           const std::vector<double>& values) {
    int status = 0;
    fitsfile* file = nullptr;
    std::string name("!");
    name += path.toStdString();
    fits_create_file(&file, name.c_str(), &status);
    const char* names[] = {"PIXEL", "SIGNAL"};
    const char* forms[] = {"K", "D"};
    fits_create_tbl(file, BINARY_TBL, 0, 2, const_cast<char**>(names), const_cast<char**>(forms),
                    nullptr, "MASK", &status);
    fits_write_col(file, TLONGLONG, 1, 1, 1, LONGLONG(pixels.size()),
                   const_cast<long long*>(pixels.data()), &status);
    fits_write_col(file, TDOUBLE, 2, 1, 1, LONGLONG(values.size()),
                   const_cast<double*>(values.data()), &status);
    fits_write_key(file, TSTRING, "PIXTYPE", const_cast<char*>("HEALPIX"), nullptr, &status);
    fits_write_key(file, TSTRING, "ORDERING", const_cast<char*>(ordering), nullptr, &status);
    fits_write_key(file, TSTRING, "INDXSCHM", const_cast<char*>("EXPLICIT"), nullptr, &status);
    fits_write_key(file, TLONG, "NSIDE", &nside, nullptr, &status);
    fits_close_file(file, &status);
    return status;
}
#endif

class StudioSuite : public QObject {
protected:
    /// Writes the catalogs; each suite's initTestCase calls it.
    void initFixture();
    /// A window with the small catalogs loaded, CPU backend, quick bins.
    std::unique_ptr<MainWindow> makeWindow();
    /// Runs to completion; fails the test on a failure signal or a timeout.
    ResultPtr runToCompletion(MainWindow& window);
    QString writeCatalog(const QString& name, const Catalog& catalog);
    /// The two-table FITS file of the issue-14 tests (written once): its path, or "" after a
    /// failed check.
    QString twoTableFits();
    /// Sets jackknife over `regions` k-means regions with `seed` through the Errors controls.
    static void chooseJackknife(MainWindow& window, int regions, quint64 seed);

    QTemporaryDir m_dir;
    QString m_dataPath, m_randomPath1, m_randomPath2;
    BinSpec m_bins = BinSpec::logPerDecade(1.0, 600.0, AngleUnit::Arcminute, 5);
    QString m_fitsPath;
};

inline void StudioSuite::initFixture() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    MockParams mock;
    mock.count = 3000;
    mock.seed = 7;
    mock.footprint = Footprint::box(150, 170, 0, 20);
    mock.outerRadiusDeg = 3;
    m_dataPath = writeCatalog(QStringLiteral("data.txt"), generateClusteredMock(mock, "data"));
    m_randomPath1 = writeCatalog(QStringLiteral("random1.txt"),
                                 generateUniformRandoms(4000, mock.footprint, 11, "random1"));
    m_randomPath2 = writeCatalog(QStringLiteral("random2.txt"),
                                 generateUniformRandoms(4000, mock.footprint, 12, "random2"));
}

inline QString StudioSuite::writeCatalog(const QString& name, const Catalog& catalog) {
    const QString path = m_dir.filePath(name);
    writeCatalogAscii(path.toStdString(), catalog);
    return path;
}

inline std::unique_ptr<MainWindow> StudioSuite::makeWindow() {
    auto window = std::make_unique<MainWindow>(BackendRegistry{}, testOptions());
    MainWindow& w = *window;
    if (!loadAndWait(w, [&] { return w.setDataCatalog(CatalogSource{m_dataPath}); }) ||
        !loadAndWait(w, [&] { return w.addRandomCatalog(CatalogSource{m_randomPath1}); }) ||
        !loadAndWait(w, [&] { return w.addRandomCatalog(CatalogSource{m_randomPath2}); }))
        return nullptr;
    window->binningPanel()->setSpec(m_bins);
    BackendOptions cpu;
    cpu.name = "cpu";
    window->backendPanel()->setBackendOptions(cpu);
    return window;
}

inline ResultPtr StudioSuite::runToCompletion(MainWindow& window) {
    QSignalSpy finished(&window, &MainWindow::runFinished);
    QSignalSpy failed(&window, &MainWindow::runFailed);
    if (!window.startRun())
        return nullptr;
    if (!finished.wait(30000) || !failed.isEmpty())
        return nullptr;
    return qvariant_cast<ResultPtr>(finished.front().front());
}

inline void StudioSuite::chooseJackknife(MainWindow& window, int regions, quint64 seed) {
    ErrorsPanel* errors = window.errorsPanel();
    errors->methodCombo()->setCurrentIndex(
        errors->methodCombo()->findData(int(ErrorSettings::Method::Regions)));
    errors->regionsSpin()->setValue(regions);
    errors->seedSpin()->setValue(int(seed));
}

inline QString StudioSuite::twoTableFits() {
#ifdef TPACF_TEST_HAVE_CFITSIO
    if (!m_fitsPath.isEmpty())
        return m_fitsPath;
    // Primary (empty), 1: CATALOG, 2: RANDOMS, 3: IMG (an image, which holds no catalog).
    const QString path = m_dir.filePath(QStringLiteral("survey.fits"));
    int status = 0;
    fitsfile* file = nullptr;
    // '!' replaces an existing file. Appended rather than "!" + path: GCC 12 warns falsely
    // (-Wrestrict) on that operator+.
    std::string name("!");
    name += path.toStdString();
    fits_create_file(&file, name.c_str(), &status);
    const FitsSample& catalog = fitsCatalog();
    const FitsSample& randoms = fitsRandoms();
    writeFitsTable(file, "CATALOG", {"RA", "DEC", "Z"}, {&catalog.ra, &catalog.dec, &catalog.z},
                   status);
    writeFitsTable(file, "RANDOMS", {"Z", "W", "DEC", "RA"},
                   {&randoms.z, &randoms.w, &randoms.dec, &randoms.ra}, status);
    long axes[2] = {4, 3};
    fits_create_img(file, SHORT_IMG, 2, axes, &status);
    fits_write_key(file, TSTRING, "EXTNAME", const_cast<char*>("IMG"), nullptr, &status);
    std::vector<short> pixels(12, 7);
    fits_write_img(file, TSHORT, 1, 12, pixels.data(), &status);
    fits_close_file(file, &status);
    if (status != 0) {
        char text[FLEN_STATUS] = {};
        fits_get_errstatus(status, text);
        qWarning("cfitsio: %s", text);
        return {};
    }
    m_fitsPath = path;
    return path;
#else
    return {};
#endif
}

} // namespace studiosuite
