# SPDX-License-Identifier: GPL-3.0-or-later
# attnlab_warnings(TARGET ...): every target of ours builds with -Wall
# -Wextra -Wpedantic; with ATTNLAB_WERROR (CI) a warning fails the build.
function(attnlab_warnings)
  foreach(t ${ARGN})
    target_compile_options(${t} PRIVATE
      $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra -Wpedantic>
      $<$<AND:$<BOOL:${ATTNLAB_WERROR}>,$<CXX_COMPILER_ID:GNU,Clang>>:-Werror>)
  endforeach()
endfunction()
