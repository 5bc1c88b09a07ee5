# SPDX-License-Identifier: GPL-3.0-or-later
# One INTERFACE target carries the language standard, warnings and defines every target links.
add_library(tpacf_settings INTERFACE)
target_compile_features(tpacf_settings INTERFACE cxx_std_20)
target_compile_options(tpacf_settings INTERFACE
  $<$<COMPILE_LANG_AND_ID:CXX,GNU,Clang>:-Wall -Wextra -Wpedantic>)
target_compile_definitions(tpacf_settings INTERFACE
  QT_NO_CAST_FROM_ASCII QT_NO_CAST_TO_ASCII QT_NO_URL_CAST_FROM_STRING
  TPACF_VERSION="${PROJECT_VERSION}")
set(CMAKE_CXX_EXTENSIONS OFF)
if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
  set(CMAKE_BUILD_TYPE Release CACHE STRING "Build type" FORCE)
endif()
