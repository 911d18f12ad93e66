#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds the libFuzzer targets with clang (ASan + UBSan) and runs each for a
# bounded time, seeded from tests/fuzz/corpus/NAME. A crash fails the run;
# its input is written to build-fuzz/artifacts/NAME-crash-... to be kept as a
# regression case in tests/fuzz/corpus/NAME/. Time and memory are findings too: an
# input that takes over 5 s or a run above 512 MB (ASan's own overhead
# included) stops it, so a reader whose cost is not bounded by its input
# (quadratic keys, blank lines, nested arrays) is caught like a crash.
#   scripts/fuzz.sh [SECONDS_PER_TARGET]   (default 60)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
ATTNLAB_EXTRA_PACKAGES="clang libclang-rt-14-dev" scripts/deps.sh
CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DATTNLAB_BUILD_FUZZERS=ON -DATTNLAB_BUILD_GUI=OFF -DATTNLAB_BUILD_TESTS=OFF \
  -DATTNLAB_BUILD_BENCH=OFF >/dev/null
cmake --build build-fuzz -j2
# The targets run side by side, one a core (ATTNLAB_FUZZ_JOBS, default every
# core): each still has SECONDS of a core of its own, so the coverage is the
# sequential run's, and 7 targets take 4 rounds instead of 7 on 2 cores.
# Each target's summary is printed in order once all have run.
jobs=${ATTNLAB_FUZZ_JOBS:-$(nproc)}
rm -rf build-fuzz/logs
mkdir -p build-fuzz/artifacts build-fuzz/logs
run_target() {
  local name=$1
  local corpus=tests/fuzz/corpus/${name#fuzz_}
  local work=build-fuzz/corpus/${name#fuzz_}
  mkdir -p "$work"
  {
    echo "== $name: ${seconds}s, seeds from $corpus"
    build-fuzz/tests/fuzz/$name -max_total_time="$seconds" -timeout=5 -rss_limit_mb=512 \
      -max_len=65536 -artifact_prefix="build-fuzz/artifacts/$name-" -print_final_stats=1 \
      "$work" "$corpus" 2>&1 | grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss_mb|==[0-9]+==ERROR|SUMMARY|artifact_prefix|Test unit written)" || true
  } > "build-fuzz/logs/$name.log"
}
names=()
for src in tests/fuzz/fuzz_*.cpp; do
  name=$(basename "$src" .cpp)
  names+=("$name")
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  run_target "$name" &
done
wait
status=0
for name in "${names[@]}"; do
  cat "build-fuzz/logs/$name.log"
  if ls build-fuzz/artifacts/ | grep -q "^$name-"; then
    echo "fuzz: $name found a crash: see build-fuzz/artifacts/$name-*" >&2
    status=1
  fi
done
[ "$status" -eq 0 ] || exit 1
echo "fuzz: no crash in any target"
