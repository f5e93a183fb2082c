#!/usr/bin/env bash
# Sets everything up, builds, and runs the main job. Until the co-simulation lands (issue 3) the main job is a
# short tour of the golden reference through the qacc command line.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh release
qacc=build/release/sim/qacc

step() { printf '\n$ qacc %s\n' "$*"; "$qacc" "$@"; }

step table-memory
step multiplier --scale 0.1234 --bits 32
step lut --func sigmoid --in-bits 4 --in-amax 8 --out-bits 8 --out-unsigned
step softmax-tables --n 16 --in-bits 4 --in-amax 6 --out-bits 4 --out-unsigned --acc-bits 16

# Calibrate a synthetic activation tensor: a Gaussian with a few large outliers.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 - "$work/act.npy" <<'PY'
import sys
import numpy as np
rng = np.random.default_rng(0)
x = rng.normal(0.0, 1.0, size=(64, 1024)).astype(np.float32)
x.flat[:8] = 40.0
np.save(sys.argv[1], x)
PY
for method in minmax kl percentile mse; do
  step calibrate "$work/act.npy" --method "$method"
done
