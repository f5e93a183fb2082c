#!/usr/bin/env bash
# Configures and builds qacc with a CMake preset (default: release): every target of the preset, or only the
# targets named. Usage: scripts/build.sh [preset [target...]]
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-release}
shift || true
targets=()
[ $# -gt 0 ] && targets=(--target "$@")
# The debug preset links a SystemC built with the sanitizers (docs/sanitizers.md), cached outside the clone and
# linked as build/systemc-sanitized.
[ "$preset" = debug ] && bash scripts/systemc_sanitized.sh "$PWD/build/systemc-sanitized"
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)" "${targets[@]}"
