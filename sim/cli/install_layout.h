// Where the qacc binary finds the files it reads at run time, installed or in its build tree.
//
//   installed   <prefix>/bin/qacc         data in <prefix>/share/qacc (configs/*.json)
//   build tree  <build>/sim/qacc          data in the source tree it was built from
//
// The installed layout is looked for first, next to the running executable (/proc/self/exe), so an
// installed qacc reads its own copy even while the source tree it came from still exists, and a
// moved prefix keeps working. Only qacc validate needs the source tree itself (it edits and
// rebuilds the RTL).
#ifndef QACC_SIM_CLI_INSTALL_LAYOUT_H_
#define QACC_SIM_CLI_INSTALL_LAYOUT_H_

#include <filesystem>

namespace qacc::cli {

// The directory holding configs/: <exe dir>/../share/qacc when it exists (the relative path is the
// install's, fixed at configure time), else the source tree recorded at build time.
std::filesystem::path DataDir();

// The qacc checkout that qacc validate works on: $QACC_SOURCE_DIR when set, else the source tree
// recorded at build time. Throws UsageError saying so when it holds no scripts/qacc_validate.py
// (an installed qacc on a machine without the checkout).
std::filesystem::path ValidateSourceTree();

}  // namespace qacc::cli

#endif  // QACC_SIM_CLI_INSTALL_LAYOUT_H_
