#!/usr/bin/env bash
# The installed qacc as a user gets it (CTest install_tree, label install; cmake/qacc_install.cmake):
#   1. `cmake --install` of this build into a temporary prefix, then the prefix moved elsewhere (nothing in its
#      CMake package may point at where it was installed, its imported targets not at the source or build tree);
#   2. tests/install/example built against the moved prefix's CMake package and run: a GEMM through
#      qacc::model::Accelerator, equal to the golden result (and the copy of its source in docs/api.md current);
#   3. the installed qacc run from a directory outside the source and build trees: its default config is the
#      prefix's, a lockstep co-simulation and a regression (child processes) pass, qacc validate without a source
#      tree says what it needs.
# Usage: install_test.sh BUILD_DIR SOURCE_DIR CMAKE GENERATOR CXX_COMPILER [LINK_FLAGS]
#   LINK_FLAGS: what a program linking this build's static libraries needs (the sanitizers of the debug preset).
set -euo pipefail
build=$1 source=$2 cmake=$3 generator=$4 cxx=$5 link_flags=${6:-}

work=$(mktemp -d "${TMPDIR:-/tmp}/qacc-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "--- $*"; }

step "install into $work/staged, then move it to $work/prefix"
"$cmake" --install "$build" --prefix "$work/staged" > "$work/install.log"
mv "$work/staged" "$work/prefix"
prefix=$work/prefix
for file in bin/qacc share/qacc/configs/default.json include/qacc/model/accelerator.h include/qacc/golden/gemm.h \
            share/doc/qacc/api.md; do
  [ -f "$prefix/$file" ] || fail "$file is not installed"
done
package=$(dirname "$(find "$prefix" -name qaccConfig.cmake)")
[ "$package" != . ] || fail "no qaccConfig.cmake installed"
if grep -l -e "$work/staged" "$package"/*; then
  fail "the CMake package above names the directory it was installed to"
fi
if grep -l -e "$source" -e "$build" "$package"/qaccTargets*.cmake; then
  fail "the imported targets above name the source or build tree"
fi

step "docs/api.md shows tests/install/example/main.cc as it is"
awk '/^<!-- tests\/install\/example\/main.cc -->$/ {grab = 1; next}
     grab && /^```cpp$/ {inside = 1; next}
     inside && /^```$/ {exit}
     inside {print}' "$source/docs/api.md" > "$work/api_example.cc"
diff -u "$source/tests/install/example/main.cc" "$work/api_example.cc" ||
  fail "docs/api.md's example differs from tests/install/example/main.cc"

step "build tests/install/example against the installed package"
"$cmake" -S "$source/tests/install/example" -B "$work/example" -G "$generator" -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_EXE_LINKER_FLAGS="$link_flags" \
  > "$work/configure.log" || { cat "$work/configure.log"; fail "configuring the example"; }
"$cmake" --build "$work/example" -j 2 > "$work/build.log" || { cat "$work/build.log"; fail "building the example"; }

# Everything below runs from here: no relative path can reach the source or build tree.
mkdir "$work/run"
cd "$work/run"

step "run the example"
./../example/gemm_example | tee example.txt
grep -q "0 of 120 outputs differ" example.txt || fail "the example's GEMM differs from golden"
../example/gemm_example "$prefix/share/qacc/configs/rect_4x16.json" | tee example_rect.txt
grep -q "on rect_4x16 (4x16)" example_rect.txt || fail "the example did not run on rect_4x16"

qacc=$prefix/bin/qacc
default_config=$prefix/share/qacc/configs/default.json
step "$qacc"
"$qacc" --version
"$qacc" cosim --help > cosim_help.txt
grep -qF -- "--config TEXT=$default_config" cosim_help.txt || fail "qacc cosim --help does not show $default_config"
"$qacc" table-memory > /dev/null
"$qacc" cosim --test gemm_k1 --seed 1 | tee cosim.txt
grep -qF "config $default_config (" cosim.txt || fail "qacc cosim did not use the prefix's default config"
grep -q "^  PASS$" cosim.txt || fail "qacc cosim failed"
"$qacc" regress --suite program --seeds 1 -j 2 --json regress.json -o regress.txt ||
  { cat regress.txt; fail "qacc regress failed"; }
grep -qF "\"config\": \"$default_config\"" regress.json || fail "qacc regress did not use the prefix's default config"

step "qacc validate without a source tree"
status=0
QACC_SOURCE_DIR=$work/no-checkout "$qacc" validate --help 2> validate.txt || status=$?
cat validate.txt
[ "$status" = 2 ] || fail "qacc validate exited $status, expected 2"
grep -q "validate needs a qacc source tree" validate.txt || fail "qacc validate did not say what it needs"

echo "PASS"
