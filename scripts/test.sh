#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Quick start, second command: installs what is missing, builds (Release)
# and runs every test through CTest. GUI tests use the offscreen platform.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
# ATTNLAB_WERROR=ON (CI) makes every compiler warning an error.
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DATTNLAB_WERROR="${ATTNLAB_WERROR:-OFF}" >/dev/null
cmake --build build -j2
ctest --test-dir build --output-on-failure -j2 "$@"
