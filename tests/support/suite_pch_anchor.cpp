// SPDX-License-Identifier: GPL-3.0-or-later
// The translation unit that makes a kind of suite's precompiled header (tests/CMakeLists.txt).
