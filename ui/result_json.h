// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A completed result as JSON inside a session file, so that a reopened session shows it without
// counting again: bins, counts (raw per random set, weighted sums, normalised), w, σ and the
// covariance, the inputs and how it was computed. The jackknife's leave-one-out samples, the
// region of each data point and the count store are not kept (they are large, and only a new
// run uses them).
#include "job_worker.h"

#include <QJsonObject>
#include <QString>

namespace tpacf::ui {

QJsonObject resultToJson(const CorrelationResult& result);
/// The result of resultToJson(); null with a message in `problem` when the object is not one
/// (a missing field, arrays of the wrong length).
ResultPtr resultFromJson(const QJsonObject& object, QString* problem);

} // namespace tpacf::ui
