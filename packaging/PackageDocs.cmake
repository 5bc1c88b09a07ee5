# SPDX-License-Identifier: GPL-3.0-or-later
# What Debian wants in /usr/share/doc/<package>/ of every package: the copyright file and the
# changelog, compressed as `gzip -9n` (no name, no time stamp: the same bytes every build).
# TPACF_DEB_PACKAGES (Packaging.cmake) pairs each install component with its package. The copyright
# file goes with every install; the Debian changelog and lintian overrides only where the build is
# meant for packages (prefix /usr, as scripts/build-debs.sh configures it).
if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  set(tpacf_debian_files_default ON)
else()
  set(tpacf_debian_files_default OFF)
endif()
option(TPACF_DEBIAN_FILES "Install the Debian changelog and lintian overrides"
       ${tpacf_debian_files_default})
find_program(TPACF_GZIP gzip)
# The changelog's date is the release's (packaging/Install.cmake), in RFC 5322 form.
execute_process(COMMAND date -u -R -d "${TPACF_RELEASE_DATE} 12:00"
                OUTPUT_VARIABLE TPACF_CHANGELOG_DATE OUTPUT_STRIP_TRAILING_WHITESPACE
                RESULT_VARIABLE tpacf_date_status ERROR_QUIET)
if(NOT tpacf_date_status EQUAL 0)
  string(TIMESTAMP TPACF_CHANGELOG_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/changelog.Debian.in
               ${PROJECT_BINARY_DIR}/packaging/changelog.Debian @ONLY)
if(TPACF_GZIP)
  execute_process(COMMAND ${TPACF_GZIP} -9nc ${PROJECT_BINARY_DIR}/packaging/changelog.Debian
                  OUTPUT_FILE ${PROJECT_BINARY_DIR}/packaging/changelog.Debian.gz)
endif()

set(tpacf_doc_packages ${TPACF_DEB_PACKAGES})
while(tpacf_doc_packages)
  list(POP_FRONT tpacf_doc_packages tpacf_component tpacf_package)
  set(tpacf_doc_dir ${CMAKE_INSTALL_DATAROOTDIR}/doc/${tpacf_package})
  install(FILES ${PROJECT_SOURCE_DIR}/packaging/copyright
          DESTINATION ${tpacf_doc_dir} COMPONENT ${tpacf_component})
  if(NOT TPACF_DEBIAN_FILES)
    continue()
  endif()
  if(TPACF_GZIP)
    install(FILES ${PROJECT_BINARY_DIR}/packaging/changelog.Debian.gz
            DESTINATION ${tpacf_doc_dir} COMPONENT ${tpacf_component})
  endif()
  # lintian asks a first upload to close its ITP bug; these packages are built upstream, not
  # uploaded to Debian, so there is none (the tag's own text says to ignore it then).
  file(WRITE ${PROJECT_BINARY_DIR}/packaging/lintian/${tpacf_package}
       "# Built upstream, not uploaded to the Debian archive: no ITP bug to close.\n"
       "${tpacf_package}: initial-upload-closes-no-bugs\n")
  install(FILES ${PROJECT_BINARY_DIR}/packaging/lintian/${tpacf_package}
          DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/lintian/overrides COMPONENT ${tpacf_component})
endwhile()
