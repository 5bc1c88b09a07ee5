// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The key code excerpt of a lab variant, read from the lab's sources as the Studio ships them
// (the lab.qrc that ui/CMakeLists.txt generates from kernels/lab/ and core/lab/src/): the
// same files the variants are built from, so the excerpt shown is the code that runs.
#include <QString>

namespace tpacf::ui {

/// Where the bundled lab sources lie: ":/lab" (then the path under the source tree).
QString bundledLabSourceRoot();

/// The lines of `text` between the line holding "[lab:excerpt <key>]" and the next line holding
/// "[lab:end]", less their common indent, exactly as tpacf::lab::sourceExcerpt reads them from a
/// file (which reads the filesystem only, not Qt resources); empty when not found or not closed.
QString labExcerptFromText(const QString& text, const QString& key);

/// labExcerptFromText() of the file `sourceFile` under `sourceRoot` (a resource root such as
/// bundledLabSourceRoot() or a folder); empty when the file or the excerpt is missing.
QString readLabExcerpt(const QString& sourceRoot, const QString& sourceFile, const QString& key);

} // namespace tpacf::ui
