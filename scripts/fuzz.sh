#!/usr/bin/env bash
# Builds the libFuzzer harnesses (the `fuzz` preset: clang, ASan + UBSan, source coverage) and runs each
# from a copy of its committed corpus (docs/fuzzing.md).
#
#   scripts/fuzz.sh [SECONDS | --runs N] [HARNESS...]
#
# SECONDS (default 60) is each harness's time (-max_total_time), --runs N its executions instead. Without
# names every harness runs (build/fuzz/tests/fuzz/harnesses.txt lists them). Per harness it prints the
# executions, the findings (0, or the saved inputs) and the line coverage of the harness's parser files that
# the final corpus reaches (each corpus file replayed once, llvm-profdata + llvm-cov on those files only).
# The corpus grows in build/fuzz/results/HARNESS/corpus, never in the source tree. The table is written to
# build/fuzz/results/summary.md and summary.json. Exits 1 on any finding, 2 on a usage error.
set -euo pipefail
cd "$(dirname "$0")/.."

budget=(-max_total_time=60)
budget_text="60 s"
if [[ $# -gt 0 && $1 == --runs ]]; then
  [[ $# -ge 2 && $2 =~ ^[0-9]+$ && $2 -gt 0 ]] || { echo "fuzz.sh: --runs needs a positive count" >&2; exit 2; }
  budget=(-runs="$2"); budget_text="$2 runs"; shift 2
elif [[ $# -gt 0 && $1 =~ ^[0-9]+$ ]]; then
  [[ $1 -gt 0 ]] || { echo "fuzz.sh: SECONDS must be > 0" >&2; exit 2; }
  budget=(-max_total_time="$1"); budget_text="$1 s"; shift
fi

tool() {  # the unversioned LLVM tool of the `llvm` package, else clang 14's
  command -v "$1" 2>/dev/null || command -v "$1-14" 2>/dev/null || { echo "fuzz.sh: $1 not found (scripts/setup.sh installs llvm)" >&2; exit 2; }
}
profdata=$(tool llvm-profdata)
cov=$(tool llvm-cov)

cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$(nproc)"

build=build/fuzz
results=$build/results
manifest=$build/tests/fuzz/harnesses.txt
declare -A parsers
all=()
while read -r name files; do
  parsers[$name]=$files
  all+=("$name")
done <"$manifest"
selected=("$@")
[[ ${#selected[@]} -gt 0 ]] || selected=("${all[@]}")
for h in "${selected[@]}"; do
  [[ -n ${parsers[$h]+x} ]] || { echo "fuzz.sh: unknown harness '$h'; harnesses: ${all[*]}" >&2; exit 2; }
done

mkdir -p "$results"
rows=()
failed=0
for h in "${selected[@]}"; do
  work=$results/$h
  binary=$build/tests/fuzz/${h}_fuzz
  rm -rf "$work"
  mkdir -p "$work/corpus"
  cp tests/fuzz/corpus/"$h"/* "$work/corpus/"
  seeds=$(ls "$work/corpus" | wc -l)
  echo "== $h: $budget_text from $seeds seed inputs"
  start=$(date +%s.%N)
  status=0
  LLVM_PROFILE_FILE="$work/fuzz-%p.profraw" "$binary" "${budget[@]}" -print_final_stats=1 \
    -artifact_prefix="$work/" "$work/corpus" >"$work/fuzz.log" 2>&1 || status=$?
  seconds=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.0f", e - s }')
  rm -f "$work"/fuzz-*.profraw
  executions=$(awk '/stat::number_of_executed_units/ { print $2 }' "$work/fuzz.log" | tail -1)
  findings=$(ls "$work" | grep -E '^(crash|leak|timeout|oom|slow-unit)-' || true)
  if [[ -z $findings && $status -ne 0 ]]; then findings="exit status $status (see $work/fuzz.log)"; fi

  # Line coverage of the parser files reached by the final corpus, each input replayed once.
  LLVM_PROFILE_FILE="$work/cov-%p.profraw" "$binary" -runs=0 "$work/corpus" >"$work/replay.log" 2>&1 || true
  "$profdata" merge -sparse -o "$work/coverage.profdata" "$work"/cov-*.profraw
  rm -f "$work"/cov-*.profraw
  files=()
  for f in ${parsers[$h]}; do files+=("$PWD/$f"); done
  "$cov" export -summary-only -instr-profile="$work/coverage.profdata" "$binary" "${files[@]}" >"$work/coverage.json"
  coverage=$(/usr/bin/python3 - "$work/coverage.json" "$PWD/" <<'EOF'
import json, sys
data = json.load(open(sys.argv[1]))["data"][0]
covered = count = 0
parts = []
for f in data["files"]:
    lines = f["summary"]["lines"]
    covered += lines["covered"]; count += lines["count"]
    parts.append("%s %.1f%%" % (f["filename"].replace(sys.argv[2], ""), lines["percent"]))
print("%.1f%% (%d/%d lines: %s)" % (100.0 * covered / max(count, 1), covered, count, ", ".join(parts)))
EOF
)
  corpus=$(ls "$work/corpus" | wc -l)
  if [[ -n $findings ]]; then
    failed=1
    echo "   FINDING: $(echo $findings | tr '\n' ' ')"
  fi
  echo "   executions $executions in $seconds s, findings ${findings:-0}, corpus $seeds -> $corpus inputs"
  echo "   parser line coverage $coverage"
  rows+=("$h|$executions|$seconds|${findings:-0}|$corpus|$coverage")
done

{
  echo "| harness | executions | seconds | findings | corpus | parser line coverage |"
  echo "|---|---|---|---|---|---|"
  for r in "${rows[@]}"; do echo "| ${r//|/ | } |"; done
} >"$results/summary.md"
/usr/bin/python3 - "$results/summary.json" "${rows[@]}" <<'EOF'
import json, sys
keys = ["harness", "executions", "seconds", "findings", "corpus", "parser_line_coverage"]
rows = [dict(zip(keys, r.split("|"))) for r in sys.argv[2:]]
json.dump({"harnesses": rows}, open(sys.argv[1], "w"), indent=2)
EOF
echo "summary: $results/summary.md"
cat "$results/summary.md"
exit $failed
