# SPDX-License-Identifier: GPL-3.0-or-later
# Read by cpack for each generator (CPACK_PROJECT_CONFIG_FILE in Packaging.cmake).
if(CPACK_GENERATOR STREQUAL "DEB")
  # The tpacf package links no Qt: a build whose tpacf draws --plot figures (TPACF_CLI_PLOT) makes
  # tpacf-studio alone; a GUI build without it makes every package (scripts/build-debs.sh).
  if(CPACK_TPACF_CLI_PLOT)
    set(CPACK_COMPONENTS_ALL gui)
  elseif(CPACK_TPACF_GUI_BUILD)
    set(CPACK_COMPONENTS_ALL cli lib devel gui)
  else()
    set(CPACK_COMPONENTS_ALL cli lib devel)
  endif()
  # python3-tpacf where the module was built, beside the library package it links.
  if(CPACK_TPACF_PYTHON_BUILD AND NOT CPACK_TPACF_CLI_PLOT)
    list(APPEND CPACK_COMPONENTS_ALL python)
  endif()
  # Each package's description opens with its own synopsis; CPackDeb would put the project's
  # summary in front of it.
  unset(CPACK_PACKAGE_DESCRIPTION_SUMMARY)
endif()
