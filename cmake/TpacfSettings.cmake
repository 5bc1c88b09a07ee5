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

# The larger libraries can compile their sources in batches, one unit per batch (CMake's unity
# build): the standard, Qt and JSON headers are then parsed once per batch instead of once per
# file, and on 2 cores the core library compiles in about a third of the time. The testing and
# asan presets (what CI builds) turn it on; a plain build compiles file by file, so a source that
# lacks an include of its own still fails there. Names local to a source (anonymous namespaces)
# must therefore differ across the sources of a library.
option(TPACF_UNITY_BUILD "Compile the larger libraries in batches of sources (faster full builds)"
       OFF)
# tpacf_batch_sources(TARGET [ALONE_IF REGEX]): batches TARGET's C++ sources where
# TPACF_UNITY_BUILD is on; a source with a line matching REGEX compiles alone (the Qt sources
# whose file-local tr() names their translation context).
function(tpacf_batch_sources target)
  cmake_parse_arguments(ARG "" "ALONE_IF" "" ${ARGN})
  if(NOT TPACF_UNITY_BUILD)
    return()
  endif()
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 12)
  if(ARG_ALONE_IF)
    get_target_property(sources ${target} SOURCES)
    foreach(source IN LISTS sources)
      get_filename_component(path ${source} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
      if(path MATCHES "\\.cpp$" AND EXISTS ${path})
        file(STRINGS ${path} matches REGEX "${ARG_ALONE_IF}")
        if(matches)
          set_source_files_properties(${source} TARGET_DIRECTORY ${target}
                                      PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
        endif()
      endif()
    endforeach()
  endif()
endfunction()
