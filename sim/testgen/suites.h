// The test suites `qacc cosim --test` and `qacc regress --suite` know, in one table: a new suite is
// one row here (its tests and its program generator), nothing else. Test names are unique over all
// suites, so a test is named without its suite.
#ifndef QACC_SIM_TESTGEN_SUITES_H_
#define QACC_SIM_TESTGEN_SUITES_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "model/arch.h"
#include "sim/testgen/program.h"

namespace qacc::sim {

struct TestInfo {
  std::string name;
  std::string description;
};

struct Suite {
  std::string name;
  std::string description;
  std::vector<TestInfo> tests;  // in plan order (the regression schedule follows it)
  // Deterministic: the same (test, seed, config) gives the same program on every platform.
  std::function<Program(std::string_view test, uint64_t seed, const arch::ArchConfig& config)>
      make;
};

const std::vector<Suite>& Suites();
// The suite of that name, or nullptr.
const Suite* FindSuite(std::string_view name);
// The suite holding `test`, or nullptr.
const Suite* FindSuiteOfTest(std::string_view test);
// "gemm, program".
std::string SuiteNames();
// The program of `test`; throws std::invalid_argument naming the test and the valid names.
Program MakeTest(std::string_view test, uint64_t seed, const arch::ArchConfig& config);

}  // namespace qacc::sim

#endif  // QACC_SIM_TESTGEN_SUITES_H_
