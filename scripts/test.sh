#!/usr/bin/env bash
# Sets everything up, builds, and runs every test. Usage: scripts/test.sh [preset] [extra ctest args]
# Tests labelled `slow` (long sweeps and regressions) run only with QACC_SLOW=1 in the environment.
# Exits non-zero when any test fails.
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-release}
shift || true
bash scripts/setup.sh
bash scripts/build.sh "$preset"
label_filter=(-LE slow)
[ "${QACC_SLOW:-0}" = 1 ] && label_filter=()
ctest --preset "$preset" -j "$(nproc)" "${label_filter[@]}" "$@"
