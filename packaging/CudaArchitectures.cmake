# SPDX-License-Identifier: GPL-3.0-or-later
# The default GPU code list: machine code (cubin) for every NVIDIA generation from Volta (sm_70)
# to Hopper (sm_90) that this nvcc can still build, plus compute_90 PTX that the driver compiles
# at first start for anything newer (Blackwell sm_100, sm_120). A cubin runs on its own major
# generation only (sm_80 code also runs on sm_86 and sm_89, not on sm_90); 86 and 89 are built
# anyway so that GA10x and Ada cards get code scheduled for them.
#
# CUDA 13 dropped Volta: `nvcc --list-gpu-arch` of 13.0 starts at compute_75, so a V100 (sm_70)
# needs a build with CUDA 12.x, where this same list then includes 70-real. Asking nvcc rather
# than assuming keeps the default valid on both. -DCMAKE_CUDA_ARCHITECTURES=... overrides it all:
# 90 alone, for a quick build on an H100, compiles the CUDA library in a third of the time (155 s
# of CPU against 487 s for this list, with nvcc 13.0 on 2 cores).
function(tpacf_default_cuda_architectures out_var)
  set(wanted 70 75 80 86 89 90)
  set(ptx 90)
  execute_process(COMMAND "${CMAKE_CUDA_COMPILER}" --list-gpu-arch
                  OUTPUT_VARIABLE listed ERROR_QUIET RESULT_VARIABLE status)
  set(archs "")
  if(status EQUAL 0 AND listed MATCHES "compute_")
    foreach(arch IN LISTS wanted)
      if(listed MATCHES "compute_${arch}[^0-9]|compute_${arch}$")
        list(APPEND archs "${arch}-real")
      endif()
    endforeach()
    if(NOT listed MATCHES "compute_${ptx}[^0-9]|compute_${ptx}$")
      message(FATAL_ERROR "${CMAKE_CUDA_COMPILER} cannot build compute_${ptx} (Hopper): "
                          "use CUDA 12 or newer, or set CMAKE_CUDA_ARCHITECTURES")
    endif()
  else()
    # An nvcc too old to list its targets (before CUDA 11) cannot build sm_90 either; say so
    # at compile time rather than guess here.
    set(archs 75-real 80-real 86-real 89-real 90-real)
  endif()
  list(APPEND archs "${ptx}-virtual")
  message(STATUS "CUDA architectures (default): ${archs}")
  set(${out_var} "${archs}" PARENT_SCOPE)
endfunction()
