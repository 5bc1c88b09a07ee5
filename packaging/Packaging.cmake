# SPDX-License-Identifier: GPL-3.0-or-later
# CPack: the Debian packages, one per install component, and a tarball of the whole install.
#   tpacf               (component cli)    the command line; no Qt
#   tpacf-studio        (component gui)    the desktop application; Depends: tpacf
#   libtpacf-core<N>    (component lib)    libtpacf_core.so.<N>, which both link
#   tpacf-dev           (component devel)  headers and find_package(tpacf) for C++ pipelines
#   python3-tpacf       (component python) import tpacf, for the python3 it was built for
# tpacf links Qt where it draws `run --plot` figures (TPACF_CLI_PLOT, on by default with the GUI),
# so the packages come from a build with the GUI and TPACF_CLI_PLOT=OFF: a cluster node that
# installs tpacf pulls no GUI stack. A build whose tpacf links Qt makes tpacf-studio alone.
# scripts/build-debs.sh makes that one build and all packages. DEBs need TPACF_SHARED_CORE=ON (the
# library package); other builds make the tarball.
set(TPACF_MAINTAINER "TPACF Studio developers <tpacf-studio@users.noreply.github.com>")
set(TPACF_DEB_VERSION "${PROJECT_VERSION}-1") # upstream version - Debian revision
# Debian names a library package after its soname: libtpacf_core.so.0.1 is libtpacf-core0.1.
get_target_property(tpacf_core_soversion tpacf_core SOVERSION)
set(TPACF_LIB_PACKAGE "libtpacf-core${tpacf_core_soversion}")
# component package, for PackageDocs.cmake (copyright, changelog, lintian overrides)
set(TPACF_DEB_PACKAGES cli tpacf gui tpacf-studio lib ${TPACF_LIB_PACKAGE} devel tpacf-dev)
if(TPACF_HAVE_PYTHON)
  list(APPEND TPACF_DEB_PACKAGES python python3-tpacf)
endif()
include(${CMAKE_CURRENT_LIST_DIR}/PackageDocs.cmake)

set(TPACF_HOMEPAGE "https://github.com/tpacf/tpacf-studio")
# CUDA 13.x runs on drivers of the 580 series or newer (NVIDIA's CUDA compatibility guide,
# "minor version compatibility": CUDA 13.x, minimum driver >= 580); CUDA 12.x on >= 525.
set(TPACF_MIN_DRIVER "")
if(TPACF_HAVE_CUDA AND CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 13)
  set(TPACF_MIN_DRIVER 580)
elseif(TPACF_HAVE_CUDA AND CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 12)
  set(TPACF_MIN_DRIVER 525)
endif()

