# SPDX-License-Identifier: GPL-3.0-or-later
# examples/ built against an install of this build, as a user's own project would be: cmake
# --install of the library's components into a scratch prefix, find_package(tpacf) from there
# only, build, run. -D arguments: BUILD_DIR, SOURCE_DIR, WORK_DIR, LIBDIR (CMAKE_INSTALL_LIBDIR),
# GENERATOR, BUILD_TYPE, CXX_COMPILER, CXX_FLAGS, EXE_LINKER_FLAGS (a sanitizer build's flags
# must reach the example that links its static library).
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE output
                  ERROR_VARIABLE output)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${what} failed (${status}):\n${output}")
  endif()
  set(output "${output}" PARENT_SCOPE)
endfunction()

# lib: libtpacf_core.so.N (shared builds); devel: headers, CMake files, .so link or static library.
foreach(component IN ITEMS lib devel)
  run("cmake --install --component ${component}"
      ${CMAKE_COMMAND} --install ${BUILD_DIR} --component ${component} --prefix ${prefix})
endforeach()
if(NOT EXISTS ${prefix}/${LIBDIR}/cmake/tpacf/tpacfConfig.cmake)
  message(FATAL_ERROR "no ${prefix}/${LIBDIR}/cmake/tpacf/tpacfConfig.cmake after the install")
endif()

# tpacf_DIR names the scratch install: a tpacf installed on the machine must not be the one found.
run("configuring examples/" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples -B ${WORK_DIR}/build
    -G ${GENERATOR} -DCMAKE_BUILD_TYPE=${BUILD_TYPE} -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
    "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${EXE_LINKER_FLAGS}"
    -Dtpacf_DIR=${prefix}/${LIBDIR}/cmake/tpacf -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
run("building examples/" ${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run("running examples/correlation_job" ${WORK_DIR}/build/correlation_job)
message("${output}")
if(NOT output MATCHES "theta_arcmin,DD,w\n([0-9.e+-]+,[0-9]+,[0-9.e+-]+\n)+$")
  message(FATAL_ERROR "correlation_job printed no table of w")
endif()
