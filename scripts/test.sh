#!/usr/bin/env bash
# Sets everything up, builds, and runs every test. Exits non-zero when any test fails.
#   scripts/test.sh                      CI's stages in order: release, debug (AddressSanitizer and
#                                        UBSan), tsan (ThreadSanitizer on the two-thread code), fuzz
#                                        (every libFuzzer harness for a few seconds)
#   scripts/test.sh PRESET [ctest args]  one preset's tests only (release, debug or tsan)
# Tests labelled `slow` (long sweeps and regressions) run only with QACC_SLOW=1 in the environment.
# Every stage prints its wall time and fails when it runs over its budget: CI has 90 minutes, and the
# budgets (docs/sanitizers.md "CI time budget") keep the four stages well inside them as configs and
# units are added.
set -euo pipefail
cd "$(dirname "$0")/.."

label_filter=(-LE slow)
[ "${QACC_SLOW:-0}" = 1 ] && label_filter=()

# Each step's wall time goes to build/ci_steps.txt, and each preset's ctest output to build/PRESET/ctest.log, for
# scripts/ci_profile.py (docs/sanitizers.md "Where the minutes go").
timed() {  # WHAT COMMAND...
  local what=$1 start=$SECONDS
  shift
  "$@"
  printf '%s: %d s\n' "$what" $((SECONDS - start)) >>build/ci_steps.txt
}

run_preset() {  # PRESET [ctest args]
  local preset=$1
  shift
  timed "$preset build" bash scripts/build.sh "$preset"
  timed "$preset tests" run_ctest "$preset" "$@"
}

run_ctest() {  # PRESET [ctest args]
  local preset=$1
  shift
  ctest --preset "$preset" -j "$(nproc)" "${label_filter[@]}" "$@" | tee "build/$preset/ctest.log"
  return "${PIPESTATUS[0]}"
}

# The debug preset runs the same tests as the release preset (and its own sanitizer checks): none is
# dropped because it is slow or noisy under the sanitizers.
same_tests_as_release() {
  local missing
  missing=$(comm -23 <(ctest --preset release -N "${label_filter[@]}" | sed -n 's/^ *Test *#[0-9]*: //p' | sort) \
                     <(ctest --preset debug -N "${label_filter[@]}" | sed -n 's/^ *Test *#[0-9]*: //p' | sort))
  if [ -n "$missing" ]; then
    echo "test.sh: the debug preset lacks tests of the release preset:"
    echo "$missing"
    return 1
  fi
  echo "test.sh: the debug preset has every test of the release preset"
}

stage() {  # NAME BUDGET_MINUTES COMMAND...
  local name=$1 budget=$2
  shift 2
  local start=$SECONDS
  echo "=== stage $name (budget $budget min)"
  "$@"
  local seconds=$((SECONDS - start))
  printf '=== stage %s: %d min %02d s (budget %d min)\n' "$name" $((seconds / 60)) $((seconds % 60)) "$budget" |
    tee -a build/ci_times.txt
  if [ "$seconds" -gt $((budget * 60)) ]; then
    echo "test.sh: stage $name took longer than its budget of $budget minutes"
    return 1
  fi
}

mkdir -p build
if [ $# -gt 0 ]; then
  bash scripts/setup.sh
  run_preset "$@"
  exit
fi
: >build/ci_times.txt
: >build/ci_steps.txt
timed setup bash scripts/setup.sh
stage release 25 run_preset release
debug_stage() {
  run_preset debug
  same_tests_as_release
}
stage debug 40 debug_stage
stage tsan 3 run_preset tsan
stage fuzz 12 timed "fuzz build and runs" bash scripts/fuzz.sh 10
