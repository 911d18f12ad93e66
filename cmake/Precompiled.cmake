# SPDX-License-Identifier: GPL-3.0-or-later
# attnlab_precompile(TARGET HEADER...): TARGET's sources compile against one
# precompiled header of HEADERs, the library headers (Qt's, Eigen's, the
# standard library's) that nearly every one of its files includes. Parsing
# them was most of a file's compile time: 2-5 s of a test's 3-9 s. The
# headers must not be the project's own: a change to those then recompiles
# only the files that include them. The fuzzers' build (clang, few files)
# takes none.
option(ATTNLAB_PCH "Precompile the Qt and Eigen headers each library includes" ON)

function(attnlab_precompile target)
  if(ATTNLAB_PCH AND NOT ATTNLAB_BUILD_FUZZERS)
    target_precompile_headers(${target} PRIVATE ${ARGN})
  endif()
endfunction()
