#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds everything with AddressSanitizer and UndefinedBehaviorSanitizer and
# runs the whole test suite under them.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
# -O1 -g1: line tables are all a sanitizer's report needs, and on this
# project's Eigen- and Qt-heavy sources they compile in about 60% of the
# time of RelWithDebInfo's -O2 -g (measured on tst_windowheads.cpp,
# core/multihead.cpp and app/model/lab/session.cpp); CI has a time limit.
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DATTNLAB_SANITIZE=ON \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DATTNLAB_BUILD_BENCH=OFF >/dev/null
cmake --build build-asan -j2
# Qt's own libraries are not instrumented; leak reports from inside them are
# not ours, so leak checking is left to the fuzzers' narrower targets.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir build-asan --output-on-failure -j2 "$@"
