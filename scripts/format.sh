#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Formats every C++ source against .clang-format; with --check (CI) changes
# nothing and fails, naming the files, when one is not formatted. New files
# not yet added to git count too (not those .gitignore names).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "format.sh: clang-format is missing (scripts/deps.sh installs it)" >&2; exit 1; }
mapfile -t files < <(git ls-files --cached --others --exclude-standard '*.cpp' '*.h' | grep -v '^tests/fuzz/corpus/')
if [[ "${1:-}" == "--check" ]]; then
    clang-format --dry-run --Werror "${files[@]}"
    echo "format.sh: ${#files[@]} files formatted as .clang-format says"
else
    clang-format -i "${files[@]}"
fi
