#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Quick start, first command: installs what is missing, builds (Release) and
# launches Attention Lab. Arguments are passed to the application.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j2 --target attention-lab
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ] && [ $# -eq 0 ]; then
  echo "No display found: running the article's example headless into ./out instead." >&2
  exec build/app/attention-lab --export-dir out --format json,csv
fi
exec build/app/attention-lab "$@"
