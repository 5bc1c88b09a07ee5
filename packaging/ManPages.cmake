# SPDX-License-Identifier: GPL-3.0-or-later
# Man pages from the programs' own --help (scripts/gen-man-pages.py), remade whenever the program
# is rebuilt and installed to share/man/man1: tpacf(1) and tpacf-<command>(1) with the CLI,
# tpacf-studio(1) with the GUI. The programs run at build time, so not when cross-compiling.
option(TPACF_MAN_PAGES "Generate the man pages from the programs' --help at build time" ON)
find_package(Python3 COMPONENTS Interpreter QUIET)
if(TPACF_MAN_PAGES AND Python3_Interpreter_FOUND AND NOT CMAKE_CROSSCOMPILING)
  set(tpacf_man_script ${PROJECT_SOURCE_DIR}/scripts/gen-man-pages.py)
  set(tpacf_man_dir ${PROJECT_BINARY_DIR}/man)
  # Leak reports of a sanitizer build are not the pages' business (the test suites check leaks).
  set(tpacf_man_env ${CMAKE_COMMAND} -E env ASAN_OPTIONS=detect_leaks=0)
  set(tpacf_man_stamps "")
  foreach(program IN ITEMS tpacf tpacf-studio)
    if(NOT TARGET ${program})
      continue()
    endif()
    if(program STREQUAL "tpacf")
      set(kind cli)
      set(flag --tpacf)
    else()
      set(kind gui)
      set(flag --studio)
    endif()
    add_custom_command(OUTPUT ${tpacf_man_dir}/${kind}.stamp
      COMMAND ${tpacf_man_env} ${Python3_EXECUTABLE} ${tpacf_man_script}
              ${flag} $<TARGET_FILE:${program}> --outdir ${tpacf_man_dir}/${kind}
              --version ${PROJECT_VERSION} --date ${TPACF_RELEASE_DATE}
              --stamp ${tpacf_man_dir}/${kind}.stamp
      DEPENDS ${program} ${tpacf_man_script}
      COMMENT "Man pages of ${program} from its --help" VERBATIM)
    list(APPEND tpacf_man_stamps ${tpacf_man_dir}/${kind}.stamp)
    install(DIRECTORY ${tpacf_man_dir}/${kind}/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1
            COMPONENT ${kind} OPTIONAL)
  endforeach()
  add_custom_target(tpacf_man_pages ALL DEPENDS ${tpacf_man_stamps})
elseif(TPACF_MAN_PAGES)
  message(STATUS "Man pages: not generated (needs python3, and no cross-compiling)")
endif()
