// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What nearly every suite includes, precompiled once per kind of suite and reused by all of that
// kind (tests/CMakeLists.txt): Qt Test (whose qtest.h reads QT_GUI_LIB and QT_WIDGETS_LIB, hence
// one header per kind), the Qt Core classes the suites share, and the standard library.
#include <QtTest>

#include <QByteArray>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>
