#pragma once
// The qacc binary of this build, which the command-line tests run. Like QACC_SOURCE_DIR (sim/build_paths.h), a
// variable defined in one generated file (qacc_binary.cc, tests/CMakeLists.txt) instead of a -D on every
// test's compile line, so that the compile lines hold no absolute path and another clone hits the compiler cache.

namespace qacc::test {
extern const char kQaccBinary[];
}  // namespace qacc::test

// A const char* (not a literal: no concatenation with "...").
#define QACC_BINARY (::qacc::test::kQaccBinary)
