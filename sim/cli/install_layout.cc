#include "sim/cli/install_layout.h"

#include <fmt/format.h>

#include <cstdlib>
#include <string>
#include <system_error>

#include "sim/build_paths.h"
#include "sim/cli/common.h"

namespace qacc::cli {

namespace fs = std::filesystem;

// QACC_SOURCE_DIR: the source tree of the build (sim/build_paths.h). QACC_DATA_FROM_BIN: the installed data directory
// relative to the installed bin directory ("../share/qacc" for the default GNU layout).

fs::path DataDir() {
  static const fs::path dir = [] {
    std::error_code error;
    const fs::path exe = fs::read_symlink("/proc/self/exe", error);
    if (!error) {
      const fs::path installed = (exe.parent_path() / QACC_DATA_FROM_BIN).lexically_normal();
      if (fs::is_directory(installed / "configs", error)) return installed;
    }
    return fs::path(QACC_SOURCE_DIR);
  }();
  return dir;
}

fs::path ValidateSourceTree() {
  const char* from_env = std::getenv("QACC_SOURCE_DIR");
  const bool overridden = from_env != nullptr && *from_env != '\0';
  const fs::path tree = overridden ? fs::path(from_env) : fs::path(QACC_SOURCE_DIR);
  std::error_code error;
  if (!fs::is_regular_file(tree / "scripts" / "qacc_validate.py", error)) {
    throw UsageError(fmt::format(
        "validate needs a qacc source tree (it edits and rebuilds the RTL): {} {} has no "
        "scripts/qacc_validate.py; set QACC_SOURCE_DIR to a qacc checkout",
        tree.string(),
        overridden ? "(QACC_SOURCE_DIR)" : "(the source tree this qacc was built from)"));
  }
  return tree;
}

}  // namespace qacc::cli
