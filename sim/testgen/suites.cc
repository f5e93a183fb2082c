#include "sim/testgen/suites.h"

#include <fmt/format.h>

#include <stdexcept>

#include "sim/testgen/dma_tests.h"
#include "sim/testgen/gemm_tests.h"
#include "sim/testgen/lut_tests.h"
#include "sim/testgen/program_tests.h"

namespace qacc::sim {

namespace {

std::vector<TestInfo> GemmSuiteTests() {
  std::vector<TestInfo> tests;
  for (const GemmTestInfo& info : GemmTests()) tests.push_back({info.name, info.description});
  return tests;
}

}  // namespace

const std::vector<Suite>& Suites() {
  static const std::vector<Suite> suites = {
      {"gemm", "one GEMM + requant command per run, checked whole (docs/testplan.md)",
       GemmSuiteTests(),
       [](std::string_view test, uint64_t seed, const arch::ArchConfig& config) {
         return SingleJobProgram(config, MakeGemmTest(test, seed, config));
       }},
      {"program",
       "programs of commands: chains, illegal commands at every rule's boundary, bus traffic "
       "during commands, field extremes (docs/testplan.md)",
       ProgramTests(), MakeProgramTest},
      {"dma",
       "programs of LOAD / STORE descriptors launched with CTRL.RUN: every SRAM and layout both "
       "ways, counts and strides at their edges, back to back, overlapped with compute under "
       "tokens, queues and token counters full, errors in the middle (docs/testplan.md)",
       DmaTests(), MakeDmaTest},
      {"lut",
       "GEMMs with the LUT stage fused: random tables of every function, width and signedness in "
       "every slot, reloads between commands, every address of every slot (docs/testplan.md)",
       LutTests(), MakeLutTest},
  };
  return suites;
}

const Suite* FindSuite(std::string_view name) {
  for (const Suite& suite : Suites()) {
    if (suite.name == name) return &suite;
  }
  return nullptr;
}

const Suite* FindSuiteOfTest(std::string_view test) {
  for (const Suite& suite : Suites()) {
    for (const TestInfo& info : suite.tests) {
      if (info.name == test) return &suite;
    }
  }
  return nullptr;
}

std::string SuiteNames() {
  std::string names;
  for (const Suite& suite : Suites()) names += (names.empty() ? "" : ", ") + suite.name;
  return names;
}

Program MakeTest(std::string_view test, uint64_t seed, const arch::ArchConfig& config) {
  const Suite* suite = FindSuiteOfTest(test);
  if (suite == nullptr) {
    std::string valid;
    for (const Suite& s : Suites()) {
      for (const TestInfo& info : s.tests) valid += (valid.empty() ? "" : ", ") + info.name;
    }
    throw std::invalid_argument(
        fmt::format("unknown test '{}'; valid tests: {}", std::string(test), valid));
  }
  return suite->make(test, seed, config);
}

}  // namespace qacc::sim
