#pragma once
// The source tree this build was configured from: the tools find configs/ and docs/ there when they are not
// installed, and the tests read their data files from it.
//
// It is a variable, defined in one file that CMake generates (build_paths.cc, sim/CMakeLists.txt), and not a
// -D on every compile line: with no absolute path in the command lines, a clone of qacc in another folder
// compiles exactly what this one did and hits the same compiler cache (docs/sanitizers.md "Caches").

namespace qacc {
extern const char kBuildSourceDir[];
}  // namespace qacc

// The name the tests and tools have always used; a const char* (not a literal: no concatenation with "...").
#define QACC_SOURCE_DIR (::qacc::kBuildSourceDir)
