# SPDX-License-Identifier: GPL-3.0-or-later
# The bash completion of tpacf, from the program's own flag tables (`tpacf --completion bash`),
# remade whenever the program is rebuilt and installed with the CLI to
# share/bash-completion/completions/tpacf. The program runs at build time, so not when
# cross-compiling.
if(TARGET tpacf AND NOT CMAKE_CROSSCOMPILING)
  set(tpacf_completion ${PROJECT_BINARY_DIR}/completion/tpacf)
  add_custom_command(OUTPUT ${tpacf_completion}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/completion
    COMMAND ${CMAKE_COMMAND} -E env ASAN_OPTIONS=detect_leaks=0 sh -c
            "\"$1\" --completion bash > \"$2\"" sh $<TARGET_FILE:tpacf> ${tpacf_completion}
    DEPENDS tpacf
    COMMENT "bash completion of tpacf from its flag tables" VERBATIM)
  add_custom_target(tpacf_bash_completion ALL DEPENDS ${tpacf_completion})
  install(FILES ${tpacf_completion} DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
          COMPONENT cli)
endif()
