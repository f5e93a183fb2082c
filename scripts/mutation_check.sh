#!/usr/bin/env bash
# Checks that the co-simulation regression catches a deliberately broken RTL: copies rtl/, applies one named
# mutation, builds the co-simulation against the copy (one build directory shared by all mutants, default config,
# no traced build), runs the main job's regression (every suite, 5 seeds per test) and expects it to FAIL.
# Exit 0 when the mutant is caught, 1 when it survives.
#   scripts/mutation_check.sh MUTANT [seeds per test, default 5]
#   scripts/mutation_check.sh --list
# Mutants (unit: what is broken):
#   rounding-ties      requant lane: the first rounding shift rounds ties down instead of up
#   rounding-trunc     requant lane: the first rounding shift truncates (no rounding constant)
#   skew-b3            MAC array: column 3 of B reaches the PEs one cycle early
#   perf-feed-stall    perf counters: PERF_FEED_STALL counts only the stalls of the last tile
#   perf-cmd-count     perf counters: PERF_CMD_COUNT is cleared at each launch like the others
#   ctrl-a-range       controller: A_RANGE rejects the last legal A_BASE (>= instead of >)
#   regs-busy-window   bus/register file: SRAM window accesses are not refused while BUSY
#   regs-error-w1c     bus/register file: the ERROR W1C leaves ERR_CODE set
#   irq-enable         bus/register file: irq_o ignores CTRL.IRQ_EN
#   out-be-pad-lane    output writer: int32 mode enables the byte lanes of the first padded column
#   sram-win-strobe    SRAM window: a host write always writes byte 0, whatever pstrb says
set -euo pipefail
cd "$(dirname "$0")/.."
mutants="rounding-ties rounding-trunc skew-b3 perf-feed-stall perf-cmd-count ctrl-a-range regs-busy-window
regs-error-w1c irq-enable out-be-pad-lane sram-win-strobe"
if [ "${1:-}" = "--list" ]; then echo $mutants; exit 0; fi
mutant=${1:?usage: scripts/mutation_check.sh MUTANT [seeds] (scripts/mutation_check.sh --list)}
seeds=${2:-5}

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
  perf-cmd-count)
    file=qacc_ctrl.sv
    from=$'perf_feed_stall_q <= \'0;\n    end else begin'
    to=$'perf_feed_stall_q <= \'0;\n      perf_cmd_count_q  <= \'0;\n    end else begin' ;;
  ctrl-a-range)
    file=qacc_ctrl.sv
    from="(a_need > WideW'(ADepth))"
    to="(a_need >= WideW'(ADepth))" ;;
  regs-busy-window)
    file=qacc_regs.sv
    from="err = !win_in_range || busy_i;"
    to="err = !win_in_range;" ;;
  regs-error-w1c)
    file=qacc_regs.sv
    from=$'error_d    = 1\'b0;\n            err_code_d = ErrNone;'
    to=$'error_d    = 1\'b0;' ;;
  irq-enable)
    file=qacc_regs.sv
    from="assign irq_o = done_q & irq_en_q;"
    to="assign irq_o = done_q;" ;;
  out-be-pad-lane)
    file=qacc_ctrl.sv
    from="out_be_d[4*c +: 4]     = {4{w_n_rem_q > CntW'(c)}};"
    to="out_be_d[4*c +: 4]     = {4{w_n_rem_q >= CntW'(c)}};" ;;
  sram-win-strobe)
    file=qacc_sram_win.sv
    from="(SubW'(j) == host_sub) ? host_wstrb_i : 4'b0000;"
    to="(SubW'(j) == host_sub) ? (host_wstrb_i | 4'b0001) : 4'b0000;" ;;
  *) echo "mutation_check: unknown mutant '$mutant' (one of: $mutants)" >&2; exit 2 ;;
esac

# One RTL copy and one build directory for every mutant: a new mutant re-Verilates qacc_top only.
work=build/mutants
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
  -DQACC_COSIM_RTL_DIR="$PWD/$work/rtl" -DQACC_COSIM_CONFIGS=default -DQACC_COSIM_WAVES=OFF >/dev/null
if ! cmake --build "$work/build" -j "$(nproc)" --target qacc > "$work/build.log" 2>&1; then
  tail -n 20 "$work/build.log"
  echo "mutation_check: the build of the mutant failed (not a verdict)" >&2
  exit 2
fi

set +e
"$work/build/sim/qacc" regress --suite all --seeds "$seeds" -j "$(nproc)" --config configs/default.json \
  --json "$work/$mutant.json" > "$work/$mutant.txt" 2>&1
rc=$?
set -e
failed=$(/usr/bin/python3 -c 'import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
print("%d of %d runs" % (sum(r["status"] != "pass" for r in runs), len(runs)))' "$work/$mutant.json" 2>/dev/null || echo "?")
tail -n 3 "$work/$mutant.txt"
if [ $rc -eq 1 ]; then
  # Show the precise report of the first failing run, rerun alone with the mutant build.
  first=$(/usr/bin/python3 -c 'import json, sys
runs = [r for r in json.load(open(sys.argv[1]))["runs"] if r["status"] != "pass"]
print(runs[0]["test"], runs[0]["seed"]) if runs else None' "$work/$mutant.json")
  if [ -n "$first" ]; then
    set -- $first
    echo; echo "first failing run, rerun alone:"
    "$work/build/sim/qacc" cosim --test "$1" --seed "$2" --config configs/default.json | head -n 12 || true
  fi
  echo "mutation_check: $mutant CAUGHT by $failed (regression failed as it must)"
  exit 0
fi
echo "mutation_check: $mutant SURVIVED (regression exit code $rc, $failed failed)"
exit 1
