# SPDX-License-Identifier: GPL-3.0-or-later
# Where `cmake --install` puts things, and the options of a packaged build. Included before the
# targets: RPATH and hardening settings take effect when a target is created.
include(GNUInstallDirs)

# Folders that installing creates on its way get 0755 whatever the umask (files get their
# install() rule's defaults, 0644 and 0755, whatever the source tree's modes).
set(CMAKE_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS
    OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)

option(TPACF_SHARED_CORE
       "Build tpacf_core as a shared library (libtpacf_core.so) that the programs and C++ pipelines link"
       OFF)
option(TPACF_HARDENING
       "Debian's hardening flags: _FORTIFY_SOURCE=2, stack protector, full RELRO (bindnow), PIE"
       OFF)

# The release date (the AppStream release entry): the man pages' and the changelog's date, so
# that building the same release twice gives the same files.
file(STRINGS ${PROJECT_SOURCE_DIR}/resources/io.github.tpacf.studio.metainfo.xml
     tpacf_release_line REGEX "<release version=.*date=\"[0-9-]+\"" LIMIT_COUNT 1)
if(tpacf_release_line MATCHES "date=\"([0-9]+-[0-9]+-[0-9]+)\"")
  set(TPACF_RELEASE_DATE "${CMAKE_MATCH_1}")
else()
  string(TIMESTAMP TPACF_RELEASE_DATE "%Y-%m-%d" UTC)
endif()

if(TPACF_SHARED_CORE)
  # Installed under a prefix of one's own (--prefix ~/opt/tpacf), the programs find the library
  # beside them; installed into the system's library directory (the DEB: /usr) they carry no
  # RUNPATH, as Debian policy asks.
  list(FIND CMAKE_CXX_IMPLICIT_LINK_DIRECTORIES "${CMAKE_INSTALL_FULL_LIBDIR}" tpacf_system_libdir)
  if(tpacf_system_libdir EQUAL -1)
    set(CMAKE_INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")
  endif()
endif()

if(TPACF_HARDENING)
  # What dpkg-buildflags gives a Debian 12 package with hardening=+all, for C++ and for the host
  # code of the CUDA sources. Fortify needs the optimiser: not in Debug builds.
  set(CMAKE_POSITION_INDEPENDENT_CODE ON)
  include(CheckPIESupported)
  check_pie_supported(LANGUAGES CXX)
  set(tpacf_harden_flags -fstack-protector-strong -fstack-clash-protection)
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64|amd64")
    list(APPEND tpacf_harden_flags -fcf-protection)
  endif()
  list(JOIN tpacf_harden_flags "," tpacf_harden_host_flags)
  add_compile_options(
    "$<$<COMPILE_LANGUAGE:CXX>:${tpacf_harden_flags}>"
    "$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=${tpacf_harden_host_flags}>"
    "$<$<NOT:$<CONFIG:Debug>>:-U_FORTIFY_SOURCE;-D_FORTIFY_SOURCE=2>")
  add_link_options(LINKER:-z,relro LINKER:-z,now)
endif()
