// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A session: the inputs and settings of a run, saved as JSON and reopened by File > Open Session.
#include "catalog_source.h"
#include "figure_style.h"
#include "run_history.h"

#include <tpacf/backend.h>
#include <tpacf/bins.h>
#include <tpacf/estimator.h>
#include <tpacf/jackknife.h>
#include <tpacf/power_law_fit.h>

#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

namespace tpacf::ui {

/// The error-bar choice as the Errors controls hold it: the method plus every field, so K and the
/// column name survive switching the method off and on (JackknifeSettings alone would lose them).
struct ErrorSettings {
    enum class Method { None, Regions, Column, Healpix, File };
    static constexpr int kDefaultRegions = 32;
    // The core's limits: the GUI accepts what the job and the CLI accept.
    static constexpr int kMinRegions = kMinJackknifeRegions;
    static constexpr int kMaxRegions = kMaxJackknifeRegions;

    Method method = Method::None;
    int regions = kDefaultRegions;
    QString regionColumn;
    quint64 seed = 1;
    /// Method::Healpix: K runs of HEALPix pixels at this NSIDE (--jackknife-healpix).
    int healpixNside = 64;
    /// > 0: σ and the covariance from this many bootstrap samples of the regions (--bootstrap).
    int bootstrapSamples = 0;
    /// How the samples weigh pairs between regions (--cross-region-weight); unset: the
    /// method's default (simple for the jackknife, mean for the bootstrap).
    std::optional<CrossRegionWeight> crossRegionWeight;
    /// Method::File: a regions file (tpacf run --save-regions, File > Save Jackknife Regions),
    /// read when a run starts (--regions).
    QString regionsFile;

    /// What the job gets: disabled for None, K regions or the column otherwise.
    JackknifeSettings jackknife() const;
    QJsonObject toJson() const;
    /// Missing or unknown values keep their defaults.
    static ErrorSettings fromJson(const QJsonObject& object);
    bool operator==(const ErrorSettings&) const = default;
};

/// The settings part of a session (also what QSettings remembers between starts).
struct RunSettings {
    BinSpec bins = BinSpec::preset("log5");
    Estimator estimator = Estimator::LandySzalay;
    BackendOptions backend;
    ErrorSettings errors;
    /// Sum the pairs' separations per bin (--mean-theta; Estimator panel).
    bool meanSeparation = false;
    /// How exported figures look (File > Export Plot); no part of the run's inputs.
    FigureStyle figure;

    QJsonObject toJson() const;
    /// Missing or unknown values keep their defaults (an invalid "figure" block: the default
    /// style, so that an older or hand-edited session still opens).
    static RunSettings fromJson(const QJsonObject& object);
};

struct Session {
    std::optional<CatalogSource> data;
    QList<CatalogSource> randoms;
    /// The second sample of a cross-correlation (none: an auto-correlation).
    std::optional<CatalogSource> data2;
    QList<CatalogSource> randoms2;
    RunSettings settings;
    /// The session's completed runs, oldest first; the last is shown when it reopens. Empty in
    /// sessions written before results were kept (they open as before).
    QList<RunRecord> history;
    /// Saved runs that could not be read back (reported when the session opens).
    int droppedRuns = 0;
    /// The power-law fit shown on the last run (its range and integral constraint; the Hartlap
    /// factor is always applied), fitted again when the session reopens; none: no fit shown.
    std::optional<PowerLawFitOptions> fit;
    /// File > Set Mask: the mask file every run cuts its catalogs to ("" : none) and the
    /// completeness below which points are dropped too.
    QString mask;
    double maskThreshold = 0.0;

    QJsonObject toJson() const;
    static Session fromJson(const QJsonObject& object);
};

/// Writes `session` to `path`; on failure returns false with a message in `error`.
bool saveSessionFile(const QString& path, const Session& session, QString* error);
/// Reads a session file; nullopt with a message in `error` when it is unreadable or not a session.
std::optional<Session> loadSessionFile(const QString& path, QString* error);

} // namespace tpacf::ui
