#!/usr/bin/env bash
# Sets everything up, builds, and runs the main job: a short lockstep co-simulation regression (Verilated RTL
# and SystemC model compared every cycle, both compared with the golden reference) of every suite on the
# default configuration, which must also hit every functional coverage bin. Usage: scripts/run.sh [seeds per
# test, default 5]
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=${1:-5}
bash scripts/setup.sh
# Only the qacc binary: the regression needs nothing else, and the tests are scripts/test.sh's to build.
bash scripts/build.sh release qacc
mkdir -p build/reports
exec build/release/sim/qacc regress --suite all --seeds "$seeds" -j "$(nproc)" --require-coverage \
  --config configs/default.json --junit build/reports/regress.xml --json build/reports/regress.json