set(CPACK_PACKAGE_NAME "tpacf-studio")
set(CPACK_PACKAGE_VENDOR "TPACF Studio")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_CONTACT "${TPACF_MAINTAINER}")
set(CPACK_PACKAGE_HOMEPAGE_URL "${TPACF_HOMEPAGE}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_RESOURCE_FILE_LICENSE "${PROJECT_SOURCE_DIR}/LICENSE")
if(TPACF_SHARED_CORE)
  set(CPACK_GENERATOR "TGZ;DEB")
else()
  set(CPACK_GENERATOR "TGZ")
endif()
set(CPACK_STRIP_FILES ON)
# Per-generator settings (which components make DEBs) are read when cpack runs.
set(CPACK_PROJECT_CONFIG_FILE "${CMAKE_CURRENT_LIST_DIR}/CPackProjectConfig.cmake")
set(CPACK_TPACF_GUI_BUILD ${TPACF_GUI})
set(CPACK_TPACF_CLI_PLOT ${TPACF_CLI_PLOT})
set(CPACK_TPACF_PYTHON_BUILD ${TPACF_HAVE_PYTHON})

# Debian: one package per component, named and described here. Descriptions are written without
# the control file's indent: CPackDeb adds it (and " ." for an empty line).
set(CPACK_DEB_COMPONENT_INSTALL ON)
string(REGEX REPLACE ".*-" "" CPACK_DEBIAN_PACKAGE_RELEASE "${TPACF_DEB_VERSION}")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${TPACF_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "${TPACF_HOMEPAGE}")
set(CPACK_DEBIAN_PACKAGE_SECTION "science")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
set(CPACK_DEBIAN_PACKAGE_SOURCE "tpacf-studio")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# libtpacf_core's ABI changes with every release before 1.0: its users need this very version.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY "=")
# The programs link the libtpacf_core of their own build: dpkg-shlibdeps must find it there (the
# dependency on its package is given below).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS "${PROJECT_BINARY_DIR}/core")

set(tpacf_gpu_text "")
if(TPACF_HAVE_CUDA)
  # "compute capability 7.5 to 9.0" from the machine-code entries of the list ("75-real", "90").
  set(tpacf_real_archs "")
  foreach(arch IN LISTS CMAKE_CUDA_ARCHITECTURES)
    if(arch MATCHES "^([0-9]+)([0-9])(-real)?$")
      list(APPEND tpacf_real_archs "${CMAKE_MATCH_1}.${CMAKE_MATCH_2}")
    endif()
  endforeach()
  list(SORT tpacf_real_archs COMPARE NATURAL)
  set(tpacf_arch_range "the architectures ${CMAKE_CUDA_ARCHITECTURES}")
  if(tpacf_real_archs)
    list(GET tpacf_real_archs 0 tpacf_arch_lo)
    list(GET tpacf_real_archs -1 tpacf_arch_hi)
    set(tpacf_arch_range "compute capability ${tpacf_arch_lo} to ${tpacf_arch_hi}")
  endif()
  set(tpacf_gpu_text "
Pair counting runs on NVIDIA GPUs of ${tpacf_arch_range}, and on
newer ones through PTX, with the NVIDIA driver ${TPACF_MIN_DRIVER} or newer; without a GPU,
on all CPU cores.")
  set(tpacf_driver "nvidia-driver (>= ${TPACF_MIN_DRIVER}) | nvidia-open (>= ${TPACF_MIN_DRIVER})")
endif()
set(tpacf_deb_about "
TPACF Studio computes the two-point angular correlation function w(theta) of
astronomical catalogs: exact pair counts DD, DR and RR in angular bins, and
the Landy-Szalay, natural, Davis-Peebles or Hamilton estimator, with
jackknife errors, weights and cross-correlations. Catalogs are ASCII or FITS
binary tables.${tpacf_gpu_text}")

set(tpacf_lib_dep "${TPACF_LIB_PACKAGE} (= ${TPACF_DEB_VERSION})")

set(CPACK_DEBIAN_CLI_PACKAGE_NAME "tpacf")
set(CPACK_DEBIAN_CLI_DESCRIPTION "two-point angular correlation function on GPU and CPU (CLI)${tpacf_deb_about}

This package holds the command-line tool tpacf, for batch and cluster runs
(across MPI ranks where built with MPI). It needs no Qt and no display.")
# dpkg-shlibdeps finds libtpacf_core in the build, not in a package: the dependency is given.
set(CPACK_DEBIAN_CLI_PACKAGE_DEPENDS "${tpacf_lib_dep}")
set(CPACK_DEBIAN_CLI_PACKAGE_SUGGESTS "tpacf-studio")

set(CPACK_DEBIAN_GUI_PACKAGE_NAME "tpacf-studio")
set(CPACK_DEBIAN_GUI_DESCRIPTION "two-point angular correlation function on GPU and CPU (desktop)${tpacf_deb_about}

This package holds TPACF Studio, the Qt desktop application: catalogs with a
sky preview, binning, live plots of w(theta) and the pair counts, jackknife
covariance, exports to CSV, PNG and PDF, and the Kernel Lab. Its runs can be
copied as tpacf command lines.")
set(CPACK_DEBIAN_GUI_PACKAGE_DEPENDS "tpacf (= ${TPACF_DEB_VERSION}), ${tpacf_lib_dep}")

set(CPACK_DEBIAN_LIB_PACKAGE_NAME "${TPACF_LIB_PACKAGE}")
set(CPACK_DEBIAN_LIB_PACKAGE_SECTION "libs")
set(CPACK_DEBIAN_LIB_DESCRIPTION "two-point angular correlation function library${tpacf_deb_about}

This package holds libtpacf_core, the engine that tpacf and TPACF Studio share:
catalog readers, binning, the CPU pair counter, estimators, jackknife and
CorrelationJob. The CUDA backend is in the programs, not in the library.")
# The shlibs file (what links it depends on this version) and the ldconfig trigger; CPackDeb also
# writes a postinst and postrm calling ldconfig, made redundant by the trigger (lintian warns).
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_LIB_PACKAGE_CONTROL_EXTRA "${CMAKE_CURRENT_LIST_DIR}/deb/triggers")
# Control files (triggers, shlibs, md5sums) as Debian policy wants them, 0644 (scripts 0755),
# not with the mode the source file happens to have (0664 in an unpacked release tarball).
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION TRUE)

set(CPACK_DEBIAN_DEVEL_PACKAGE_NAME "tpacf-dev")
set(CPACK_DEBIAN_DEVEL_PACKAGE_SECTION "libdevel")
set(CPACK_DEBIAN_DEVEL_DESCRIPTION "two-point angular correlation function library (development files)${tpacf_deb_about}

This package holds the C++ headers of libtpacf_core and its CMake package:
find_package(tpacf) gives the target tpacf::core, with which a pipeline runs
a CorrelationJob without the command line.")
set(CPACK_DEBIAN_DEVEL_PACKAGE_DEPENDS "${tpacf_lib_dep}")
# The headers and CMake files name no shared object: nothing for dpkg-shlibdeps.
set(CPACK_DEBIAN_DEVEL_PACKAGE_SHLIBDEPS OFF)

if(TPACF_HAVE_PYTHON)
  # The module is built for one interpreter (its ABI tag in the file name, cpython-311 on
  # Debian 12): that python3 minor version, and NumPy, which the module imports at load time.
  math(EXPR tpacf_python_next "${Python3_VERSION_MINOR} + 1")
  set(CPACK_DEBIAN_PYTHON_PACKAGE_NAME "python3-tpacf")
  set(CPACK_DEBIAN_PYTHON_PACKAGE_SECTION "python")
  set(CPACK_DEBIAN_PYTHON_DESCRIPTION "two-point angular correlation function on GPU and CPU (Python 3)${tpacf_deb_about}

This package holds the Python 3 package tpacf: catalogs from numpy arrays or
files, pair counts, correlate() with the CLI's estimators, jackknife and count
files, results as astropy tables and matplotlib plots, for notebooks and
survey pipelines.")
  set(CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS "python3 (>= ${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR}), python3 (<< ${Python3_VERSION_MAJOR}.${tpacf_python_next}), python3-numpy, ${tpacf_lib_dep}")
  set(CPACK_DEBIAN_PYTHON_PACKAGE_RECOMMENDS "python3-astropy, python3-matplotlib")
endif()

if(TPACF_HAVE_CUDA)
  # The CUDA runtime is linked statically; the driver (libcuda.so.1) is looked up at start-up,
  # and without it tpacf counts on the CPU: a suggestion, not a dependency.
  set(CPACK_DEBIAN_CLI_PACKAGE_SUGGESTS "tpacf-studio, ${tpacf_driver}")
  set(CPACK_DEBIAN_GUI_PACKAGE_SUGGESTS "${tpacf_driver}")
  set(CPACK_DEBIAN_PYTHON_PACKAGE_SUGGESTS "${tpacf_driver}")
endif()

# An install() without COMPONENT lands in "Unspecified", in no package: say so at configure time.
get_cmake_property(tpacf_components COMPONENTS)
if("Unspecified" IN_LIST tpacf_components)
  message(AUTHOR_WARNING "An install() rule has no COMPONENT: its files go in no Debian package "
                         "(packaging/Packaging.cmake lists the components)")
endif()

include(CPack)
# No DEPENDS between components: CPack would then package a component's dependencies along with
# it, and a GUI build must not make a tpacf package. The Debian Depends are given above.
cpack_add_component(lib DISPLAY_NAME "libtpacf_core")
cpack_add_component(cli DISPLAY_NAME "tpacf command line")
cpack_add_component(gui DISPLAY_NAME "TPACF Studio")
cpack_add_component(devel DISPLAY_NAME "C++ development files")
cpack_add_component(python DISPLAY_NAME "Python 3 package")
