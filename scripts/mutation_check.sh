#!/usr/bin/env bash
# Checks that the co-simulation regression catches a deliberately broken RTL: copies rtl/, applies one named
# mutation, builds the co-simulation against the copy (separate build directory, default config only), runs the
# gemm regression and expects it to FAIL. Exit 0 when the mutant is caught, 1 when it survives.
#   scripts/mutation_check.sh MUTANT [seeds per test, default 10]
# Mutants:
#   rounding-ties  requant lane: the first rounding shift rounds ties down instead of up (2^(sh-1) - 1 added)
#   rounding-trunc requant lane: the first rounding shift truncates (no rounding constant)
#   skew-b3        MAC array: column 3 of B reaches the PEs one cycle early (delay line one stage short)
#   perf-feed-stall controller: PERF_FEED_STALL counts only the stalls of the last tile
set -euo pipefail
cd "$(dirname "$0")/.."
mutant=${1:?usage: scripts/mutation_check.sh rounding-ties|rounding-trunc|skew-b3|perf-feed-stall [seeds]}
seeds=${2:-10}

case "$mutant" in
  rounding-ties)
    file=qacc_requant_lane.sv
    from="(65'd1 << (s2_q.sh1 - 6'd1))"
    to="((65'd1 << (s2_q.sh1 - 6'd1)) - 65'd1)" ;;
  rounding-trunc)
    file=qacc_requant_lane.sv
    from="(65'd1 << (s2_q.sh1 - 6'd1))"
    to="(65'd0 << (s2_q.sh1 - 6'd1))" ;;
  skew-b3)
    file=qacc_mac_array.sv
    from="assign v_b[0][c] = dly_b_q[c-1];"
    to="assign v_b[0][c] = (c == 3) ? dly_b_d[c-1] : dly_b_q[c-1];" ;;
  perf-feed-stall)
    file=qacc_ctrl.sv
    from="perf_feed_stall_q + 32'(feed_stall);"
    to="perf_feed_stall_q + 32'(feed_stall && feed_last_tile);" ;;
  *) echo "mutation_check: unknown mutant '$mutant' (rounding-ties, rounding-trunc, skew-b3, perf-feed-stall)" >&2; exit 2 ;;
esac

work=build/mutants/$mutant
rm -rf "$work/rtl"
mkdir -p "$work"
cp -r rtl "$work/rtl"
FROM="$from" TO="$to" /usr/bin/python3 - "$work/rtl/$file" <<'PY'
import os, sys
path = sys.argv[1]
text = open(path).read()
count = text.count(os.environ["FROM"])
if count != 1:
    sys.exit(f"mutation_check: expected the pattern once in {path}, found it {count} times")
open(path, "w").write(text.replace(os.environ["FROM"], os.environ["TO"]))
PY
echo "mutation_check: $mutant applied to $file"

cmake -S . -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
  -DQACC_COSIM_RTL_DIR="$PWD/$work/rtl" -DQACC_COSIM_CONFIGS=default >/dev/null
cmake --build "$work/build" -j "$(nproc)" --target qacc >/dev/null

set +e
"$work/build/sim/qacc" regress --suite gemm --seeds "$seeds" -j "$(nproc)" --config configs/default.json \
  --json "$work/regress.json" > "$work/regress.txt" 2>&1
rc=$?
set -e
tail -n 25 "$work/regress.txt"
if [ $rc -eq 1 ]; then
  # Show the precise report of the first failing run, rerun alone with the mutant build.
  first=$(/usr/bin/python3 -c 'import json, sys
runs = [r for r in json.load(open(sys.argv[1]))["runs"] if r["status"] != "pass"]
print(runs[0]["test"], runs[0]["seed"]) if runs else None' "$work/regress.json")
  if [ -n "$first" ]; then
    set -- $first
    echo; echo "first failing run, rerun alone:"
    "$work/build/sim/qacc" cosim --test "$1" --seed "$2" --config configs/default.json \
      --waves "$work/first_mismatch.fst" || true
  fi
  echo "mutation_check: $mutant CAUGHT (regression failed as it must)"
  exit 0
fi
echo "mutation_check: $mutant SURVIVED (regression exit code $rc)"
exit 1
