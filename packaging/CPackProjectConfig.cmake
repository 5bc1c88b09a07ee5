# SPDX-License-Identifier: GPL-3.0-or-later
# Read by cpack for each generator (CPACK_PROJECT_CONFIG_FILE in Packaging.cmake).
if(CPACK_GENERATOR STREQUAL "DEB")
  # A build with the GUI links Qt into its tpacf (run --plot): it makes tpacf-studio alone; tpacf,
  # the library and tpacf-dev come from a build without the GUI (scripts/build-debs.sh).
  if(CPACK_TPACF_GUI_BUILD)
    set(CPACK_COMPONENTS_ALL gui)
  else()
    set(CPACK_COMPONENTS_ALL cli lib devel)
  endif()
  # Each package's description opens with its own synopsis; CPackDeb would put the project's
  # summary in front of it.
  unset(CPACK_PACKAGE_DESCRIPTION_SUMMARY)
endif()
