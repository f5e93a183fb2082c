#!/usr/bin/env bash
# Sets everything up, builds, and runs every test. Usage: scripts/test.sh [preset] [extra ctest args]
# Exits non-zero when any test fails.
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-release}
shift || true
bash scripts/setup.sh
bash scripts/build.sh "$preset"
ctest --preset "$preset" -j "$(nproc)" "$@"
