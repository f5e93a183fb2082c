#!/usr/bin/env bash
# Installs every Debian package qacc needs. Idempotent: packages already present are skipped,
# and apt-get update runs only when something is missing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libgtest-dev libgmock-dev libbenchmark-dev
  libfmt-dev libcli11-dev nlohmann-json3-dev
  ccache  # the compiler cache (cmake/qacc_ccache.cmake, docs/sanitizers.md "Caches")
  libgemmlowp-dev
  libsystemc-dev verilator
  yosys  # qacc validate: equivalence proofs of surviving mutants (scripts/validate/yosys_equiv.py)
  zlib1g-dev
  curl  # scripts/systemc_sanitized.sh fetches Debian's SystemC source for the debug preset
  python3 python3-numpy
  clang llvm libclang-rt-14-dev  # libFuzzer harnesses and their coverage (scripts/fuzz.sh)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
echo "setup: installing ${missing[*]}"
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
